# chapter10_bench.mk: make bench times chapter 10's tiled attention, the
# forward and the forward with the backward, one head, d = 64, at n = 1024
# to 8192 (tests/bench/bench_chapter10.c), against attention written the
# usual way in PyTorch (tests/reference/bench_torch10.py) measured in the
# same run, prints the ratios and the tiled forward's share of the
# measured peak at n = 4096, and keeps them in build/out/bench-chapter10.txt.
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
