// multihead.h: multi-head attention as "Attention Is All You Need" and
// torch.nn.MultiheadAttention define it.
//
// Dimension legend (as in tensor.h):
//   n_q  query tokens (rows of the query input)
//   n_k  key and value tokens (rows of the key and value inputs); n_q = n_k
//        for self-attention, not for cross-attention
//   d    model width, embed_dim in PyTorch
//   h    heads
//   d_k  head width, d / h: each head's queries, keys and values
//
// The parameters are stored the way PyTorch stores them: one input
// projection in_proj_weight of shape (3d, d), the weights of three
// nn.Linear(d, d) stacked, queries' rows first, then keys', then values';
// in_proj_bias (3d) likewise; and out_proj, an nn.Linear(d, d). Rows
// i d_k .. (i + 1) d_k - 1 of each (d, d) block are head i's own
// nn.Linear(d, d_k): that is all "splitting into heads" means.
#ifndef ATTN_MULTIHEAD_H
#define ATTN_MULTIHEAD_H

#include <stdbool.h>

#include "core/rng.h"

typedef enum {
    MHA_OK = 0,
    MHA_HEADS_DO_NOT_DIVIDE = -1,  // d is not a multiple of h
    MHA_BAD_SIZE = -2,             // d, h, n_q or n_k below 1
    MHA_NO_MEMORY = -3,
    MHA_FULLY_MASKED_ROW = -4,     // a query the mask lets see no key
} mha_status;

// What a status means, in words, e.g. "the model width is not divisible by
// the number of heads".
const char *mha_status_text(mha_status s);

typedef struct {
    int d, h, d_k;
    float *in_proj_weight;   // (3d, d): W_q, W_k, W_v as nn.Linear weights
    float *in_proj_bias;     // (3d)
    float *out_proj_weight;  // (d, d)
    float *out_proj_bias;    // (d)
} multihead_attention;

// Allocates the parameters (uninitialised) of h heads over width d.
// Returns MHA_OK, MHA_HEADS_DO_NOT_DIVIDE when d % h != 0 (as PyTorch
// asserts "embed_dim must be divisible by num_heads"), MHA_BAD_SIZE or
// MHA_NO_MEMORY; on failure nothing stays allocated.
mha_status multihead_alloc(multihead_attention *m, int d, int h);
void multihead_free(multihead_attention *m);

// nn.MultiheadAttention(d, h)'s initialisation, drawing from g in the order
// PyTorch does: out_proj is an nn.Linear built in the constructor, so its
// weight and bias are drawn first; then _reset_parameters() draws
// in_proj_weight xavier-uniform over (3d, d) and sets both biases to zero.
void multihead_init(multihead_attention *m, torch_rng *g);

// The forward pass, nn.MultiheadAttention(query, key, value, attn_mask):
//   Q = query W_q^T + b_q, K = key W_k^T + b_k, V = value W_v^T + b_v
//   for each head i, on columns i d_k .. (i + 1) d_k - 1 of Q, K and V:
//     A_i = softmax(Q_i K_i^T / sqrt(d_k)), masked entries left out
//     H_i = A_i V_i
//   out = [H_1 ... H_h] W_o^T + b_o
// query is (n_q, d); key and value are (n_k, d); mask is (n_q, n_k), true
// where a query may not look at a key, or NULL; out is (n_q, d).
// head_weights (h, n_q, n_k) receives every A_i (average_attn_weights=False)
// and mean_weights (n_q, n_k) their average over the heads (PyTorch's
// default); either may be NULL. Returns MHA_OK, MHA_NO_MEMORY, or
// MHA_FULLY_MASKED_ROW if the mask hides every key from some query (PyTorch
// would give NaN there; out is then undefined).
mha_status multihead_forward(float *out, float *head_weights,
                             float *mean_weights,
                             const multihead_attention *m, const float *query,
                             const float *key, const float *value,
                             const bool *mask, int n_q, int n_k);

#endif
