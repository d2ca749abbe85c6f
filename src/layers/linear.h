// linear.h: the fully connected layer, y = x W + b, forward and backward,
// in real over N rows at once (one sequence of n tokens is N = n), and its
// starting values.
//
//   N        rows the layer sees at once (B * n for a per-token layer)
//   in, out  the layer's input and output widths
//
// The weight comes in the two layouts the code this book reproduces stores
// it in: PyTorch's nn.Linear keeps it as (out, in), one row per output
// feature, so out = inp weight^T + bias (and q = x W_q with W_q = weight^T);
// flax's nn.Dense, chapter 7's classifiers, keeps its kernel as (in, out),
// so out = inp kernel + bias. The products are the same; the layout only
// says which gemm reads the weight.
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// forward function overwrites its output, a backward one ADDS the gradients
// with respect to its inputs and parameters, and takes NULL for a gradient
// nobody needs.
#ifndef ATTN_LINEAR_H
#define ATTN_LINEAR_H

#include "core/rng.h"
#include "kernels/real.h"

typedef enum {
    WEIGHT_OUT_IN,  // nn.Linear's weight, (out, in)
    WEIGHT_IN_OUT,  // flax's Dense kernel, (in, out)
} weight_layout;

// out = inp weight^T + bias (WEIGHT_OUT_IN) or inp weight + bias
// (WEIGHT_IN_OUT). out is (N, out) and must not overlap inp, inp is
// (N, in), bias is (out) or NULL for none (bias=False).
void linear_forward(real *out, const real *inp, const real *weight, const real *bias, int n,
                    int in, int out_width, weight_layout layout);

// dinp += dout weight (dout weight^T for (in, out)), dweight += dout^T inp
// (inp^T dout), dbias += column sums of dout. dinp is (N, in), dweight has
// the weight's layout, dbias is (out); dout is (N, out).
void linear_backward(real *dinp, real *dweight, real *dbias, const real *dout, const real *inp,
                     const real *weight, int n, int in, int out_width, weight_layout layout);

// linear_backward with dinp (not NULL) written, not added to: the bits
// linear_backward adds into a cleared dinp, without the pass that clears
// it. dweight and dbias are added to as there.
void linear_backward_write(real *dinp, real *dweight, real *dbias, const real *dout,
                           const real *inp, const real *weight, int n, int in, int out_width,
                           weight_layout layout);

// nn.Linear(in, out)'s starting values, drawn from g as PyTorch draws them
// (core/rng.h's rng_linear_init: the weight kaiming-uniform, then the bias
// uniform): weight is (out, in), bias (out) or NULL. Returns 0, or -1 when
// out of memory.
int linear_init(torch_rng *g, real *weight, real *bias, int in, int out_width);

// flax's default kernel initialiser, lecun_normal: a normal of variance
// 1/in truncated at two standard deviations, drawn with PyTorch's
// nn.init.trunc_normal_ from the generator g. kernel is (in, out).
void linear_init_lecun_normal(torch_rng *g, real *kernel, int in, int out_width);

#endif
