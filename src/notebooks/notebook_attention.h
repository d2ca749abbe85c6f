// notebook_attention.h: the notebook "Attention and Transformers"'s own
// attention and multi-head attention (its cells [T23] and [T24]), as written,
// flaws included, so that chapters 4 and 5 can run its cells.
//
// Dimension legend (as in layers/tensor.h):
//   n    tokens; the notebook's U matrices are (n, n), so every input of
//        one call must have the same n
//   d    model width, the notebook's EMBEDDING_DIM
//   d_k  width of one head's queries, keys and values: d in the notebook
//   h    heads, n_heads
#ifndef ATTN_NOTEBOOK_ATTENTION_H
#define ATTN_NOTEBOOK_ATTENTION_H

#include <stdbool.h>

#include "core/rng.h"

// Cell [T23], attention(query, keys, values, causal_masking): one head.
// query, keys, values and z are (n, d_k); weights (n, n) receives the
// softmax. The scores are divided by sqrt(embedding_dim), the notebook's
// global EMBEDDING_DIM, whatever d_k is. z must not overlap the inputs.
void notebook_attention(float *z, float *weights, const float *query,
                        const float *keys, const float *values,
                        bool causal_masking, int n, int d_k,
                        int embedding_dim);

// The weights one call of the notebook's multi_head_attention draws.
typedef struct {
    int h, n, d;
    float *u_q, *u_k, *u_v;  // (h, n, n) torch.rand(n_heads, n, n)
    float *w_out;            // (h d, d)  torch.rand(n_heads * d, d)
} notebook_mha;

// Allocates the weights (not drawn). Returns 0, or -1 when out of memory or
// a size is below 1 (then nothing stays allocated).
int notebook_mha_alloc(notebook_mha *m, int h, int n, int d);
void notebook_mha_free(notebook_mha *m);

// Draws the weights as one call of multi_head_attention does: u_q, u_k,
// u_v, then w_out (the heads in between draw nothing).
void notebook_mha_draw(notebook_mha *m, torch_rng *g);

// The rest of the call with m's weights: head i is
// attention(u_q[i] @ x_q, u_k[i] @ x_k, u_v[i] @ x_v), every head d wide;
// the heads side by side, (n, h d), times w_out. x_q, x_k, x_v and out are
// (n, d); heads, (n, h d), receives the concatenation and weights,
// (h, n, n), each head's softmax; either may be NULL. heads_causal is what
// each head gets as causal_masking. Returns 0, or -1 when out of memory.
int notebook_mha_forward(float *out, float *heads, float *weights,
                         const notebook_mha *m, const float *x_q,
                         const float *x_k, const float *x_v,
                         bool heads_causal);

// Cell [T24], multi_head_attention(x_q, x_k, x_v, n_heads, causal_masking):
// draws m's weights anew and runs the heads without masking, whatever
// causal_masking says, as the notebook does. Returns 0, or -1 when out of
// memory.
int notebook_multi_head_attention(float *out, notebook_mha *m,
                                  const float *x_q, const float *x_k,
                                  const float *x_v, bool causal_masking,
                                  torch_rng *g);

#endif
