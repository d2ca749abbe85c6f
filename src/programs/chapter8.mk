# chapter8.mk: the book runs ./chapter8 with its defaults (two reversal
# models of 600 steps each, side by side, then the IMDb block: about a
# minute and a half on two cores); the tests run it for three steps
# without the IMDb block (a quarter of a second; tests/test_chapter8_imdb.c
# runs that block on a small pool, and make oom on small made-up reviews).
BOOK_ARGS_chapter8 =
CHECK_ARGS_chapter8 = --steps 3 --test-size 32 --no-imdb
# `make chapter8` fetches the data as well (see the Makefile's chapter% rule).
DATA_chapter8 = yes

# The book prints the PyTorch twin, tests/reference/chapter8_twin.py, whole.
BOOK_OUTPUTS += tests/reference/chapter8_twin.py
