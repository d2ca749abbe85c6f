// gelu.h: the GELU activation of GPT-2's feed-forward network, in real,
// forward and backward, on n numbers (any shape: it acts on each alone).
//
// GELU(x) = x Phi(x), Phi the standard normal's distribution function. GPT-2
// computes it with the tanh approximation, and so do we: PyTorch's
// nn.GELU(approximate='tanh'), not nn.GELU() (the exact erf form; the two
// differ by up to about 5e-4):
//
//   gelu(x) = 0.5 x (1 + tanh(u)),   u = sqrt(2 / pi) (x + 0.044715 x^3)
//
// Since 0.5 (1 + tanh(u)) = 1 / (1 + exp(-2u)) = s, the logistic sigmoid of
// 2u, we compute it as
//
//   gelu(x) = x s,   s = 1 / (1 + exp(-2u))
//
// the same function, with one exp where tanh costs about three times as
// much (glibc), and no cancellation in 1 + tanh(u) for negative x (nor in
// 1 - s for positive x: gelu.c computes s and 1 - s each from
// exp(-2|u|)). Its derivative, with ds/du = 2 s (1 - s):
//
//   gelu'(x) = s + 2 x s (1 - s) du/dx,   du/dx = sqrt(2 / pi) (1 + 3 * 0.044715 x^2)
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// backward function ADDS its gradients.
#ifndef ATTN_GELU_H
#define ATTN_GELU_H

#include <stddef.h>

#include "kernels/real.h"

// out[i] = gelu(inp[i]) for i < n; out may be inp.
void gelu_forward(real *out, const real *inp, size_t n);

// dinp[i] += dout[i] * gelu'(inp[i]) for i < n; inp as the forward had it
// (its input, not its output). dinp may be dout.
void gelu_backward(real *dinp, const real *dout, const real *inp, size_t n);

// The same with dinp written, not added to: the bits gelu_backward adds
// into a cleared dinp, without the pass that clears it. dinp may be dout.
void gelu_backward_write(real *dinp, const real *dout, const real *inp, size_t n);

// A training step's pair, which computes the slope gelu'(x) once: forward,
// out[i] = gelu(inp[i]) and slope[i] = gelu'(inp[i]) (slope may be inp,
// which the backward pass then no longer needs; out may be inp, not
// slope); backward, dinp[i] = dout[i] slope[i], written: the bits of
// gelu_backward_write, without its exp and division. dinp may be dout.
void gelu_forward_slope(real *out, real *slope, const real *inp, size_t n);
void gelu_backward_slope(real *dinp, const real *dout, const real *slope, size_t n);

#endif
