# chapter8.mk: the book runs ./chapter8 with its defaults (two models of
# 600 steps each, under a minute on one core); the tests run a short
# training, 20 steps, that shows the program's every block.
BOOK_ARGS_chapter8 =
CHECK_ARGS_chapter8 = --steps 20 --test-size 64

# The book prints the PyTorch twin, tests/reference/chapter8_twin.py, whole.
BOOK_OUTPUTS += tests/reference/chapter8_twin.py
