# chapter10.mk: the book runs ./chapter10 with its defaults: the machine's
# ceilings, then naive and tiled attention from n = 256 to 65,536 (naive
# until its weights pass an eighth of the machine's memory), under 3
# minutes on two cores; the tests run it to n = 1024 with naive stopped
# past 2 MB (its weights at n = 1024 take 4 MB), two training steps of each
# model in [P10.5] and two timed steps of each in [P10.6], a few seconds.
BOOK_ARGS_chapter10 =
CHECK_ARGS_chapter10 = --max-n 1024 --max-memory 2 --steps 2

# The roofline places chapter 1's timing beside chapter 10's kernels.
$(BUILD)/figures/10-roofline.pdf $(BUILD)/figures/10-roofline.svg: $(BUILD)/out/chapter1-timing.txt
