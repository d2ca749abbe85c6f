// test_transformer_gradients.c: every backward pass of the transformer's
// layers and of the encoder-decoder model (src/layers/, src/models/) against finite
// differences, in double precision, and the properties the masks promise.
//
// As tests/test_gradients.c does, this suite compiles the very same source
// files with real = double: a central difference (f(x + h) - f(x - h)) / 2h
// of a double loss is accurate to about 1e-9, so it can hold an analytic
// gradient to a tight tolerance. Every element of every input and every
// parameter tensor is checked, at small sizes: d 8, h 2, d_ff 16, two
// sequences, one of them padded. The float code is held to PyTorch by
// tests/test_transformer_golden.c.
#define ATTN_REAL double
// The float library is linked as well, for chapter 5's layers
// (layers_agree_with_chapter5), and its masked softmax calls the float
// softmax.c: the double softmax compiled here takes other names.
#define softmax_row softmax_row_double
#define softmax_rows softmax_rows_double
#define softmax_backward_rows softmax_backward_rows_double
#define log_sum_exp log_sum_exp_double
#include "../src/kernels/gemm_reference.c"
#include "../src/kernels/gemm.c"
#include "../src/layers/embedding.c"
#include "../src/layers/softmax.c"
#include "../src/layers/cross_entropy.c"
#include "../src/layers/adam.c"
#include "../src/layers/linear.c"
#include "../src/layers/layernorm.c"
#include "../src/layers/ffn.c"
#include "../src/layers/online_softmax.c"
#include "../src/layers/tiled_attention.c"
#include "../src/layers/multihead_attention.c"
#include "../src/layers/transformer_layer.c"
#include "../src/layers/positions.c"
#include "../src/models/seq2seq.c"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finite_diff.h"
#include "suite.h"

// The sizes of every case: width, heads, feed-forward width, sequences,
// source and target lengths.
enum { D = 8, HEADS = 2, D_FF = 16, B = 2, NS = 5, NT = 4 };

// Each layer is checked through the scalar sum_i out[i] r[i] for a fixed
// random r: its gradient with respect to out is r, so backward(dout = r)
// must give the derivatives of that sum (weighted_sum, finite_diff.h).

// ---------------------------------------------------------------- linear, layer norm, ffn

typedef struct {
    int n, in, out;
    double *x, *w, *b, *y, *r;
} linear_case;

static double linear_loss(void *p) {
    linear_case *c = p;
    linear_forward(c->y, c->x, c->w, c->b, c->n, c->in, c->out, WEIGHT_OUT_IN);
    return weighted_sum(c->y, c->r, (size_t)c->n * c->out);
}

START_TEST(linear_gradients) {
    torch_rng g;
    rng_seed(&g, 1);
    linear_case c = {.n = 7, .in = 9, .out = 6};
    c.x = new_random(&g, 63, -1, 1);
    c.w = new_random(&g, 54, -1, 1);
    c.b = new_random(&g, 6, -1, 1);
    c.y = new_zeros(42);
    c.r = new_random(&g, 42, -1, 1);
    double *dx = new_zeros(63), *dw = new_zeros(54), *db = new_zeros(6);
    linear_loss(&c);
    linear_backward(dx, dw, db, c.r, c.x, c.w, c.n, c.in, c.out, WEIGHT_OUT_IN);
    check_gradient("linear dx", c.x, dx, 63, linear_loss, &c);
    check_gradient("linear dweight", c.w, dw, 54, linear_loss, &c);
    check_gradient("linear dbias", c.b, db, 6, linear_loss, &c);
    // the weight is (out, in): row j of y is x row . weight row j + bias j
    double want = c.b[2];
    for (int i = 0; i < c.in; i++) want += c.x[9 + i] * c.w[2 * 9 + i];
    ck_assert_double_eq_tol(c.y[6 + 2], want, 1e-12);
    free(c.x); free(c.w); free(c.b); free(c.y); free(c.r); free(dx); free(dw); free(db);
}
END_TEST

typedef struct {
    int n, d;
    double *x, *gain, *bias, *y, *mean, *rstd, *r;
} norm_case;

static double norm_loss(void *p) {
    norm_case *c = p;
    layernorm_forward(c->y, c->mean, c->rstd, c->x, c->gain, c->bias, c->n, c->d);
    return weighted_sum(c->y, c->r, (size_t)c->n * c->d);
}

START_TEST(layer_norm_gradients) {
    torch_rng g;
    rng_seed(&g, 2);
    norm_case c = {.n = 6, .d = D};
    size_t nd = (size_t)c.n * c.d;
    c.x = new_random(&g, nd, -2, 2);
    c.gain = new_random(&g, D, 0.5, 1.5);
    c.bias = new_random(&g, D, -1, 1);
    c.y = new_zeros(nd);
    c.mean = new_zeros(c.n);
    c.rstd = new_zeros(c.n);
    c.r = new_random(&g, nd, -1, 1);
    double *dx = new_zeros(nd), *dgain = new_zeros(D), *dbias = new_zeros(D);
    norm_loss(&c);
    layernorm_backward(dx, dgain, dbias, c.r, c.x, c.mean, c.rstd, c.gain, c.n, c.d);
    check_gradient("layer norm dx", c.x, dx, nd, norm_loss, &c);
    check_gradient("layer norm dgain", c.gain, dgain, D, norm_loss, &c);
    check_gradient("layer norm dbias", c.bias, dbias, D, norm_loss, &c);
    // with gain 1 and bias 0 every row has mean 0 and (biased) variance
    // 1 / (1 + eps / var)
    for (int j = 0; j < D; j++) c.gain[j] = 1, c.bias[j] = 0;
    norm_loss(&c);
    for (int r = 0; r < c.n; r++) {
        double m = 0, v = 0, var = 1 / (c.rstd[r] * c.rstd[r]) - LAYERNORM_EPS;
        for (int j = 0; j < D; j++) m += c.y[r * D + j] / D;
        for (int j = 0; j < D; j++) v += c.y[r * D + j] * c.y[r * D + j] / D;
        ck_assert_double_eq_tol(m, 0, 1e-12);
        ck_assert_double_eq_tol(v, var / (var + LAYERNORM_EPS), 1e-12);
    }
    free(c.x); free(c.gain); free(c.bias); free(c.y); free(c.mean); free(c.rstd); free(c.r);
    free(dx); free(dgain); free(dbias);
}
END_TEST

typedef struct {
    int n;
    double *x, *y, *r, *block;
    ffn_params p;
    ffn_cache c;
} ffn_case;

static double ffn_loss(void *p) {
    ffn_case *c = p;
    ffn_forward(c->y, &c->c, &c->p, c->x, c->n, D, D_FF);
    return weighted_sum(c->y, c->r, (size_t)c->n * D);
}

// The parameters of one sub-layer on their own, one tensor after another in
// PyTorch's order; returns how many numbers they take.
static size_t ffn_views(ffn_params *f, double *at) {
    double *start = at;
    f->w1 = at, at += D_FF * D;
    f->b1 = at, at += D_FF;
    f->w2 = at, at += D * D_FF;
    f->b2 = at, at += D;
    return (size_t)(at - start);
}

static size_t mha_views(mha_params *p, double *at) {
    double *start = at;
    p->in_proj_weight = at, at += 3 * D * D;
    p->in_proj_bias = at, at += 3 * D;
    p->out_proj_weight = at, at += D * D;
    p->out_proj_bias = at, at += D;
    return (size_t)(at - start);
}

START_TEST(ffn_gradients) {
    torch_rng g;
    rng_seed(&g, 3);
    ffn_case c = {.n = 7};
    size_t nd = (size_t)c.n * D, count = ffn_count(D, D_FF);
    c.x = new_random(&g, nd, -1, 1);
    c.y = new_zeros(nd);
    c.r = new_random(&g, nd, -1, 1);
    c.block = new_random(&g, count, -0.5, 0.5);
    double *grad = new_zeros(count), *dx = new_zeros(nd);
    ffn_params gp;
    ck_assert_uint_eq(ffn_views(&c.p, c.block), count);
    ffn_views(&gp, grad);
    ck_assert_int_eq(ffn_cache_alloc(&c.c, c.n, D_FF), 0);
    ffn_loss(&c);
    int active = 0;  // ReLU must pass some units and stop others
    for (size_t e = 0; e < (size_t)c.n * D_FF; e++) active += c.c.hidden[e] > 0;
    ck_assert_int_gt(active, 0);
    ck_assert_int_lt(active, c.n * D_FF);
    ffn_backward(dx, &gp, &c.c, c.r, c.x, &c.p, c.n, D, D_FF);
    check_gradient("ffn dx", c.x, dx, nd, ffn_loss, &c);
    check_gradient("ffn parameters", c.block, grad, count, ffn_loss, &c);
    ffn_cache_free(&c.c);
    free(c.x); free(c.y); free(c.r); free(c.block); free(grad); free(dx);
}
END_TEST

// ---------------------------------------------------------------- attention

// Sequence 1 of every case is padded: its last two source tokens and its
// last target token.
static void padding(bool *pad, int n, int padded) {
    for (int b = 0; b < B; b++)
        for (int i = 0; i < n; i++) pad[b * n + i] = b == 1 && i >= n - padded;
}

typedef struct {
    int n_q, n_k;
    bool causal, self;
    bool pad[B * NS];
    double *q, *kv, *y, *r, *block;
    mha_params p;
    mha_cache c;
} mha_case;

static double mha_loss(void *p) {
    mha_case *c = p;
    mha_forward(c->y, &c->c, &c->p, c->q, c->self ? c->q : c->kv, c->pad, c->causal, B, c->n_q,
                c->n_k, D, HEADS, NULL, NULL);
    return weighted_sum(c->y, c->r, (size_t)B * c->n_q * D);
}

static void mha_case_init(mha_case *c, torch_rng *g, bool self, int n_q, int n_k) {
    *c = (mha_case){.n_q = n_q, .n_k = n_k, .causal = self, .self = self};
    padding(c->pad, n_k, 2);
    c->q = new_random(g, (size_t)B * n_q * D, -1, 1);
    c->kv = new_random(g, (size_t)B * n_k * D, -1, 1);
    c->y = new_zeros((size_t)B * n_q * D);
    c->r = new_random(g, (size_t)B * n_q * D, -1, 1);
    c->block = new_random(g, mha_count(D), -0.5, 0.5);
    ck_assert_uint_eq(mha_views(&c->p, c->block), mha_count(D));
    ck_assert_int_eq(mha_cache_alloc(&c->c, B, n_q, n_k, D, HEADS), 0);
}

static void mha_case_free(mha_case *c) {
    mha_cache_free(&c->c);
    free(c->q); free(c->kv); free(c->y); free(c->r); free(c->block);
}

// Both attentions: self-attention with the causal mask and key padding
// (one input, used as queries, keys and values), cross-attention with key
// padding (queries from one input, keys and values from another).
START_TEST(attention_gradients) {
    torch_rng g;
    rng_seed(&g, 4);
    for (int self = 1; self >= 0; self--) {
        mha_case c;
        mha_case_init(&c, &g, self, self ? NS : NT, NS);
        size_t count = mha_count(D), nq = (size_t)B * c.n_q * D, nk = (size_t)B * c.n_k * D;
        double *grad = new_zeros(count), *dq = new_zeros(nq), *dkv = new_zeros(nk);
        mha_params gp;
        mha_views(&gp, grad);
        mha_loss(&c);
        mha_backward(dq, self ? dq : dkv, &gp, &c.c, c.r, c.q, self ? c.q : c.kv, &c.p, B, c.n_q,
                     c.n_k, D, HEADS, NULL, NULL);
        check_gradient(self ? "self-attention dx" : "cross-attention dquery", c.q, dq, nq, mha_loss,
                       &c);
        if (!self) check_gradient("cross-attention dkv", c.kv, dkv, nk, mha_loss, &c);
        check_gradient(self ? "self-attention parameters" : "cross-attention parameters", c.block,
                       grad, count, mha_loss, &c);
        mha_case_free(&c);
        free(grad); free(dq); free(dkv);
    }
}
END_TEST

// The weights of every query of every head: a hidden key (padding, or
// later than the query under the causal mask) weighs exactly 0, and each
// row sums to 1.
START_TEST(attention_masks_hide_keys_exactly) {
    torch_rng g;
    rng_seed(&g, 5);
    for (int self = 1; self >= 0; self--) {
        mha_case c;
        mha_case_init(&c, &g, self, self ? NS : NT, NS);
        mha_loss(&c);
        int hidden = 0;
        for (int b = 0; b < B; b++)
            for (int i = 0; i < HEADS; i++)
                for (int q = 0; q < c.n_q; q++) {
                    const double *row = c.c.w + (((size_t)b * HEADS + i) * c.n_q + q) * c.n_k;
                    double sum = 0;
                    for (int k = 0; k < c.n_k; k++) {
                        bool masked = c.pad[b * c.n_k + k] || (c.causal && k > q);
                        if (masked) {
                            ck_assert_msg(row[k] == 0, "hidden key %d of query %d weighs %g", k, q,
                                          row[k]);
                            hidden++;
                        } else {
                            ck_assert_double_gt(row[k], 0);
                        }
                        sum += row[k];
                    }
                    ck_assert_double_eq_tol(sum, 1, 1e-14);
                }
        // self: 2 heads x (10 causal of sequence 0, 10 causal and 3 more
        // padded of sequence 1); cross: 2 heads x 4 queries x 2 padded keys
        ck_assert_int_eq(hidden, self ? 46 : 16);
        mha_case_free(&c);
    }
}
END_TEST

// A hidden key's input row gets no gradient at all from a query that may
// not see it: with the loss reading only query q, the rows of the keys
// after q (causal) and of the padded keys get exactly 0, and the others do
// not.
START_TEST(attention_hidden_keys_get_no_gradient) {
    torch_rng g;
    rng_seed(&g, 6);
    for (int self = 1; self >= 0; self--) {
        mha_case c;
        mha_case_init(&c, &g, self, self ? NS : NT, NS);
        const int q = 1, b = 1;  // sequence 1: keys 3 and 4 are padding
        size_t nq = (size_t)B * c.n_q * D, nk = (size_t)B * c.n_k * D;
        for (size_t e = 0; e < nq; e++)
            if (e / D != (size_t)(b * c.n_q + q)) c.r[e] = 0;
        double *grad = new_zeros(mha_count(D)), *dq = new_zeros(nq), *dkv = new_zeros(nk);
        mha_params gp;
        mha_views(&gp, grad);
        mha_loss(&c);
        mha_backward(dq, self ? dq : dkv, &gp, &c.c, c.r, c.q, self ? c.q : c.kv, &c.p, B, c.n_q,
                     c.n_k, D, HEADS, NULL, NULL);
        const double *dk = self ? dq : dkv;
        for (int k = 0; k < c.n_k; k++) {
            bool masked = c.pad[b * c.n_k + k] || (c.causal && k > q);
            double size = 0;
            for (int j = 0; j < D; j++) size += fabs(dk[((size_t)b * c.n_k + k) * D + j]);
            if (masked) ck_assert_msg(size == 0, "hidden key %d: gradient %g", k, size);
            else ck_assert_double_gt(size, 1e-6);
        }
        mha_case_free(&c);
        free(grad); free(dq); free(dkv);
    }
}
END_TEST

// ---------------------------------------------------------------- layers

typedef struct {
    bool decoder;
    layer_dims dims;
    bool src_pad[B * NS], tgt_pad[B * NT];
    double *x, *memory, *y, *r, *block;
    enc_layer_params ep;
    dec_layer_params dp;
    layer_cache c;
} layer_case;

static int layer_n(const layer_case *c) { return c->decoder ? NT : NS; }

static double layer_loss(void *p) {
    layer_case *c = p;
    if (c->decoder)
        dec_layer_forward(c->y, &c->c, &c->dp, c->x, c->memory, c->tgt_pad, c->src_pad, true,
                          &c->dims, B, NT, NS, NULL, NULL);
    else enc_layer_forward(c->y, &c->c, &c->ep, c->x, c->src_pad, false, &c->dims, B, NS, NULL);
    return weighted_sum(c->y, c->r, (size_t)B * layer_n(c) * D);
}

static size_t layer_count(bool decoder) {
    return (decoder ? 2 : 1) * mha_count(D) + ffn_count(D, D_FF) + (decoder ? 6 : 4) * D;
}

// The layer's parameter views into block, in the order of its table
// (transformer_layer.h).
static void layer_views(enc_layer_params *ep, dec_layer_params *dp, double *block, bool decoder) {
    layer_tensor t[DEC_LAYER_TENSORS];
    const layer_dims dims = {.d = D, .h = HEADS, .d_ff = D_FF};
    int n = decoder ? dec_layer_tensors(t, dp, &dims) : enc_layer_tensors(t, ep, &dims);
    size_t at = 0;
    for (int k = 0; k < n; k++) {
        *t[k].view = block + at;
        at += (size_t)t[k].rows * t[k].cols;
    }
    ck_assert_uint_eq(at, layer_count(decoder));
}

static void layer_case_init(layer_case *c, torch_rng *g, bool decoder, bool norm_first) {
    memset(c, 0, sizeof *c);
    c->decoder = decoder;
    c->dims = (layer_dims){.d = D, .h = HEADS, .d_ff = D_FF, .norm_first = norm_first};
    padding(c->src_pad, NS, 2);
    padding(c->tgt_pad, NT, 1);
    size_t n = (size_t)B * layer_n(c) * D;
    c->x = new_random(g, n, -1, 1);
    c->memory = new_random(g, (size_t)B * NS * D, -1, 1);
    c->y = new_zeros(n);
    c->r = new_random(g, n, -1, 1);
    c->block = new_random(g, layer_count(decoder), -0.5, 0.5);
    layer_views(&c->ep, &c->dp, c->block, decoder);
    for (int k = 0; k < (decoder ? 3 : 2); k++)  // gains about 1, as trained ones are
        for (int j = 0; j < D; j++) (decoder ? c->dp.norm_weight : c->ep.norm_weight)[k][j] += 1;
    int ok = decoder ? dec_layer_cache_alloc(&c->c, &c->dims, B, NT, NS)
                     : enc_layer_cache_alloc(&c->c, &c->dims, B, NS);
    ck_assert_int_eq(ok, 0);
}

static void layer_case_free(layer_case *c) {
    layer_cache_free(&c->c);
    free(c->x); free(c->memory); free(c->y); free(c->r); free(c->block);
}

static void check_layer(bool decoder, bool norm_first, uint64_t seed) {
    torch_rng g;
    rng_seed(&g, seed);
    layer_case c;
    layer_case_init(&c, &g, decoder, norm_first);
    size_t count = layer_count(decoder), n = (size_t)B * layer_n(&c) * D;
    double *grad = new_zeros(count), *dx = new_zeros(n), *dmem = new_zeros((size_t)B * NS * D);
    enc_layer_params eg;
    dec_layer_params dg;
    layer_views(&eg, &dg, grad, decoder);
    layer_loss(&c);
    if (decoder)
        dec_layer_backward(dx, dmem, &dg, &c.c, c.r, c.x, c.memory, &c.dp, &c.dims, B, NT, NS,
                           NULL, NULL);
    else enc_layer_backward(dx, &eg, &c.c, c.r, c.x, &c.ep, &c.dims, B, NS, NULL);
    char what[64];
    snprintf(what, sizeof what, "%s %s dx", norm_first ? "pre-norm" : "post-norm",
             decoder ? "decoder" : "encoder");
    check_gradient(what, c.x, dx, n, layer_loss, &c);
    if (decoder)
        check_gradient("decoder dmemory", c.memory, dmem, (size_t)B * NS * D, layer_loss, &c);
    snprintf(what, sizeof what, "%s %s parameters", norm_first ? "pre-norm" : "post-norm",
             decoder ? "decoder" : "encoder");
    check_gradient(what, c.block, grad, count, layer_loss, &c);
    layer_case_free(&c);
    free(grad); free(dx); free(dmem);
}

START_TEST(encoder_layer_post_norm_gradients) { check_layer(false, false, 7); }
END_TEST
START_TEST(encoder_layer_pre_norm_gradients) { check_layer(false, true, 8); }
END_TEST
START_TEST(decoder_layer_post_norm_gradients) { check_layer(true, false, 9); }
END_TEST
START_TEST(decoder_layer_pre_norm_gradients) { check_layer(true, true, 10); }
END_TEST

// Padding in the source: whatever a padded position holds, the encoder
// layer's other rows, and the decoder layer's every row, come out the same
// to the bit.
START_TEST(padded_positions_change_nothing_else) {
    torch_rng g;
    rng_seed(&g, 11);
    for (int decoder = 0; decoder <= 1; decoder++) {
        layer_case c;
        layer_case_init(&c, &g, decoder, decoder);
        size_t n = (size_t)B * layer_n(&c) * D;
        double *before = new_zeros(n);
        layer_loss(&c);
        memcpy(before, c.y, n * sizeof *before);
        double *changed = decoder ? c.memory : c.x;
        for (int i = NS - 2; i < NS; i++)  // sequence 1's two padded source tokens
            for (int j = 0; j < D; j++) changed[(NS + i) * D + j] += 3.0 + j;
        layer_loss(&c);
        int differ = 0;
        for (int t = 0; t < B * layer_n(&c); t++) {
            bool padded = !decoder && c.src_pad[t];
            int same = memcmp(before + (size_t)t * D, c.y + (size_t)t * D, D * sizeof *c.y) == 0;
            if (padded) differ += !same;
            else ck_assert_msg(same, "%s row %d changed", decoder ? "decoder" : "encoder", t);
        }
        if (!decoder) ck_assert_int_eq(differ, 2);  // the padded rows themselves do change
        layer_case_free(&c);
        free(before);
    }
}
END_TEST

// ---------------------------------------------------------------- the starting values

// seq2seq_init draws in PyTorch's construction order: the embedding, the
// encoder layer, the decoder layer (each as its own init draws it, which
// test_chapter5 holds to PyTorch's layers), the generator; to the bit.
START_TEST(model_draws_in_construction_order) {
    for (int norm_first = 0; norm_first <= 1; norm_first++) {
        const int V = 7;
        seq2seq_config cfg = {.V = V, .d = D, .h = HEADS, .d_ff = D_FF, .n_enc = 1, .n_dec = 1,
                              .n_pos = 0, .norm_first = norm_first, .positions = POSITIONS_NONE};
        torch_rng g;
        rng_seed(&g, 12);
        seq2seq_model m;
        ck_assert_int_eq(seq2seq_init(&m, &cfg, NULL, 1, NS, NT, &g), 0);
        // the same draws one layer after the other
        rng_seed(&g, 12);
        float *table = malloc((size_t)V * D * sizeof *table);
        double *gw = malloc((size_t)V * D * sizeof *gw), *gb = malloc((size_t)V * sizeof *gb);
        enc_layer_params el;
        dec_layer_params dl;
        ck_assert_int_eq(enc_layer_alloc(&el, &m.dims), MHA_OK);
        ck_assert_int_eq(dec_layer_alloc(&dl, &m.dims), MHA_OK);
        rng_embedding_init(&g, table, V, D);
        ck_assert_int_eq(enc_layer_init(&g, &el, &m.dims), 0);
        ck_assert_int_eq(dec_layer_init(&g, &dl, &m.dims), 0);
        ck_assert_int_eq(linear_init(&g, gw, gb, D, V), 0);
        for (int i = 0; i < V * D; i++) ck_assert(m.p.embedding[i] == table[i]);
        for (int i = 0; i < 3 * D * D; i++) {
            ck_assert(m.p.enc[0].self_attn.in_proj_weight[i] == el.self_attn.in_proj_weight[i]);
            ck_assert(m.p.dec[0].cross_attn.in_proj_weight[i] == dl.cross_attn.in_proj_weight[i]);
        }
        for (int i = 0; i < D * D_FF; i++) ck_assert(m.p.dec[0].ff.w2[i] == dl.ff.w2[i]);
        for (int i = 0; i < D; i++) ck_assert(m.p.enc[0].ff.b2[i] == el.ff.b2[i]);
        for (int i = 0; i < V * D; i++) ck_assert(m.p.generator_weight[i] == gw[i]);
        for (int i = 0; i < V; i++) ck_assert(m.p.generator_bias[i] == gb[i]);
        enc_layer_free(&el);
        dec_layer_free(&dl);
        free(table); free(gw); free(gb);
        seq2seq_free(&m);
    }
}
END_TEST

// ---------------------------------------------------------------- embedding and positions

typedef struct {
    int32_t ids[B * NT];
    double *table, *pos, *x, *r;
} embed_case;

static double embed_loss(void *p) {
    embed_case *c = p;
    embedding_forward(c->x, c->ids, c->table, B * NT, D);
    positions_forward(c->x, c->pos, NULL, B, NT, D);
    return weighted_sum(c->x, c->r, (size_t)B * NT * D);
}

START_TEST(embedding_and_positions_gradients) {
    torch_rng g;
    rng_seed(&g, 13);
    const int V = 6, n_pos = NT + 2;
    embed_case c = {.ids = {1, 4, 4, 0, 2, 1, 5, 0}};  // repeats collect both
    c.table = new_random(&g, (size_t)V * D, -1, 1);
    c.pos = new_random(&g, (size_t)n_pos * D, -1, 1);
    c.x = new_zeros((size_t)B * NT * D);
    c.r = new_random(&g, (size_t)B * NT * D, -1, 1);
    double *dtable = new_zeros((size_t)V * D), *dpos = new_zeros((size_t)n_pos * D);
    embed_loss(&c);
    embedding_backward(dtable, c.r, c.ids, B * NT, D);
    positions_backward(dpos, c.r, NULL, B, NT, D);
    check_gradient("embedding table", c.table, dtable, (size_t)V * D, embed_loss, &c);
    check_gradient("position table", c.pos, dpos, (size_t)n_pos * D, embed_loss, &c);
    for (int i = NT * D; i < n_pos * D; i++) ck_assert(dpos[i] == 0);  // rows past the length
    free(c.table); free(c.pos); free(c.x); free(c.r); free(dtable); free(dpos);
}
END_TEST

// ---------------------------------------------------------------- the model

// The batch of every model case: V 9, PAD 0, BOS 1, EOS 2; sequence 1 has
// a shorter source and target, padded.
enum { V9 = 9 };
static const int32_t SRC[B * NS] = {3, 4, 5, 6, 7, 8, 3, 5, 0, 0};
static const int32_t TGT_IN[B * NT] = {1, 7, 6, 5, 1, 5, 3, 0};
static const int32_t TGT_OUT[B * NT] = {7, 6, 5, 2, 5, 3, 2, 0};

typedef struct {
    seq2seq_model m;
    double *sinusoid;
} model_case;

static double model_loss(void *p) {
    model_case *c = p;
    return seq2seq_forward(&c->m, SRC, TGT_IN, TGT_OUT, B, NS, NT);
}

static void model_case_init(model_case *c, bool norm_first, position_kind positions,
                            uint64_t seed) {
    seq2seq_config cfg = {.V = V9, .d = D, .h = HEADS, .d_ff = D_FF, .n_enc = 2, .n_dec = 2,
                          .n_pos = NS + 1, .norm_first = norm_first, .positions = positions};
    c->sinusoid = new_zeros((size_t)cfg.n_pos * D);
    positions_sinusoidal(c->sinusoid, cfg.n_pos, D);
    torch_rng g;
    rng_seed(&g, seed);
    ck_assert_int_eq(seq2seq_init(&c->m, &cfg, c->sinusoid, B, NS, NT, &g), 0);
    // LayerNorms away from their start, so that their gains and biases
    // matter everywhere
    for (int i = 0; i < c->m.n_tensors; i++) {
        const seq2seq_tensor *t = &c->m.tensors[i];
        if (strstr(t->name, "norm") || strstr(t->name, "bias"))
            for (size_t e = 0; e < t->count; e++)
                c->m.param_block[t->offset + e] += 0.2 * sin(1.0 + e + 7.0 * i);
    }
}

static void check_model(bool norm_first, position_kind positions, uint64_t seed) {
    model_case c;
    model_case_init(&c, norm_first, positions, seed);
    double loss = model_loss(&c);
    ck_assert(isfinite(loss));
    seq2seq_backward(&c.m, TGT_OUT);
    for (int i = 0; i < c.m.n_tensors; i++) {
        const seq2seq_tensor *t = &c.m.tensors[i];
        char what[80];
        snprintf(what, sizeof what, "%s%s %s", norm_first ? "pre-norm" : "post-norm",
                 positions == POSITIONS_LEARNED ? " learned positions" : "", t->name);
        check_gradient(what, c.m.param_block + t->offset, c.m.grad_block + t->offset, t->count,
                       model_loss, &c);
    }
    seq2seq_free(&c.m);
    free(c.sinusoid);
}

START_TEST(model_post_norm_sinusoidal_gradients) { check_model(false, POSITIONS_SINUSOIDAL, 14); }
END_TEST
START_TEST(model_pre_norm_learned_gradients) { check_model(true, POSITIONS_LEARNED, 15); }
END_TEST
START_TEST(model_post_norm_learned_gradients) { check_model(false, POSITIONS_LEARNED, 16); }
END_TEST
START_TEST(model_pre_norm_no_positions_gradients) { check_model(true, POSITIONS_NONE, 17); }
END_TEST

// seq2seq_forward_scored leaves out sequence 1's trailing padding (two
// source rows, one target row): the loss and every gradient come out the
// same to the bit, the rows left out adding exact zeros where they were
// computed. Every configuration of the model.
static void check_scored(bool norm_first, position_kind positions, uint64_t seed) {
    model_case c;
    model_case_init(&c, norm_first, positions, seed);
    double loss = seq2seq_forward(&c.m, SRC, TGT_IN, TGT_OUT, B, NS, NT);
    ck_assert_int_eq(c.m.a.src_rows, B * NS);
    seq2seq_backward(&c.m, TGT_OUT);
    double *all = new_zeros(c.m.n_params);
    memcpy(all, c.m.grad_block, c.m.n_params * sizeof *all);
    double scored = seq2seq_forward_scored(&c.m, SRC, TGT_IN, TGT_OUT, B, NS, NT);
    ck_assert_int_eq(c.m.a.src_rows, B * NS - 2);
    ck_assert_int_eq(c.m.a.tgt_rows, B * NT - 1);
    seq2seq_backward(&c.m, TGT_OUT);
    ck_assert_msg(loss == scored, "loss: every row %.17g, scored rows %.17g", loss, scored);
    for (size_t e = 0; e < c.m.n_params; e++)
        ck_assert_msg(all[e] == c.m.grad_block[e], "gradient %zu: every row %.17g, scored rows %.17g",
                      e, all[e], c.m.grad_block[e]);
    free(all);
    seq2seq_free(&c.m);
    free(c.sinusoid);
}

START_TEST(model_scored_rows_same_gradients) {
    check_scored(false, POSITIONS_SINUSOIDAL, 14);
    check_scored(true, POSITIONS_LEARNED, 15);
    check_scored(false, POSITIONS_LEARNED, 16);
    check_scored(true, POSITIONS_NONE, 17);
}
END_TEST

// The tensors' table: PyTorch's names, every number of the block once, in
// order, and the lookup by name.
START_TEST(model_tensors_by_name) {
    model_case c;
    model_case_init(&c, true, POSITIONS_LEARNED, 18);
    seq2seq_model *m = &c.m;
    ck_assert_int_eq(m->n_tensors, 2 + 1 + 2 * 12 + 2 * 18 + 4 + 1);
    size_t at = 0;
    for (int i = 0; i < m->n_tensors; i++) {
        ck_assert_uint_eq(m->tensors[i].offset, at);
        at += m->tensors[i].count;
    }
    ck_assert_uint_eq(at, m->n_params);
    ck_assert_uint_eq(m->n_params, seq2seq_param_count(&m->cfg));
    real *p, *gr;
    size_t count;
    struct { const char *name; const real *want; size_t count; } names[] = {
        {"embedding.weight", m->p.embedding, V9 * D},
        {"pos.weight", m->p.pos, (NS + 1) * D},
        {"enc.0.self_attn.in_proj_weight", m->p.enc[0].self_attn.in_proj_weight, 3 * D * D},
        {"enc.1.linear1.weight", m->p.enc[1].ff.w1, D_FF * D},
        {"enc.0.norm1.weight", m->p.enc[0].norm_weight[0], D},
        {"dec.0.multihead_attn.out_proj.bias", m->p.dec[0].cross_attn.out_proj_bias, D},
        {"dec.1.norm3.bias", m->p.dec[1].norm_bias[2], D},
        {"dec.1.linear2.bias", m->p.dec[1].ff.b2, D},
        {"enc_norm.weight", m->p.enc_norm_weight, D},
        {"dec_norm.bias", m->p.dec_norm_bias, D},
        {"generator.weight", m->p.generator_weight, V9 * D},
        {"generator.bias", m->p.generator_bias, V9},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        ck_assert_msg(seq2seq_tensor_by_name(m, names[i].name, &p, &gr, &count) == 0, "%s",
                      names[i].name);
        ck_assert_ptr_eq(p, names[i].want);
        ck_assert_ptr_eq(gr, m->grad_block + (p - m->param_block));
        ck_assert_uint_eq(count, names[i].count);
    }
    ck_assert_int_eq(seq2seq_tensor_by_name(m, "dec.2.norm1.weight", &p, &gr, &count), -1);
    ck_assert_int_eq(seq2seq_tensor_by_name(m, "enc.0.norm3.weight", &p, &gr, &count), -1);
    seq2seq_free(m);
    free(c.sinusoid);
}
END_TEST

// Causality: changing a later target token leaves every earlier position's
// logits the same to the bit, and changes its own; a padded source
// token's embedding (the PAD row, which padded targets use too) changes no
// logit of a position that is not padding.
START_TEST(model_causal_and_padding_properties) {
    for (int norm_first = 0; norm_first <= 1; norm_first++) {
        model_case c;
        model_case_init(&c, norm_first, POSITIONS_SINUSOIDAL, 19);
        seq2seq_model *m = &c.m;
        size_t n = (size_t)B * NT * V9;
        double *before = new_zeros(n);
        model_loss(&c);
        memcpy(before, m->a.logits, n * sizeof *before);
        int32_t tgt[B * NT];
        memcpy(tgt, TGT_IN, sizeof tgt);
        tgt[2] = 8;  // sequence 0, position 2
        seq2seq_forward(m, SRC, tgt, TGT_OUT, B, NS, NT);
        for (int t = 0; t < B * NT; t++) {
            int same = memcmp(before + (size_t)t * V9, m->a.logits + (size_t)t * V9,
                              V9 * sizeof *before) == 0;
            if (t < 2 || t >= NT) ck_assert_msg(same, "position %d changed", t);
            else ck_assert_msg(!same, "position %d did not change", t);
        }
        for (int j = 0; j < D; j++) m->p.embedding[0 * D + j] += 1.5 + j;  // the PAD row
        model_loss(&c);
        for (int t = 0; t < B * NT; t++) {
            if (TGT_IN[t] == 0) continue;
            ck_assert_msg(memcmp(before + (size_t)t * V9, m->a.logits + (size_t)t * V9,
                                 V9 * sizeof *before) == 0,
                          "position %d changed with the padding", t);
        }
        seq2seq_free(m);
        free(c.sinusoid);
        free(before);
    }
}
END_TEST

// The attention maps the model keeps: every row of every kind sums to 1,
// and a hidden key weighs exactly 0.
START_TEST(model_attention_maps) {
    model_case c;
    model_case_init(&c, false, POSITIONS_SINUSOIDAL, 20);
    seq2seq_model *m = &c.m;
    model_loss(&c);
    for (int kind = ATTN_ENC_SELF; kind <= ATTN_DEC_CROSS; kind++)
        for (int l = 0; l < 2; l++) {
            const double *w = seq2seq_attention(m, kind, l);
            int n_q = kind == ATTN_ENC_SELF ? NS : NT, n_k = kind == ATTN_DEC_SELF ? NT : NS;
            const int32_t *keys = kind == ATTN_DEC_SELF ? TGT_IN : SRC;
            for (int b = 0; b < B; b++)
                for (int i = 0; i < HEADS; i++)
                    for (int q = 0; q < n_q; q++) {
                        const double *row = w + (((size_t)b * HEADS + i) * n_q + q) * n_k;
                        double sum = 0;
                        for (int k = 0; k < n_k; k++) {
                            bool hidden =
                                keys[b * n_k + k] == 0 || (kind == ATTN_DEC_SELF && k > q);
                            if (hidden) ck_assert(row[k] == 0);
                            sum += row[k];
                        }
                        ck_assert_double_eq_tol(sum, 1, 1e-14);
                    }
        }
    seq2seq_free(m);
    free(c.sinusoid);
}
END_TEST

// A train step lowers the loss of its batch, steps every parameter, and
// greedy decoding of the trained model writes the targets it was taught,
// then PAD after EOS.
START_TEST(model_learns_its_batch_and_decodes_it) {
    model_case c;
    model_case_init(&c, false, POSITIONS_LEARNED, 21);
    seq2seq_model *m = &c.m;
    double *start = new_zeros(m->n_params);
    memcpy(start, m->param_block, m->n_params * sizeof *start);
    double first = seq2seq_train_step(m, 0.01, SRC, TGT_IN, TGT_OUT, B, NS, NT), last = first;
    size_t moved = 0;
    for (size_t i = 0; i < m->n_params; i++) moved += m->param_block[i] != start[i];
    // all but the rows of the embedding no token uses, and their gradient is 0
    ck_assert_uint_ge(moved, m->n_params - (size_t)V9 * D);
    for (int step = 0; step < 200; step++)
        last = seq2seq_train_step(m, 0.01, SRC, TGT_IN, TGT_OUT, B, NS, NT);
    ck_assert_double_lt(last, 0.01 * first);
    int32_t out[B * NT];
    seq2seq_greedy_decode(m, out, SRC, B, NS, NT, 1, 2);
    for (int t = 0; t < B * NT; t++) ck_assert_int_eq(out[t], TGT_OUT[t]);
    seq2seq_free(m);
    free(c.sinusoid);
    free(start);
}
END_TEST

// Sizes that make no model are refused.
START_TEST(model_refuses_bad_sizes) {
    seq2seq_config cfg = {.V = V9, .d = 9, .h = 2, .d_ff = D_FF, .n_enc = 1, .n_dec = 1,
                          .n_pos = NS, .positions = POSITIONS_LEARNED};
    torch_rng g;
    rng_seed(&g, 22);
    seq2seq_model m;
    ck_assert_int_eq(seq2seq_init(&m, &cfg, NULL, B, NS, NT, &g), -2);  // 2 heads do not split 9
    cfg.d = D;
    ck_assert_int_eq(seq2seq_init(&m, &cfg, NULL, B, NS + 1, NT, &g), -2);  // longer than n_pos
    cfg.positions = POSITIONS_SINUSOIDAL;
    ck_assert_int_eq(seq2seq_init(&m, &cfg, NULL, B, NS, NT, &g), -2);  // no table given
    cfg.positions = POSITIONS_NONE;
    ck_assert_int_eq(seq2seq_init(&m, &cfg, NULL, B, NS + 1, NT, &g), 0);
    seq2seq_free(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("transformer_gradients");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, linear_gradients);
    tcase_add_test(tc, layer_norm_gradients);
    tcase_add_test(tc, ffn_gradients);
    tcase_add_test(tc, attention_gradients);
    tcase_add_test(tc, attention_masks_hide_keys_exactly);
    tcase_add_test(tc, attention_hidden_keys_get_no_gradient);
    tcase_add_test(tc, encoder_layer_post_norm_gradients);
    tcase_add_test(tc, encoder_layer_pre_norm_gradients);
    tcase_add_test(tc, decoder_layer_post_norm_gradients);
    tcase_add_test(tc, decoder_layer_pre_norm_gradients);
    tcase_add_test(tc, padded_positions_change_nothing_else);
    tcase_add_test(tc, model_draws_in_construction_order);
    tcase_add_test(tc, embedding_and_positions_gradients);
    tcase_add_test(tc, model_post_norm_sinusoidal_gradients);
    tcase_add_test(tc, model_pre_norm_learned_gradients);
    tcase_add_test(tc, model_post_norm_learned_gradients);
    tcase_add_test(tc, model_pre_norm_no_positions_gradients);
    tcase_add_test(tc, model_tensors_by_name);
    tcase_add_test(tc, model_scored_rows_same_gradients);
    tcase_add_test(tc, model_causal_and_padding_properties);
    tcase_add_test(tc, model_attention_maps);
    tcase_add_test(tc, model_learns_its_batch_and_decodes_it);
    tcase_add_test(tc, model_refuses_bad_sizes);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
