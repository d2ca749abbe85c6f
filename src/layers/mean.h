// mean.h: the mean over the positions of each chunk, the step of chapter 7's
// classifiers from tokens to one vector a chunk, forward and backward.
//
// Dimension legend (llm.c's, with the notebook's names):
//   B     chunks in a batch (BATCH_SIZE, 64)
//   L     tokens in a chunk (SEQUENCE_LENGTH, 32)
//   N     rows a layer sees at once: B, or B * L for a per-token layer
//   d     width of a token's vector
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// forward function overwrites its output, a backward one ADDS the gradients
// with respect to its inputs and parameters, and takes NULL for a gradient
// nobody needs.
#ifndef ATTN_MEAN_H
#define ATTN_MEAN_H

#include "kernels/real.h"

// Mean over the L positions of each chunk: out[b] = (1/L) sum_t inp[b, t].
// out is (B, d), inp is (B, L, d)
void mean_forward(real *out, const real *inp, int B, int L, int d);
// dinp[b, t] += dout[b] / L
void mean_backward(real *dinp, const real *dout, int B, int L, int d);

#endif
