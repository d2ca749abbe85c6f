# chapter8.mk: the book runs ./chapter8 with its defaults (two reversal
# models of 600 steps each, side by side, then the IMDb block: about a
# minute and a half on two cores); the tests run it for three steps and an
# IMDb block on 640 training chunks and 200 test reviews: every block
# printed, in about 6 s, most of it tokenizing the reviews.
BOOK_ARGS_chapter8 =
CHECK_ARGS_chapter8 = --steps 3 --test-size 32 --imdb-limit 640 --imdb-test-limit 200
# `make chapter8` fetches the data as well (see the Makefile's chapter% rule).
DATA_chapter8 = yes

# The book prints the PyTorch twin, tests/reference/chapter8_twin.py, whole.
BOOK_OUTPUTS += tests/reference/chapter8_twin.py
