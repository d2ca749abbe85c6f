// naive_attention.h: one head of scaled dot-product attention the usual
// way, with the n x n weights held in memory: the form tiled attention
// (tiled_attention.h) is held to and timed against. Sizes, inputs and the
// mask as there: q, k, v, out (n, d) row-major, s = scale q k^T,
// w = softmax(s) over the keys (key j > query i hidden under the causal
// mask: weight exactly 0), out = w v.
//
// The layers' attention_head.c computes the same for a batch of chunks
// but always with scale 1/sqrt(d) and no mask, and multihead_attention.c
// only with its projections around it; this is one head, any scale, the
// mask optional. Its products go through the library's product
// (kernels/gemm_fast.h), blocks of rows shared among the threads, and the
// softmax through the vector kernels of simd.h when the processor has
// them; its memory grows as n^2: 4 n^2 bytes for w forward (float), twice
// that backward.
#ifndef ATTN_NAIVE_ATTENTION_H
#define ATTN_NAIVE_ATTENTION_H

#include <stdbool.h>

#include "kernels/real.h"

// out (n, d) = w v; w (n, n) is written with the weights, kept for the
// backward pass.
void naive_attention_forward(real *out, real *w, const real *q, const real *k, const real *v,
                             int n, int d, real scale, bool causal);

// dq, dk, dv (n, d) += the gradients, given dout (n, d) and the forward's
// w; dw (n, n) is scratch.
void naive_attention_backward(real *dq, real *dk, real *dv, real *dw, const real *dout,
                              const real *w, const real *q, const real *k, const real *v, int n,
                              int d, real scale, bool causal);

#endif
