// seq2seq.c: the encoder-decoder transformer, its parameters, forward,
// backward, training step and greedy decoding. Dimension legend and the
// model in seq2seq.h.
#include "models/seq2seq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/cross_entropy.h"
#include "layers/embedding.h"
#include "layers/grad_clip.h"
#include "layers/layernorm.h"
#include "layers/linear.h"
#include "layers/positions.h"

// ---------------------------------------------------------------- parameters

static size_t mha_count(int d) { return 4 * (size_t)d * d + 4 * (size_t)d; }
static size_t ffn_count(int d, int d_ff) { return 2 * (size_t)d * d_ff + d_ff + d; }

size_t seq2seq_param_count(const seq2seq_config *c) {
    size_t d = (size_t)c->d, enc = mha_count(c->d) + ffn_count(c->d, c->d_ff) + 4 * d,
           dec = 2 * mha_count(c->d) + ffn_count(c->d, c->d_ff) + 6 * d;
    return (size_t)c->V * d + (c->positions == POSITIONS_LEARNED ? (size_t)c->n_pos * d : 0) +
           (size_t)c->n_enc * enc + (size_t)c->n_dec * dec + (c->norm_first ? 4 * d : 0) +
           (size_t)c->V * d + (size_t)c->V;
}

// Hands out the block's tensors one after the other, naming each in the
// table when there is one.
typedef struct {
    real *block;
    size_t size;            // numbers handed out so far
    seq2seq_tensor *table;  // or NULL
    int n;                  // tensors handed out so far
    const char *prefix;     // "enc.0." and the like
} walker;

static real *take(walker *w, const char *name, int rows, int cols) {
    size_t at = w->size;
    w->size += (size_t)rows * cols;
    if (w->table) {
        seq2seq_tensor *t = &w->table[w->n];
        snprintf(t->name, sizeof t->name, "%s%s", w->prefix, name);
        t->offset = at;
        t->count = (size_t)rows * cols;
        t->rows = rows;
        t->cols = cols;
    }
    w->n++;
    return w->block + at;
}

// A layer's tensors, from the layer's own table (transformer_layer.h).
static void take_layer(walker *w, layer_tensor *t, int n) {
    for (int k = 0; k < n; k++) *t[k].view = take(w, t[k].name, t[k].rows, t[k].cols);
}

// The views of p into block, in the order of seq2seq.h; the table, when
// given, gets every tensor's name and place.
static void lay_out(seq2seq_params *p, real *block, seq2seq_tensor *table,
                    const seq2seq_config *c) {
    walker w = { .block = block, .table = table, .prefix = "" };
    const layer_dims dims = { .d = c->d, .d_ff = c->d_ff };
    layer_tensor t[DEC_LAYER_TENSORS];
    char prefix[24];
    const int d = c->d;
    p->embedding = take(&w, "embedding.weight", c->V, d);
    p->pos = c->positions == POSITIONS_LEARNED ? take(&w, "pos.weight", c->n_pos, d) : NULL;
    for (int l = 0; l < c->n_enc; l++) {
        snprintf(prefix, sizeof prefix, "enc.%d.", l);
        w.prefix = prefix;
        take_layer(&w, t, enc_layer_tensors(t, &p->enc[l], &dims));
    }
    for (int l = 0; l < c->n_dec; l++) {
        snprintf(prefix, sizeof prefix, "dec.%d.", l);
        w.prefix = prefix;
        take_layer(&w, t, dec_layer_tensors(t, &p->dec[l], &dims));
    }
    w.prefix = "";
    p->enc_norm_weight = p->enc_norm_bias = p->dec_norm_weight = p->dec_norm_bias = NULL;
    if (c->norm_first) {
        p->enc_norm_weight = take(&w, "enc_norm.weight", d, 1);
        p->enc_norm_bias = take(&w, "enc_norm.bias", d, 1);
        p->dec_norm_weight = take(&w, "dec_norm.weight", d, 1);
        p->dec_norm_bias = take(&w, "dec_norm.bias", d, 1);
    }
    p->generator_weight = take(&w, "generator.weight", c->V, d);
    p->generator_bias = take(&w, "generator.bias", c->V, 1);
}

static int tensor_total(const seq2seq_config *c) {
    return 2 + (c->positions == POSITIONS_LEARNED) + 12 * c->n_enc + 18 * c->n_dec +
           4 * c->norm_first + 1;
}

int seq2seq_tensor_by_name(const seq2seq_model *m, const char *name, real **param, real **grad,
                           size_t *count) {
    for (int i = 0; i < m->n_tensors; i++) {
        const seq2seq_tensor *t = &m->tensors[i];
        if (strcmp(t->name, name) != 0) continue;
        if (param) *param = m->param_block + t->offset;
        if (grad) *grad = m->grad_block + t->offset;
        if (count) *count = t->count;
        return 0;
    }
    return -1;
}

// ---------------------------------------------------------------- starting values

// n values drawn in float by draw, then stored as real.
static void store(real *to, const float *from, size_t n) {
    for (size_t i = 0; i < n; i++) to[i] = (real)from[i];
}

// Every parameter, drawn in PyTorch's construction order (each layer's own
// init says its order). tmp holds the larger embedding table, in float.
// Returns 0, or -1 when out of memory.
static int draw_parameters(seq2seq_model *m, torch_rng *g, float *tmp) {
    const seq2seq_config *c = &m->cfg;
    const seq2seq_params *p = &m->p;
    const int d = c->d;
    rng_embedding_init(g, tmp, c->V, d);
    store(p->embedding, tmp, (size_t)c->V * d);
    if (p->pos) {
        rng_embedding_init(g, tmp, c->n_pos, d);
        store(p->pos, tmp, (size_t)c->n_pos * d);
    }
    int rc = 0;
    for (int l = 0; l < c->n_enc; l++) rc |= enc_layer_init(g, &p->enc[l], &m->dims);
    for (int l = 0; l < c->n_dec; l++) rc |= dec_layer_init(g, &p->dec[l], &m->dims);
    if (c->norm_first) {
        layernorm_init(p->enc_norm_weight, p->enc_norm_bias, d);
        layernorm_init(p->dec_norm_weight, p->dec_norm_bias, d);
    }
    return rc | linear_init(g, p->generator_weight, p->generator_bias, d, c->V);
}

// ---------------------------------------------------------------- the model

static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

static bool sizes_make_a_model(const seq2seq_config *c, int B, int n_s, int n_t) {
    bool positive = c->V >= 1 && c->d >= 1 && c->h >= 1 && c->d_ff >= 1 && c->n_enc >= 0 &&
                    c->n_dec >= 0 && B >= 1 && n_s >= 1 && n_t >= 1;
    bool positions = c->positions == POSITIONS_NONE ||
                     (c->n_pos >= 1 && n_s <= c->n_pos && n_t <= c->n_pos);
    return positive && positions && c->d % c->h == 0 && c->pad >= 0 && c->pad < c->V;
}

static int acts_alloc(seq2seq_acts *a, const seq2seq_config *c, const layer_dims *dims, int B,
                      int n_s, int n_t) {
    memset(a, 0, sizeof *a);
    *a = (seq2seq_acts){ .B = B, .n_s = n_s, .n_t = n_t };
    size_t s = sizeof(real), src = (size_t)B * n_s, tgt = (size_t)B * n_t, d = (size_t)c->d;
    a->src_pad = malloc(src * sizeof(bool));
    a->tgt_pad = malloc(tgt * sizeof(bool));
    a->enc_x = malloc((size_t)(c->n_enc + 1) * src * d * s);
    a->memory = malloc(src * d * s);
    a->enc_mean = malloc(src * s);
    a->enc_rstd = malloc(src * s);
    a->dec_x = malloc((size_t)(c->n_dec + 1) * tgt * d * s);
    a->dec_out = malloc(tgt * d * s);
    a->dec_mean = malloc(tgt * s);
    a->dec_rstd = malloc(tgt * s);
    a->logits = malloc(tgt * (size_t)c->V * s);
    a->dlogits = malloc(tgt * (size_t)c->V * s);
    a->dmemory = malloc(src * d * s);
    a->denc = malloc(2 * src * d * s);
    a->ddec = malloc(2 * tgt * d * s);
    a->prefix = malloc(tgt * sizeof(int32_t));
    a->src_len = malloc((size_t)B * sizeof(int));
    a->tgt_len = malloc((size_t)B * sizeof(int));
    a->src_ids = malloc(src * sizeof(int32_t));
    a->tgt_ids = malloc(tgt * sizeof(int32_t));
    a->tgt_scored = malloc(tgt * sizeof(int32_t));
    a->enc = calloc((size_t)c->n_enc + 1, sizeof(layer_cache));
    a->dec = calloc((size_t)c->n_dec + 1, sizeof(layer_cache));
    bool ok = a->src_pad && a->tgt_pad && a->enc_x && a->memory && a->enc_mean && a->enc_rstd &&
              a->dec_x && a->dec_out && a->dec_mean && a->dec_rstd && a->logits && a->dlogits &&
              a->dmemory && a->denc && a->ddec && a->prefix && a->enc && a->dec && a->src_len &&
              a->tgt_len && a->src_ids && a->tgt_ids && a->tgt_scored;
    for (int l = 0; ok && l < c->n_enc; l++)
        ok = enc_layer_cache_alloc(&a->enc[l], dims, B, n_s) == 0;
    for (int l = 0; ok && l < c->n_dec; l++)
        ok = dec_layer_cache_alloc(&a->dec[l], dims, B, n_t, n_s) == 0;
    return ok ? 0 : -1;
}

static void acts_free(seq2seq_acts *a, const seq2seq_config *c) {
    for (int l = 0; a->enc && l < c->n_enc; l++) layer_cache_free(&a->enc[l]);
    for (int l = 0; a->dec && l < c->n_dec; l++) layer_cache_free(&a->dec[l]);
    void *all[] = { a->src_pad, a->tgt_pad, a->enc_x, a->memory, a->enc_mean, a->enc_rstd,
                    a->dec_x, a->dec_out, a->dec_mean, a->dec_rstd, a->logits, a->dlogits,
                    a->dmemory, a->denc, a->ddec, a->prefix, a->enc, a->dec, a->src_len,
                    a->tgt_len, a->src_ids, a->tgt_ids, a->tgt_scored };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(all[i]);
    memset(a, 0, sizeof *a);
}

// The parameters and their gradients, their views and their table.
static int params_alloc(seq2seq_model *m) {
    const seq2seq_config *c = &m->cfg;
    m->n_params = seq2seq_param_count(c);
    m->param_block = malloc(m->n_params * sizeof(real));
    m->grad_block = calloc(m->n_params, sizeof(real));
    m->n_tensors = tensor_total(c);
    m->tensors = calloc((size_t)m->n_tensors, sizeof(seq2seq_tensor));
    m->p.enc = calloc((size_t)c->n_enc + 1, sizeof(enc_layer_params));
    m->g.enc = calloc((size_t)c->n_enc + 1, sizeof(enc_layer_params));
    m->p.dec = calloc((size_t)c->n_dec + 1, sizeof(dec_layer_params));
    m->g.dec = calloc((size_t)c->n_dec + 1, sizeof(dec_layer_params));
    if (!m->param_block || !m->grad_block || !m->tensors || !m->p.enc || !m->g.enc ||
        !m->p.dec || !m->g.dec)
        return -1;
    lay_out(&m->p, m->param_block, m->tensors, c);
    lay_out(&m->g, m->grad_block, NULL, c);
    return 0;
}

int seq2seq_init(seq2seq_model *m, const seq2seq_config *cfg, const real *sinusoid, int B, int n_s,
                 int n_t, torch_rng *g) {
    memset(m, 0, sizeof *m);
    if (!sizes_make_a_model(cfg, B, n_s, n_t) ||
        (cfg->positions == POSITIONS_SINUSOIDAL && !sinusoid))
        return -2;
    m->cfg = *cfg;
    if (cfg->positions != POSITIONS_SINUSOIDAL) sinusoid = NULL;
    m->dims = (layer_dims){ .d = cfg->d, .h = cfg->h, .d_ff = cfg->d_ff,
                            .norm_first = cfg->norm_first };
    const size_t d = (size_t)cfg->d;
    float *tmp = malloc(max_size((size_t)cfg->V * d, (size_t)cfg->n_pos * d) * sizeof(float));
    if (sinusoid) m->sinusoid = malloc((size_t)cfg->n_pos * d * sizeof(real));
    if (!tmp || (sinusoid && !m->sinusoid) || params_alloc(m) != 0 ||
        acts_alloc(&m->a, cfg, &m->dims, B, n_s, n_t) != 0 || adam_init(&m->opt, m->n_params, 0) != 0) {
        free(tmp);
        seq2seq_free(m);
        return -1;
    }
    if (sinusoid) memcpy(m->sinusoid, sinusoid, (size_t)cfg->n_pos * d * sizeof(real));
    int rc = draw_parameters(m, g, tmp);
    free(tmp);
    if (rc != 0) seq2seq_free(m);
    return rc;
}

void seq2seq_free(seq2seq_model *m) {
    acts_free(&m->a, &m->cfg);
    free(m->param_block);
    free(m->grad_block);
    free(m->tensors);
    free(m->p.enc);
    free(m->g.enc);
    free(m->p.dec);
    free(m->g.dec);
    free(m->sinusoid);
    adam_free(&m->opt);
    memset(m, 0, sizeof *m);
}

// ---------------------------------------------------------------- forward

static size_t enc_stride(const seq2seq_model *m) { return (size_t)m->a.B * m->a.n_s * m->cfg.d; }
static size_t dec_stride(const seq2seq_model *m) { return (size_t)m->a.B * m->a.n_t * m->cfg.d; }

static const real *position_table(const seq2seq_model *m) {
    return m->cfg.positions == POSITIONS_LEARNED      ? m->p.pos
           : m->cfg.positions == POSITIONS_SINUSOIDAL ? m->sinusoid
                                                      : NULL;
}

// The rows of sequence b a pass computes, len[b]: all n, or, when last is
// given (B, n), up to the last position where last is not padding. Returns
// their sum.
static int row_lengths(int *len, const int32_t *last, int32_t pad, int B, int n) {
    int rows = 0;
    for (int b = 0; b < B; b++) {
        int t = n;
        if (last)
            while (t > 0 && last[(long)b * n + t - 1] == pad) t--;
        rows += len[b] = t;
    }
    return rows;
}

// to = the tokens of those rows of ids (B, n), one sequence after the other.
static void pack_rows(int32_t *to, const int32_t *ids, const int *len, int B, int n) {
    for (int b = 0; b < B; b++) {
        memcpy(to, ids + (long)b * n, (size_t)len[b] * sizeof *to);
        to += len[b];
    }
}

// x = embedding[id] + position[i] at the rows kept (packed ids and len);
// pad (B, n) marks the padding of ids (B, n).
static void embed_tokens(const seq2seq_model *m, real *x, bool *pad, const int32_t *ids,
                         const int32_t *packed, const int *len, int rows, int B, int n) {
    embedding_forward(x, packed, m->p.embedding, rows, m->cfg.d);
    const real *table = position_table(m);
    if (table) positions_forward(x, table, len, B, n, m->cfg.d);
    for (int e = 0; e < B * n; e++) pad[e] = ids[e] == m->cfg.pad;
}

// The encoder on src (B, n_s), on the rows up to the last token that is
// not padding when scored: a.memory.
static void encode(seq2seq_model *m, const int32_t *src, int B, int n_s, bool scored) {
    seq2seq_acts *a = &m->a;
    const size_t stride = enc_stride(m);
    const int N = a->src_rows = row_lengths(a->src_len, scored ? src : NULL, m->cfg.pad, B, n_s);
    pack_rows(a->src_ids, src, a->src_len, B, n_s);
    embed_tokens(m, a->enc_x, a->src_pad, src, a->src_ids, a->src_len, N, B, n_s);
    for (int l = 0; l < m->cfg.n_enc; l++)
        enc_layer_forward(a->enc_x + (l + 1) * stride, &a->enc[l], &m->p.enc[l],
                          a->enc_x + l * stride, a->src_pad, false, &m->dims, B, n_s, a->src_len);
    const real *top = a->enc_x + m->cfg.n_enc * stride;
    if (m->cfg.norm_first)
        layernorm_forward(a->memory, a->enc_mean, a->enc_rstd, top, m->p.enc_norm_weight,
                          m->p.enc_norm_bias, N, m->cfg.d);
    else memcpy(a->memory, top, (size_t)N * m->cfg.d * sizeof(real));
}

// The decoder on tgt_in (B, n_t), attending to a.memory, on the rows up to
// the last one tgt_out scores when tgt_out is given: a.logits.
static void decode(seq2seq_model *m, const int32_t *tgt_in, const int32_t *tgt_out, int B, int n_t,
                   int n_s) {
    seq2seq_acts *a = &m->a;
    const size_t stride = dec_stride(m);
    const int N = a->tgt_rows = row_lengths(a->tgt_len, tgt_out, m->cfg.pad, B, n_t);
    pack_rows(a->tgt_ids, tgt_in, a->tgt_len, B, n_t);
    embed_tokens(m, a->dec_x, a->tgt_pad, tgt_in, a->tgt_ids, a->tgt_len, N, B, n_t);
    for (int l = 0; l < m->cfg.n_dec; l++)
        dec_layer_forward(a->dec_x + (l + 1) * stride, &a->dec[l], &m->p.dec[l],
                          a->dec_x + l * stride, a->memory, a->tgt_pad, a->src_pad, true,
                          &m->dims, B, n_t, n_s, a->tgt_len, a->src_len);
    const real *top = a->dec_x + m->cfg.n_dec * stride;
    if (m->cfg.norm_first)
        layernorm_forward(a->dec_out, a->dec_mean, a->dec_rstd, top, m->p.dec_norm_weight,
                          m->p.dec_norm_bias, N, m->cfg.d);
    else memcpy(a->dec_out, top, (size_t)N * m->cfg.d * sizeof(real));
    linear_forward(a->logits, a->dec_out, m->p.generator_weight, m->p.generator_bias, N,
                   m->cfg.d, m->cfg.V, WEIGHT_OUT_IN);
}

// seq2seq_forward (scored false) or seq2seq_forward_scored.
static real forward(seq2seq_model *m, const int32_t *src, const int32_t *tgt_in,
                    const int32_t *tgt_out, int B, int n_s, int n_t, bool scored) {
    m->B = B;
    m->n_s = n_s;
    m->n_t = n_t;
    encode(m, src, B, n_s, scored);
    decode(m, tgt_in, scored ? tgt_out : NULL, B, n_t, n_s);
    if (!tgt_out) return 0;
    seq2seq_acts *a = &m->a;
    pack_rows(a->tgt_scored, tgt_out, a->tgt_len, B, n_t);
    return cross_entropy_forward(a->logits, a->tgt_scored, a->tgt_rows, m->cfg.V, m->cfg.pad);
}

real seq2seq_forward(seq2seq_model *m, const int32_t *src, const int32_t *tgt_in,
                     const int32_t *tgt_out, int B, int n_s, int n_t) {
    return forward(m, src, tgt_in, tgt_out, B, n_s, n_t, false);
}

real seq2seq_forward_scored(seq2seq_model *m, const int32_t *src, const int32_t *tgt_in,
                            const int32_t *tgt_out, int B, int n_s, int n_t) {
    return forward(m, src, tgt_in, tgt_out, B, n_s, n_t, true);
}

const real *seq2seq_attention(const seq2seq_model *m, seq2seq_attention_kind kind, int layer) {
    switch (kind) {
    case ATTN_ENC_SELF: return m->a.enc[layer].self_attn.w;
    case ATTN_DEC_SELF: return m->a.dec[layer].self_attn.w;
    case ATTN_DEC_CROSS: return m->a.dec[layer].cross_attn.w;
    }
    return NULL;
}

// ---------------------------------------------------------------- backward

// The gradient of the embedded tokens dx (rows of the tokens ids, len[b]
// of sequence b) into the table and, when learned, the positions.
static void embed_backward(seq2seq_model *m, const real *dx, const int32_t *ids, const int *len,
                           int rows, int n) {
    embedding_backward(m->g.embedding, dx, ids, rows, m->cfg.d);
    if (m->g.pos && m->cfg.positions == POSITIONS_LEARNED)
        positions_backward(m->g.pos, dx, len, m->B, n, m->cfg.d);
}

// From the logits' gradient down the decoder: the target's embedding, and
// a.dmemory, what the memory gets from every cross-attention.
static void decode_backward(seq2seq_model *m, int B, int n_t, int n_s) {
    seq2seq_acts *a = &m->a;
    const int N = a->tgt_rows, d = m->cfg.d;
    const size_t stride = dec_stride(m), bytes = (size_t)N * d * sizeof(real);
    real *cur = a->ddec, *next = a->ddec + stride;
    memset(cur, 0, bytes);
    linear_backward(cur, m->g.generator_weight, m->g.generator_bias, a->dlogits, a->dec_out,
                    m->p.generator_weight, N, d, m->cfg.V, WEIGHT_OUT_IN);
    if (m->cfg.norm_first) {
        memset(next, 0, bytes);
        layernorm_backward(next, m->g.dec_norm_weight, m->g.dec_norm_bias, cur,
                           a->dec_x + m->cfg.n_dec * stride, a->dec_mean, a->dec_rstd,
                           m->p.dec_norm_weight, N, d);
        real *t = cur; cur = next; next = t;
    }
    memset(a->dmemory, 0, (size_t)a->src_rows * d * sizeof(real));
    for (int l = m->cfg.n_dec - 1; l >= 0; l--) {
        memset(next, 0, bytes);
        dec_layer_backward(next, a->dmemory, &m->g.dec[l], &a->dec[l], cur,
                           a->dec_x + l * stride, a->memory, &m->p.dec[l], &m->dims, B, n_t, n_s,
                           a->tgt_len, a->src_len);
        real *t = cur; cur = next; next = t;
    }
    embed_backward(m, cur, a->tgt_ids, a->tgt_len, N, n_t);
}

// From a.dmemory down the encoder to the source's embedding.
static void encode_backward(seq2seq_model *m, int B, int n_s) {
    seq2seq_acts *a = &m->a;
    const int N = a->src_rows, d = m->cfg.d;
    const size_t stride = enc_stride(m), bytes = (size_t)N * d * sizeof(real);
    real *cur = a->denc, *next = a->denc + stride;
    memset(cur, 0, bytes);
    if (m->cfg.norm_first)
        layernorm_backward(cur, m->g.enc_norm_weight, m->g.enc_norm_bias, a->dmemory,
                           a->enc_x + m->cfg.n_enc * stride, a->enc_mean, a->enc_rstd,
                           m->p.enc_norm_weight, N, d);
    else memcpy(cur, a->dmemory, bytes);
    for (int l = m->cfg.n_enc - 1; l >= 0; l--) {
        memset(next, 0, bytes);
        enc_layer_backward(next, &m->g.enc[l], &a->enc[l], cur, a->enc_x + l * stride,
                           &m->p.enc[l], &m->dims, B, n_s, a->src_len);
        real *t = cur; cur = next; next = t;
    }
    embed_backward(m, cur, a->src_ids, a->src_len, N, n_s);
}

void seq2seq_backward(seq2seq_model *m, const int32_t *tgt_out) {
    seq2seq_acts *a = &m->a;
    const int B = m->B, n_s = m->n_s, n_t = m->n_t, V = m->cfg.V;
    memset(m->grad_block, 0, m->n_params * sizeof(real));
    memset(a->dlogits, 0, (size_t)a->tgt_rows * V * sizeof(real));
    pack_rows(a->tgt_scored, tgt_out, a->tgt_len, B, n_t);
    cross_entropy_backward(a->dlogits, a->logits, a->tgt_scored, a->tgt_rows, V, m->cfg.pad);
    decode_backward(m, B, n_t, n_s);
    encode_backward(m, B, n_s);
}

//> train-step
// One step of training: the loss of the batch with teacher forcing (the
// decoder reads the right answer so far, tgt_in, and is scored on the next
// token, tgt_out), computed on the rows that reach it (padding after a
// sequence's last scored token is left out), its gradient, and Adam on
// every parameter at once (adam_step_rows without a table: adam_step's
// numbers, a vector at a time).
real seq2seq_train_step(seq2seq_model *m, double lr, const int32_t *src, const int32_t *tgt_in,
                        const int32_t *tgt_out, int B, int n_s, int n_t) {
    real loss = seq2seq_forward_scored(m, src, tgt_in, tgt_out, B, n_s, n_t);
    seq2seq_backward(m, tgt_out);
    m->grad_norm = grad_norm(m->grad_block, m->n_params);  // kept for the record, not clipped
    m->opt.lr = lr;
    adam_step_rows(&m->opt, m->param_block, m->grad_block, NULL, 0);
    return loss;
}
//< train-step

// ---------------------------------------------------------------- decoding

// The most likely token of the logits row z (V): the first of the largest.
static int32_t argmax(const real *z, int V) {
    int32_t best = 0;
    for (int v = 1; v < V; v++)
        if (z[v] > z[best]) best = v;
    return best;
}

void seq2seq_greedy_decode(seq2seq_model *m, int32_t *out, const int32_t *src, int B, int n_s,
                           int max_len, int32_t bos, int32_t eos) {
    const int32_t pad = m->cfg.pad;
    for (long e = 0; e < (long)B * max_len; e++) out[e] = pad;
    m->B = B;
    m->n_s = n_s;
    encode(m, src, B, n_s, false);
    int32_t *prefix = m->a.prefix;
    const int longest = max_len < m->a.n_t ? max_len : m->a.n_t;  // the room's
    for (int len = 1; len <= longest; len++) {  // the decoder reads bos and len - 1 tokens
        bool running = false;
        for (int b = 0; b < B; b++) {
            prefix[(long)b * len] = bos;
            for (int j = 1; j < len; j++)
                prefix[(long)b * len + j] = out[(long)b * max_len + j - 1];
        }
        m->n_t = len;
        decode(m, prefix, NULL, B, len, n_s);
        for (int b = 0; b < B; b++) {
            int32_t *row = out + (long)b * max_len;
            bool done = false;  // has this sequence produced eos already?
            for (int j = 0; j < len - 1; j++) done = done || row[j] == eos;
            if (done) continue;
            row[len - 1] = argmax(m->a.logits + ((long)b * len + len - 1) * m->cfg.V, m->cfg.V);
            running = running || row[len - 1] != eos;
        }
        if (!running) break;
    }
}
