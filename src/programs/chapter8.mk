# chapter8.mk: the book runs ./chapter8 with its defaults (two models of
# 600 steps each, under a minute on one core); the tests run it for
# three steps: every block printed, in a quarter of a second (a few minutes
# under valgrind).
BOOK_ARGS_chapter8 =
CHECK_ARGS_chapter8 = --steps 3 --test-size 32

# The book prints the PyTorch twin, tests/reference/chapter8_twin.py, whole.
BOOK_OUTPUTS += tests/reference/chapter8_twin.py
