// feedforward.h: the transformer's position-wise feed-forward network,
// Linear -> ReLU -> Linear, applied to every token on its own.
//
// Dimension legend (as in tensor.h):
//   n     tokens
//   d     model width (d_model)
//   d_ff  hidden width (dim_feedforward)
#ifndef ATTN_FEEDFORWARD_H
#define ATTN_FEEDFORWARD_H

#include "core/rng.h"

typedef struct {
    int d, d_ff;
    float *w1, *b1;  // linear1: (d_ff, d), (d_ff)
    float *w2, *b2;  // linear2: (d, d_ff), (d)
} feedforward;

// Allocates the parameters (not initialised). Returns 0, or -1 when out of
// memory or a size is below 1 (then nothing stays allocated).
int feedforward_alloc(feedforward *f, int d, int d_ff);
void feedforward_free(feedforward *f);

// nn.Linear(d, d_ff) then nn.Linear(d_ff, d), drawn from g in that order.
void feedforward_init(feedforward *f, torch_rng *g);

// out = relu(x W1^T + b1) W2^T + b2. x and out are (n, d) and may be the
// same array. Returns 0, or -1 when out of memory.
int feedforward_forward(float *out, const feedforward *f, const float *x,
                        int n);

#endif
