// multihead_attention.c: nn.MultiheadAttention over a batch, forward and
// backward. Dimension legend in multihead_attention.h.
//
// The projections see the whole batch at once, (B n, d) rows; the heads
// then work one (sequence, head) pair at a time on contiguous (n, d_k)
// copies of their columns, so that every product is a plain gemm. The
// tiled form at the end shares the projections and the copies, and hands
// each head to tiled_attention.c.
#include "layers/multihead_attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "kernels/aligned.h"
#include "kernels/gemm.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"
#include "layers/linear.h"
#include "layers/softmax.h"
#include "layers/tiled_attention.h"

static int max_int(int a, int b) { return a > b ? a : b; }

const char *mha_status_text(mha_status s) {
    switch (s) {
    case MHA_OK: return "no error";
    case MHA_HEADS_DO_NOT_DIVIDE:
        return "the model width is not divisible by the number of heads";
    case MHA_BAD_SIZE: return "a width, head count or token count below 1";
    case MHA_NO_MEMORY: return "out of memory";
    case MHA_FULLY_MASKED_ROW: return "the mask hides every key from a query";
    }
    return "unknown status";
}

//> multihead-alloc
// Refuses h heads that do not split d evenly: each head takes d / h
// columns, and d / h must be a whole number.
mha_status mha_check(int d, int h) {
    if (d < 1 || h < 1) return MHA_BAD_SIZE;
    if (d % h != 0) return MHA_HEADS_DO_NOT_DIVIDE;
    return MHA_OK;
}
//< multihead-alloc

mha_status mha_alloc(mha_layer *m, int d, int h) {
    memset(m, 0, sizeof *m);
    mha_status s = mha_check(d, h);
    if (s != MHA_OK) return s;
    real *block = malloc((4 * (size_t)d * d + 4 * (size_t)d) * sizeof(real));
    if (!block) return MHA_NO_MEMORY;
    *m = (mha_layer){ .d = d, .h = h, .d_k = d / h };
    m->p.in_proj_weight = block;                         // (3d, d)
    m->p.in_proj_bias = block + 3 * (size_t)d * d;       // (3d)
    m->p.out_proj_weight = m->p.in_proj_bias + 3 * d;    // (d, d)
    m->p.out_proj_bias = m->p.out_proj_weight + (size_t)d * d;  // (d)
    return MHA_OK;
}

void mha_free(mha_layer *m) {
    free(m->p.in_proj_weight);  // the start of the block
    memset(m, 0, sizeof *m);
}

//> multihead-init
// nn.MultiheadAttention(d, h): out_proj = nn.Linear(d, d) is built (and
// drawn) in the constructor; _reset_parameters() then draws in_proj_weight,
// (3d, d), with xavier_uniform_ and zeroes both biases.
int mha_init(torch_rng *g, const mha_params *p, int d) {
    if (linear_init(g, p->out_proj_weight, p->out_proj_bias, d, d) != 0) return -1;
#ifdef ATTN_REAL_IS_FLOAT
    rng_xavier_uniform(g, p->in_proj_weight, 3 * d, d);
#else  // the generator gives floats
    float *w = malloc(3 * (size_t)d * d * sizeof *w);
    if (!w) return -1;
    rng_xavier_uniform(g, w, 3 * d, d);
    for (size_t e = 0; e < 3 * (size_t)d * d; e++) p->in_proj_weight[e] = w[e];
    free(w);
#endif
    memset(p->in_proj_bias, 0, 3 * (size_t)d * sizeof(real));
    memset(p->out_proj_bias, 0, (size_t)d * sizeof(real));
    return 0;
}
//< multihead-init

// The cache of either form: the naive one keeps the weights w and has dw
// for the backward pass; the tiled one keeps each query's log-sum-exp
// instead, and nothing n_q x n_k.
static int mha_cache_alloc_either(mha_cache *c, int B, int n_q, int n_k, int d, int h, bool tiled) {
    memset(c, 0, sizeof *c);
    size_t s = sizeof(real), bq = (size_t)B * n_q * d, bk = (size_t)B * n_k * d;
    size_t n = (size_t)max_int(n_q, n_k);
    c->q = ALIGNED_MALLOC(bq, s);
    c->k = ALIGNED_MALLOC(bk, s);
    c->v = ALIGNED_MALLOC(bk, s);
    c->z = ALIGNED_MALLOC(bq, s);
    c->proj = ALIGNED_MALLOC((size_t)B * n * d, s);
    c->dz = ALIGNED_MALLOC(bq, s);
    c->dq = ALIGNED_MALLOC(bq, s);
    c->dk = ALIGNED_MALLOC(bk, s);
    c->dv = ALIGNED_MALLOC(bk, s);
    if (tiled) {
        c->lse = ALIGNED_MALLOC((size_t)B * h * n_q, s);
    } else {
        c->w = ALIGNED_MALLOC((size_t)B * h * n_q * n_k, s);
        c->dw = ALIGNED_MALLOC((size_t)n_q * n_k, s);
    }
    bool kept = tiled ? c->lse != NULL : c->w && c->dw;
    if (kept && c->q && c->k && c->v && c->z && c->proj && c->dz && c->dq && c->dk && c->dv)
        return 0;
    mha_cache_free(c);
    return -1;
}

int mha_cache_alloc(mha_cache *c, int B, int n_q, int n_k, int d, int h) {
    return mha_cache_alloc_either(c, B, n_q, n_k, d, h, false);
}

int mha_tiled_cache_alloc(mha_cache *c, int B, int n, int d, int h) {
    return mha_cache_alloc_either(c, B, n, n, d, h, true);
}

void mha_cache_free(mha_cache *c) {
    real *all[] = { c->q, c->k, c->v, c->w, c->lse, c->z, c->proj, c->dz, c->dq, c->dk,
                    c->dv, c->dw };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(all[i]);
    memset(c, 0, sizeof *c);
}

int mha_rows(const int *len, int B, int n) {
    if (!len) return B * n;
    int rows = 0;
    for (int b = 0; b < B; b++) rows += len[b];
    return rows;
}

static int length(const int *len, int b, int n) { return len ? len[b] : n; }

// heads (B, h, n, d_k) = x (B, n, d) cut into its h column blocks, times
// factor; merge_heads is the way back, x (B, n, d) = heads times factor.
// With len, x holds only the first len[b] rows of sequence b, packed, and
// only those rows of each head are read or written.
static void split_heads(real *heads, const real *x, real factor, int B, int n, int d, int h,
                        const int *len) {
    int d_k = d / h;
    long row = 0;  // sequence b's first row in x
    for (int b = 0; b < B; b++) {
        int nb = length(len, b, n);
        for (int i = 0; i < h; i++)
            for (int t = 0; t < nb; t++) {
                const real *from = x + (row + t) * d + i * d_k;
                real *to = heads + (((long)b * h + i) * n + t) * d_k;
                for (int j = 0; j < d_k; j++) to[j] = factor * from[j];
            }
        row += nb;
    }
}

static void merge_heads(real *x, const real *heads, real factor, int B, int n, int d, int h,
                        const int *len) {
    int d_k = d / h;
    long row = 0;
    for (int b = 0; b < B; b++) {
        int nb = length(len, b, n);
        for (int i = 0; i < h; i++)
            for (int t = 0; t < nb; t++) {
                const real *from = heads + (((long)b * h + i) * n + t) * d_k;
                real *to = x + (row + t) * d + i * d_k;
                for (int j = 0; j < d_k; j++) to[j] = factor * from[j];
            }
        row += nb;
    }
}

// The softmax of each row of scores w (n_q, n_k) over the keys query r may
// see: not j > r when causal, not a padded key (pad (n_k) or NULL). The
// others get exactly 0, as exp(-inf) gives in PyTorch.
static void masked_softmax(real *w, const bool *pad, bool causal, int n_q, int n_k) {
    for (int r = 0; r < n_q; r++) {
        int seen = causal && r + 1 < n_k ? r + 1 : n_k;  // keys 0 .. seen-1
        softmax_row(w + (long)r * n_k, pad, seen, n_k);
    }
}

// The three (d, d) blocks of in_proj_weight and of its bias: 0 the
// queries', 1 the keys', 2 the values'.
static real *block(real *w, int which, int d) { return w ? w + (long)which * d * d : NULL; }
static real *bias_block(real *b, int which, int d) { return b ? b + (long)which * d : NULL; }

// The same as the loops of mha_forward and mha_backward below, with
// the vector kernels attention_head_forward and _backward (simd_kernels.h)
// reading and writing each head's columns in place: no split_heads and
// merge_heads copies; the same products, and the softmax to rounding
// (simd_kernels.h says how). The cache then holds q, k, v, z,
// dq, dk, dv as (rows, d) arrays, the heads side by side. False when there
// are no kernels for this processor (or real is double): the loops run.
static bool fast_forward(real *out, mha_cache *c, const mha_params *p, const real *query,
                         const real *kv, const bool *key_pad, bool causal, int B, int n_q,
                         int n_k, int d, int h, const int *q_len, const int *k_len) {
#ifdef ATTN_REAL_IS_FLOAT
    simd_level level = simd_best();
    if (level == SIMD_NONE) return false;
    const int d_k = d / h, N_q = mha_rows(q_len, B, n_q), N_k = mha_rows(k_len, B, n_k);
    real *w_in = p->in_proj_weight, *b_in = p->in_proj_bias;
    linear_forward(c->q, query, block(w_in, 0, d), bias_block(b_in, 0, d), N_q, d, d, WEIGHT_OUT_IN);
    SIMD_RUN(level, scale, c->q, (long)N_q * d, (real)(1.0 / sqrt((double)d_k)));
    linear_forward(c->k, kv, block(w_in, 1, d), bias_block(b_in, 1, d), N_k, d, d, WEIGHT_OUT_IN);
    linear_forward(c->v, kv, block(w_in, 2, d), bias_block(b_in, 2, d), N_k, d, d, WEIGHT_OUT_IN);
    long row_q = 0, row_k = 0;  // sequence b's first rows
    for (int b = 0; b < B; b++) {
        int nq = length(q_len, b, n_q), nk = length(k_len, b, n_k);
        for (int i = 0; i < h; i++) {
            long at_q = row_q * d + i * d_k, at_k = row_k * d + i * d_k;
            SIMD_RUN(level, attention_head_forward, c->w + ((long)b * h + i) * n_q * n_k,
                     c->z + at_q, c->q + at_q, c->k + at_k, c->v + at_k, d,
                     key_pad ? key_pad + (long)b * n_k : NULL, causal, nq, nk, d_k, c->proj);
        }
        row_q += nq;
        row_k += nk;
    }
    linear_forward(out, c->z, p->out_proj_weight, p->out_proj_bias, N_q, d, d, WEIGHT_OUT_IN);
    return true;
#else
    (void)out, (void)c, (void)p, (void)query, (void)kv, (void)key_pad, (void)causal, (void)B;
    (void)n_q, (void)n_k, (void)d, (void)h, (void)q_len, (void)k_len;
    return false;
#endif
}

static bool fast_backward(real *dquery, real *dkv, const mha_params *g, mha_cache *c,
                          const real *dout, const real *query, const real *kv,
                          const mha_params *p, int B, int n_q, int n_k, int d, int h,
                          const int *q_len, const int *k_len) {
#ifdef ATTN_REAL_IS_FLOAT
    simd_level level = simd_best();
    if (level == SIMD_NONE) return false;
    const int d_k = d / h, N_q = mha_rows(q_len, B, n_q), N_k = mha_rows(k_len, B, n_k);
    linear_backward_write(c->dz, g->out_proj_weight, g->out_proj_bias, dout, c->z,
                          p->out_proj_weight, N_q, d, d, WEIGHT_OUT_IN);  // dz written
    long row_q = 0, row_k = 0;  // every head writes its columns of dq, dk, dv: no clearing
    for (int b = 0; b < B; b++) {
        int nq = length(q_len, b, n_q), nk = length(k_len, b, n_k);
        for (int i = 0; i < h; i++) {
            long at_q = row_q * d + i * d_k, at_k = row_k * d + i * d_k;
            SIMD_RUN(level, attention_head_backward, c->dq + at_q, c->dk + at_k, c->dv + at_k,
                     c->dw, c->dz + at_q, c->q + at_q, c->k + at_k, c->v + at_k,
                     c->w + ((long)b * h + i) * n_q * n_k, d, c->causal, nq, nk, d_k, c->proj);
        }
        row_q += nq;
        row_k += nk;
    }
    real *w_in = p->in_proj_weight, *gw = g->in_proj_weight, *gb = g->in_proj_bias;
    SIMD_RUN(level, scale, c->dq, (long)N_q * d, (real)(1.0 / sqrt((double)d_k)));
    linear_backward(dquery, block(gw, 0, d), bias_block(gb, 0, d), c->dq, query,
                          block(w_in, 0, d), N_q, d, d, WEIGHT_OUT_IN);
    linear_backward(dkv, block(gw, 1, d), bias_block(gb, 1, d), c->dk, kv,
                          block(w_in, 1, d), N_k, d, d, WEIGHT_OUT_IN);
    linear_backward(dkv, block(gw, 2, d), bias_block(gb, 2, d), c->dv, kv,
                          block(w_in, 2, d), N_k, d, d, WEIGHT_OUT_IN);
    return true;
#else
    (void)dquery, (void)dkv, (void)g, (void)c, (void)dout, (void)query, (void)kv, (void)p;
    (void)B, (void)n_q, (void)n_k, (void)d, (void)h, (void)q_len, (void)k_len;
    return false;
#endif
}

//> multihead-head
// One head: the readable loops, or the attention_head_forward kernel
// (simd_kernels.h): the same products, the softmax to rounding.
void mha_head_forward(real *w, real *z, const real *q, const real *k, const real *v,
                      const bool *pad, bool causal, int n_q, int n_k, int d_k, real *scratch) {
    (void)scratch;  // the kernel's only
    if (FAST_KERNEL(attention_head_forward, w, z, q, k, v, (long)d_k, pad, causal, n_q, n_k,
                    d_k, scratch))
        return;
    memset(w, 0, (size_t)n_q * n_k * sizeof *w);
    gemm(w, q, k, n_q, d_k, n_k, GEMM_ABT);  // the scores q k^T
    masked_softmax(w, pad, causal, n_q, n_k);
    memset(z, 0, (size_t)n_q * d_k * sizeof *z);
    gemm(z, w, v, n_q, n_k, d_k, GEMM_AB);   // the weighted values
}
//< multihead-head

void mha_query_forward(real *w, real *z, const real *q, const real *kt, long ld_kt,
                       const real *v, int n_k, int d_k) {
    if (FAST_KERNEL(attention_query_forward, w, z, q, kt, ld_kt, v, n_k, d_k)) return;
    for (int j = 0; j < n_k; j++) {  // the scores, each summed as gemm sums it
        w[j] = 0;
        for (int p = 0; p < d_k; p++) w[j] += q[p] * kt[p * ld_kt + j];
    }
    masked_softmax(w, NULL, false, 1, n_k);
    memset(z, 0, (size_t)d_k * sizeof *z);
    gemm(z, w, v, 1, n_k, d_k, GEMM_AB);  // the weighted values
}

// Whether the masks hide every key from some query: the first key that is
// not padding comes after the last one the query may see, or there is none.
// Under the causal mask query 0 sees key 0 alone.
static bool hides_every_key(const bool *key_pad, bool causal, int B, int n_q, int n_k,
                            const int *q_len, const int *k_len) {
    for (int b = 0; b < B; b++) {
        int nk = length(k_len, b, n_k), first = 0;
        if (length(q_len, b, n_q) < 1) continue;
        while (key_pad && first < nk && key_pad[(long)b * n_k + first]) first++;
        if (first == nk || (causal && first > 0)) return true;
    }
    return false;
}

// 1. One projection each for queries, keys and values, each split into its
// heads; PyTorch scales the queries by 1/sqrt(d_k).
static void project_heads(mha_cache *c, const mha_params *p, const real *query, const real *kv,
                          int B, int n_q, int n_k, int d, int h, const int *q_len,
                          const int *k_len) {
    const int N_q = mha_rows(q_len, B, n_q), N_k = mha_rows(k_len, B, n_k);
    const real scale = (real)(1.0 / sqrt((double)(d / h)));
    real *w_in = p->in_proj_weight, *b_in = p->in_proj_bias;
    linear_forward(c->proj, query, block(w_in, 0, d), bias_block(b_in, 0, d), N_q, d, d,
                   WEIGHT_OUT_IN);
    split_heads(c->q, c->proj, scale, B, n_q, d, h, q_len);
    linear_forward(c->proj, kv, block(w_in, 1, d), bias_block(b_in, 1, d), N_k, d, d,
                   WEIGHT_OUT_IN);
    split_heads(c->k, c->proj, 1, B, n_k, d, h, k_len);
    linear_forward(c->proj, kv, block(w_in, 2, d), bias_block(b_in, 2, d), N_k, d, d,
                   WEIGHT_OUT_IN);
    split_heads(c->v, c->proj, 1, B, n_k, d, h, k_len);
}

// 3. The heads' outputs (in c->dq, head by head) side by side, (n_q, d),
// through the output projection.
static void project_out(real *out, mha_cache *c, const mha_params *p, int B, int n_q, int d,
                        int h, const int *q_len) {
    merge_heads(c->z, c->dq, 1, B, n_q, d, h, q_len);
    linear_forward(out, c->z, p->out_proj_weight, p->out_proj_bias, mha_rows(q_len, B, n_q), d,
                   d, WEIGHT_OUT_IN);
}

mha_status mha_forward(real *out, mha_cache *c, const mha_params *p, const real *query,
                       const real *kv, const bool *key_pad, bool causal, int B, int n_q,
                       int n_k, int d, int h, const int *q_len, const int *k_len) {
    if (B < 1 || n_q < 1 || n_k < 1) return MHA_BAD_SIZE;
    c->causal = causal;
    mha_status status = hides_every_key(key_pad, causal, B, n_q, n_k, q_len, k_len)
                            ? MHA_FULLY_MASKED_ROW : MHA_OK;
    if (fast_forward(out, c, p, query, kv, key_pad, causal, B, n_q, n_k, d, h, q_len, k_len))
        return status;
    const int d_k = d / h;
    project_heads(c, p, query, kv, B, n_q, n_k, d, h, q_len, k_len);
    // 2. Each head of each sequence: w = softmax(q k^T), its output z = w v
    // (into dq, free until the backward pass).
    for (int b = 0; b < B; b++)
        for (int i = 0; i < h; i++) {
            long bi = (long)b * h + i, qs = bi * n_q * d_k, ks = bi * n_k * d_k;
            mha_head_forward(c->w + bi * n_q * n_k, c->dq + qs, c->q + qs, c->k + ks, c->v + ks,
                             key_pad ? key_pad + (long)b * n_k : NULL, causal,
                             length(q_len, b, n_q), length(k_len, b, n_k), d_k, c->proj);
        }
    project_out(out, c, p, B, n_q, d, h, q_len);
    return status;
}

void mha_mean_weights(real *mean, const mha_cache *c, int b, int h, int n_q, int n_k) {
    const long nn = (long)n_q * n_k;
    const real *w = c->w + (long)b * h * nn;
    for (long e = 0; e < nn; e++) mean[e] = w[e];
    for (int i = 1; i < h; i++)
        for (long e = 0; e < nn; e++) mean[e] += w[i * nn + e];
    for (long e = 0; e < nn; e++) mean[e] /= (real)h;
}

//> attention-backward
// One head of one sequence, backwards: given dz (n_q, d_k), the gradient of
// its output z = w v, and the forward's q (already scaled), k, v and w, add
// the gradients with respect to q, k and v. dw (n_q, n_k) is scratch.
static void head_backward(real *dq, real *dk, real *dv, real *dw, const real *dz, const real *q,
                          const real *k, const real *v, const real *w, int n_q, int n_k,
                          int d_k) {
    // z = w v:  dw = dz v^T,  dv += w^T dz
    memset(dw, 0, (size_t)n_q * n_k * sizeof *dw);
    gemm(dw, dz, v, n_q, d_k, n_k, GEMM_ABT);
    gemm(dv, w, dz, n_k, n_q, d_k, GEMM_ATB);
    // w = softmax(s) row by row: ds_j = w_j (dw_j - sum_l w_l dw_l). A
    // masked key has w_j = 0, so its score gets no gradient.
    softmax_backward_rows(dw, w, n_q, n_k);
    // s = q k^T:  dq += ds k,  dk += ds^T q
    gemm(dq, dw, k, n_q, n_k, d_k, GEMM_AB);
    gemm(dk, dw, q, n_k, n_q, d_k, GEMM_ATB);
}
//< attention-backward

// 3. The output projection backwards: dz, the gradient of the heads side
// by side, then cut head by head into c->proj; dq, dk and dv cleared for
// the heads to add into.
static void project_out_backward(const mha_params *g, mha_cache *c, const real *dout,
                                 const mha_params *p, int B, int n_q, int n_k, int d, int h,
                                 const int *q_len) {
    memset(c->dz, 0, (size_t)mha_rows(q_len, B, n_q) * d * sizeof(real));
    linear_backward(c->dz, g->out_proj_weight, g->out_proj_bias, dout, c->z,
                          p->out_proj_weight, mha_rows(q_len, B, n_q), d, d, WEIGHT_OUT_IN);
    memset(c->dq, 0, (size_t)B * n_q * d * sizeof(real));
    memset(c->dk, 0, (size_t)B * n_k * d * sizeof(real));
    memset(c->dv, 0, (size_t)B * n_k * d * sizeof(real));
    split_heads(c->proj, c->dz, 1, B, n_q, d, h, q_len);  // dz head by head
}

// 1. The projections backwards, from dq, dk and dv head by head: the
// queries' gradient scaled as the queries were.
static void project_heads_backward(real *dquery, real *dkv, const mha_params *g, mha_cache *c,
                                   const real *query, const real *kv, const mha_params *p,
                                   int B, int n_q, int n_k, int d, int h, const int *q_len,
                                   const int *k_len) {
    const int N_q = mha_rows(q_len, B, n_q), N_k = mha_rows(k_len, B, n_k);
    const real scale = (real)(1.0 / sqrt((double)(d / h)));
    real *w_in = p->in_proj_weight, *gw = g->in_proj_weight, *gb = g->in_proj_bias;
    merge_heads(c->proj, c->dq, scale, B, n_q, d, h, q_len);
    linear_backward(dquery, block(gw, 0, d), bias_block(gb, 0, d), c->proj, query,
                          block(w_in, 0, d), N_q, d, d, WEIGHT_OUT_IN);
    merge_heads(c->proj, c->dk, 1, B, n_k, d, h, k_len);
    linear_backward(dkv, block(gw, 1, d), bias_block(gb, 1, d), c->proj, kv,
                          block(w_in, 1, d), N_k, d, d, WEIGHT_OUT_IN);
    merge_heads(c->proj, c->dv, 1, B, n_k, d, h, k_len);
    linear_backward(dkv, block(gw, 2, d), bias_block(gb, 2, d), c->proj, kv,
                          block(w_in, 2, d), N_k, d, d, WEIGHT_OUT_IN);
}

void mha_backward(real *dquery, real *dkv, const mha_params *g, mha_cache *c, const real *dout,
                  const real *query, const real *kv, const mha_params *p, int B, int n_q, int n_k,
                  int d, int h, const int *q_len, const int *k_len) {
    const int d_k = d / h;
    if (fast_backward(dquery, dkv, g, c, dout, query, kv, p, B, n_q, n_k, d, h, q_len, k_len))
        return;
    project_out_backward(g, c, dout, p, B, n_q, n_k, d, h, q_len);
    // 2. Each head of each sequence.
    for (int b = 0; b < B; b++)
        for (int i = 0; i < h; i++) {
            long bi = (long)b * h + i, qs = bi * n_q * d_k, ks = bi * n_k * d_k;
            head_backward(c->dq + qs, c->dk + ks, c->dv + ks, c->dw, c->proj + qs, c->q + qs,
                          c->k + ks, c->v + ks, c->w + bi * n_q * n_k, length(q_len, b, n_q),
                          length(k_len, b, n_k), d_k);
        }
    project_heads_backward(dquery, dkv, g, c, query, kv, p, B, n_q, n_k, d, h, q_len, k_len);
}

//> multihead-tiled-forward
// The projections as above; each head's attention by the tiled kernels, the
// queries already scaled (scale 1), each query's log-sum-exp kept in
// c->lse in place of its weights.
void mha_tiled_forward(real *out, mha_cache *c, const mha_params *p, const real *x, bool causal,
                       int B, int n, int d, int h) {
    const int d_k = d / h;
    project_heads(c, p, x, x, B, n, n, d, h, NULL, NULL);
    // the threads share the (sequence, head) pairs, each pair's tiles on one
    // thread: one parallel loop a layer rather than one for each head's few
    // tiles, whose waits stall every step on a busy machine. A pair's output
    // goes into c->dq, the buffer of the queries' gradients, unused until the
    // backward pass: project_out merges the heads from there.
    PARALLEL_FOR((long)B * h > 1)
    for (long bi = 0; bi < (long)B * h; bi++) {  // each (sequence, head)
        long at = bi * n * d_k;
        tiled_attention_forward(c->dq + at, c->lse + bi * n, c->q + at, c->k + at, c->v + at, n,
                                d_k, 1, causal);
    }
    project_out(out, c, p, B, n, d, h, NULL);
}
//< multihead-tiled-forward

void mha_tiled_backward(real *dx, const mha_params *g, mha_cache *c, const real *dout,
                        const real *x, const mha_params *p, bool causal, int B, int n, int d,
                        int h) {
    const int d_k = d / h;
    project_out_backward(g, c, dout, p, B, n, n, d, h, NULL);
    // the heads' outputs, head by head, into dz, free once cut into c->proj
    split_heads(c->dz, c->z, 1, B, n, d, h, NULL);
    PARALLEL_FOR((long)B * h > 1)  // as in mha_tiled_forward
    for (long bi = 0; bi < (long)B * h; bi++) {
        long at = bi * n * d_k;
        tiled_attention_backward(c->dq + at, c->dk + at, c->dv + at, c->proj + at, c->q + at,
                                 c->k + at, c->v + at, c->dz + at, c->lse + bi * n, n, d_k, 1,
                                 causal);
    }
    project_heads_backward(dx, dx, g, c, x, x, p, B, n, n, d, h, NULL, NULL);
}
