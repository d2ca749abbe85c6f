// ffn.h: the position-wise feed-forward network of the transformer layers,
// linear1, ReLU, linear2 (PyTorch's nn.TransformerEncoderLayer with
// activation "relu" and dropout 0), applied to every token on its own, in
// real, forward and backward, and its starting values.
//
//   N      rows (tokens), each through the network on its own
//   d      the model width
//   d_ff   the hidden width
//
// out = linear2(relu(linear1(x))), the weights as nn.Linear stores them.
#ifndef ATTN_FFN_H
#define ATTN_FFN_H

#include "core/rng.h"
#include "kernels/real.h"

// The parameters, or their gradients (views into a model's block).
typedef struct {
    real *w1, *b1;  // linear1.weight (d_ff, d), linear1.bias (d_ff)
    real *w2, *b2;  // linear2.weight (d, d_ff), linear2.bias (d)
} ffn_params;

// What the forward pass keeps, and the backward pass's scratch.
typedef struct {
    real *hidden;   // (N, d_ff) relu(linear1(x)): kept
    real *dhidden;  // (N, d_ff) scratch of the backward pass
} ffn_cache;

// Room for up to n rows. Returns 0, or -1 when out of memory.
int ffn_cache_alloc(ffn_cache *c, int n, int d_ff);
void ffn_cache_free(ffn_cache *c);

// nn.Linear(d, d_ff) then nn.Linear(d_ff, d), drawn from g in that order
// (linear.h's linear_init). Returns 0, or -1 when out of memory.
int ffn_init(torch_rng *g, const ffn_params *p, int d, int d_ff);

// out = relu(inp W1^T + b1) W2^T + b2. out is (N, d), inp is (N, d);
// c->hidden gets (N, d_ff).
void ffn_forward(real *out, ffn_cache *c, const ffn_params *p, const real *inp, int n, int d,
                 int d_ff);

// dinp (N, d) and the parameters' gradients g ADD the gradients of the loss,
// given dout (N, d) and the forward's inp and cache. dinp may be NULL.
void ffn_backward(real *dinp, const ffn_params *g, ffn_cache *c, const real *dout,
                  const real *inp, const ffn_params *p, int n, int d, int d_ff);

#endif
