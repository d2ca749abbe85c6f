// additive.h: additive attention, the score function of Bahdanau, Cho and
// Bengio's alignment model:
//
//   score(q_i, k_j) = w . tanh(W_q q_i + b_q + W_k k_j + b_k) + c
//   weights[i, :]   = softmax over j of score(q_i, k_j)
//   out[i]          = sum_j weights[i, j] v_j
//
// A small network with one hidden layer of width d_h scores every pair of a
// query and a key. The constant c (the bias of the last nn.Linear(d_h, 1))
// adds the same number to a whole row and so cancels in the softmax; it is
// kept so that the scores are PyTorch's.
//
// Dimension legend (as in layers/tensor.h):
//   n_q  queries
//   n_k  keys, and values (one value per key)
//   d_q  width of a query vector, d_k of a key vector
//   d_h  hidden width of the score network (256 in chapter 6)
//   d_v  width of a value
#ifndef ATTN_ADDITIVE_H
#define ATTN_ADDITIVE_H

#include <stddef.h>

#include "core/rng.h"

// The parameters, stored as the three nn.Linear store them.
typedef struct {
    int d_q, d_k, d_h;
    float *q_weight, *q_bias;  // (d_h, d_q), (d_h)  W_q, b_q: nn.Linear(d_q, d_h)
    float *k_weight, *k_bias;  // (d_h, d_k), (d_h)  W_k, b_k: nn.Linear(d_k, d_h)
    float *s_weight, *s_bias;  // (d_h), (1)       w, c:     nn.Linear(d_h, 1)
} additive_attention;

// Allocates the parameters (uninitialised). Returns 0, or -1 when out of
// memory (then nothing stays allocated).
int additive_alloc(additive_attention *m, int d_q, int d_k, int d_h);
void additive_free(additive_attention *m);

// The three nn.Linear drawn as PyTorch draws them in construction order:
// W_q and b_q, then W_k and b_k, then w and c.
void additive_init(additive_attention *m, torch_rng *g);

// scores (n_q, n_k) straight from the formula, one pair at a time: the
// reference. queries is (n_q, d_q), keys is (n_k, d_k). It projects q_i and
// k_j again for every pair, n_q n_k d_h (d_q + d_k) multiply-adds.
void additive_scores_loop(float *scores, const additive_attention *m,
                          const float *queries, const float *keys,
                          int n_q, int n_k);

// The same scores, with every query and key projected once:
// Q = queries W_q^T + b_q (n_q, d_h) and K = keys W_k^T + b_k (n_k, d_h), then
// w . tanh(Q_i + K_j) + c for every pair. Q and K are the caller's scratch,
// or NULL to allocate them. Returns 0, or -1 when out of memory.
int additive_scores(float *scores, float *Q, float *K,
                    const additive_attention *m, const float *queries,
                    const float *keys, int n_q, int n_k);

// The whole forward pass: weights (n_q, n_k) = softmax of the scores along
// each row, out (n_q, d_v) = weights @ values, values (n_k, d_v). Returns 0,
// or -1 when out of memory.
int additive_attention_forward(float *out, float *weights,
                               const additive_attention *m,
                               const float *queries, const float *keys,
                               const float *values, int n_q, int n_k, int d_v);

// Whether tensors of shapes a (ndim_a) and b (ndim_b) broadcast, as
// PyTorch's elementwise operations need: aligned from the last dimension,
// each pair of sizes equal or one of them 1. If they do not, err gets
// PyTorch's own message, e.g. "The size of tensor a (8) must match the size
// of tensor b (9) at non-singleton dimension 0".
int broadcast_ok(const int *a, int ndim_a, const int *b, int ndim_b,
                 char *err, size_t errlen);

// The notebook's AdditiveAttention.forward, which adds Q (n_q, d_h) and
// K (n_k, d_h) row by row: Ws(tanh(Q + K)).transpose(-2, -1). When n_q and n_k
// differ (and neither is 1) PyTorch refuses the sum: returns -1 with its
// message in err. Otherwise weights is (1, n), n = max(n_q, n_k): one row
// whose entry i scores query i against key i alone, softmax over i; and
// out (1, d_v) = weights @ values. Returns 0, or -1 when out of memory.
int additive_notebook_forward(float *out, float *weights,
                              const additive_attention *m,
                              const float *queries, const float *keys,
                              const float *values, int n_q, int n_k, int d_v,
                              char *err, size_t errlen);

#endif
