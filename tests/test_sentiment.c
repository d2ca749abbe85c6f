// test_sentiment.c: chapter 7's models in float, the code the program
// runs, against PyTorch; and training as a whole.
//
// tests/golden/sentiment_step.txt holds one training step of each model
// done by PyTorch 1.13 (tests/reference/sentiment_golden.py): the same
// parameters (drawn with uniform_, which src/core/rng.c reproduces bit for bit),
// the same batch, then the logits, the loss, every gradient and every
// parameter after Adam.
#include <check.h>

#include "golden.h"
#include "suite.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/adam.h"
#include "layers/embedding.h"
#include "layers/linear.h"
#include "core/rng.h"
#include "models/sentiment.h"
#include "models/sentiment_reference.h"

// A model as sentiment_init builds it: n_words words of width d, queries
// of width d_k, room for batches of `batch` chunks of `length` tokens
// (defined before the sizes below, whose names are the config's fields).
static void build(sentiment_model *m, model_kind kind, const float *table, int n_words, int d,
                  int d_k, int length, int batch, bool frozen, torch_rng *g) {
    sentiment_config cfg = {.kind = kind, .V = n_words, .d = d, .d_k = d_k, .L = length, .B = batch,
                            .frozen = frozen};
    ck_assert_int_eq(sentiment_init(m, &cfg, table, g), 0);
}

#define SEED 2024
#define V 24
#define D 100
#define DK 32
#define L 32
#define B 4
#define LR 5e-2f

// Both within 1e-5 of PyTorch (float32 on both sides; they differ only in
// the order of their sums).
#define TOL 1e-5

static const char *const KIND_NAMES[] = {"baseline", "notebook-attention", "softmax-attention",
                                         "transformer"};

typedef struct {
    const char *name;
    float *p, *g;  // the parameter and its gradient in the C model
    size_t n;
} named_param;

// The model's parameters by the names of the golden file; returns how many.
static int params_of(named_param *out, sentiment_model *m) {
    int n = 0, w = m->kind == MODEL_BASELINE ? D : DK;
    if (m->kind != MODEL_BASELINE) {
        out[n++] = (named_param){"wq", m->p.wq, m->g.wq, D * DK};
        out[n++] = (named_param){"bq", m->p.bq, m->g.bq, DK};
        out[n++] = (named_param){"wk", m->p.wk, m->g.wk, D * DK};
        out[n++] = (named_param){"bk", m->p.bk, m->g.bk, DK};
        out[n++] = (named_param){"wv", m->p.wv, m->g.wv, D * DK};
        out[n++] = (named_param){"bv", m->p.bv, m->g.bv, DK};
    }
    out[n++] = (named_param){"wo", m->p.wo, m->g.wo, (size_t)w};
    out[n++] = (named_param){"bo", m->p.bo, m->g.bo, 1};
    out[n++] = (named_param){"embedding", m->p.embedding, m->g.embedding, V * D};
    return n;
}

// The parameters as the script draws them, in its order.
static void draw_like_the_script(sentiment_model *m, torch_rng *g) {
    rng_uniform(g, m->p.embedding, V * D, -1, 1);
    if (m->kind != MODEL_BASELINE) {
        float *w[] = {m->p.wq, m->p.wk, m->p.wv}, *b[] = {m->p.bq, m->p.bk, m->p.bv};
        for (int i = 0; i < 3; i++) {
            rng_uniform(g, w[i], D * DK, -0.2f, 0.2f);
            rng_uniform(g, b[i], DK, -0.1f, 0.1f);
        }
    }
    rng_uniform(g, m->p.wo, m->kind == MODEL_BASELINE ? D : DK, -0.2f, 0.2f);
    rng_uniform(g, m->p.bo, 1, -0.1f, 0.1f);
}

// The model's Adam made dense: every parameter every step (adam_step's
// numbers), no lazy table, so that each step leaves the gradients and
// parameters that PyTorch's does.
static void dense_adam(sentiment_model *m) {
    adam_free(&m->opt);
    ck_assert_int_eq(adam_init(&m->opt, m->n_params, 0), 0);
}

// How far apart Adam's first step puts a parameter when the two sides'
// gradients are a and b: the first step is lr g / (|g| + eps) (the moments
// are g and g^2 after one step, bias-corrected), so a gradient difference
// of 1e-7 moves the parameter by 1e-7 lr eps / |g|^2 more or less, which is
// tiny where |g| is large and up to 2 lr where g is at the level of eps.
static double adam_first_step_spread(double a, double b) {
    const double eps = 1e-8;
    return LR * fabs(a / (fabs(a) + eps) - b / (fabs(b) + eps));
}

START_TEST(one_step_equals_pytorch) {
    int kind = _i;
    const char *kn = KIND_NAMES[kind];
    char key[96];
    float zero_table[V * D] = {0};
    torch_rng g;
    rng_seed(&g, SEED);
    sentiment_model m;
    torch_rng unused;
    rng_seed(&unused, 0);
    build(&m, (model_kind)kind, zero_table, V, D, DK, L, B, false, &unused);
    dense_adam(&m);
    draw_like_the_script(&m, &g);
    int64_t ids64[B * L], labels64[B];
    rng_randint(&g, ids64, B * L, 0, V);
    rng_randint(&g, labels64, B, 0, 2);
    int32_t ids[B * L], labels[B];
    snprintf(key, sizeof key, "%s.ids", kn);
    golden gi = golden_read("sentiment_step.txt", key, "i64");
    snprintf(key, sizeof key, "%s.labels", kn);
    golden gl = golden_read("sentiment_step.txt", key, "i64");
    for (int i = 0; i < B * L; i++) {
        ck_assert_int_eq(ids64[i], gi.i[i]);  // the same batch
        ids[i] = (int32_t)ids64[i];
    }
    for (int b = 0; b < B; b++) {
        ck_assert_int_eq(labels64[b], gl.i[b]);
        labels[b] = (int32_t)labels64[b];
    }
    golden_free(&gi);
    golden_free(&gl);

    float bk_start[DK];
    if (kind != MODEL_BASELINE) memcpy(bk_start, m.p.bk, sizeof bk_start);
    int correct;
    float loss = sentiment_train_step(&m, LR, ids, labels, B, &correct);
    snprintf(key, sizeof key, "%s.logits", kn);
    golden gz = golden_read("sentiment_step.txt", key, "f32");
    for (int b = 0; b < B; b++) ck_assert_float_eq_tol(m.a.z[b], gz.f[b], TOL);
    golden_free(&gz);
    snprintf(key, sizeof key, "%s.loss", kn);
    golden gloss = golden_read("sentiment_step.txt", key, "f32");
    ck_assert_float_eq_tol(loss, gloss.f[0], TOL);
    golden_free(&gloss);

    named_param ps[9];
    int np = params_of(ps, &m);
    double worst_grad = 0, worst_after = 0;
    for (int k = 0; k < np; k++) {
        snprintf(key, sizeof key, "%s.grad.%s", kn, ps[k].name);
        golden gg = golden_read("sentiment_step.txt", key, "f32");
        snprintf(key, sizeof key, "%s.after.%s", kn, ps[k].name);
        golden ga = golden_read("sentiment_step.txt", key, "f32");
        ck_assert_uint_eq(gg.n, ps[k].n);
        ck_assert_uint_eq(ga.n, ps[k].n);
        bool without_effect = kind == MODEL_SOFTMAX_ATTENTION && ps[k].p == m.p.bk;
        for (size_t i = 0; i < ps[k].n; i++) {
            double eg = fabs(ps[k].g[i] - gg.f[i]), ea = fabs(ps[k].p[i] - ga.f[i]);
            ck_assert_msg(eg <= TOL, "%s: gradient of %s[%zu] %.9g, PyTorch %.9g", kn, ps[k].name, i,
                          ps[k].g[i], gg.f[i]);
            if (eg > worst_grad) worst_grad = eg;
            if (without_effect) {
                // softmax(s + c) = softmax(s): adding k's bias adds q_i . b_k
                // to every score of query i, so the loss does not depend on
                // b_k. Its gradient is zero in exact arithmetic and rounding
                // noise on both sides, and Adam's first step turns any
                // noise into a step of up to lr: each side may move by lr
                // from where it started, and no further.
                ck_assert_msg(fabs(ps[k].g[i]) <= 1e-6 && fabs(gg.f[i]) <= 1e-6,
                              "%s: key bias gradient %.3g, PyTorch %.3g: not noise", kn,
                              ps[k].g[i], gg.f[i]);
                ck_assert_msg(fabs(ps[k].p[i] - bk_start[i]) <= LR * (1 + 1e-6)
                                  && fabs(ga.f[i] - bk_start[i]) <= LR * (1 + 1e-6),
                              "%s: key bias [%zu] moved from %.9g to %.9g, PyTorch to %.9g", kn, i,
                              bk_start[i], ps[k].p[i], ga.f[i]);
                continue;
            }
            double allowed = TOL + adam_first_step_spread(ps[k].g[i], gg.f[i]);
            ck_assert_msg(ea <= allowed,
                          "%s: %s[%zu] after Adam %.9g, PyTorch %.9g (gradients %.9g and %.9g)", kn,
                          ps[k].name, i, ps[k].p[i], ga.f[i], ps[k].g[i], gg.f[i]);
            if (ea > worst_after) worst_after = ea;
        }
        golden_free(&gg);
        golden_free(&ga);
    }
    printf("%s: one step: largest difference from PyTorch: gradient %.2g, parameter after Adam %.2g\n",
           kn, worst_grad, worst_after);
    sentiment_free(&m);
}
END_TEST

START_TEST(lecun_normal_equals_pytorch_trunc_normal) {
    torch_rng g;
    rng_seed(&g, SEED);
    float w[100 * 8];
    linear_init_lecun_normal(&g, w, 100, 8);
    golden gw = golden_read("sentiment_step.txt", "lecun_normal_100x8", "f32");
    ck_assert_uint_eq(gw.n, 800);
    for (int i = 0; i < 800; i++) ck_assert_float_eq_tol(w[i], gw.f[i], 1e-6);
    golden_free(&gw);
}
END_TEST

// ---------------------------------------------------------------- training

// A toy task: chunks of 32 ids from 50 words, positive when word 1 occurs
// more often than word 2. Returns the labels' ids and labels in X, Y.
static void toy_data(int32_t *X, int32_t *Y, int n, torch_rng *g) {
    for (int c = 0; c < n; c++) {
        int ones = 0, twos = 0;
        for (int t = 0; t < L; t++) {
            int32_t id = (int32_t)(rng_next_u32(g) % 50);
            X[c * L + t] = id;
            ones += id == 1;
            twos += id == 2;
        }
        Y[c] = ones > twos;
    }
}

// Trains model kind on the toy task for `steps` batches of 16 and returns
// the mean loss of the first and of the last ten steps; the parameters end
// in *params (a new array of *n).
static void toy_training(model_kind kind, int steps, double *first, double *last, float **params, size_t *n) {
    torch_rng g;
    rng_seed(&g, 7);
    float table[50 * 16];
    rng_randn(&g, table, 50 * 16);
    sentiment_model m;
    build(&m, kind, table, 50, 16, 8, L, 16, false, &g);
    int32_t X[16 * L], Y[16];
    *first = *last = 0;
    for (int s = 0; s < steps; s++) {
        toy_data(X, Y, 16, &g);
        int correct;
        double loss = sentiment_train_step(&m, 1e-2, X, Y, 16, &correct);
        if (s < 10) *first += loss / 10;
        if (s >= steps - 10) *last += loss / 10;
    }
    sentiment_catch_up(&m);
    *n = m.n_params;
    *params = malloc(m.n_params * sizeof **params);
    memcpy(*params, m.param_block, m.n_params * sizeof **params);
    sentiment_free(&m);
}

START_TEST(short_training_lowers_the_loss) {
    for (int kind = 0; kind < MODEL_KINDS; kind++) {
        double first, last;
        float *p;
        size_t n;
        toy_training((model_kind)kind, 300, &first, &last, &p, &n);
        printf("%s on the toy task: loss %.3f over the first ten steps, %.3f over the last ten\n",
               KIND_NAMES[kind], first, last);
        ck_assert_double_gt(first, 0.6);
        ck_assert_double_lt(last, 0.8 * first);
        free(p);
    }
}
END_TEST

START_TEST(the_same_seed_gives_the_same_bits) {
    double f1, l1, f2, l2;
    float *p1, *p2;
    size_t n1, n2;
    toy_training(MODEL_SOFTMAX_ATTENTION, 40, &f1, &l1, &p1, &n1);
    toy_training(MODEL_SOFTMAX_ATTENTION, 40, &f2, &l2, &p2, &n2);
    ck_assert_uint_eq(n1, n2);
    ck_assert(memcmp(p1, p2, n1 * sizeof *p1) == 0);
    ck_assert(f1 == f2 && l1 == l2);
    free(p1);
    free(p2);
}
END_TEST

// Training with the embedding as a lazy table (adam_lazy_rows, as
// sentiment_init sets a trained embedding up) ends, once caught up, with the very bits of training
// with the dense Adam step: here from a vocabulary of 300 words, of which a
// batch of 4 chunks uses some 100, so that most rows sit out most steps.
START_TEST(lazy_embedding_trains_as_the_dense_one) {
    enum { WORDS = 300, BATCH = 4, STEPS = 60 };
    for (int kind = 0; kind < 3; kind++) {
        torch_rng g;
        rng_seed(&g, 12);
        float table[WORDS * D];
        rng_randn(&g, table, WORDS * D);
        sentiment_model m[2];
        for (int lazy = 0; lazy < 2; lazy++) {
            torch_rng init;
            rng_seed(&init, 13);
            build(&m[lazy], (model_kind)kind, table, WORDS, D, DK, L, BATCH, false, &init);
            ck_assert_int_eq(m[lazy].opt.width, D);  // a lazy table
            if (!lazy) dense_adam(&m[lazy]);
        }
        int32_t X[BATCH * L], Y[BATCH];
        for (int step = 0; step < STEPS; step++) {
            for (int i = 0; i < BATCH * L; i++) X[i] = (int32_t)(rng_next_u32(&g) % WORDS);
            for (int i = 0; i < BATCH; i++) Y[i] = (int32_t)(rng_next_u32(&g) % 2);
            int correct;
            real loss[2];
            for (int lazy = 0; lazy < 2; lazy++)
                loss[lazy] = sentiment_train_step(&m[lazy], 1e-2, X, Y, BATCH, &correct);
            ck_assert_msg(loss[0] == loss[1], "%s, step %d: loss %.9g dense, %.9g lazy", KIND_NAMES[kind], step,
                          loss[0], loss[1]);
        }
        sentiment_catch_up(&m[1]);
        ck_assert_msg(memcmp(m[0].param_block, m[1].param_block, m[0].n_params * sizeof(real)) == 0,
                      "%s: the parameters differ", KIND_NAMES[kind]);
        for (int lazy = 0; lazy < 2; lazy++) sentiment_free(&m[lazy]);
    }
}
END_TEST

START_TEST(logits_by_table_are_the_forward_logits) {
    torch_rng g;
    rng_seed(&g, 9);
    float table[300 * D];
    rng_randn(&g, table, 300 * D);
    for (int kind = 0; kind < 3; kind++) {
        sentiment_model m;
        build(&m, (model_kind)kind, table, 300, D, DK, L, 8, false, &g);
        for (size_t i = 0; i < m.n_dense; i++) m.param_block[i] += 0.01f * (float)(i % 5);  // biases too
        int32_t X[21 * L];
        for (int i = 0; i < 21 * L; i++) X[i] = (int32_t)(rng_next_u32(&g) % 300);
        float z[21];
        ck_assert_int_eq(sentiment_logits(z, &m, X, 21), 0);  // 8 + 8 + 5
        for (int c = 0; c < 21; c++) {
            sentiment_forward(&m, X + c * L, 1);
            ck_assert_msg(z[c] == m.a.z[0], "%s chunk %d: %.9g by table, %.9g by forward", KIND_NAMES[kind],
                          c, z[c], m.a.z[0]);
        }
        sentiment_free(&m);
    }
}
END_TEST

// The attention models project each distinct word of a batch once and let
// its tokens look the row up: each token's query, key and value are to
// the last bit those of projecting the token itself; the list of words
// holds each word of the batch once, in increasing order, and each token's
// slot points at its own word.
START_TEST(projecting_words_is_projecting_tokens) {
    enum { WORDS = 300, BATCH = 8 };
    torch_rng g;
    rng_seed(&g, 10);
    static float table[WORDS * D];
    rng_randn(&g, table, WORDS * D);
    sentiment_model m;
    build(&m, MODEL_SOFTMAX_ATTENTION, table, WORDS, D, DK, L, BATCH, false, &g);
    const sentiment_acts *a = &m.a;
    for (size_t i = 0; i < m.n_dense; i++) m.param_block[i] += 0.01f * (float)(i % 5);  // biases too
    int32_t X[BATCH * L];
    for (int i = 0; i < BATCH * L; i++) X[i] = (int32_t)(rng_next_u32(&g) % 60 * 5);  // repeats
    X[7] = WORDS - 1;  // the last word
    sentiment_forward(&m, X, BATCH);
    int listed[WORDS] = {0}, used[WORDS] = {0};
    for (int i = 0; i < BATCH * L; i++) used[X[i]] = 1;
    for (int u = 0; u < a->n_rows; u++) {
        if (u > 0) ck_assert_int_lt(a->rows[u - 1], a->rows[u]);
        ck_assert(used[a->rows[u]]);
        listed[a->rows[u]] = 1;
    }
    for (int i = 0; i < BATCH * L; i++) {
        ck_assert(listed[X[i]]);
        ck_assert_int_eq(a->rows[a->slot[i]], X[i]);
    }
    ck_assert_int_lt(a->n_rows, BATCH * L);
    static float x[BATCH * L * D], want[BATCH * L * DK];
    embedding_forward(x, X, m.p.embedding, BATCH * L, D);
    const float *w[] = {m.p.wq, m.p.wk, m.p.wv}, *b[] = {m.p.bq, m.p.bk, m.p.bv}, *got[] = {a->q, a->k, a->v};
    for (int j = 0; j < 3; j++) {
        linear_forward(want, x, w[j], b[j], BATCH * L, D, DK, WEIGHT_IN_OUT);
        ck_assert_msg(memcmp(want, got[j], sizeof want) == 0, "projection %d differs", j);
    }
    sentiment_free(&m);
}
END_TEST

START_TEST(frozen_embeddings_do_not_move) {
    model_kind kind = _i == 0 ? MODEL_SOFTMAX_ATTENTION : MODEL_TRANSFORMER;
    torch_rng g;
    rng_seed(&g, 11);
    float table[50 * 16];
    rng_randn(&g, table, 50 * 16);
    sentiment_model m;
    build(&m, kind, table, 50, 16, 8, L, 16, true, &g);
    ck_assert_uint_eq(m.opt.n, m.n_dense);  // Adam covers what comes before the embedding
    float *before = malloc(m.n_dense * sizeof *before);
    memcpy(before, m.param_block, m.n_dense * sizeof *before);
    int32_t X[16 * L], Y[16];
    for (int s = 0; s < 20; s++) {
        toy_data(X, Y, 16, &g);
        int correct;
        sentiment_train_step(&m, 1e-2, X, Y, 16, &correct);
    }
    ck_assert(memcmp(m.p.embedding, table, sizeof table) == 0);  // not a bit changed
    ck_assert(memcmp(m.param_block, before, m.n_dense * sizeof *before) != 0);  // the rest trained
    free(before);
    sentiment_free(&m);
}
END_TEST

// Chapter 7's models average over the chunk's positions what a
// permutation-equivariant layer made of its tokens: reversing a chunk
// leaves their logit as it was, up to the order of a sum (float rounding).
// The transformer adds each position's own vector first: reversing the
// chunk changes its logit.
START_TEST(only_the_transformer_sees_order) {
    torch_rng g;
    rng_seed(&g, 13);
    float table[50 * 16];
    rng_randn(&g, table, 50 * 16);
    int32_t X[8 * L], R[8 * L], Y[8];
    toy_data(X, Y, 8, &g);
    for (int c = 0; c < 8; c++)
        for (int t = 0; t < L; t++) R[c * L + t] = X[c * L + L - 1 - t];
    for (int kind = 0; kind < MODEL_KINDS; kind++) {
        sentiment_model m;
        build(&m, (model_kind)kind, table, 50, 16, 8, L, 8, false, &g);
        float z[8], zr[8];
        ck_assert_int_eq(sentiment_logits(z, &m, X, 8), 0);
        ck_assert_int_eq(sentiment_logits(zr, &m, R, 8), 0);
        double most = 0;  // the largest change of a logit
        for (int c = 0; c < 8; c++) most = fmax(most, fabs((double)z[c] - zr[c]));
        printf("%s: reversing a chunk moves its logit by %.2g at most\n", KIND_NAMES[kind], most);
        if (kind == MODEL_TRANSFORMER) ck_assert_double_gt(most, 1e-2);
        else ck_assert_double_lt(most, 1e-5);
        sentiment_free(&m);
    }
}
END_TEST

// The plain forms of chapter 7 (sentiment_reference.c: every token
// projected, every gradient written, Adam on every parameter) against the
// library's (the batch's words projected once, a lazy table), on random
// parameters and random batches in which words repeat: the same logits,
// attention weights and gradients to rounding, and after STEPS training
// steps the same parameters, but for softmax attention's key bias, whose
// gradient is rounding noise that Adam may turn into a step of up to lr
// either way (see one_step_equals_pytorch).
START_TEST(plain_forms_agree_with_the_fast_ones) {
    enum { WORDS = 60, BATCH = 6, STEPS = 20 };
    const double lr = 1e-3;
    bool frozen = _i % 2;
    model_kind kind = (model_kind)(_i / 2);
    torch_rng g;
    rng_seed(&g, 14);
    static float table[WORDS * D];
    rng_randn(&g, table, WORDS * D);
    sentiment_model m[2];  // [0] the library's, [1] the plain forms'
    for (int r = 0; r < 2; r++) {
        torch_rng init;
        rng_seed(&init, 15);
        build(&m[r], kind, table, WORDS, D, DK, L, BATCH, frozen, &init);
        for (size_t i = 0; i < m[r].n_dense; i++) m[r].param_block[i] += 0.01f * (float)(i % 5);
    }
    int32_t X[BATCH * L], Y[BATCH];
    for (int i = 0; i < BATCH * L; i++) X[i] = (int32_t)(rng_next_u32(&g) % WORDS);
    for (int b = 0; b < BATCH; b++) Y[b] = (int32_t)(rng_next_u32(&g) % 2);
    sentiment_forward(&m[0], X, BATCH);
    ck_assert_int_eq(sentiment_forward_reference(&m[1], X, BATCH), 0);
    for (int b = 0; b < BATCH; b++)
        ck_assert_msg(fabsf(m[0].a.z[b] - m[1].a.z[b]) <= 1e-5f * (1 + fabsf(m[1].a.z[b])),
                      "%s: logit %d %.9g, plainly %.9g", KIND_NAMES[kind], b, m[0].a.z[b],
                      m[1].a.z[b]);
    if (kind != MODEL_BASELINE)
        for (int i = 0; i < BATCH * L * L; i++)
            ck_assert_float_eq_tol(m[0].a.w[i], m[1].a.w[i], 1e-6f);
    real loss[2] = {sentiment_backward(&m[0], X, Y, BATCH),
                    sentiment_backward_reference(&m[1], X, Y, BATCH)};
    ck_assert_float_eq_tol(loss[0], loss[1], 1e-6f);
    double worst = 0;
    for (size_t i = 0; i < m[0].n_params; i++) {
        double diff = fabs((double)m[0].grad_block[i] - m[1].grad_block[i]);
        ck_assert_msg(diff <= 1e-5 * (1 + fabs(m[1].grad_block[i])),
                      "%s: gradient [%zu] %.9g, plainly %.9g", KIND_NAMES[kind], i,
                      m[0].grad_block[i], m[1].grad_block[i]);
        worst = fmax(worst, diff);
    }
    ck_assert_double_gt(fabs(m[1].g.wo[0]), 1e-4);  // a gradient that is not nothing
    // training, from the same start
    for (int r = 0; r < 2; r++) sentiment_free(&m[r]);
    for (int r = 0; r < 2; r++) {
        torch_rng init;
        rng_seed(&init, 15);
        build(&m[r], kind, table, WORDS, D, DK, L, BATCH, frozen, &init);
    }
    for (int step = 0; step < STEPS; step++) {
        for (int i = 0; i < BATCH * L; i++) X[i] = (int32_t)(rng_next_u32(&g) % WORDS);
        for (int b = 0; b < BATCH; b++) Y[b] = (int32_t)(rng_next_u32(&g) % 2);
        int correct[2];
        loss[0] = sentiment_train_step(&m[0], lr, X, Y, BATCH, &correct[0]);
        loss[1] = sentiment_train_step_reference(&m[1], lr, X, Y, BATCH, &correct[1]);
        ck_assert_float_eq_tol(loss[0], loss[1], 1e-4f);
        ck_assert_int_eq(correct[0], correct[1]);
    }
    sentiment_catch_up(&m[0]);
    const real *bk = kind == MODEL_SOFTMAX_ATTENTION ? m[0].p.bk : NULL;
    for (size_t i = 0; i < m[0].n_params; i++) {
        double diff = fabs((double)m[0].param_block[i] - m[1].param_block[i]);
        bool noise = bk && m[0].param_block + i >= bk && m[0].param_block + i < bk + DK;
        ck_assert_msg(diff <= (noise ? 2 * STEPS * lr : 1e-4),
                      "%s: parameter [%zu] %.9g after %d steps, plainly %.9g", KIND_NAMES[kind], i,
                      m[0].param_block[i], STEPS, m[1].param_block[i]);
    }
    ck_assert(frozen == (memcmp(m[1].p.embedding, table, sizeof table) == 0));
    printf("%s, embedding %s: the plain forms' largest difference in a gradient %.2g\n",
           KIND_NAMES[kind], frozen ? "frozen" : "trained", worst);
    for (int r = 0; r < 2; r++) sentiment_free(&m[r]);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sentiment");
    TCase *tc = tcase_create("sentiment");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, one_step_equals_pytorch, 0, 3);
    tcase_add_test(tc, lecun_normal_equals_pytorch_trunc_normal);
    tcase_add_test(tc, logits_by_table_are_the_forward_logits);
    tcase_add_test(tc, projecting_words_is_projecting_tokens);
    tcase_add_loop_test(tc, frozen_embeddings_do_not_move, 0, 2);
    tcase_add_test(tc, only_the_transformer_sees_order);
    suite_add_tcase(s, tc);
    // the trainings of hundreds of steps: under a second, and some 7
    // minutes under memcheck; tagged "slow", which make valgrind leaves out
    TCase *training = tcase_create("training");
    tcase_set_tags(training, "slow");
    tcase_set_timeout(training, 120);
    tcase_add_test(training, short_training_lowers_the_loss);
    tcase_add_test(training, the_same_seed_gives_the_same_bits);
    tcase_add_test(training, lazy_embedding_trains_as_the_dense_one);
    tcase_add_loop_test(training, plain_forms_agree_with_the_fast_ones, 0, 6);
    suite_add_tcase(s, training);
    return run_suite(s);
}
