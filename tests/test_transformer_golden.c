// test_transformer_golden.c: the transformer layers of src/layers/ in float,
// forward and backward, against PyTorch autograd; and one Adam step of the
// encoder-decoder model.
//
// tests/golden/transformer_grads.txt (tests/reference/transformer_golden.py)
// holds nn.TransformerEncoderLayer and nn.TransformerDecoderLayer, post-norm
// and norm_first, with d 8, 2 heads, d_ff 16, dropout 0: their parameters
// (random biases and LayerNorm parameters), inputs, masks, outputs, and the
// gradients of (out * R).sum() for a random R, so dout = R.
// tests/golden/transformer_model.txt holds encoder-decoder reversal models
// (V 13, sequences of at most 4 digits, a batch of 3): one layer in each
// stack, post- and pre-norm, with sinusoidal and with learned positions,
// and post-norm without; two layers in each, post-norm sinusoidal and
// pre-norm learned. For each: its initial parameters, the batch, the
// logits, the cross-entropy, the attention weights, every gradient, every
// parameter after one torch.optim.Adam step, and greedy decoding after it.
//
//   D, H, D_FF   model width, heads, feed-forward width
//   B            sequences in a batch of the layer cases
//   N_ENC        the encoder case's sequence length; N_TGT, N_MEM the
//                decoder case's target and memory lengths
//   VOCAB        vocabulary; MB, NS, NT the model's batch, source and
//                target lengths
#include <check.h>

#include "golden.h"
#include "suite.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "layers/positions.h"
#include "layers/adam.h"
#include "layers/cross_entropy.h"
#include "kernels/real.h"
#include "models/seq2seq.h"
#include "layers/transformer_layer.h"

#define GRADS "transformer_grads.txt"
#define MODEL "transformer_model.txt"

#define D 8
#define H 2
#define D_FF 16
#define B 2
#define N_ENC 5
#define N_TGT 4
#define N_MEM 5

#define VOCAB 13
#define PAD 0
#define BOS 1
#define EOS 2
#define MB 3
#define NS 4
#define NT 5
#define LR 1e-2
#define SEED 8
static const int LENGTHS[MB] = {4, 2, 3};  // the digits of each source

// The tolerance, |C - PyTorch| <= TOL_ABS + TOL_REL |PyTorch|. Both sides
// compute in float32 and differ in the order of their sums: each value is a
// chain of some hundred roundings of relative size 6e-8 (half of float's
// epsilon), amplified by the layer norms' 1/std. PyTorch's own values lie
// up to 2.4e-6 from the same layers computed in double. The absolute term
// covers values of order 1; the relative one keeps gradients near 10 (the
// largest, 10.7, of the encoder's in_proj_weight, whose last bit alone is
// 1e-6) as strict for their size. Measured (the suite prints it): outputs
// within 6e-7 of PyTorch, gradients within 2.1e-6.
#define TOL_ABS 1e-5
#define TOL_REL 1e-5

// ---------------------------------------------------------------- helpers

typedef struct {
    const char *name;  // the state_dict name
    size_t n;          // how many values
} param_name;

#define LAYER_MAX_PARAMS 18

// The parameters of an encoder layer, in state_dict order.
static const param_name ENC_PARAMS[] = {
    {"self_attn.in_proj_weight", 3 * D * D}, {"self_attn.in_proj_bias", 3 * D},
    {"self_attn.out_proj.weight", D * D},    {"self_attn.out_proj.bias", D},
    {"linear1.weight", D_FF * D},            {"linear1.bias", D_FF},
    {"linear2.weight", D * D_FF},            {"linear2.bias", D},
    {"norm1.weight", D},                     {"norm1.bias", D},
    {"norm2.weight", D},                     {"norm2.bias", D},
};
#define N_ENC_PARAMS (sizeof ENC_PARAMS / sizeof ENC_PARAMS[0])

// The parameters of a decoder layer, in state_dict order.
static const param_name DEC_PARAMS[] = {
    {"self_attn.in_proj_weight", 3 * D * D},      {"self_attn.in_proj_bias", 3 * D},
    {"self_attn.out_proj.weight", D * D},         {"self_attn.out_proj.bias", D},
    {"multihead_attn.in_proj_weight", 3 * D * D}, {"multihead_attn.in_proj_bias", 3 * D},
    {"multihead_attn.out_proj.weight", D * D},    {"multihead_attn.out_proj.bias", D},
    {"linear1.weight", D_FF * D},                 {"linear1.bias", D_FF},
    {"linear2.weight", D * D_FF},                 {"linear2.bias", D},
    {"norm1.weight", D},                          {"norm1.bias", D},
    {"norm2.weight", D},                          {"norm2.bias", D},
    {"norm3.weight", D},                          {"norm3.bias", D},
};
#define N_DEC_PARAMS (sizeof DEC_PARAMS / sizeof DEC_PARAMS[0])

// The models of the model file: post- or pre-norm, sinusoidal or learned
// positions or none, one or two layers in each stack.
static const struct {
    const char *name;
    bool pre;
    position_kind positions;
    int layers;
} MODEL_CASES[] = {
    {"model_post_sinusoidal", false, POSITIONS_SINUSOIDAL, 1},
    {"model_post_learned", false, POSITIONS_LEARNED, 1},
    {"model_pre_sinusoidal", true, POSITIONS_SINUSOIDAL, 1},
    {"model_pre_learned", true, POSITIONS_LEARNED, 1},
    {"model_post_none", false, POSITIONS_NONE, 1},
    {"model2_post_sinusoidal", false, POSITIONS_SINUSOIDAL, 2},
    {"model2_pre_learned", true, POSITIONS_LEARNED, 2},
};
#define N_MODEL_CASES (int)(sizeof MODEL_CASES / sizeof MODEL_CASES[0])
static bool model_pre(int c) { return MODEL_CASES[c].pre; }
static bool model_learned(int c) { return MODEL_CASES[c].positions == POSITIONS_LEARNED; }
static bool model_sinusoidal(int c) { return MODEL_CASES[c].positions == POSITIONS_SINUSOIDAL; }

#define MODEL_MAX_PARAMS 80

// The model's parameters in state_dict order (names after "model."), their
// sizes; returns how many.
static int model_params(param_name *out, char names[][64], int c) {
    int k = 0;
    out[k++] = (param_name){"embedding.weight", VOCAB * D};
    if (model_learned(c)) out[k++] = (param_name){"pos.weight", NT * D};
    for (int l = 0; l < MODEL_CASES[c].layers; l++)
        for (size_t i = 0; i < N_ENC_PARAMS; i++, k++) {
            snprintf(names[k], 64, "enc.%d.%s", l, ENC_PARAMS[i].name);
            out[k] = (param_name){names[k], ENC_PARAMS[i].n};
        }
    for (int l = 0; l < MODEL_CASES[c].layers; l++)
        for (size_t i = 0; i < N_DEC_PARAMS; i++, k++) {
            snprintf(names[k], 64, "dec.%d.%s", l, DEC_PARAMS[i].name);
            out[k] = (param_name){names[k], DEC_PARAMS[i].n};
        }
    if (model_pre(c)) {
        out[k++] = (param_name){"enc_norm.weight", D};
        out[k++] = (param_name){"enc_norm.bias", D};
        out[k++] = (param_name){"dec_norm.weight", D};
        out[k++] = (param_name){"dec_norm.bias", D};
    }
    out[k++] = (param_name){"generator.weight", VOCAB * D};
    out[k++] = (param_name){"generator.bias", VOCAB};
    return k;
}

// Section prefix.name of file, n float values, into dst.
static void load_reals(real *dst, const char *file, const char *prefix, const char *name,
                       size_t n) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", prefix, name);
    double *v = golden_doubles(file, key, "f32", n);
    for (size_t i = 0; i < n; i++) dst[i] = (real)v[i];
    free(v);
}

// Section prefix.name of file, n integers, into dst.
static void load_ints(int32_t *dst, const char *file, const char *prefix, const char *name,
                      size_t n) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", prefix, name);
    double *v = golden_doubles(file, key, "i64", n);
    for (size_t i = 0; i < n; i++) dst[i] = (int32_t)v[i];
    free(v);
}

// Holds got (n) to section prefix.name of file within tol_abs + tol_rel
// |PyTorch|; returns the largest absolute difference.
static double expect_within(const real *got, const char *file, const char *prefix,
                            const char *name, size_t n, double tol_abs, double tol_rel) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", prefix, name);
    golden gd = golden_read(file, key, "f32");
    ck_assert_msg(gd.n == n, "section %s has %zu values, want %zu", key, gd.n, n);
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double diff = fabs((double)got[i] - gd.f[i]);
        ck_assert_msg(diff <= tol_abs + tol_rel * fabs(gd.f[i]), "%s[%zu]: C %.9g, PyTorch %.9g",
                      key, i, (double)got[i], (double)gd.f[i]);
        if (diff > worst) worst = diff;
    }
    golden_free(&gd);
    return worst;
}

// expect_within with the tolerance of the layers, TOL_ABS and TOL_REL.
static double expect_close(const real *got, const char *file, const char *prefix,
                           const char *name, size_t n) {
    return expect_within(got, file, prefix, name, n, TOL_ABS, TOL_REL);
}

// The key bias of an attention (in_proj_bias rows D .. 2D) adds q_i . b_k
// to every score of query i, which the softmax does not see: the loss does
// not depend on it, and its gradient is zero but for rounding, on both
// sides.
static bool is_key_bias(const char *name, size_t i) {
    const char *suffix = "in_proj_bias";
    size_t len = strlen(name), n = strlen(suffix);
    return len >= n && strcmp(name + len - n, suffix) == 0 && i >= D && i < 2 * D;
}

// ---------------------------------------------------------------- Adam

// How far apart Adam's first step puts a parameter when the two sides'
// gradients are a and b: the first step is lr g / (|g| + eps), so gradients
// that agree to 1e-5 move it alike unless they are near eps, where rounding
// noise of either sign becomes a step of up to lr.
static double adam_first_step_spread(double a, double b) {
    const double eps = 1e-8;
    return LR * fabs(a / (fabs(a) + eps) - b / (fabs(b) + eps));
}

// Everything of a model case in flat arrays, in state_dict order.
typedef struct {
    param_name p[MODEL_MAX_PARAMS];
    char names[MODEL_MAX_PARAMS][64];
    size_t off[MODEL_MAX_PARAMS];
    int np;
    size_t n;
} model_layout;

static void model_layout_of(model_layout *l, int c) {
    l->np = model_params(l->p, l->names, c);
    l->n = 0;
    for (int k = 0; k < l->np; k++) {
        l->off[k] = l->n;
        l->n += l->p[k].n;
    }
}

// layers/adam.c from PyTorch's initial parameters and gradients gives
// PyTorch's parameters after its step: the optimiser on its own.
START_TEST(adam_step_equals_torch_optim_adam) {
    const char *mc = MODEL_CASES[_i].name;
    model_layout l;
    model_layout_of(&l, _i);
    real *p = malloc(l.n * sizeof *p), *g = malloc(l.n * sizeof *g);
    ck_assert(p && g);
    char key[96];
    for (int k = 0; k < l.np; k++) {
        snprintf(key, sizeof key, "init.model.%s", l.p[k].name);
        load_reals(p + l.off[k], MODEL, mc, key, l.p[k].n);
        snprintf(key, sizeof key, "grad.model.%s", l.p[k].name);
        load_reals(g + l.off[k], MODEL, mc, key, l.p[k].n);
    }
    adam_state opt;
    ck_assert_int_eq(adam_init(&opt, l.n, LR), 0);
    adam_step(&opt, p, g);
    double worst = 0;
    for (int k = 0; k < l.np; k++) {
        snprintf(key, sizeof key, "after.model.%s", l.p[k].name);
        // The same gradients: only the rounding of the update differs, a
        // few ulps of a value of order 1 (measured: 1.2e-7, one ulp).
        double w = expect_within(p + l.off[k], MODEL, mc, key, l.p[k].n, 1e-6, 0);
        if (w > worst) worst = w;
    }
    printf("%s: Adam from PyTorch's gradients: largest difference %.2g\n", mc, worst);
    adam_free(&opt);
    free(p);
    free(g);
}
END_TEST

// layers/cross_entropy.c on PyTorch's logits gives nn.CrossEntropyLoss's
// loss (ignore_index 0), and the padding is really there to be ignored.
START_TEST(cross_entropy_equals_pytorch) {
    const char *mc = MODEL_CASES[_i].name;
    real z[MB * NT * VOCAB];
    int32_t y[MB * NT];
    load_reals(z, MODEL, mc, "logits", MB * NT * VOCAB);
    load_ints(y, MODEL, mc, "tgt_out", MB * NT);
    int pads = 0;
    for (int r = 0; r < MB * NT; r++) pads += y[r] == PAD;
    ck_assert_int_gt(pads, 0);
    real loss = cross_entropy_forward(z, y, MB * NT, VOCAB, PAD);
    double worst = expect_close(&loss, MODEL, mc, "loss", 1);
    printf("%s: cross-entropy of PyTorch's logits: difference %.2g\n", mc, worst);
}
END_TEST

// ---------------------------------------------------------------- layers

// Points the tensors of a layer at consecutive stretches of block, in the
// order of the layer's own table (transformer_layer.h), which
// layer_tables_follow_state_dict holds to ENC_PARAMS and DEC_PARAMS;
// returns the pointers in that order in at.
static void table_views(layer_tensor *t, int n, real **at, real *block) {
    for (int k = 0; k < n; k++) {
        *t[k].view = at[k] = block;
        block += (size_t)t[k].rows * t[k].cols;
    }
}

static const layer_dims TABLE_DIMS = { .d = D, .h = H, .d_ff = D_FF };

static void enc_views(enc_layer_params *p, real **at, real *block) {
    layer_tensor t[ENC_LAYER_TENSORS];
    table_views(t, enc_layer_tensors(t, p, &TABLE_DIMS), at, block);
}

static void dec_views(dec_layer_params *p, real **at, real *block) {
    layer_tensor t[DEC_LAYER_TENSORS];
    table_views(t, dec_layer_tensors(t, p, &TABLE_DIMS), at, block);
}

// The layers' tables name their tensors as PyTorch's state_dict does, in
// its order, with its sizes.
START_TEST(layer_tables_follow_state_dict) {
    enc_layer_params e;
    dec_layer_params dl;
    layer_tensor t[DEC_LAYER_TENSORS];
    ck_assert_int_eq(enc_layer_tensors(t, &e, &TABLE_DIMS), (int)N_ENC_PARAMS);
    for (size_t k = 0; k < N_ENC_PARAMS; k++) {
        ck_assert_str_eq(t[k].name, ENC_PARAMS[k].name);
        ck_assert_uint_eq((size_t)t[k].rows * t[k].cols, ENC_PARAMS[k].n);
    }
    ck_assert_int_eq(dec_layer_tensors(t, &dl, &TABLE_DIMS), (int)N_DEC_PARAMS);
    for (size_t k = 0; k < N_DEC_PARAMS; k++) {
        ck_assert_str_eq(t[k].name, DEC_PARAMS[k].name);
        ck_assert_uint_eq((size_t)t[k].rows * t[k].cols, DEC_PARAMS[k].n);
    }
}
END_TEST

static size_t total_size(const param_name *ps, size_t n) {
    size_t t = 0;
    for (size_t k = 0; k < n; k++) t += ps[k].n;
    return t;
}

// A mask section (0/1) as bools; every value must be 0 or 1.
static void load_mask(bool *dst, const char *file, const char *prefix, const char *name,
                      size_t n) {
    int32_t v[64];
    ck_assert_uint_le(n, 64);
    load_ints(v, file, prefix, name, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert(v[i] == 0 || v[i] == 1);
        dst[i] = v[i] == 1;
    }
}

// The worst differences of a layer case, printed at its end.
typedef struct {
    double out, grad;
} worst_pair;

// Holds the gradients (n tensors named ps, at `at`) to the case's sections
// grad.<name>; updates *worst.
static void expect_grads(real *const *at, const param_name *ps, size_t n, const char *prefix,
                         double *worst) {
    char key[96];
    for (size_t k = 0; k < n; k++) {
        snprintf(key, sizeof key, "grad.%s", ps[k].name);
        double w = expect_close(at[k], GRADS, prefix, key, ps[k].n);
        if (w > *worst) *worst = w;
    }
}

static const char *const ENC_CASES[] = {"enc_post", "enc_pre"};
static const char *const DEC_CASES[] = {"dec_post", "dec_pre"};

// nn.TransformerEncoderLayer's output and every gradient, post-norm (_i 0)
// and norm_first (_i 1), with the last two keys of sequence 1 padding.
START_TEST(encoder_layer_equals_pytorch) {
    const char *pc = ENC_CASES[_i];
    layer_dims dims = {.d = D, .h = H, .d_ff = D_FF, .norm_first = _i == 1};
    size_t np = total_size(ENC_PARAMS, N_ENC_PARAMS);
    real *pb = malloc(np * sizeof *pb), *gb = calloc(np, sizeof *gb);
    ck_assert(pb && gb);
    enc_layer_params p, g;
    real *pat[N_ENC_PARAMS], *gat[N_ENC_PARAMS];
    enc_views(&p, pat, pb);
    enc_views(&g, gat, gb);
    for (size_t k = 0; k < N_ENC_PARAMS; k++)
        load_reals(pat[k], GRADS, pc, ENC_PARAMS[k].name, ENC_PARAMS[k].n);
    real x[B * N_ENC * D], r[B * N_ENC * D], out[B * N_ENC * D], dx[B * N_ENC * D] = {0};
    bool pad[B * N_ENC];
    load_reals(x, GRADS, pc, "x", B * N_ENC * D);
    load_reals(r, GRADS, pc, "R", B * N_ENC * D);
    load_mask(pad, GRADS, pc, "src_key_padding_mask", B * N_ENC);
    ck_assert(pad[N_ENC + N_ENC - 1] && !pad[0]);  // the case has padding to hide

    layer_cache c;
    ck_assert_int_eq(enc_layer_cache_alloc(&c, &dims, B, N_ENC), 0);
    ck_assert_int_eq(enc_layer_forward(out, &c, &p, x, pad, false, &dims, B, N_ENC, NULL), MHA_OK);
    worst_pair w = {0, 0};
    w.out = expect_close(out, GRADS, pc, "out", B * N_ENC * D);  // padded rows too: not NaN
    enc_layer_backward(dx, &g, &c, r, x, &p, &dims, B, N_ENC, NULL);
    expect_grads(gat, ENC_PARAMS, N_ENC_PARAMS, pc, &w.grad);
    double wx = expect_close(dx, GRADS, pc, "grad.x", B * N_ENC * D);
    if (wx > w.grad) w.grad = wx;
    printf("%s: largest difference from PyTorch: output %.2g, gradient %.2g\n", pc, w.out, w.grad);
    layer_cache_free(&c);
    free(pb);
    free(gb);
}
END_TEST

// nn.TransformerDecoderLayer's output and every gradient, including the
// memory's: causal self-attention, the last target of sequence 1 and the
// last two memory rows of sequence 1 padding.
START_TEST(decoder_layer_equals_pytorch) {
    const char *pc = DEC_CASES[_i];
    layer_dims dims = {.d = D, .h = H, .d_ff = D_FF, .norm_first = _i == 1};
    size_t np = total_size(DEC_PARAMS, N_DEC_PARAMS);
    real *pb = malloc(np * sizeof *pb), *gb = calloc(np, sizeof *gb);
    ck_assert(pb && gb);
    dec_layer_params p, g;
    real *pat[N_DEC_PARAMS], *gat[N_DEC_PARAMS];
    dec_views(&p, pat, pb);
    dec_views(&g, gat, gb);
    for (size_t k = 0; k < N_DEC_PARAMS; k++)
        load_reals(pat[k], GRADS, pc, DEC_PARAMS[k].name, DEC_PARAMS[k].n);
    real tgt[B * N_TGT * D], mem[B * N_MEM * D], r[B * N_TGT * D], out[B * N_TGT * D];
    real dtgt[B * N_TGT * D] = {0}, dmem[B * N_MEM * D] = {0};
    bool causal[N_TGT * N_TGT], tgt_pad[B * N_TGT], mem_pad[B * N_MEM];
    load_reals(tgt, GRADS, pc, "tgt", B * N_TGT * D);
    load_reals(mem, GRADS, pc, "memory", B * N_MEM * D);
    load_reals(r, GRADS, pc, "R", B * N_TGT * D);
    load_mask(causal, GRADS, pc, "tgt_mask", N_TGT * N_TGT);
    load_mask(tgt_pad, GRADS, pc, "tgt_key_padding_mask", B * N_TGT);
    load_mask(mem_pad, GRADS, pc, "memory_key_padding_mask", B * N_MEM);
    // The layer is run causal: PyTorch's mask must be the causal one.
    for (int i = 0; i < N_TGT; i++)
        for (int j = 0; j < N_TGT; j++) ck_assert(causal[i * N_TGT + j] == (j > i));
    ck_assert(tgt_pad[2 * N_TGT - 1] && mem_pad[2 * N_MEM - 1]);

    layer_cache c;
    ck_assert_int_eq(dec_layer_cache_alloc(&c, &dims, B, N_TGT, N_MEM), 0);
    ck_assert_int_eq(dec_layer_forward(out, &c, &p, tgt, mem, tgt_pad, mem_pad, true, &dims, B,
                                       N_TGT, N_MEM, NULL, NULL),
                     MHA_OK);
    worst_pair w = {0, 0};
    w.out = expect_close(out, GRADS, pc, "out", B * N_TGT * D);
    dec_layer_backward(dtgt, dmem, &g, &c, r, tgt, mem, &p, &dims, B, N_TGT, N_MEM, NULL, NULL);
    expect_grads(gat, DEC_PARAMS, N_DEC_PARAMS, pc, &w.grad);
    double wt = expect_close(dtgt, GRADS, pc, "grad.tgt", B * N_TGT * D);
    double wm = expect_close(dmem, GRADS, pc, "grad.memory", B * N_MEM * D);
    w.grad = fmax(w.grad, fmax(wt, wm));
    printf("%s: largest difference from PyTorch: output %.2g, gradient %.2g\n", pc, w.out, w.grad);
    layer_cache_free(&c);
    free(pb);
    free(gb);
}
END_TEST

// ---------------------------------------------------------------- the model

// The configuration of model case c and, for sinusoidal positions, its
// table (NT, D) from layers/positions.c, which must be the script's to the bit.
static seq2seq_config model_config(int c, real *table) {
    seq2seq_config cfg = {.V = VOCAB, .d = D, .h = H, .d_ff = D_FF,
                          .n_enc = MODEL_CASES[c].layers, .n_dec = MODEL_CASES[c].layers,
                          .n_pos = NT, .norm_first = model_pre(c),
                          .positions = MODEL_CASES[c].positions,
                          .pad = PAD};
    if (model_sinusoidal(c)) {
        float pe[NT * D];
        positions_sinusoidal(pe, NT, D);
        for (int i = 0; i < NT * D; i++) table[i] = pe[i];
        expect_within(table, MODEL, MODEL_CASES[c].name, "positions", NT * D, 0, 0);
    }
    return cfg;
}

// seq2seq_init after rng_seed(SEED) draws PyTorch's initial parameters
// (the normals of the embeddings to a few 1e-7, rng.h; the uniform ones to
// the bit), and the generator then draws the batch's digits as the script's
// torch.randint does.
START_TEST(model_init_draws_what_pytorch_draws) {
    const char *mc = MODEL_CASES[_i].name;
    real table[NT * D];
    seq2seq_config cfg = model_config(_i, table);
    torch_rng g;
    rng_seed(&g, SEED);
    seq2seq_model m;
    const real *sinusoid = model_sinusoidal(_i) ? table : NULL;
    ck_assert_int_eq(seq2seq_init(&m, &cfg, sinusoid, MB, NS, NT, &g), 0);
    model_layout l;
    model_layout_of(&l, _i);
    ck_assert_uint_eq(m.n_params, l.n);
    ck_assert_int_eq(m.n_tensors, l.np);
    char key[96];
    double worst = 0;
    for (int k = 0; k < l.np; k++) {
        ck_assert_str_eq(m.tensors[k].name, l.p[k].name);  // the state_dict's order
        real *p, *gr;
        size_t count;
        ck_assert_int_eq(seq2seq_tensor_by_name(&m, l.p[k].name, &p, &gr, &count), 0);
        ck_assert_uint_eq(count, l.p[k].n);
        snprintf(key, sizeof key, "init.model.%s", l.p[k].name);
        double w = expect_within(p, MODEL, mc, key, count, 1e-6, 0);
        if (w > worst) worst = w;
    }
    int32_t src[MB * NS];
    load_ints(src, MODEL, mc, "src", MB * NS);
    for (int b = 0; b < MB; b++) {
        int64_t digits[NS];
        rng_randint(&g, digits, (size_t)LENGTHS[b], 0, 10);
        for (int i = 0; i < NS; i++)
            ck_assert_int_eq(src[b * NS + i], i < LENGTHS[b] ? 3 + digits[i] : PAD);
    }
    printf("%s: initial parameters: largest difference from PyTorch %.2g\n", mc, worst);
    seq2seq_free(&m);
}
END_TEST

// Holds a tensor after Adam's first step (after, n) to the case's section
// after.model.<name>, given both sides' gradients (grad and the section
// grad.model.<name>) and where it started (start); returns the largest
// difference, key biases aside.
static double expect_after_adam(const real *after, const real *grad, const real *start,
                                const char *mc, const char *name, size_t n) {
    char key[160];
    snprintf(key, sizeof key, "%s.grad.model.%s", mc, name);
    golden gg = golden_read(MODEL, key, "f32");
    snprintf(key, sizeof key, "%s.after.model.%s", mc, name);
    golden ga = golden_read(MODEL, key, "f32");
    ck_assert_uint_eq(gg.n, n);
    ck_assert_uint_eq(ga.n, n);
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double c_after = after[i], t_after = ga.f[i], was = start[i];
        if (is_key_bias(name, i)) {
            // Rounding noise on both sides, which Adam's first step turns
            // into a step of up to lr either way.
            ck_assert_msg(fabs(grad[i]) <= 1e-6 && fabs(gg.f[i]) <= 1e-6,
                          "%s: %s[%zu] gradient %.3g, PyTorch %.3g: not noise", mc, name, i,
                          (double)grad[i], (double)gg.f[i]);
            ck_assert_msg(fabs(c_after - was) <= LR * (1 + 1e-5) &&
                              fabs(t_after - was) <= LR * (1 + 1e-5),
                          "%s: %s[%zu] moved from %.9g to %.9g, PyTorch to %.9g", mc, name, i,
                          was, c_after, t_after);
            continue;
        }
        double diff = fabs(c_after - t_after);
        double allowed = TOL_ABS + TOL_REL * fabs(t_after)
                         + adam_first_step_spread(grad[i], gg.f[i]);
        ck_assert_msg(diff <= allowed,
                      "%s: %s[%zu] after Adam %.9g, PyTorch %.9g (gradients %.9g and %.9g)", mc,
                      name, i, c_after, t_after, (double)grad[i], (double)gg.f[i]);
        worst = fmax(worst, diff);
    }
    golden_free(&gg);
    golden_free(&ga);
    return worst;
}

// The attention weights of the model's last forward pass (B, h, queries,
// keys), each attention's, to the case's sections attn.<name>: to the
// tolerance of the layers, and a weight PyTorch masked (exactly 0) exactly
// 0. Returns the largest difference.
static double expect_attention(const seq2seq_model *m, const char *mc, int layers) {
    static const struct {
        seq2seq_attention_kind kind;
        const char *name;  // after attn.enc.<l> or attn.dec.<l>
        int n_q, n_k;
    } maps[] = {{ATTN_ENC_SELF, "self_attn", NS, NS},
                {ATTN_DEC_SELF, "self_attn", NT, NT},
                {ATTN_DEC_CROSS, "multihead_attn", NT, NS}};
    double worst = 0;
    for (int k = 0; k < 3 * layers; k++) {
        int l = k / 3, j = k % 3;
        char name[64];
        snprintf(name, sizeof name, "attn.%s.%d.%s", j == 0 ? "enc" : "dec", l, maps[j].name);
        size_t n = (size_t)MB * H * maps[j].n_q * maps[j].n_k;
        const real *w = seq2seq_attention(m, maps[j].kind, l);
        worst = fmax(worst, expect_close(w, MODEL, mc, name, n));
        real want[MB * H * NT * NT];
        load_reals(want, MODEL, mc, name, n);
        int zeros = 0;
        for (size_t i = 0; i < n; i++)
            if (want[i] == 0) {
                zeros++;
                ck_assert_msg(w[i] == 0, "%s.%s[%zu]: masked, but C gives %.3g", mc, name, i,
                              (double)w[i]);
            }
        ck_assert_int_gt(zeros, 0);  // every attention of the batch has masked keys
    }
    return worst;
}

// Greedy decoding of the batch's sources with the model's parameters gives
// the tokens PyTorch's greedy loop gave (the script made sure no choice was
// a near tie).
static void expect_greedy(seq2seq_model *m, const char *mc, const int32_t *src) {
    int32_t got[MB * NT], want[MB * NT];
    load_ints(want, MODEL, mc, "greedy", MB * NT);
    seq2seq_greedy_decode(m, got, src, MB, NS, NT, BOS, EOS);
    for (int i = 0; i < MB * NT; i++)
        ck_assert_msg(got[i] == want[i], "%s: greedy token %d of sequence %d: C %d, PyTorch %d",
                      mc, i % NT, i / NT, (int)got[i], (int)want[i]);
}

// One seq2seq_train_step from PyTorch's initial parameters: the logits, the
// loss, the attention weights (of seq2seq_forward before it), every gradient (to the tolerance of the
// layers), and every parameter after Adam (to that tolerance plus how far
// apart the two gradients put Adam's first step, adam_first_step_spread);
// then greedy decoding with the parameters after the step.
START_TEST(model_step_equals_pytorch) {
    const char *mc = MODEL_CASES[_i].name;
    real table[NT * D];
    seq2seq_config cfg = model_config(_i, table);
    torch_rng g;
    rng_seed(&g, SEED);
    seq2seq_model m;
    const real *sinusoid = model_sinusoidal(_i) ? table : NULL;
    ck_assert_int_eq(seq2seq_init(&m, &cfg, sinusoid, MB, NS, NT, &g), 0);
    model_layout l;
    model_layout_of(&l, _i);
    char key[96];
    real *p[MODEL_MAX_PARAMS], *gr[MODEL_MAX_PARAMS];
    real *start = malloc(l.n * sizeof *start);
    ck_assert_ptr_nonnull(start);
    for (int k = 0; k < l.np; k++) {
        size_t count;
        ck_assert_int_eq(seq2seq_tensor_by_name(&m, l.p[k].name, &p[k], &gr[k], &count), 0);
        snprintf(key, sizeof key, "init.model.%s", l.p[k].name);
        load_reals(p[k], MODEL, mc, key, l.p[k].n);
        memcpy(start + l.off[k], p[k], l.p[k].n * sizeof *start);
    }
    int32_t src[MB * NS], tgt_in[MB * NT], tgt_out[MB * NT];
    load_ints(src, MODEL, mc, "src", MB * NS);
    load_ints(tgt_in, MODEL, mc, "tgt_in", MB * NT);
    load_ints(tgt_out, MODEL, mc, "tgt_out", MB * NT);

    // seq2seq_forward computes every row, padding included, as PyTorch does:
    // the logits and attention maps are compared at every position. The
    // step computes only the rows that reach the loss (seq2seq_forward_scored),
    // so its loss must be the same number and its gradients PyTorch's.
    real loss_all = seq2seq_forward(&m, src, tgt_in, tgt_out, MB, NS, NT);
    double w_loss = expect_close(&loss_all, MODEL, mc, "loss", 1);
    double w_logits = expect_close(m.a.logits, MODEL, mc, "logits", MB * NT * VOCAB);
    double w_attn = expect_attention(&m, mc, MODEL_CASES[_i].layers);
    real loss = seq2seq_train_step(&m, LR, src, tgt_in, tgt_out, MB, NS, NT);
    ck_assert_msg(loss == loss_all, "%s: the step's loss %.9g, seq2seq_forward's %.9g", mc,
                  (double)loss, (double)loss_all);
    double w_grad = 0, w_after = 0;
    for (int k = 0; k < l.np; k++) {
        snprintf(key, sizeof key, "grad.model.%s", l.p[k].name);
        w_grad = fmax(w_grad, expect_close(gr[k], MODEL, mc, key, l.p[k].n));
        w_after = fmax(w_after, expect_after_adam(p[k], gr[k], start + l.off[k], mc,
                                                  l.p[k].name, l.p[k].n));
    }
    expect_greedy(&m, mc, src);
    printf("%s: largest difference from PyTorch: loss %.2g, logits %.2g, attention %.2g, "
           "gradient %.2g, parameter after Adam %.2g (key biases aside); greedy decoding "
           "equal\n",
           mc, w_loss, w_logits, w_attn, w_grad, w_after);
    free(start);
    seq2seq_free(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("transformer_golden");
    TCase *tc = tcase_create("pieces");
    tcase_add_loop_test(tc, adam_step_equals_torch_optim_adam, 0, N_MODEL_CASES);
    tcase_add_loop_test(tc, cross_entropy_equals_pytorch, 0, N_MODEL_CASES);
    suite_add_tcase(s, tc);
    tc = tcase_create("layers");
    tcase_add_test(tc, layer_tables_follow_state_dict);
    tcase_add_loop_test(tc, encoder_layer_equals_pytorch, 0, 2);
    tcase_add_loop_test(tc, decoder_layer_equals_pytorch, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("model");
    tcase_add_loop_test(tc, model_init_draws_what_pytorch_draws, 0, N_MODEL_CASES);
    tcase_add_loop_test(tc, model_step_equals_pytorch, 0, N_MODEL_CASES);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
