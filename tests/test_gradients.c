// test_gradients.c: every backward pass of the training code (src/layers/, src/models/)
// against finite differences, in double precision.
//
// The training code computes in `real` (src/kernels/real.h), float in the library.
// This suite compiles the very same source files with real = double, so that
// a central difference (f(x + h) - f(x - h)) / 2h of a loss is accurate to
// about 1e-9 and can hold the analytic gradient to a tight tolerance. (In
// float the difference itself carries errors of 1e-3, which would hide a
// wrong factor in a small term.) The float code is held to PyTorch in
// test_sentiment.c.
#define ATTN_REAL double
#include "../src/kernels/gemm_reference.c"
#include "../src/kernels/gemm.c"
#include "../src/layers/linear.c"
#include "../src/layers/embedding.c"
#include "../src/layers/softmax.c"
#include "../src/layers/mean.c"
#include "../src/layers/bce_loss.c"
#include "../src/layers/cross_entropy.c"
#include "../src/layers/attention_head.c"
#include "../src/layers/adam.c"
#include "../src/layers/layernorm.c"
#include "../src/layers/ffn.c"
#include "../src/layers/online_softmax.c"
#include "../src/layers/tiled_attention.c"
#include "../src/layers/multihead_attention.c"
#include "../src/layers/transformer_layer.c"
#include "../src/layers/positions.c"
#include "../src/models/sentiment_encoder.c"
#include "../src/models/sentiment.c"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "finite_diff.h"
#include "suite.h"

// ---------------------------------------------------------------- gemm

START_TEST(gemm_layouts_against_triple_loops) {
    torch_rng g;
    rng_seed(&g, 1);
    // sizes with and without whole blocks of 8, and some large enough for
    // the copies of GEMM_ABT and GEMM_ATB to be sliced or skipped
    int sizes[][3] = {{1, 1, 1}, {3, 5, 7}, {8, 8, 8}, {9, 17, 33}, {64, 100, 32}, {33, 300, 20},
                      {5, 70, 90}, {4500, 3, 2}, {2, 4500, 3}};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int n = sizes[t][0], k = sizes[t][1], m = sizes[t][2];
        double *a = new_random(&g, n * k, -1, 1), *b = new_random(&g, k * m, -1, 1);
        double *c = new_random(&g, n * m, -1, 1), *want = new_zeros(n * m);
        double *at = new_zeros(n * k), *bt = new_zeros(k * m);
        for (int i = 0; i < n; i++)
            for (int p = 0; p < k; p++) at[p * n + i] = a[i * k + p];
        for (int p = 0; p < k; p++)
            for (int j = 0; j < m; j++) bt[j * k + p] = b[p * m + j];
        for (gemm_layout layout = GEMM_AB; layout <= GEMM_ATB; layout++) {
            double *got = new_zeros(n * m);
            for (int i = 0; i < n * m; i++) got[i] = want[i] = c[i];
            for (int i = 0; i < n; i++)
                for (int j = 0; j < m; j++)
                    for (int p = 0; p < k; p++) want[i * m + j] += a[i * k + p] * b[p * m + j];
            const double *x = layout == GEMM_ATB ? at : a, *y = layout == GEMM_ABT ? bt : b;
            gemm(got, x, y, n, k, m, layout);
            for (int i = 0; i < n * m; i++)
                ck_assert_msg(fabs(got[i] - want[i]) <= 1e-12 * k, "layout %d, (%d, %d, %d)[%d]: %g, want %g",
                              layout, n, k, m, i, got[i], want[i]);
            free(got);
        }
        free(a); free(b); free(c); free(want); free(at); free(bt);
    }
}
END_TEST

// ---------------------------------------------------------------- layers
//
// Each layer is checked through the scalar sum_i out[i] r[i] for a fixed
// random r: its gradient with respect to out is r, so backward(dout = r)
// must give the derivatives of that sum (weighted_sum, finite_diff.h).

typedef struct {
    int n, in, out;
    double *x, *kernel, *bias, *y, *r;
} dense_case;

static double dense_loss(void *p) {
    dense_case *c = p;
    linear_forward(c->y, c->x, c->kernel, c->bias, c->n, c->in, c->out, WEIGHT_IN_OUT);
    return weighted_sum(c->y, c->r, c->n * c->out);
}

START_TEST(dense_gradients) {
    torch_rng g;
    rng_seed(&g, 2);
    dense_case c = {.n = 7, .in = 13, .out = 10};
    c.x = new_random(&g, c.n * c.in, -1, 1);
    c.kernel = new_random(&g, c.in * c.out, -1, 1);
    c.bias = new_random(&g, c.out, -1, 1);
    c.y = new_zeros(c.n * c.out);
    c.r = new_random(&g, c.n * c.out, -1, 1);
    double *dx = new_zeros(c.n * c.in), *dk = new_zeros(c.in * c.out), *db = new_zeros(c.out);
    linear_backward(dx, dk, db, c.r, c.x, c.kernel, c.n, c.in, c.out, WEIGHT_IN_OUT);
    check_gradient("dense dx", c.x, dx, c.n * c.in, dense_loss, &c);
    check_gradient("dense dkernel", c.kernel, dk, c.in * c.out, dense_loss, &c);
    check_gradient("dense dbias", c.bias, db, c.out, dense_loss, &c);
    // backward adds: a second call doubles every gradient
    linear_backward(dx, dk, db, c.r, c.x, c.kernel, c.n, c.in, c.out, WEIGHT_IN_OUT);
    double *once = new_zeros(c.out);
    linear_backward(NULL, NULL, once, c.r, c.x, c.kernel, c.n, c.in, c.out, WEIGHT_IN_OUT);
    for (int j = 0; j < c.out; j++) ck_assert_double_eq_tol(db[j], 2 * once[j], 1e-12);
    free(c.x); free(c.kernel); free(c.bias); free(c.y); free(c.r); free(dx); free(dk); free(db); free(once);
}
END_TEST

typedef struct {
    int B, L, d_k;
    bool softmax;
    double *q, *k, *v, *w, *out, *r;
} attention_case;

static double attention_loss(void *p) {
    attention_case *c = p;
    attention_head_forward(c->out, c->w, c->q, c->k, c->v, c->B, c->L, c->d_k, c->softmax);
    return weighted_sum(c->out, c->r, c->B * c->L * c->d_k);
}

START_TEST(attention_gradients) {
    for (int softmax = 0; softmax <= 1; softmax++) {
        torch_rng g;
        rng_seed(&g, 3);
        attention_case c = {.B = 2, .L = 6, .d_k = 5, .softmax = softmax};
        int n = c.B * c.L * c.d_k;
        c.q = new_random(&g, n, -1, 1);
        c.k = new_random(&g, n, -1, 1);
        c.v = new_random(&g, n, -1, 1);
        c.w = new_zeros(c.B * c.L * c.L);
        c.out = new_zeros(n);
        c.r = new_random(&g, n, -1, 1);
        double *dq = new_zeros(n), *dk = new_zeros(n), *dv = new_zeros(n), *scratch = new_zeros(c.L * c.L);
        attention_loss(&c);  // the forward pass fills w
        attention_head_backward(dq, dk, dv, scratch, c.r, c.w, c.q, c.k, c.v, c.B, c.L, c.d_k, softmax);
        check_gradient(softmax ? "softmax attention dq" : "seed attention dq", c.q, dq, n, attention_loss, &c);
        check_gradient(softmax ? "softmax attention dk" : "seed attention dk", c.k, dk, n, attention_loss, &c);
        check_gradient(softmax ? "softmax attention dv" : "seed attention dv", c.v, dv, n, attention_loss, &c);
        if (softmax) {  // every row of weights sums to one
            attention_loss(&c);
            for (int i = 0; i < c.B * c.L; i++) {
                double sum = 0;
                for (int j = 0; j < c.L; j++) sum += c.w[i * c.L + j];
                ck_assert_double_eq_tol(sum, 1.0, 1e-12);
            }
        }
        free(c.q); free(c.k); free(c.v); free(c.w); free(c.out); free(c.r);
        free(dq); free(dk); free(dv); free(scratch);
    }
}
END_TEST

typedef struct {
    int B, L, d, V;
    int32_t *ids;
    double *table, *x, *mean, *r;
} embed_mean_case;

// embedding then mean: both layers of the baseline before its Dense
static double embed_mean_loss(void *p) {
    embed_mean_case *c = p;
    embedding_forward(c->x, c->ids, c->table, c->B * c->L, c->d);
    mean_forward(c->mean, c->x, c->B, c->L, c->d);
    return weighted_sum(c->mean, c->r, c->B * c->d);
}

START_TEST(embedding_and_mean_gradients) {
    torch_rng g;
    rng_seed(&g, 4);
    embed_mean_case c = {.B = 3, .L = 5, .d = 4, .V = 6};
    int32_t ids[15] = {0, 1, 1, 5, 2, 2, 2, 2, 2, 3, 5, 0, 1, 0, 5};  // repeats collect; row 4 unused
    c.ids = ids;
    c.table = new_random(&g, c.V * c.d, -1, 1);
    c.x = new_zeros(c.B * c.L * c.d);
    c.mean = new_zeros(c.B * c.d);
    c.r = new_random(&g, c.B * c.d, -1, 1);
    double *dx = new_zeros(c.B * c.L * c.d), *dtable = new_zeros(c.V * c.d);
    mean_backward(dx, c.r, c.B, c.L, c.d);
    embedding_backward(dtable, dx, c.ids, c.B * c.L, c.d);
    check_gradient("embedding and mean dtable", c.table, dtable, c.V * c.d, embed_mean_loss, &c);
    for (int i = 0; i < c.d; i++) ck_assert(dtable[4 * c.d + i] == 0.0);  // an unused row gets nothing
    free(c.table); free(c.x); free(c.mean); free(c.r); free(dx); free(dtable);
}
END_TEST

typedef struct {
    int B;
    double *z;
    const int32_t *y;
} bce_case;

static double bce_loss(void *p) {
    bce_case *c = p;
    return bce_forward(c->z, c->y, c->B);
}

START_TEST(bce_gradients_and_values) {
    double z[6] = {-3, -0.5, 0, 0.25, 2, 7};
    int32_t y[6] = {0, 1, 1, 0, 1, 0};
    bce_case c = {.B = 6, .z = z, .y = y};
    double dz[6] = {0};
    bce_backward(dz, z, y, 6);
    check_gradient("bce dz", z, dz, 6, bce_loss, &c);
    // by hand: log(1 + e^-z) for y = 1, log(1 + e^z) for y = 0
    double want = 0;
    for (int i = 0; i < 6; i++) want += log(1 + exp(y[i] ? -z[i] : z[i]));
    ck_assert_double_eq_tol(bce_forward(z, y, 6), want / 6, 1e-15);
    // a very confident wrong answer costs about |z|, without overflow
    double big[2] = {-500, 500};
    int32_t wrong[2] = {1, 0};
    ck_assert_double_eq_tol(bce_forward(big, wrong, 2), 500.0, 1e-9);
    double dbig[2] = {0};
    bce_backward(dbig, big, wrong, 2);
    ck_assert_double_eq_tol(dbig[0], -0.5, 1e-12);
    ck_assert_double_eq_tol(dbig[1], 0.5, 1e-12);
}
END_TEST

typedef struct {
    int N, V;
    double *z;
    const int32_t *y;
} cross_entropy_case;

static double cross_entropy_loss(void *p) {
    cross_entropy_case *c = p;
    return cross_entropy_forward(c->z, c->y, c->N, c->V, -100);
}

START_TEST(cross_entropy_gradients_and_values) {
    enum { N = 6, V = 7 };
    torch_rng g;
    rng_seed(&g, 5);
    double *z = new_random(&g, N * V, -4, 4);
    const int32_t y[N] = {3, -100, 0, 6, -100, 3};  // two positions are padding
    cross_entropy_case c = {.N = N, .V = V, .z = z, .y = y};
    double dz[N * V] = {0};
    cross_entropy_backward(dz, z, y, N, V, -100);
    check_gradient("cross-entropy dz", z, dz, N * V, cross_entropy_loss, &c);
    // by hand: the mean over the 4 counted positions of -log softmax(z)[y]
    double want = 0;
    for (int r = 0; r < N; r++) {
        if (y[r] == -100) continue;
        double sum = 0;
        for (int v = 0; v < V; v++) sum += exp(z[r * V + v]);
        want -= log(exp(z[r * V + y[r]]) / sum);
    }
    ck_assert_double_eq_tol(cross_entropy_loss(&c), want / 4, 1e-14);
    // padding: its logits neither count nor get a gradient, whatever they are
    double loss = cross_entropy_loss(&c);
    for (int v = 0; v < V; v++) {
        ck_assert(dz[1 * V + v] == 0.0 && dz[4 * V + v] == 0.0);
        z[1 * V + v] = 1e300;
        z[4 * V + v] = -1e300;
    }
    ck_assert(cross_entropy_loss(&c) == loss);
    // each counted row of the gradient sums to 0: softmax minus a one-hot
    for (int r = 0; r < N; r++) {
        double sum = 0;
        for (int v = 0; v < V; v++) sum += dz[r * V + v];
        ck_assert_double_eq_tol(sum, 0.0, 1e-15);
    }
    // equal logits: every token has probability 1/V, the loss is log V
    double flat[2 * V] = {0};
    const int32_t two[2] = {0, 5};
    ck_assert_double_eq_tol(cross_entropy_forward(flat, two, 2, V, -100), log(V), 1e-15);
    // a very confident wrong answer costs the gap of its logits, without
    // overflow
    double sure[3] = {800, 0, -800};
    const int32_t third[1] = {2};
    ck_assert_double_eq_tol(cross_entropy_forward(sure, third, 1, 3, -100), 1600.0, 1e-9);
    // nothing counted: 0 / 0, as PyTorch gives, and no gradient
    const int32_t none[2] = {-100, -100};
    ck_assert(isnan(cross_entropy_forward(flat, none, 2, V, -100)));
    double dflat[2 * V] = {0};
    cross_entropy_backward(dflat, flat, none, 2, V, -100);
    for (int k = 0; k < 2 * V; k++) ck_assert(dflat[k] == 0.0);
    free(z);
}
END_TEST

// ---------------------------------------------------------------- models

typedef struct {
    sentiment_model *m;
    const int32_t *ids, *y;
    int B;
} model_case;

static double model_loss(void *p) {
    model_case *c = p;
    sentiment_forward(c->m, c->ids, c->B);
    return bce_forward(c->m->a.z, c->y, c->B);
}

// The whole loss of each model against finite differences: every
// parameter of a small model, then a sample of a model of the real widths.
static void check_model(model_kind kind, int V, int d, int d_k, int L, int B, int every) {
    torch_rng g;
    rng_seed(&g, 5);
    float *table = malloc((size_t)V * d * sizeof *table);
    ck_assert_ptr_nonnull(table);
    rng_uniform(&g, table, (size_t)V * d, -1, 1);
    sentiment_model m;
    sentiment_config cfg = {.kind = kind, .V = V, .d = d, .d_k = d_k, .L = L, .B = B};
    ck_assert_int_eq(sentiment_init(&m, &cfg, table, &g), 0);
    // non-zero biases, so that their paths are exercised too
    for (size_t i = 0; i < m.n_dense; i++) m.param_block[i] += 0.1 * ((int)(i % 7) - 3);
    int32_t *ids = malloc((size_t)B * L * sizeof *ids), *y = malloc((size_t)B * sizeof *y);
    for (int i = 0; i < B * L; i++) ids[i] = (int32_t)(rng_next_u32(&g) % (uint32_t)V);
    for (int b = 0; b < B; b++) y[b] = b % 2;
    model_case c = {&m, ids, y, B};
    for (int train_embedding = 1; train_embedding >= 0; train_embedding--) {
        m.frozen = !train_embedding;  // what sentiment_backward reads of it
        model_loss(&c);
        real loss = sentiment_backward(&m, ids, y, B);
        ck_assert_double_eq_tol(loss, model_loss(&c), 1e-15);
        size_t n = train_embedding ? m.n_params : m.n_dense;
        for (size_t i = 0; i < n; i += (size_t)every) {
            char what[64];
            snprintf(what, sizeof what, "%s parameter %zu", model_name(kind), i);
            check_gradient(what, m.param_block + i, m.grad_block + i, 1, model_loss, &c);
        }
    }
    // evaluation by lookup tables gives the very same logits
    double *z = new_zeros(B);
    float *zl = malloc((size_t)B * sizeof *zl);
    sentiment_forward(&m, ids, B);
    for (int b = 0; b < B; b++) z[b] = m.a.z[b];
    ck_assert_int_eq(sentiment_logits(zl, &m, ids, (size_t)B), 0);
    for (int b = 0; b < B; b++) ck_assert(zl[b] == (float)z[b]);
    free(z); free(zl); free(ids); free(y); free(table);
    sentiment_free(&m);
}

START_TEST(whole_loss_gradients_small) {
    for (int kind = 0; kind < MODEL_KINDS; kind++) check_model((model_kind)kind, 9, 6, 4, 5, 3, 1);
}
END_TEST

START_TEST(whole_loss_gradients_real_widths) {
    // d = 100, d_k = 32, L = 32 as in the chapter; every 97th parameter
    for (int kind = 0; kind < MODEL_KINDS; kind++) check_model((model_kind)kind, 40, 100, 32, 32, 4, 97);
}
END_TEST

// ---------------------------------------------------------------- init, Adam

START_TEST(lecun_normal_statistics) {
    torch_rng g;
    rng_seed(&g, 6);
    int in = 100, out = 320;
    double *k = new_zeros(in * out), mean = 0, var = 0, bound = 2 * sqrt(1.0 / in) / 0.87962566103423978;
    linear_init_lecun_normal(&g, k, in, out);
    for (int i = 0; i < in * out; i++) {
        ck_assert(fabs(k[i]) <= bound * (1 + 1e-6));
        mean += k[i];
    }
    mean /= in * out;
    for (int i = 0; i < in * out; i++) var += (k[i] - mean) * (k[i] - mean);
    var /= in * out - 1;
    // 32,000 draws: the mean within 4 standard errors of 0, the variance 1/in within 3%
    ck_assert_double_le(fabs(mean), 4 * sqrt(0.01 / (in * out)));
    ck_assert_double_eq_tol(var * in, 1.0, 0.03);
    free(k);
}
END_TEST

START_TEST(erfinv_inverts_erf) {
    for (double x = -3.5; x <= 3.5; x += 0.125) ck_assert_double_eq_tol(erfinv(erf(x)), x, 1e-9);
}
END_TEST

START_TEST(adam_by_hand) {
    // step 1: mhat = g, vhat = g^2, so the step is lr g / (|g| + eps)
    double p[4] = {1, 1, 1, 1}, grad[4] = {0.5, -2, 0, 1e-9};
    adam_state s;
    ck_assert_int_eq(adam_init(&s, 4, 0.1), 0);
    adam_step(&s, p, grad);
    ck_assert_double_eq_tol(p[0], 1 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-15);
    ck_assert_double_eq_tol(p[1], 1 + 0.1 * 2 / (2 + 1e-8), 1e-15);
    ck_assert_double_eq(p[2], 1.0);  // no gradient, no moment: no step
    ck_assert_double_eq_tol(p[3], 1 - 0.1 * 1e-9 / (1e-9 + 1e-8), 1e-15);  // eps matters
    // step 2, gradient 0 for p[0]: m = 0.9 * 0.1 * 0.5, v = 0.999 * 0.001 * 0.25
    double g2[4] = {0, 0, 0, 0};
    adam_step(&s, p, g2);
    double m = 0.9 * 0.05, v = 0.999 * 0.00025;
    double want = 1 - 0.1 * 0.5 / (0.5 + 1e-8) - 0.1 * (m / (1 - 0.81)) / (sqrt(v / (1 - 0.999 * 0.999)) + 1e-8);
    ck_assert_double_eq_tol(p[0], want, 1e-12);
    adam_free(&s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gradients");
    TCase *tc = tcase_create("gradients");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gemm_layouts_against_triple_loops);
    tcase_add_test(tc, dense_gradients);
    tcase_add_test(tc, attention_gradients);
    tcase_add_test(tc, embedding_and_mean_gradients);
    tcase_add_test(tc, bce_gradients_and_values);
    tcase_add_test(tc, cross_entropy_gradients_and_values);
    tcase_add_test(tc, whole_loss_gradients_small);
    tcase_add_test(tc, whole_loss_gradients_real_widths);
    tcase_add_test(tc, lecun_normal_statistics);
    tcase_add_test(tc, erfinv_inverts_erf);
    tcase_add_test(tc, adam_by_hand);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
