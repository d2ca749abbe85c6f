// attention_module.h: the attention module of the notebook "Studying the
// mechanism of self-attention" (chapter 3), whose three biased nn.Linear maps
// chapter 6 reuses as its trainable attention.
//
// Dimension legend (as in layers/tensor.h):
//   n      tokens
//   d_in   input width (in_features)
//   d_out  width of queries, keys and values (out_features)
//   B      batch size
#ifndef ATTN_ATTENTION_MODULE_H
#define ATTN_ATTENTION_MODULE_H

#include "core/rng.h"

// The attention module of the notebook "Studying the mechanism of
// self-attention": three biased linear maps Q, K and V, each (d_out, d_in)
// with a (d_out) bias.
typedef struct {
    int d_in, d_out;
    float *q_weight, *q_bias;  // (d_out, d_in), (d_out)
    float *k_weight, *k_bias;
    float *v_weight, *v_bias;
} attention_module;

// Allocates the six parameter tensors (uninitialised). Returns 0, or -1 when
// out of memory (then nothing stays allocated).
int attention_module_alloc(attention_module *m, int d_in, int d_out);
void attention_module_free(attention_module *m);

// nn.Linear(d_in, d_out) three times, Q, K and V in that order, each weight
// then bias, drawn from g as PyTorch builds them.
void attention_module_init(attention_module *m, torch_rng *g);

// The module's forward pass on a batch of B sequences of n tokens:
//   queries = x Q^T + b_q, keys = x K^T + b_k, values = x V^T + b_v
//   scores = queries @ keys^T * d_out^-0.5
//   weights = softmax(scores) along each row
//   hidden = weights @ values
// x is (B, n, d_in); weights is (B, n, n); hidden is (B, n, d_out). Any of
// queries, keys, values and scores, each (B, n, d_out) or (B, n, n), may be
// NULL when the caller does not need it. Returns 0, or -1 when out of memory.
int attention_module_forward(float *hidden, float *weights, float *queries,
                             float *keys, float *values, float *scores,
                             const attention_module *m, const float *x,
                             int B, int n);

#endif
