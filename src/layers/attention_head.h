// attention_head.h: one head of scaled dot-product self-attention, run on
// every chunk of a batch: the step between the q, k, v projections and the
// mean in chapter 7's models, forward and backward.
//
//   B    chunks in the batch
//   L    tokens in a chunk (queries and keys)
//   d_k  width of queries, keys and values (32)
//
// For each chunk, with q, k, v its (L, d_k) queries, keys and values:
//   s = q k^T / sqrt(d_k)           (L, L) scores
//   w = softmax(s) over the keys,    or w = s in the notebook's model
//   out = w v                        (L, d_k)
// (How each attention of the book scales its scores, and why: README.md.)
//
// The products go through gemm, the softmax through vector kernels when
// the CPU has them (simd.h); ATTN_SIMD=none runs the plain loops, and
// tests/test_kernels.c holds the two to each other.
#ifndef ATTN_ATTENTION_HEAD_H
#define ATTN_ATTENTION_HEAD_H

#include <stdbool.h>

#include "kernels/real.h"

// out is (B, L, d_k); w is (B, L, L) and keeps the weights for the backward
// pass; q, k, v are (B, L, d_k). softmax: the usual form; false: the notebook's.
void attention_head_forward(real *out, real *w, const real *q, const real *k, const real *v,
                            int B, int L, int d_k, bool softmax);

// Adds the gradients with respect to q, k and v, each (B, L, d_k), given
// dout (B, L, d_k) and the forward's w, q, k, v. scratch holds (L, L).
void attention_head_backward(real *dq, real *dk, real *dv, real *scratch, const real *dout,
                             const real *w, const real *q, const real *k, const real *v,
                             int B, int L, int d_k, bool softmax);

#endif
