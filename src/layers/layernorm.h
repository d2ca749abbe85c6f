// layernorm.h: layer normalisation, nn.LayerNorm(d) and
// torch.nn.functional.layer_norm, in real, forward and backward.
//
//   N   rows normalised, each on its own (one sequence of n tokens: N = n)
//   d   the width of a row
//
// For each row x:  mean = sum x / d,  var = sum (x - mean)^2 / d (biased, as
// PyTorch), rstd = 1 / sqrt(var + eps),  xhat = (x - mean) rstd,
// out = gain * xhat + bias, with PyTorch's eps = 1e-5. A row of equal
// values has zero variance (when its sum is exact, as a float sum of most
// such rows is) and becomes bias: eps keeps the division finite.
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// backward function ADDS its gradients, and takes NULL for one nobody needs.
#ifndef ATTN_LAYERNORM_H
#define ATTN_LAYERNORM_H

#include "kernels/real.h"

#define LAYERNORM_EPS 1e-5

// out is (N, d) and may be inp; inp is (N, d); gain and bias are (d), or
// both NULL for none (F.layer_norm without weight and bias). mean and rstd
// (N) get each row's statistics for the backward pass, or are both NULL
// when no backward pass follows.
void layernorm_forward(real *out, real *mean, real *rstd, const real *inp, const real *gain,
                       const real *bias, int n, int d);

// dinp += the gradient through the normalisation,
//   rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dout * gain;
// dgain += sum over rows of dout * xhat, dbias += sum over rows of dout.
// dinp is (N, d) and must not be dout; inp, mean, rstd as the forward had them.
void layernorm_backward(real *dinp, real *dgain, real *dbias, const real *dout, const real *inp,
                        const real *mean, const real *rstd, const real *gain, int n, int d);

// nn.LayerNorm's start: gain ones, bias zeros (it draws nothing).
void layernorm_init(real *gain, real *bias, int d);

#endif
