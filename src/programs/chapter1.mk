# chapter1.mk: chapter 1's timing figure, measured when the book is built.
#
# ./chapter1 --timing times self-attention of 8 to 2048 tokens three ways
# (a few seconds); the book quotes its table and draws figures/01-timing.gp from
# the data it writes. It runs apart from the notebook's cells, so that the
# tests, which run ./chapter1 with its book arguments, never time anything.
BOOK_OUTPUTS += $(BUILD)/out/chapter1-timing.txt
$(BUILD)/out/chapter1-timing.txt: chapter1 | $(BUILD)/out $(BUILD)/data
	@echo "book: timing self-attention three ways (./chapter1 --timing, a few seconds)"
	./chapter1 --timing --data $(BUILD)/data > $@.tmp
	mv $@.tmp $@

$(BUILD)/figures/01-timing.pdf $(BUILD)/figures/01-timing.svg: $(BUILD)/out/chapter1-timing.txt

# ./chapter1 --scaling measures block [P1.1], what the division by sqrt(d)
# does to the scores and to the softmax (about a second); the book quotes it
# and draws figures/01-scaling.gp from its data.
BOOK_OUTPUTS += $(BUILD)/out/chapter1-scaling.txt
$(BUILD)/out/chapter1-scaling.txt: chapter1 | $(BUILD)/out $(BUILD)/data
	./chapter1 --scaling --data $(BUILD)/data > $@.tmp
	mv $@.tmp $@

$(BUILD)/figures/01-scaling.pdf $(BUILD)/figures/01-scaling.svg: $(BUILD)/out/chapter1-scaling.txt
