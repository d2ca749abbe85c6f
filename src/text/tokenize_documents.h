// tokenize_documents.h: clean_paragraph, then word_tokenize, on many
// documents in a row: the reviews of the IMDb data set into a corpus (the
// notebook's cell [H64]), or the lines of a stream (chapter7 --tokenize).
#ifndef ATTN_TOKENIZE_DOCUMENTS_H
#define ATTN_TOKENIZE_DOCUMENTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "text/imdb.h"
#include "text/tokenizer.h"
#include "text/vocab.h"

// The reviews train[0 .. n_train-1] of reviews, then test[0 .. n_test-1],
// cleaned and tokenized, each added to c as a document; the training
// reviews' tokens are counted, the test reviews' are not. Returns 0, or -1
// with the reason in err (out of memory).
int tokenize_reviews(corpus *c, tokenizer *t, const imdb_reviews *reviews, const size_t *train,
                     size_t n_train, const size_t *test, size_t n_test, char *err, size_t errlen);

// One document a line read from in, its tokens written to out, separated by
// single spaces, one line each. Lines end at \n only, as Python's sys.stdin
// reads them on POSIX systems (a \r is whitespace inside the line; the last
// line may lack its \n; NUL bytes are dropped, as clean_paragraph drops
// them). Invalid UTF-8 is an error naming the line and the byte (1 for
// the first), after the lines before it are written, as Python's strict
// decoding (its default in a UTF-8 locale such as en_US.UTF-8) raises
// UnicodeDecodeError; in the C and C.UTF-8 locales Python would read it
// with errors='surrogateescape' instead and drop it silently. Returns 0,
// or -1 with the reason in err (out of memory, invalid UTF-8, or the
// stream cannot be read or written).
int tokenize_stream(FILE *in, FILE *out, tokenizer *t, char *err, size_t errlen);

// The digest (FNV-1a, 64 bit) of the tokens of every review of c in file
// order, one line each with the tokens separated by single spaces: of what
// tokenize_stream (or NLTK) prints for the reviews one a line. c's
// documents are the reviews train (n_train of them), then test, as
// tokenize_reviews adds them; together they number the reviews 0 .. n_train
// + n_test - 1. Puts it in *digest and returns 0, or -1 when out of memory.
int reviews_token_digest(uint64_t *digest, const corpus *c, const size_t *train, size_t n_train,
                         const size_t *test, size_t n_test);

#endif
