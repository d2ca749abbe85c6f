# chapter8_bench.mk: make bench times chapter 8's training step, the digit
# reversal model and the IMDb transformer classifier, C
# (tests/bench/bench_chapter8.c) against the same models in PyTorch
# (tests/reference/bench_torch8.py, on Debian's python3-torch) measured in
# the same run, and prints the ratios, kept in build/out/bench-chapter8.txt.
# When make bench has not run, the book's build times both sides in a
# shorter run (one round of 2 runs of 20 steps each side, 15 to 40 s as
# the machine is loaded), after the other timed outputs (chapter7.mk) and
# chapter 8's own training, never beside them. make bench and make book
# install PyTorch; nothing else needs it.
BENCH8_PKGS := python3-torch libopenblas0-pthread
BENCH8 := $(BUILD)/bench/bench_chapter8
BENCH_TARGETS += bench-chapter8
BOOK_OUTPUTS += $(BUILD)/out/bench-chapter8.txt
.PHONY: bench-chapter8
$(BENCH8): tests/bench/bench_chapter8.c tests/bench/bench.h $(BUILD)/libattn.a $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(STD_CFLAGS) $(CFLAGS) $(LDFLAGS) $< $(BUILD)/libattn.a $(LIBS) $(LDLIBS) -o $@

bench-chapter8: $(BENCH8) | $(BUILD)/out
	@sh tests/setup.sh $(BENCH8_PKGS) || echo "bench: without $(BENCH8_PKGS), PyTorch is left out"
	@rm -f $(BUILD)/out/bench-chapter8.txt
	@if $(PYTHON) -c "import torch" 2>/dev/null; then \
	  echo "bench: chapter 8's training step, PyTorch (tests/reference/bench_torch8.py)"; \
	  echo "bench: and C ($(BENCH8)) in turn"; \
	  $(BENCH8) --torch "$(PYTHON) tests/reference/bench_torch8.py" \
	    > $(BUILD)/out/bench-chapter8.txt.tmp; \
	else \
	  echo "bench: no PyTorch for $(PYTHON) (Debian's python3-torch): the C side only"; \
	  $(BENCH8) > $(BUILD)/out/bench-chapter8.txt.tmp; \
	fi
	@mv $(BUILD)/out/bench-chapter8.txt.tmp $(BUILD)/out/bench-chapter8.txt
	@cat $(BUILD)/out/bench-chapter8.txt

# Timed after chapter 7's benchmark when both are asked for (as make bench
# asks), never beside it (make -j).
ifneq ($(filter bench-train,$(MAKECMDGOALS)),)
bench-chapter8: | bench-train
endif

$(BUILD)/out/bench-chapter8.txt: | $(BENCH8) $(BUILD)/out
	@echo "book: no $@ from make bench; timing C and PyTorch in a shorter run"
	$(BENCH8) --steps 20 --repeats 2 --rounds 1 \
	  --torch "$(PYTHON) tests/reference/bench_torch8.py --steps 20 --repeats 2" > $@.tmp
	mv $@.tmp $@
$(BUILD)/out/bench-chapter8.txt: | $(BUILD)/out/bench-train.txt $(BUILD)/out/chapter8.txt
