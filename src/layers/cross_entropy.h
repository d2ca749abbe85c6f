// cross_entropy.h: the loss of a model that predicts the next token, the
// softmax cross-entropy of each position's logits over a vocabulary against
// the token that should come, with padding left out; and its gradient.
//
//   N   positions scored (every position of every sequence in a batch)
//   V   vocabulary size: one logit per token
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// backward function ADDS its gradient.
#ifndef ATTN_CROSS_ENTROPY_H
#define ATTN_CROSS_ENTROPY_H

#include <stdint.h>

#include "kernels/real.h"

// nn.CrossEntropyLoss(ignore_index=ignore) with its mean reduction: for the
// C positions r whose target y[r] is not ignore,
//   loss = (1/C) sum_r [ log sum_v exp z[r][v]  -  z[r][y[r]] ],
// the negative log of the probability the softmax of z[r] gives the right
// token. An ignored position (padding) adds nothing and is not counted.
// z is (N, V); y is (N), each target ignore or in 0 .. V-1. With every
// position ignored, C = 0 and the loss is NaN, 0 / 0, as PyTorch gives.
real cross_entropy_forward(const real *z, const int32_t *y, int N, int V, int32_t ignore);

// dz[r] += (softmax(z[r]) - onehot(y[r])) / C for each counted position r;
// an ignored position's row of dz is left as it is.
void cross_entropy_backward(real *dz, const real *z, const int32_t *y, int N, int V,
                            int32_t ignore);

// The same over rows of positions, for a caller that shares the rows out
// (chapter 9's GPT, its batch in shards): z (rows, V), y (rows), no target
// ignored. cross_entropy_rows writes each position's loss, log sum_v exp
// z[r][v] - z[r][y[r]] (the term cross_entropy_forward adds), into loss and
// its log-sum-exp into lse; cross_entropy_rows_backward writes (does not
// add) each row's gradient, (softmax(z[r]) - onehot(y[r])) / C, into dz
// (rows, V), given those log-sum-exps and C, the positions counted in the
// whole batch. The loops are the functions' above, in double, the same
// bits; the cross_entropy_rows kernels (simd_kernels.h) replace them, with
// the exponentials in float, to about a unit in float's last place.
void cross_entropy_rows(double *loss, double *lse, const real *z, const int32_t *y, int rows,
                        int V);
void cross_entropy_rows_backward(real *dz, const real *z, const int32_t *y, const double *lse,
                                 int rows, int V, int C);

#endif
