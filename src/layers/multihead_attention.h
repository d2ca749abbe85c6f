// multihead_attention.h: multi-head attention as "Attention Is All You
// Need" and torch.nn.MultiheadAttention (batch_first, dropout 0) define it,
// in real over a batch of sequences (one sequence is a batch of one),
// forward and backward, its starting values, and the checks of its sizes.
//
//   B      sequences in the batch
//   n_q    queries per sequence (the target's length, or the source's in the
//          encoder)
//   n_k    keys and values per sequence (n_q in self-attention, the
//          source's length in cross-attention)
//   d      the model width
//   h      heads; each takes d_k = d / h columns
//
// For each sequence and head i, with Wq, Wk, Wv the three (d, d) blocks of
// in_proj_weight and bq, bk, bv of in_proj_bias:
//   q = (query Wq^T + bq) / sqrt(d_k)     (n_q, d_k), head i's columns
//   k = kv Wk^T + bk,  v = kv Wv^T + bv   (n_k, d_k)
//   w = softmax(q k^T) over the keys,     (n_q, n_k), masked keys exactly 0
//   z_i = w v                             (n_q, d_k)
// and out = [z_0 ... z_{h-1}] out_proj_weight^T + out_proj_bias, (n_q, d).
// PyTorch scales the queries, not the scores (src/README.md).
//
// Masks as PyTorch's: with causal, query i may not see key j > i (the
// attn_mask of nn.Transformer.generate_square_subsequent_mask); key_pad
// (B, n_k), true where a key is padding, hides that key from every query of
// its sequence. A hidden key gets a weight of exactly 0. A query that sees
// no key at all gets weights of 0 and the output bias (PyTorch gives NaN);
// the sequences of chapter 8 never have one.
//
// Rows left out: with q_len and k_len (B), not NULL, the layer computes
// only the first q_len[b] queries and k_len[b] keys of sequence b, the
// arrays holding those rows one sequence after the other (mha_rows of them
// in all; NULL: all n_q, n_k of every sequence, the (B, n, d) layout).
// Exact for the rows computed when the keys left out are ones their queries
// may not see anyway (trailing padding, or beyond the last query under the
// causal mask): they would get a weight of exactly 0.
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// forward function overwrites its output, a backward one ADDS the gradients.
#ifndef ATTN_MULTIHEAD_ATTENTION_H
#define ATTN_MULTIHEAD_ATTENTION_H

#include <stdbool.h>

#include "core/rng.h"
#include "kernels/real.h"

typedef enum {
    MHA_OK = 0,
    MHA_HEADS_DO_NOT_DIVIDE = -1,  // d is not a multiple of h
    MHA_BAD_SIZE = -2,             // d, h, d_ff or a token count below 1
    MHA_NO_MEMORY = -3,
    MHA_FULLY_MASKED_ROW = -4,     // a query the masks let see no key
} mha_status;

// What a status means, in words, e.g. "the model width is not divisible by
// the number of heads".
const char *mha_status_text(mha_status s);

// Whether h heads split the width d: MHA_OK, MHA_BAD_SIZE when d or h is
// below 1, MHA_HEADS_DO_NOT_DIVIDE when d % h != 0 (as PyTorch asserts
// "embed_dim must be divisible by num_heads").
mha_status mha_check(int d, int h);

// The parameters, or their gradients (views into a model's block), named
// as in PyTorch's state_dict.
typedef struct {
    real *in_proj_weight;   // (3d, d): the query rows, the key rows, the value rows
    real *in_proj_bias;     // (3d)
    real *out_proj_weight;  // (d, d)
    real *out_proj_bias;    // (d)
} mha_params;

// What the forward pass keeps for the backward pass (and for figures), and
// the backward pass's scratch. The sizes of the last forward call decide
// the layout within the room allocated.
typedef struct {
    real *q;  // (B, h, n_q, d_k) the heads' queries, already times 1/sqrt(d_k)
    real *k;  // (B, h, n_k, d_k) the heads' keys
    real *v;  // (B, h, n_k, d_k) the heads' values
    real *w;  // (B, h, n_q, n_k) the attention weights, each row sums to 1; with
              // lengths, head i of sequence b keeps (q_len[b], k_len[b]) of them at
              // the start of its (n_q, n_k) place. NULL in a tiled cache.
    real *lse;  // (B, h, n_q) a tiled cache's only: each query's log-sum-exp, from
                // which the backward pass recomputes the weights. NULL otherwise.
    real *z;  // (B, n_q, d) the heads side by side, the output projection's input
    // scratch
    real *proj;             // (B, max(n_q, n_k), d) a projection before its heads are split
    real *dz;               // (B, n_q, d)
    real *dq, *dk, *dv;     // (B, h, n_q or n_k, d_k)
    real *dw;               // (n_q, n_k); NULL in a tiled cache
    bool causal;            // the last forward pass's mask, which its backward pass skips
} mha_cache;

// Room for B sequences of up to n_q queries and n_k keys. Returns 0, or -1
// when out of memory.
int mha_cache_alloc(mha_cache *c, int B, int n_q, int n_k, int d, int h);
void mha_cache_free(mha_cache *c);

// Room for mha_tiled_forward and _backward: B sequences of up to n
// positions, with lse in place of w and dw, so nothing n x n. Returns 0, or
// -1 when out of memory.
int mha_tiled_cache_alloc(mha_cache *c, int B, int n, int d, int h);

// nn.MultiheadAttention(d, h)'s parameters in a block of their own, for a
// program that uses the layer by itself: mha_check's status (then nothing
// is allocated), or MHA_NO_MEMORY. The values are not set: mha_init.
typedef struct {
    int d, h, d_k;  // d_k = d / h
    mha_params p;
} mha_layer;
mha_status mha_alloc(mha_layer *m, int d, int h);
void mha_free(mha_layer *m);

// nn.MultiheadAttention(d, h)'s initialisation of p, drawing from g in the
// order PyTorch does: out_proj is an nn.Linear built in the constructor, so
// its weight and bias are drawn first; then _reset_parameters() draws
// in_proj_weight xavier-uniform over (3d, d) and sets both biases to zero.
// Returns 0, or -1 when out of memory.
int mha_init(torch_rng *g, const mha_params *p, int d);

// out is (B, n_q, d); query is (B, n_q, d); kv, the keys' and values' input,
// is (B, n_k, d) (the same array as query in self-attention); key_pad is
// (B, n_k) or NULL; q_len and k_len (B) or NULL, as at the top. The cache
// gets q, k, v, w and z. Returns MHA_OK, or MHA_FULLY_MASKED_ROW when the
// masks hide every key from some query (PyTorch would give NaN; that query
// gets the output bias), or MHA_BAD_SIZE when a size is below 1.
mha_status mha_forward(real *out, mha_cache *c, const mha_params *p, const real *query,
                       const real *kv, const bool *key_pad, bool causal, int B, int n_q,
                       int n_k, int d, int h, const int *q_len, const int *k_len);

// Given dout (B, n_q, d) and the forward's query, kv and cache: dquery
// (B, n_q, d) += the gradient through the queries, dkv (B, n_k, d) += the
// gradient through the keys and the values, g += the parameters'. In
// self-attention pass the same array as dquery and dkv; either may be NULL.
// q_len, k_len as the forward pass had them.
void mha_backward(real *dquery, real *dkv, const mha_params *g, mha_cache *c, const real *dout,
                  const real *query, const real *kv, const mha_params *p, int B, int n_q, int n_k,
                  int d, int h, const int *q_len, const int *k_len);

// The rows of B sequences of n positions when sequence b has len[b] of
// them (len NULL: B n).
int mha_rows(const int *len, int B, int n);

// The attention weights of sequence b after a forward pass without
// lengths, averaged over the h heads (PyTorch's average_attn_weights):
// mean is (n_q, n_k). (c->w holds each head's, (B, h, n_q, n_k).)
void mha_mean_weights(real *mean, const mha_cache *c, int b, int h, int n_q, int n_k);

// One head of one sequence, what mha_forward does for each: w = the masked
// softmax of q k^T over the keys (pad (n_k) or NULL, causal), z = w v. q and
// z are (n_q, d_k), k and v (n_k, d_k), w (n_q, n_k); scratch holds
// n_k d_k numbers.
void mha_head_forward(real *w, real *z, const real *q, const real *k, const real *v,
                      const bool *pad, bool causal, int n_q, int n_k, int d_k, real *scratch);

// mha_head_forward for one query, no mask, with the keys kept transposed:
// kt (d_k, n_k) rows ld_kt apart (a cache that adds a key as a column, so
// that nothing is copied out per query), v (n_k, d_k), w (n_k), z (d_k).
// The same bits as mha_head_forward on the keys kt^T.
void mha_query_forward(real *w, real *z, const real *q, const real *kt, long ld_kt,
                       const real *v, int n_k, int d_k);

// Self-attention (x (B, n, d) the queries', keys' and values' input) with
// the same projections as mha_forward and mha_backward, but each head's
// softmax(q k^T) v computed by tiled_attention_forward and _backward
// (tiled_attention.h), a tile at a time: the same numbers to rounding, the
// weights never held. No padding, no lengths; c from mha_tiled_cache_alloc,
// whose w stays NULL: a tiled cache keeps no weights to print.
// mha_tiled_backward adds the gradient through the queries, keys and
// values into dx (B, n, d), and the parameters' into g.
void mha_tiled_forward(real *out, mha_cache *c, const mha_params *p, const real *x, bool causal,
                       int B, int n, int d, int h);
void mha_tiled_backward(real *dx, const mha_params *g, mha_cache *c, const real *dout,
                        const real *x, const mha_params *p, bool causal, int B, int n, int d,
                        int h);

#endif
