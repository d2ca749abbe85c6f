// layer_norm.h: nn.LayerNorm(d) in real, forward and backward.
//
//   N   rows normalised, each on its own
//   d   the width of a row
//
// For each row x:  mean = sum x / d,  var = sum (x - mean)^2 / d (biased, as
// PyTorch), rstd = 1 / sqrt(var + eps),  xhat = (x - mean) rstd,
// out = gain * xhat + bias, with eps = 1e-5.
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// backward function ADDS its gradients, and takes NULL for one nobody needs.
#ifndef ATTN_LAYER_NORM_H
#define ATTN_LAYER_NORM_H

#include "kernels/real.h"

#define LAYER_NORM_EPS 1e-5

// out is (N, d) and may be inp; mean and rstd are (N), kept for the
// backward pass; inp is (N, d); gain and bias are (d).
void layer_norm_forward(real *out, real *mean, real *rstd, const real *inp, const real *gain,
                        const real *bias, int n, int d);

// dinp += the gradient through the normalisation,
//   rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dout * gain;
// dgain += sum over rows of dout * xhat, dbias += sum over rows of dout.
// dinp is (N, d) and must not be dout; inp, mean, rstd as the forward had them.
void layer_norm_backward(real *dinp, real *dgain, real *dbias, const real *dout, const real *inp,
                         const real *mean, const real *rstd, const real *gain, int n, int d);

#endif
