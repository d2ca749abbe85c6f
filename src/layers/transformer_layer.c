// transformer_layer.c: the encoder and decoder layers over a batch,
// post-norm and pre-norm, forward and backward. Dimension legend in
// transformer_layer.h.
//
// Each sub-layer k reads the residual stream x and writes the stream after
// it; the cache keeps its f's input t, the sum s = x + f(t) and its
// LayerNorm's statistics:
//   post-norm:  t = x,              s = x + f(t),  after = LayerNorm(s)
//   pre-norm:   t = LayerNorm(x),   s = x + f(t),  after = s
#include "layers/transformer_layer.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/simd.h"
#include "layers/layernorm.h"

mha_status layer_dims_check(const layer_dims *dims) {
    mha_status s = mha_check(dims->d, dims->h);
    return s == MHA_OK && dims->d_ff < 1 ? MHA_BAD_SIZE : s;
}

static int mha_tensors(layer_tensor *t, mha_params *p, const char *const names[4], int d) {
    t[0] = (layer_tensor){ names[0], &p->in_proj_weight, 3 * d, d };
    t[1] = (layer_tensor){ names[1], &p->in_proj_bias, 3 * d, 1 };
    t[2] = (layer_tensor){ names[2], &p->out_proj_weight, d, d };
    t[3] = (layer_tensor){ names[3], &p->out_proj_bias, d, 1 };
    return 4;
}

static const char *const SELF_ATTN[4] = { "self_attn.in_proj_weight",
                                          "self_attn.in_proj_bias",
                                          "self_attn.out_proj.weight",
                                          "self_attn.out_proj.bias" };
static const char *const CROSS_ATTN[4] = { "multihead_attn.in_proj_weight",
                                           "multihead_attn.in_proj_bias",
                                           "multihead_attn.out_proj.weight",
                                           "multihead_attn.out_proj.bias" };
static const char *const NORMS[3][2] = { { "norm1.weight", "norm1.bias" },
                                         { "norm2.weight", "norm2.bias" },
                                         { "norm3.weight", "norm3.bias" } };

// linear1's and linear2's tensors, then the norms'.
static int ffn_and_norm_tensors(layer_tensor *t, ffn_params *f, real **gain, real **bias,
                                int norms, int d, int d_ff) {
    int k = 0;
    t[k++] = (layer_tensor){ "linear1.weight", &f->w1, d_ff, d };
    t[k++] = (layer_tensor){ "linear1.bias", &f->b1, d_ff, 1 };
    t[k++] = (layer_tensor){ "linear2.weight", &f->w2, d, d_ff };
    t[k++] = (layer_tensor){ "linear2.bias", &f->b2, d, 1 };
    for (int m = 0; m < norms; m++) {
        t[k++] = (layer_tensor){ NORMS[m][0], &gain[m], d, 1 };
        t[k++] = (layer_tensor){ NORMS[m][1], &bias[m], d, 1 };
    }
    return k;
}

int enc_layer_tensors(layer_tensor *t, enc_layer_params *p, const layer_dims *dims) {
    int k = mha_tensors(t, &p->self_attn, SELF_ATTN, dims->d);
    return k + ffn_and_norm_tensors(t + k, &p->ff, p->norm_weight, p->norm_bias, 2, dims->d,
                                    dims->d_ff);
}

int dec_layer_tensors(layer_tensor *t, dec_layer_params *p, const layer_dims *dims) {
    int k = mha_tensors(t, &p->self_attn, SELF_ATTN, dims->d);
    k += mha_tensors(t + k, &p->cross_attn, CROSS_ATTN, dims->d);
    return k + ffn_and_norm_tensors(t + k, &p->ff, p->norm_weight, p->norm_bias, 3, dims->d,
                                    dims->d_ff);
}

// One block for a layer's parameters, and their views into it in the order
// of its tensor table. Returns MHA_OK, or why not (then nothing is allocated).
static mha_status layer_alloc(layer_tensor *t, int n, const layer_dims *dims) {
    mha_status s = layer_dims_check(dims);
    if (s != MHA_OK) return s;
    size_t total = 0;
    for (int k = 0; k < n; k++) total += (size_t)t[k].rows * t[k].cols;
    real *at = malloc(total * sizeof(real));
    if (!at) return MHA_NO_MEMORY;
    for (int k = 0; k < n; k++) {
        *t[k].view = at;
        at += (size_t)t[k].rows * t[k].cols;
    }
    return MHA_OK;
}

mha_status enc_layer_alloc(enc_layer_params *p, const layer_dims *dims) {
    memset(p, 0, sizeof *p);
    layer_tensor t[ENC_LAYER_TENSORS];
    return layer_alloc(t, enc_layer_tensors(t, p, dims), dims);
}

mha_status dec_layer_alloc(dec_layer_params *p, const layer_dims *dims) {
    memset(p, 0, sizeof *p);
    layer_tensor t[DEC_LAYER_TENSORS];
    return layer_alloc(t, dec_layer_tensors(t, p, dims), dims);
}

void enc_layer_free(enc_layer_params *p) {
    free(p->self_attn.in_proj_weight);  // the start of the block
    memset(p, 0, sizeof *p);
}

void dec_layer_free(dec_layer_params *p) {
    free(p->self_attn.in_proj_weight);
    memset(p, 0, sizeof *p);
}

//> layer-init
// The order in which the constructors build (and so draw) the sub-modules;
// the LayerNorms draw nothing.
int enc_layer_init(torch_rng *g, const enc_layer_params *p, const layer_dims *dims) {
    for (int k = 0; k < 2; k++) layernorm_init(p->norm_weight[k], p->norm_bias[k], dims->d);
    if (mha_init(g, &p->self_attn, dims->d) != 0) return -1;
    return ffn_init(g, &p->ff, dims->d, dims->d_ff);  // linear1, then linear2
}

int dec_layer_init(torch_rng *g, const dec_layer_params *p, const layer_dims *dims) {
    for (int k = 0; k < 3; k++) layernorm_init(p->norm_weight[k], p->norm_bias[k], dims->d);
    if (mha_init(g, &p->self_attn, dims->d) != 0 ||
        mha_init(g, &p->cross_attn, dims->d) != 0)  // PyTorch's multihead_attn
        return -1;
    return ffn_init(g, &p->ff, dims->d, dims->d_ff);
}
//< layer-init

static int cache_alloc(layer_cache *c, const layer_dims *dims, int B, int n, int n_s, int count) {
    memset(c, 0, sizeof *c);
    size_t nd = (size_t)B * n * dims->d * sizeof(real), rows = (size_t)B * n * sizeof(real);
    int ok = 1;
    for (int k = 0; k < count; k++) {
        sublayer_cache *s = &c->sub[k];
        s->t = malloc(nd);
        s->s = malloc(nd);
        s->mean = malloc(rows);
        s->rstd = malloc(rows);
        ok = ok && s->t && s->s && s->mean && s->rstd;
    }
    c->f = malloc(nd);
    c->dx = malloc(nd);
    c->dx2 = malloc(nd);
    c->dt = malloc(nd);
    c->ds = malloc(nd);
    ok = ok && c->f && c->dx && c->dx2 && c->dt && c->ds &&
         mha_cache_alloc(&c->self_attn, B, n, n, dims->d, dims->h) == 0 &&
         ffn_cache_alloc(&c->ff, B * n, dims->d_ff) == 0 &&
         (count < 3 || mha_cache_alloc(&c->cross_attn, B, n, n_s, dims->d, dims->h) == 0);
    if (ok) return 0;
    layer_cache_free(c);
    return -1;
}

int enc_layer_cache_alloc(layer_cache *c, const layer_dims *dims, int B, int n) {
    return cache_alloc(c, dims, B, n, 0, 2);
}

int dec_layer_cache_alloc(layer_cache *c, const layer_dims *dims, int B, int n_t, int n_s) {
    return cache_alloc(c, dims, B, n_t, n_s, 3);
}

void layer_cache_free(layer_cache *c) {
    for (int k = 0; k < 3; k++) {
        free(c->sub[k].t);
        free(c->sub[k].s);
        free(c->sub[k].mean);
        free(c->sub[k].rstd);
    }
    mha_cache_free(&c->self_attn);
    mha_cache_free(&c->cross_attn);
    ffn_cache_free(&c->ff);
    free(c->f);
    free(c->dx);
    free(c->dx2);
    free(c->dt);
    free(c->ds);
    memset(c, 0, sizeof *c);
}

// y = a + b, count numbers (y may be a).
static void sum_of(real *y, const real *a, const real *b, long count) {
    sum_arrays(y, a, b, count);
}

// y += a, count numbers.
static void add_to(real *y, const real *a, long count) { sum_of(y, y, a, count); }

//> sublayer
// Every sub-layer f has the same frame, a residual path around it and a
// LayerNorm (gain, bias) after the sum (post-norm) or on f's input
// (pre-norm). Before sub-layer s: f's input t from the stream x, (N, d).
static void sublayer_input(sublayer_cache *s, const real *x, const real *gain, const real *bias,
                           const layer_dims *dims, int N) {
    if (dims->norm_first) layernorm_forward(s->t, s->mean, s->rstd, x, gain, bias, N, dims->d);
    else memcpy(s->t, x, (size_t)N * dims->d * sizeof(real));
}

// After it: the stream after, from x and f's output f; after may be x.
static void sublayer_output(real *after, sublayer_cache *s, const real *x, const real *f,
                            const real *gain, const real *bias, const layer_dims *dims, int N) {
    long count = (long)N * dims->d;
    sum_of(s->s, x, f, count);
    if (dims->norm_first) memcpy(after, s->s, (size_t)count * sizeof(real));
    else layernorm_forward(after, s->mean, s->rstd, s->s, gain, bias, N, dims->d);
}
//< sublayer

//> encoder-layer
mha_status enc_layer_forward(real *out, layer_cache *c, const enc_layer_params *p,
                             const real *inp, const bool *pad, bool causal,
                             const layer_dims *dims, int B, int n, const int *len) {
    const int N = mha_rows(len, B, n), d = dims->d;
    // 1. self-attention: every token looks at every token (or as masked);
    // the stream between the sub-layers is kept in out
    sublayer_input(&c->sub[0], inp, p->norm_weight[0], p->norm_bias[0], dims, N);
    mha_status s = mha_forward(c->f, &c->self_attn, &p->self_attn, c->sub[0].t, c->sub[0].t,
                               pad, causal, B, n, n, d, dims->h, len, len);
    sublayer_output(out, &c->sub[0], inp, c->f, p->norm_weight[0], p->norm_bias[0], dims, N);
    // 2. feed-forward: every token on its own
    sublayer_input(&c->sub[1], out, p->norm_weight[1], p->norm_bias[1], dims, N);
    ffn_forward(c->f, &c->ff, &p->ff, c->sub[1].t, N, d, dims->d_ff);
    sublayer_output(out, &c->sub[1], out, c->f, p->norm_weight[1], p->norm_bias[1], dims, N);
    return s;
}
//< encoder-layer

//> decoder-layer
mha_status dec_layer_forward(real *out, layer_cache *c, const dec_layer_params *p,
                             const real *inp, const real *memory, const bool *tgt_pad,
                             const bool *src_pad, bool causal, const layer_dims *dims, int B,
                             int n_t, int n_s, const int *tgt_len, const int *src_len) {
    const int N = mha_rows(tgt_len, B, n_t), d = dims->d, h = dims->h;
    // 1. masked self-attention: target token i sees target tokens 0 .. i
    sublayer_input(&c->sub[0], inp, p->norm_weight[0], p->norm_bias[0], dims, N);
    mha_status s = mha_forward(c->f, &c->self_attn, &p->self_attn, c->sub[0].t, c->sub[0].t,
                               tgt_pad, causal, B, n_t, n_t, d, h, tgt_len, tgt_len);
    sublayer_output(out, &c->sub[0], inp, c->f, p->norm_weight[0], p->norm_bias[0], dims, N);
    // 2. cross-attention: queries from the target, keys and values from the
    // memory, the encoder's output; every source token is there
    sublayer_input(&c->sub[1], out, p->norm_weight[1], p->norm_bias[1], dims, N);
    mha_status s2 = mha_forward(c->f, &c->cross_attn, &p->cross_attn, c->sub[1].t, memory,
                                src_pad, false, B, n_t, n_s, d, h, tgt_len, src_len);
    sublayer_output(out, &c->sub[1], out, c->f, p->norm_weight[1], p->norm_bias[1], dims, N);
    // 3. feed-forward
    sublayer_input(&c->sub[2], out, p->norm_weight[2], p->norm_bias[2], dims, N);
    ffn_forward(c->f, &c->ff, &p->ff, c->sub[2].t, N, d, dims->d_ff);
    sublayer_output(out, &c->sub[2], out, c->f, p->norm_weight[2], p->norm_bias[2], dims, N);
    return s != MHA_OK ? s : s2;
}
//< decoder-layer

// The stream that enters sub-layer k > 0: pre-norm the previous sum,
// post-norm the input t it kept.
static const real *stream_before(const layer_cache *c, int k, const layer_dims *dims) {
    return dims->norm_first ? c->sub[k - 1].s : c->sub[k].t;
}

static void clear_rows(real *x, int N, int d) { memset(x, 0, (size_t)N * d * sizeof(real)); }

//> encoder-layer-backward
// The way back through sub-layer k's residual path and LayerNorm, in two
// halves around f's own backward pass. First, from dy, the gradient of the
// stream after the sub-layer: ds, that of the sum s = x + f(t).
static const real *sum_gradient(layer_cache *c, int k, const real *dy, real *dgain, real *dbias,
                                const real *gain, const layer_dims *dims, int N) {
    if (dims->norm_first) return dy;  // pre-norm: the stream after is s
    const sublayer_cache *s = &c->sub[k];  // post-norm: after = LayerNorm(s)
    memset(c->ds, 0, (size_t)N * dims->d * sizeof(real));
    layernorm_backward(c->ds, dgain, dbias, dy, s->s, s->mean, s->rstd, gain, N, dims->d);
    return c->ds;
}

// Then, with c->dt holding f's gradient with respect to its input t:
// dx += ds along the residual path, plus what reaches x through t (t = x
// post-norm, t = LayerNorm(x) pre-norm).
static void stream_gradient(real *dx, layer_cache *c, int k, const real *ds, const real *x,
                            real *dgain, real *dbias, const real *gain, const layer_dims *dims,
                            int N) {
    long count = (long)N * dims->d;
    add_to(dx, ds, count);
    const sublayer_cache *s = &c->sub[k];
    if (dims->norm_first)
        layernorm_backward(dx, dgain, dbias, c->dt, x, s->mean, s->rstd, gain, N, dims->d);
    else add_to(dx, c->dt, count);
}

// The feed-forward sub-layer k of a layer (the last), from the gradient of
// the stream after it (dout) to the gradient of the stream before it, c->dx.
static void ffn_sublayer_backward(layer_cache *c, int k, const real *dout,
                                  const ffn_params *gff, real *dgain, real *dbias,
                                  const ffn_params *ff, const real *gain,
                                  const layer_dims *dims, int N) {
    const int d = dims->d;
    const real *ds = sum_gradient(c, k, dout, dgain, dbias, gain, dims, N);
    clear_rows(c->dt, N, d);
    ffn_backward(c->dt, gff, &c->ff, ds, c->sub[k].t, ff, N, d, dims->d_ff);
    clear_rows(c->dx, N, d);
    stream_gradient(c->dx, c, k, ds, stream_before(c, k, dims), dgain, dbias, gain, dims, N);
}

void enc_layer_backward(real *dinp, const enc_layer_params *g, layer_cache *c, const real *dout,
                        const real *inp, const enc_layer_params *p, const layer_dims *dims,
                        int B, int n, const int *len) {
    const int N = mha_rows(len, B, n), d = dims->d;
    // 2. feed-forward, from dout to dx, the gradient of the stream between
    ffn_sublayer_backward(c, 1, dout, &g->ff, g->norm_weight[1], g->norm_bias[1], &p->ff,
                          p->norm_weight[1], dims, N);
    // 1. self-attention, from dx to dinp: t is both queries and keys
    const real *ds = sum_gradient(c, 0, c->dx, g->norm_weight[0], g->norm_bias[0],
                                  p->norm_weight[0], dims, N);
    clear_rows(c->dt, N, d);
    mha_backward(c->dt, c->dt, &g->self_attn, &c->self_attn, ds, c->sub[0].t, c->sub[0].t,
                 &p->self_attn, B, n, n, d, dims->h, len, len);
    stream_gradient(dinp, c, 0, ds, inp, g->norm_weight[0], g->norm_bias[0], p->norm_weight[0],
                    dims, N);
}
//< encoder-layer-backward

void dec_layer_backward(real *dinp, real *dmemory, const dec_layer_params *g, layer_cache *c,
                        const real *dout, const real *inp, const real *memory,
                        const dec_layer_params *p, const layer_dims *dims, int B, int n_t,
                        int n_s, const int *tgt_len, const int *src_len) {
    const int N = mha_rows(tgt_len, B, n_t), d = dims->d, h = dims->h;
    // 3. feed-forward, from dout to dx
    ffn_sublayer_backward(c, 2, dout, &g->ff, g->norm_weight[2], g->norm_bias[2], &p->ff,
                          p->norm_weight[2], dims, N);
    // 2. cross-attention, from dx to dx2; the keys' and values' part to dmemory
    const real *ds = sum_gradient(c, 1, c->dx, g->norm_weight[1], g->norm_bias[1],
                                  p->norm_weight[1], dims, N);
    clear_rows(c->dt, N, d);
    mha_backward(c->dt, dmemory, &g->cross_attn, &c->cross_attn, ds, c->sub[1].t, memory,
                 &p->cross_attn, B, n_t, n_s, d, h, tgt_len, src_len);
    clear_rows(c->dx2, N, d);
    stream_gradient(c->dx2, c, 1, ds, stream_before(c, 1, dims), g->norm_weight[1],
                    g->norm_bias[1], p->norm_weight[1], dims, N);
    // 1. causal self-attention, from dx2 to dinp
    ds = sum_gradient(c, 0, c->dx2, g->norm_weight[0], g->norm_bias[0], p->norm_weight[0], dims,
                      N);
    clear_rows(c->dt, N, d);
    mha_backward(c->dt, c->dt, &g->self_attn, &c->self_attn, ds, c->sub[0].t, c->sub[0].t,
                 &p->self_attn, B, n_t, n_t, d, h, tgt_len, tgt_len);
    stream_gradient(dinp, c, 0, ds, inp, g->norm_weight[0], g->norm_bias[0], p->norm_weight[0],
                    dims, N);
}
