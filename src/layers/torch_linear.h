// torch_linear.h: PyTorch's nn.Linear in real, forward and backward, with
// the weight stored as PyTorch stores it, (out, in). (dense.h is flax's
// Dense, whose kernel is (in, out); chapter 7 uses that one.)
//
//   N        rows the layer sees at once (B * n for a per-token layer)
//   in, out  the layer's input and output widths
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// forward function overwrites its output, a backward one ADDS the gradients
// with respect to its inputs and parameters, and takes NULL for a gradient
// nobody needs.
#ifndef ATTN_TORCH_LINEAR_H
#define ATTN_TORCH_LINEAR_H

#include "kernels/real.h"

// out = inp weight^T + bias.
// out is (N, out), inp is (N, in), weight is (out, in), bias is (out) or NULL
void torch_linear_forward(real *out, const real *inp, const real *weight, const real *bias,
                          int n, int in, int out_width);

// dinp += dout weight, dweight += dout^T inp, dbias += column sums of dout.
// dinp is (N, in), dweight (out, in), dbias (out); dout is (N, out)
void torch_linear_backward(real *dinp, real *dweight, real *dbias, const real *dout,
                           const real *inp, const real *weight, int n, int in, int out_width);

#endif
