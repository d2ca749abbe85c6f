# chapter5.mk: the book prints the chapter's PyTorch twin in full, so the
# book is rebuilt when the twin changes.
$(BUILD)/book/attention-in-c.pdf: tests/reference/chapter5_twin.py
