// tiled_attention.h: one head of scaled dot-product attention computed a
// tile at a time (the idea of FlashAttention, Dao et al. 2022), forward and
// backward, without ever holding the n x n scores.
//
//   n   queries, keys and values (self-attention: as many keys as queries)
//   d   their width
//
// q, k, v and out are (n, d), row-major. With s = scale q k^T (scale is
// 1/sqrt(d) for the usual attention), w = softmax(s) over the keys and
// out = w v; with causal, query i sees only keys j <= i.
//
// Forward: the queries in blocks of ATTN_TILE (kernels/attention_tiles.h),
// and for each block the keys and values in blocks of ATTN_TILE: a 64 x 64
// tile of scores at a time, folded into each query row by the online
// softmax (online_softmax.h): a running maximum m and sum l per row, the
// output row rescaled by e^(m - m') when the maximum grows, divided by l at
// the end. What is kept for the backward pass is one number a row, the
// log-sum-exp lse_i = m_i + log l_i, from which any weight can be
// recomputed: w_ij = e^(s_ij - lse_i). Under the causal mask the tiles
// above the diagonal (every key after every query of the block) are never
// visited: about half the work.
//
// Backward, given dout: for each tile the scores are recomputed, p_ij =
// e^(s_ij - lse_i), and with D_i = dout_i . out_i (which equals
// sum_j w_ij (dout_i . v_j)),
//   dv_j += p_ij dout_i,   dp_ij = dout_i . v_j,   ds_ij = p_ij (dp_ij - D_i),
//   dq_i += scale ds_ij k_j,   dk_j += scale ds_ij q_i.
// Memory: the inputs, outputs and lse, linear in n; nothing n x n.
//
// Each query row sees at least one key (itself, under the causal mask), so
// no row is ever fully masked here; online_softmax.h says what happens to
// one that is.
//
// Conventions of the layers (README.md): the forward overwrites out and
// lse, the backward ADDS into dq, dk and dv.
#ifndef ATTN_TILED_ATTENTION_H
#define ATTN_TILED_ATTENTION_H

#include <stdbool.h>

#include "kernels/real.h"

// out (n, d) = softmax(scale q k^T) v, causal or not; lse (n) the
// log-sum-exp of each query's scores. Threads (kernels/parallel.h) take
// blocks of queries; vector kernels (kernels/attention_tiles.h) compute
// each block when the processor has them, real is float and d <= 256,
// the readable loops of tiled_attention.c otherwise. The same bits with
// any number of threads.
void tiled_attention_forward(real *out, real *lse, const real *q, const real *k, const real *v,
                             int n, int d, real scale, bool causal);

// dq, dk, dv (n, d) += the gradients of the loss, given dout (n, d) and
// the forward's out and lse. Two passes over the tiles, so that no two
// threads ever write the same rows and each row collects its terms in the
// same order with any number of threads: the threads share the key blocks
// for dk and dv (each key block against every query block), then the
// query blocks for dq (each against every key block). The second pass
// recomputes the scores and dp: 14 n^2 d operations done for the 10
// counted, the price of no waiting between threads (a thread that the
// system does not schedule holds up nobody) and of no buffers.
void tiled_attention_backward(real *dq, real *dk, real *dv, const real *dout, const real *q,
                              const real *k, const real *v, const real *out, const real *lse,
                              int n, int d, real scale, bool causal);

// Floating-point operations counted for one pass at size n, d: forward
// 4 n^2 d (the two products q k^T and w v, 2 n^2 d each), backward 10 n^2
// d (the scores again and four products); half as many with the causal
// mask (the triangle, rounded to n^2/2). Exps and the softmax's
// arithmetic are not counted, as is usual.
double attention_flops(int n, int d, bool causal, bool backward);

#endif
