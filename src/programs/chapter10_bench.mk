# chapter10_bench.mk: make bench times chapter 10's tiled attention, the
# forward and the forward with the backward, one head, d = 64, at n = 1024
# to 8192 (tests/bench/bench_chapter10.c), against attention written the
# usual way in PyTorch (tests/reference/bench_torch10.py) measured in the
# same run, prints the ratios and the tiled forward's share of the
# measured peak at n = 4096 with the backward's, and the most the peak
# allows; keeps them in build/out/bench-chapter10.txt.
# A few minutes on two busy cores: make test never runs it, and the book
# does not quote it.
BENCH10 := $(BUILD)/bench/bench_chapter10
BENCH_TARGETS += bench-chapter10
.PHONY: bench-chapter10
$(BENCH10): tests/bench/bench_chapter10.c tests/bench/bench.h $(BUILD)/libattn.a $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(STD_CFLAGS) $(CFLAGS) $(LDFLAGS) $< $(BUILD)/libattn.a $(LIBS) $(LDLIBS) -o $@

bench-chapter10: $(BENCH10) | $(BUILD)/out
	@sh tests/setup.sh $(BENCH8_PKGS) || echo "bench: without $(BENCH8_PKGS), PyTorch is left out"
	@rm -f $(BUILD)/out/bench-chapter10.txt
	@if $(PYTHON) -c "import torch" 2>/dev/null; then \
	  echo "bench: chapter 10's attention, PyTorch (tests/reference/bench_torch10.py)"; \
	  echo "bench: and C ($(BENCH10)) in turn"; \
	  $(BENCH10) --torch "$(PYTHON) tests/reference/bench_torch10.py" \
	    > $(BUILD)/out/bench-chapter10.txt.tmp; \
	else \
	  echo "bench: no PyTorch for $(PYTHON) (Debian's python3-torch): the C side only"; \
	  $(BENCH10) > $(BUILD)/out/bench-chapter10.txt.tmp; \
	fi
	@mv $(BUILD)/out/bench-chapter10.txt.tmp $(BUILD)/out/bench-chapter10.txt
	@cat $(BUILD)/out/bench-chapter10.txt

# Timed after the other benchmarks when they are asked for too (as make
# bench asks), never beside them (make -j).
ifneq ($(filter bench-chapter8,$(MAKECMDGOALS)),)
bench-chapter10: | bench-chapter8
endif

# make cachegrind-chapter10: the data cache misses of one forward pass of
# naive and of tiled attention (one thread, d = 64) at n = 1024 and 4096,
# counted by valgrind's cachegrind with this machine's caches, beside the
# bytes chapter 10 counts them moving, in 64-byte lines: naive 4 (4 n^2 +
# 4 n d), tiled from memory 16 n d. About six minutes under valgrind on two
# busy cores; nothing else runs it.
CACHE10 := $(BUILD)/bench/cache_chapter10
.PHONY: cachegrind-chapter10
$(CACHE10): tests/bench/cache_chapter10.c $(BUILD)/libattn.a $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(STD_CFLAGS) $(CFLAGS) $(LDFLAGS) $< $(BUILD)/libattn.a $(LIBS) $(LDLIBS) -o $@

cachegrind-chapter10: $(CACHE10)
	@sh tests/setup.sh valgrind
	@printf '%-6s %5s %14s %14s %14s\n' kernel n "D1 misses" "LL misses" "counted lines"
	@for n in 1024 4096; do for kind in naive tiled; do \
	  if [ $$kind = naive ]; then lines=$$((4 * (4 * n * n + 4 * n * 64) / 64)); \
	  else lines=$$((16 * n * 64 / 64)); fi; \
	  valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
	    $(CACHE10) $$kind $$n 2> $(BUILD)/cachegrind.tmp > /dev/null || exit 1; \
	  d1=$$(sed -n 's/.*D1  misses: *\([0-9,]*\).*/\1/p' $(BUILD)/cachegrind.tmp | tr -d ,); \
	  ll=$$(sed -n 's/.*LLd misses: *\([0-9,]*\).*/\1/p' $(BUILD)/cachegrind.tmp | tr -d ,); \
	  printf '%-6s %5d %14s %14s %14d\n' $$kind $$n "$$d1" "$$ll" $$lines; \
	done; done
	@rm -f $(BUILD)/cachegrind.tmp
