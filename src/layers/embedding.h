// embedding.h: nn.Embedding, a table with a row of width d for every token
// id, forward and backward: the embedding of every chapter (chapters 1-6
// look up one sentence, chapters 7 and 8 a batch of chunks or sequences).
//
// Dimension legend (llm.c's, with chapter 7's sizes):
//   B     chunks in a batch (BATCH_SIZE, 64)
//   L     tokens in a chunk (SEQUENCE_LENGTH, 32)
//   N     rows a layer sees at once: B, or B * L for a per-token layer
//   V     vocabulary size (10,002)
//   d     embedding width (EMBED_DIM, 100)
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// forward function overwrites its output, a backward one ADDS the gradients
// with respect to its inputs and parameters, and takes NULL for a gradient
// nobody needs.
#ifndef ATTN_EMBEDDING_H
#define ATTN_EMBEDDING_H

#include <stdint.h>

#include "kernels/real.h"

// Embedding lookup: row t of out is row ids[t] of the table.
// out is (N, d), ids is (N), table is (V, d)
void embedding_forward(real *out, const int32_t *ids, const real *table, int n, int d);
// dtable[ids[t]] += dout[t]: rows that occur twice collect both gradients
// dtable is (V, d), dout is (N, d)
void embedding_backward(real *dtable, const real *dout, const int32_t *ids, int n, int d);

#endif
