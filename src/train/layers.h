// layers.h: the layers of chapter 7's classifiers, forward and backward.
//
// Dimension legend (llm.c's, with the seed's names):
//   B     chunks in a batch (BATCH_SIZE, 64)
//   L     tokens in a chunk (SEQUENCE_LENGTH, 32)
//   N     rows a layer sees at once: B, or B * L for a per-token layer
//   V     vocabulary size (10,002)
//   d     embedding width (EMBED_DIM, 100)
//   in, out  a dense layer's input and output widths
//
// Conventions: outputs first, sizes last. A forward function overwrites its
// output. A backward function takes the gradient of the loss with respect to
// the layer's output (dout) and ADDS the gradients with respect to its
// inputs and parameters into the arrays it is given, so that a caller clears
// them once per step and a value used twice collects both contributions.
// A backward function may be given NULL for a gradient nobody needs.
#ifndef ATTN_LAYERS_H
#define ATTN_LAYERS_H

#include <stdint.h>

#include "train/real.h"
#include "core/rng.h"

// Embedding lookup: row t of out is row ids[t] of the table.
// out is (N, d), ids is (N), table is (V, d)
void embedding_forward(real *out, const int32_t *ids, const real *table, int n, int d);
// dtable[ids[t]] += dout[t]: rows that occur twice collect both gradients
// dtable is (V, d), dout is (N, d)
void embedding_backward(real *dtable, const real *dout, const int32_t *ids, int n, int d);

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

// Mean over the L positions of each chunk: out[b] = (1/L) sum_t inp[b, t].
// out is (B, d), inp is (B, L, d)
void mean_forward(real *out, const real *inp, int B, int L, int d);
// dinp[b, t] += dout[b] / L
void mean_backward(real *dinp, const real *dout, int B, int L, int d);

// Sigmoid binary cross-entropy of logits z against labels y in {0, 1},
// averaged over the batch (optax.sigmoid_binary_cross_entropy, then mean):
// loss = mean_b [ max(z, 0) - z y + log(1 + exp(-|z|)) ]. z and y are (B)
real bce_forward(const real *z, const int32_t *y, int B);
// dz[b] += (sigmoid(z[b]) - y[b]) / B
void bce_backward(real *dz, const real *z, const int32_t *y, int B);

#endif
