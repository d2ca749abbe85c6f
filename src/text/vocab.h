// vocab.h: from token streams to the training data of the notebook
// "How and Why does Self Attention Work?": a token counter
// that keeps first-seen order (Python's Counter), the vocabulary of the most
// frequent tokens plus <UNK> and <PAD>, and fixed-length chunks of token ids.
//
// Sizes: D documents (reviews), T distinct token types, V vocabulary size,
// L chunk length (the notebook's SEQUENCE_LENGTH, 32), C chunks.
#ifndef ATTN_VOCAB_H
#define ATTN_VOCAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strmap.h"
#include "text/token_list.h"

// Every document as a run of type ids. Types are numbered in the order they
// are first seen, so feeding the training documents first makes the ids the
// insertion order of the notebook's Counter.
typedef struct {
    strmap types;          // (T) token type -> id
    int64_t *count;        // (T) occurrences in the documents added with count = true
    size_t count_cap;
    int32_t *ids;          // all tokens of all documents, as type ids
    size_t nids, ids_cap;
    size_t *doc_start;     // (D + 1) document d is ids[doc_start[d] .. doc_start[d + 1])
    size_t ndocs, docs_cap;
} corpus;

void corpus_init(corpus *c);
void corpus_free(corpus *c);
// Appends one document; count says whether its tokens are counted (the
// notebook's vocabulary counts training tokens only). false when out of memory.
bool corpus_add(corpus *c, const token_list *tokens, bool count);

// The vocabulary: the max_words most common counted types (ties in
// first-seen order, as Counter.most_common), then <UNK>, then <PAD>.
typedef struct {
    strmap words;          // (V) word -> index
    int32_t unk, pad;      // the indices of <UNK> and <PAD>
    int32_t *of_type;      // (T) the vocabulary index of each corpus type (unk if none)
} vocab;

bool vocab_build(vocab *v, const corpus *c, size_t max_words);
void vocab_free(vocab *v);

// Documents docs[0 .. ndocs) cut into chunks of L ids, the last chunk of each
// padded with <PAD>; a document without tokens gives no chunk. X is (C, L)
// and Y (C) the label of each chunk's document; with doc_of not NULL,
// *doc_of (C) the index i in docs of each chunk's document. All are new
// arrays.
bool make_chunks(int32_t **X, int32_t **Y, int32_t **doc_of, size_t *nchunks, const corpus *c,
                 const vocab *v, const size_t *docs, const int *labels, size_t ndocs, size_t L);

// Zipf's law: the counts of the counted token types of c, largest first
// (*n of them, in a new array), and the share of all counted tokens that
// the top of them cover.
int64_t *counts_by_rank(const corpus *c, size_t *n);
double coverage(const int64_t *sorted, size_t n, size_t top);

#endif
