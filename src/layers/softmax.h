// softmax.h: the softmax over the last axis, forward and backward, in
// `real` (kernels/real.h), the one readable softmax of the library: the
// lessons' (chapters 1-6), the masked one (mask.h), the attention layers'
// (attention_head.c, multihead_attention.c) and the cross-entropy's log
// form (cross_entropy.c) are all these functions. The vector kernels of
// kernels/simd_kernels.h are the fast ones beside them.
//
// Dimension legend (llm.c's):
//   rows  the rows of a score matrix, one softmax each
//   n     the entries of a row (the keys, or the vocabulary)
#ifndef ATTN_SOFTMAX_H
#define ATTN_SOFTMAX_H

#include <stdbool.h>

#include "kernels/real.h"

// row (n) becomes the softmax of its visible entries: those j < seen for
// which hidden is NULL or hidden[j] is false. Every other entry becomes
// exactly 0 and is never read (it may hold anything, NaN and inf
// included). A row with no visible entry becomes all zeros, and the
// function returns false; else true.
bool softmax_row(real *row, const bool *hidden, int seen, int n);

// Each row of x (rows, n) becomes its softmax: softmax_row with every
// entry visible.
void softmax_rows(real *x, int rows, int n);

// With w (rows, n) rows of softmax weights and g (rows, n) the gradient
// of the loss with respect to them, g becomes the gradient with respect to
// the scores: g_j = w_j (g_j - sum_l g_l w_l). A hidden entry has w_j = 0
// and gets no gradient.
void softmax_backward_rows(real *g, const real *w, int rows, int n);

// log sum_j exp z[j] over z (n), in double: the log of the softmax's
// denominator, so that log softmax(z)_j = z[j] - log_sum_exp(z, n).
double log_sum_exp(const real *z, int n);

#endif
