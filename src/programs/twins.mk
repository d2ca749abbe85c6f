# twins.mk: each chapter's PyTorch twin runs while the book is built, and
# its blocks are set beside the program's.
#
#   build/out/chapterN-twin.txt    what tests/reference/chapterN_twin.py
#                                  prints (Debian's python3-torch), with the
#                                  program's default random seeds
#   build/out/chapterN-beside.txt  each block the twin prints beside the
#                                  program's block of the same label, and
#                                  the largest difference of their numbers
#   build/out/chapterN-agree.txt   one line a block: how many numbers, the
#                                  largest difference; the chapter quotes it
#
# tests/reference/pair_cells.py (Python, no PyTorch) pairs the blocks; it
# stops the build when a twin's block has no partner, when the two print a
# different count of numbers, or when two numbers differ by more than the
# chapter's tolerance, TWIN_TOLERANCE_chapterN. The printed numbers are
# rounded (to 4 decimals in chapters 1-6), and a value within a float's
# rounding of a boundary prints one unit of the last digit apart: 2e-4
# allows that, and nothing more. Chapter 8's losses print 6 decimals after
# five training steps; the tests hold them to 1e-4, and so does the book.
# Nothing here is needed by make test.
TWIN_CHAPTERS := chapter1 chapter2 chapter3 chapter4 chapter5 chapter6 chapter8
TWIN_TOLERANCE = 2e-4
TWIN_TOLERANCE_chapter8 = 1e-4
TWIN_OUTPUTS := $(foreach c,$(TWIN_CHAPTERS),$(BUILD)/out/$(c)-beside.txt $(BUILD)/out/$(c)-agree.txt)
BOOK_OUTPUTS += $(TWIN_OUTPUTS)

$(BUILD)/out/chapter%-twin.txt: tests/reference/chapter%_twin.py | $(BUILD)/out
	$(PYTHON) tests/reference/chapter$*_twin.py > $@.tmp
	mv $@.tmp $@

# Chapter 3's twin imports the notebook's module from beside it.
$(BUILD)/out/chapter3-twin.txt: tests/reference/chapter3_notebook.py

# Chapter 6's twin reads the GloVe vectors, as ./chapter6 does.
$(BUILD)/out/chapter6-twin.txt: | $(GLOVE_TXT)

$(BUILD)/out/chapter%-beside.txt $(BUILD)/out/chapter%-agree.txt: $(BUILD)/out/chapter%.txt \
    $(BUILD)/out/chapter%-twin.txt tests/reference/pair_cells.py
	$(PYTHON) tests/reference/pair_cells.py $(BUILD)/out/chapter$*.txt $(BUILD)/out/chapter$*-twin.txt \
	  chapter$*_twin.py --tolerance $(or $(TWIN_TOLERANCE_chapter$*),$(TWIN_TOLERANCE)) \
	  --beside $(BUILD)/out/chapter$*-beside.txt --summary $(BUILD)/out/chapter$*-agree.txt

# The twins run after chapter 7's training and before the timed outputs
# (chapter 1's timing, then the benchmarks: chapter7.mk), never beside them.
$(TWIN_CHAPTERS:%=$(BUILD)/out/%-twin.txt): | $(BUILD)/out/chapter7.txt
$(BUILD)/out/chapter1-timing.txt: | $(TWIN_CHAPTERS:%=$(BUILD)/out/%-twin.txt)
