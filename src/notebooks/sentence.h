// sentence.h: a sentence tokenized and embedded as the notebook "Attention
// and Transformers" does in its cells [T3] and [T4]: the dummy tokenizer's
// ids, and an nn.Embedding table drawn for them (the lookup is
// layers/embedding.h's embedding_forward).
//
// Dimension legend (as in layers/tensor.h):
//   n  tokens
//   d  embedding width
//   V  vocabulary size
#ifndef ATTN_SENTENCE_H
#define ATTN_SENTENCE_H

#include <stdint.h>

#include "core/rng.h"
#include "notebooks/dummy_tokenizer.h"

// embedding_forward on the notebook's ids, torch.randint's int64:
// x[i] = table[ids[i]]. table is (V, d), x is (n, d).
void embedding_forward_int64(float *x, const float *table, const int64_t *ids, int n, int d);

// nn.Embedding(V, d) as the notebook builds it: draws the whole (V, d) table
// from g, standard normal, then looks up the n ids into x, (n, d). Returns
// the table (the caller frees it), or NULL when out of memory.
float *draw_embedding(float *x, const int64_t *ids, int n, int vocab_size,
                      int d, torch_rng *g);

// The notebook's cells [T3] and [T4] on a sentence: dummy_tokenize draws its
// ids (into ids and words, as there), then draw_embedding its table and
// embeddings x, (n, d). *table receives the table when table is not NULL
// (the caller frees it); else it is freed. Returns the number of tokens n,
// EMBED_BAD_SENTENCE when dummy_tokenize refuses the sentence, or
// EMBED_NO_MEMORY.
enum { EMBED_BAD_SENTENCE = -1, EMBED_NO_MEMORY = -2 };
int embed_sentence(float *x, int64_t *ids, char words[][MAX_WORD],
                   float **table, const char *sentence, int vocab_size, int d,
                   torch_rng *g);

#endif
