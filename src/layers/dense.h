// dense.h: the dense layer of chapter 7's classifiers, flax's nn.Dense,
// forward and backward, and its starting values.
//
// Dimension legend (llm.c's, with the notebook's names):
//   B     chunks in a batch (BATCH_SIZE, 64)
//   L     tokens in a chunk (SEQUENCE_LENGTH, 32)
//   N     rows a layer sees at once: B, or B * L for a per-token layer
//   in, out  the layer's input and output widths
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// forward function overwrites its output, a backward one ADDS the gradients
// with respect to its inputs and parameters, and takes NULL for a gradient
// nobody needs.
#ifndef ATTN_DENSE_H
#define ATTN_DENSE_H

#include "kernels/real.h"
#include "core/rng.h"

// Dense layer, flax's nn.Dense: out = inp kernel + bias. The kernel is
// stored as flax stores it, (in, out), not as nn.Linear's (out, in).
// out is (N, out), inp is (N, in), kernel is (in, out), bias is (out)
void dense_forward(real *out, const real *inp, const real *kernel, const real *bias,
                   int n, int in, int out_width);
// dinp += dout kernel^T, dkernel += inp^T dout, dbias += column sums of dout
void dense_backward(real *dinp, real *dkernel, real *dbias, const real *dout,
                    const real *inp, const real *kernel, int n, int in, int out_width);
// flax's default kernel initialiser, lecun_normal: a normal of variance
// 1/in truncated at two standard deviations, drawn with PyTorch's
// nn.init.trunc_normal_ from the generator g. kernel is (in, out)
void dense_init_lecun_normal(torch_rng *g, real *kernel, int in, int out_width);

#endif
