// linear.h: the fully connected layer, nn.Linear, and the attention module
// built from three of them.
//
// Dimension legend (as in tensor.h):
//   n      rows of the input (tokens)
//   d_in   input width (in_features)
//   d_out  output width (out_features)
//   B      batch size
// A weight is stored the way nn.Linear stores it: (d_out, d_in), one row per
// output feature. So y = x A^T + b, and q = x W_q with W_q = A^T of shape
// (d_in, d_out).
#ifndef ATTN_LINEAR_H
#define ATTN_LINEAR_H

// y = x A^T + b, nn.Linear's forward. x is (n, d_in), weight A is
// (d_out, d_in), bias b is (d_out) or NULL for bias=False, y is (n, d_out).
// y must not overlap x.
void linear_forward(float *y, const float *x, const float *weight,
                    const float *bias, int n, int d_in, int d_out);

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
