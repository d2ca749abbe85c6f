// attention.h: the steps of self-attention that several chapters share:
// the notebook's dummy tokenizer, the embedding lookup and the scaled
// softmax of chapter 1.
//
// Dimension legend (as in tensor.h):
//   n  tokens
//   d  embedding width
//   V  vocabulary size
#ifndef ATTN_ATTENTION_H
#define ATTN_ATTENTION_H

#include <stdint.h>

#include "core/rng.h"

enum { MAX_TOKENS = 64, MAX_WORD = 64 };

// The notebook's dummy tokenizer: split text on single spaces, as Python's
// text.split(" ") does (two spaces make an empty word), and draw one id in
// [0, vocab_size) per word with torch.randint. ids is (MAX_TOKENS), words
// receives the words. Returns the number of tokens n, or -1 if the text is
// empty, has more than MAX_TOKENS words or a word of MAX_WORD bytes or more.
int dummy_tokenize(int64_t *ids, char words[][MAX_WORD], const char *text,
                   int vocab_size, torch_rng *g);

// nn.Embedding's lookup: x[i] = table[ids[i]]. table is (V, d), x is (n, d).
void embed(float *x, const float *table, const int64_t *ids, int n, int d);

// nn.Embedding(V, d) as the notebook builds it: draws the whole (V, d) table
// from g, standard normal, then looks up the n ids into x, (n, d). Returns
// the table (the caller frees it), or NULL when out of memory.
float *draw_embedding(float *x, const int64_t *ids, int n, int vocab_size,
                      int d, torch_rng *g);

// weights = softmax(scores / sqrt(d)) along each row. scores and weights
// are (n, n) and may be the same array.
void attention_weights(float *weights, const float *scores, int n, int d);

#endif
