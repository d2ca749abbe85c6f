// test_chapter4.c: every number and property ./chapter4 claims, checked on
// the very functions it runs.
//
// Tolerances:
//   golden: values PyTorch 1.13 computed from the seeds of GOLDEN_SEEDS, in
//     GOLDEN_DIR/chapter4_seed<S>.txt (written by
//     tests/reference/chapter4_golden.py, which runs the chapter's twin
//     tests/reference/chapter4_twin.py): torch.rand, nn.Linear and xavier
//     draws bit for bit; normals (nn.Embedding) within 1e-6; multi-head
//     attention's outputs and weights, averaged and per head, without and
//     with the causal mask, with zero and with random biases, within 1e-5.
//   the notebook's form: its outputs reach 20 and more (sums of 96 positive
//     products), so within 1e-5 relative to the largest, 1e-5 * max |want|.
//   properties (row sums, the reshape, h = 1): 1e-6, or exact where the
//     arithmetic is the same.
#define TESTING
#include "../src/programs/chapter4.c"

#include <check.h>
#include <unistd.h>

#include "notebooks/attention_module.h"
#include "capture.h"
#include "datafile.h"
#include "cells.h"
#define GOLDEN_SEED_FILE "chapter4_seed%llu.txt"
#include "golden.h"
#include "suite.h"

// The layer m on one sequence, a batch of one: queries from x_q (n_q, d),
// keys and values from x_kv (n_k, d); key_pad (n_k) or NULL; heads
// (h, n_q, n_k) and mean (n_q, n_k) get the weights, either NULL.
static mha_status run_layer(float *out, float *heads, float *mean, const mha_layer *m,
                            const float *x_q, const float *x_kv, const bool *key_pad,
                            bool causal, int n_q, int n_k) {
    mha_cache cache;
    ck_assert_int_eq(mha_cache_alloc(&cache, 1, N_TOKENS, N_TOKENS, m->d, m->h), 0);
    mha_status st = mha_forward(out, &cache, &m->p, x_q, x_kv, key_pad, causal, 1, n_q, n_k,
                                m->d, m->h, NULL, NULL);
    if (heads) memcpy(heads, cache.w, (size_t)m->h * n_q * n_k * sizeof *heads);
    if (mean) mha_mean_weights(mean, &cache, 0, m->h, n_q, n_k);
    mha_cache_free(&cache);
    return st;
}

#define GOLDEN_TOL 1e-5f
#define NORMAL_TOL 1e-6f
#define N_SEEDS 3
static const uint64_t GOLDEN_SEEDS[N_SEEDS] = { DEFAULT_SEED, 0, 42 };

static chapter4 c;

static void setup(void) {
    ck_assert_int_eq(chapter4_run(&c, DEFAULT_SEED), 0);
}

static void teardown(void) {
    chapter4_free(&c);
}

// ---------------------------------------------------------------------------
// Golden values (golden.h, keyed by seed) and the printed output

static bool same(const float *a, const float *b, int n) {
    return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

static char *printed(void) {
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    chapter4_print(&c, f);
    fclose(f);
    return buf;
}

static void expect_rows_sum_to_one(const float *w, int rows, int cols) {
    float sums[64];
    row_sums(sums, w, rows, cols);
    for (int i = 0; i < rows; i++) ck_assert_float_eq_tol(sums[i], 1.0f, 1e-6f);
}

// ---------------------------------------------------------------------------
// Part 1: the notebook's form

START_TEST(notebook_draws_what_pytorch_draws) {
    for (int s = 0; s < N_SEEDS; s++) {
        uint64_t seed = GOLDEN_SEEDS[s];
        notebook_part *p = malloc(sizeof *p);
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(notebook_part_run(p, seed), 0);
        expect_golden_ids(seed, "notebook_ids", p->ids, N_TOKENS);
        expect_golden(seed, "notebook_x", p->x, N_TOKENS * EMBEDDING_DIM,
                      NORMAL_TOL);
        expect_golden_exact(seed, "notebook_u_q", p->u_q, N_TOKENS * N_TOKENS);
        const size_t hnn = NOTEBOOK_HEADS * N_TOKENS * N_TOKENS;
        expect_golden_exact(seed, "notebook_mh_u_q", p->mh.u_q, hnn);
        expect_golden_exact(seed, "notebook_mh_u_k", p->mh.u_k, hnn);
        expect_golden_exact(seed, "notebook_mh_u_v", p->mh.u_v, hnn);
        expect_golden_exact(seed, "notebook_mh_w_out", p->mh.w_out,
                            NOTEBOOK_HEADS * EMBEDDING_DIM * EMBEDDING_DIM);
        notebook_part_free(p);
        free(p);
    }
}
END_TEST

// The largest |x| of n floats.
static float largest(const float *x, int n) {
    float m = 0;
    for (int i = 0; i < n; i++) m = fmaxf(m, fabsf(x[i]));
    return m;
}

START_TEST(notebook_outputs_equal_pytorch) {
    const int nd = N_TOKENS * EMBEDDING_DIM;
    for (int s = 0; s < N_SEEDS; s++) {
        uint64_t seed = GOLDEN_SEEDS[s];
        notebook_part *p = malloc(sizeof *p);
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(notebook_part_run(p, seed), 0);
        expect_golden(seed, "notebook_head_out", p->head_out, nd,
                      1e-5 * fmax(1.0, largest(p->head_out, nd)));
        expect_golden(seed, "notebook_mh_out", p->mh_out, nd,
                      1e-5 * largest(p->mh_out, nd));
        expect_golden(seed, "notebook_mh_again_out", p->mh_again_out, nd,
                      1e-5 * largest(p->mh_again_out, nd));
        notebook_part_free(p);
        free(p);
    }
}
END_TEST

START_TEST(notebook_shapes_and_row_sums) {
    const notebook_part *p = &c.notebook;
    expect_rows_sum_to_one(p->head_weights, N_TOKENS, N_TOKENS);
    expect_rows_sum_to_one(p->narrow_weights, N_TOKENS, N_TOKENS);
    expect_rows_sum_to_one(p->narrow_weights_dk, N_TOKENS, N_TOKENS);
    ck_assert_int_eq(p->mh.h, NOTEBOOK_HEADS);
    ck_assert_int_eq(p->mh.n, N_TOKENS);
    ck_assert_int_eq(p->mh.d, EMBEDDING_DIM);
    // each head is d wide: head i's columns of the concatenation are
    // attention(u_q[i] x, u_k[i] x, u_v[i] x)
    const int n = N_TOKENS, d = EMBEDDING_DIM, h = NOTEBOOK_HEADS;
    for (int i = 0; i < h; i++) {
        float q[N_TOKENS * EMBEDDING_DIM], k[N_TOKENS * EMBEDDING_DIM];
        float v[N_TOKENS * EMBEDDING_DIM], z[N_TOKENS * EMBEDDING_DIM];
        float w[N_TOKENS * N_TOKENS];
        matmul(q, p->mh.u_q + i * n * n, p->x, n, n, d);
        matmul(k, p->mh.u_k + i * n * n, p->x, n, n, d);
        matmul(v, p->mh.u_v + i * n * n, p->x, n, n, d);
        notebook_attention(z, w, q, k, v, false, n, d, EMBEDDING_DIM);
        expect_rows_sum_to_one(w, n, n);
        for (int t = 0; t < n; t++)
            ck_assert(same(p->mh_heads + t * h * d + i * d, z + t * d, d));
    }
    // and out = heads @ w_out, (8, 96) @ (96, 32)
    float out[N_TOKENS * EMBEDDING_DIM];
    matmul(out, p->mh_heads, p->mh.w_out, n, h * d, d);
    ck_assert(same(out, p->mh_out, n * d));
    // torch.rand's weights are all positive, so the outputs are large
    ck_assert_float_gt(largest(p->mh_out, n * d), 10.0f);
    // sizes below 1 are refused
    notebook_mha m;
    ck_assert_int_eq(notebook_mha_alloc(&m, 0, n, d), -1);
    ck_assert_ptr_null(m.u_q);
}
END_TEST

START_TEST(cell_23_is_chapter_3s_cell_21) {
    // attention(q, k, v) is cell [T21]'s computation on the same q, k, v:
    // scores / sqrt(32), softmax, weights @ v
    const notebook_part *p = &c.notebook;
    const int n = N_TOKENS, d = EMBEDDING_DIM;
    float s[N_TOKENS * N_TOKENS], z[N_TOKENS * EMBEDDING_DIM];
    matmul_transposed(s, p->q, p->k, n, d, n);
    attention_weights(s, s, n, d);
    matmul(z, s, p->v, n, n, d);
    ck_assert(allclose(z, p->head_out, n * d, 1e-6f, 1e-6f));
    ck_assert(allclose(s, p->head_weights, n * n, 1e-6f, 1e-7f));
}
END_TEST

START_TEST(causal_masking_is_accepted_and_ignored) {
    const notebook_part *p = &c.notebook;
    const int nd = N_TOKENS * EMBEDDING_DIM;
    // same draws, same bits, masking or not
    ck_assert(same(p->mh_causal.u_q, p->mh.u_q, NOTEBOOK_HEADS * N_TOKENS * N_TOKENS));
    ck_assert(same(p->mh_causal.w_out, p->mh.w_out,
                   NOTEBOOK_HEADS * EMBEDDING_DIM * EMBEDDING_DIM));
    ck_assert(same(p->mh_causal_out, p->mh_out, nd));
    // passed on, it would change every row but the last (the last token
    // sees everything either way) ...
    for (int t = 0; t < N_TOKENS - 1; t++)
        ck_assert_float_gt(max_abs_diff(p->mh_passed_on_out + t * EMBEDDING_DIM,
                                        p->mh_out + t * EMBEDDING_DIM,
                                        EMBEDDING_DIM), 1e-3f);
    ck_assert(same(p->mh_passed_on_out + (N_TOKENS - 1) * EMBEDDING_DIM,
                   p->mh_out + (N_TOKENS - 1) * EMBEDDING_DIM, EMBEDDING_DIM));
    // ... and yet would not make the form causal: u_q[h] @ x mixes all the
    // tokens into every query before any mask is applied. Changing the last
    // token changes row 0.
    float x[N_TOKENS * EMBEDDING_DIM], out[N_TOKENS * EMBEDDING_DIM];
    memcpy(x, p->x, sizeof x);
    x[(N_TOKENS - 1) * EMBEDDING_DIM] += 1.0f;
    ck_assert_int_eq(notebook_mha_forward(out, NULL, NULL, &p->mh, x, x, x, true), 0);
    ck_assert_float_gt(max_abs_diff(out, p->mh_passed_on_out, EMBEDDING_DIM), 1e-4f);
}
END_TEST

START_TEST(every_call_draws_new_weights) {
    const notebook_part *p = &c.notebook;
    ck_assert(!same(p->mh_again.u_q, p->mh.u_q, NOTEBOOK_HEADS * N_TOKENS * N_TOKENS));
    ck_assert_float_gt(max_abs_diff(p->mh_again_out, p->mh_out,
                                    N_TOKENS * EMBEDDING_DIM), 1.0f);
}
END_TEST

START_TEST(attention_scales_by_sqrt_32_whatever_the_width) {
    const notebook_part *p = &c.notebook;
    const int n = N_TOKENS;
    float q0[N_TOKENS * HEAD_DIM], k0[N_TOKENS * HEAD_DIM];
    float s[N_TOKENS * N_TOKENS];
    columns(q0, p->q, 0, HEAD_DIM, n, EMBEDDING_DIM);
    columns(k0, p->k, 0, HEAD_DIM, n, EMBEDDING_DIM);
    matmul_transposed(s, q0, k0, n, HEAD_DIM, n);
    float w32[N_TOKENS * N_TOKENS], w16[N_TOKENS * N_TOKENS];
    attention_weights(w32, s, n, 32);
    attention_weights(w16, s, n, 16);
    ck_assert(same(w32, p->narrow_weights, n * n));
    ck_assert(same(w16, p->narrow_weights_dk, n * n));
    // too small a divisor would sharpen; too large flattens: the largest
    // weight of every row is smaller with sqrt(32)
    for (int i = 0; i < n; i++)
        ck_assert_float_lt(largest(w32 + i * n, n), largest(w16 + i * n, n));
}
END_TEST

START_TEST(notebook_form_does_not_follow_the_tokens) {
    const notebook_part *p = &c.notebook;
    ck_assert(!rows_follow_tokens(p->mh_reversed_out, p->mh_out, N_TOKENS,
                                  EMBEDDING_DIM));
    // the control: the standard form's outputs just reverse
    const standard_part *s = &c.standard;
    float x[N_TOKENS * EMBEDDING_DIM], out[N_TOKENS * EMBEDDING_DIM];
    reverse_rows(x, s->x, N_TOKENS, EMBEDDING_DIM);
    ck_assert_int_eq(run_layer(out, NULL, NULL, &s->mha, x, x, NULL, false, N_TOKENS, N_TOKENS),
                     MHA_OK);
    ck_assert(rows_follow_tokens(out, s->out, N_TOKENS, EMBEDDING_DIM));
}
END_TEST

START_TEST(part1_prints_the_notebooks_cells) {
    char *out = printed();
    expect_in_cell(out, "T23", "attention(q, k, v)\ntorch.Size([8, 32])\n");
    expect_in_cell(out, "T24", "n_heads=3)\ntorch.Size([8, 32])\n");
    expect_in_cell(out, "T24", "u_q: torch.Size([3, 8, 8])\n"
                            "heads concatenated: torch.Size([8, 96])\n"
                            "w_out: torch.Size([96, 32])\n");
    expect_in_cell(out, "P4.5", "the same bits as without it: True\n");
    expect_in_cell(out, "P4.6", "largest difference between the two calls: ");
    expect_in_cell(out, "P4.8", "reverse?\nFalse\n");
    free(out);
}
END_TEST

// ---------------------------------------------------------------------------
// Part 2: nn.MultiheadAttention

START_TEST(standard_draws_what_pytorch_draws) {
    for (int s = 0; s < N_SEEDS; s++) {
        uint64_t seed = GOLDEN_SEEDS[s];
        standard_part *p = malloc(sizeof *p);
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(standard_part_run(p, seed), 0);
        const int d = EMBEDDING_DIM;
        expect_golden_ids(seed, "twin_ids", p->ids, N_TOKENS);
        expect_golden(seed, "twin_x", p->x, N_TOKENS * d, NORMAL_TOL);
        expect_golden_exact(seed, "twin_in_proj_weight", p->mha.p.in_proj_weight,
                            3 * d * d);
        expect_golden_exact(seed, "twin_in_proj_bias", p->mha.p.in_proj_bias, 3 * d);
        expect_golden_exact(seed, "twin_out_proj_weight", p->mha.p.out_proj_weight,
                            d * d);
        expect_golden_exact(seed, "twin_out_proj_bias", p->mha.p.out_proj_bias, d);
        standard_part_free(p);
        free(p);
    }
}
END_TEST

// The six outputs of multi-head attention of m on x (without and with the
// causal mask; output, averaged and per-head weights) against the golden
// sections prefix_*. Returns the largest difference.
static double expect_outputs(uint64_t seed, const char *prefix,
                             const mha_layer *m, const float *x) {
    const int n = N_TOKENS, d = EMBEDDING_DIM, h = HEADS;
    float out[N_TOKENS * EMBEDDING_DIM], mean[N_TOKENS * N_TOKENS];
    float heads[HEADS * N_TOKENS * N_TOKENS];
    double worst = 0;
    for (int masked = 0; masked < 2; masked++) {
        ck_assert_int_eq(run_layer(out, heads, mean, m, x, x, NULL, masked, n, n), MHA_OK);
        const char *suffix = masked ? "_causal" : "";
        char name[64];
        snprintf(name, sizeof name, "%s_out%s", prefix, suffix);
        worst = fmax(worst, expect_golden(seed, name, out, n * d, GOLDEN_TOL));
        snprintf(name, sizeof name, "%s_weights%s", prefix, suffix);
        worst = fmax(worst, expect_golden(seed, name, mean, n * n, GOLDEN_TOL));
        snprintf(name, sizeof name, "%s_head_weights%s", prefix, suffix);
        worst = fmax(worst, expect_golden(seed, name, heads, h * n * n, GOLDEN_TOL));
    }
    return worst;
}

START_TEST(standard_form_equals_nn_multiheadattention) {
    for (int s = 0; s < N_SEEDS; s++) {
        uint64_t seed = GOLDEN_SEEDS[s];
        standard_part *p = malloc(sizeof *p);
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(standard_part_run(p, seed), 0);
        // as the program computes them
        const int n = N_TOKENS, d = EMBEDDING_DIM, h = HEADS;
        expect_golden(seed, "twin_out", p->out, n * d, GOLDEN_TOL);
        expect_golden(seed, "twin_weights", p->weights, n * n, GOLDEN_TOL);
        expect_golden(seed, "twin_head_weights", p->head_weights, h * n * n, GOLDEN_TOL);
        expect_golden(seed, "twin_out_causal", p->out_causal, n * d, GOLDEN_TOL);
        expect_golden(seed, "twin_weights_causal", p->weights_causal, n * n, GOLDEN_TOL);
        expect_golden(seed, "twin_head_weights_causal", p->head_weights_causal,
                      h * n * n, GOLDEN_TOL);
        expect_outputs(seed, "twin", &p->mha, p->x);
        // and with biases of either sign
        golden_floats(p->mha.p.in_proj_bias, seed, "biased_in_proj_bias", 3 * d);
        golden_floats(p->mha.p.out_proj_bias, seed, "biased_out_proj_bias", d);
        expect_outputs(seed, "biased", &p->mha, p->x);
        standard_part_free(p);
        free(p);
    }
}
END_TEST

START_TEST(weights_sum_to_one_and_mask_is_exact) {
    const standard_part *s = &c.standard;
    const int n = N_TOKENS;
    expect_rows_sum_to_one(s->weights, n, n);
    expect_rows_sum_to_one(s->weights_causal, n, n);
    expect_rows_sum_to_one(s->head_weights, HEADS * n, n);
    expect_rows_sum_to_one(s->head_weights_causal, HEADS * n, n);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            ck_assert(s->weights_causal[i * n + j] == 0.0f);
            for (int k = 0; k < HEADS; k++)
                ck_assert(s->head_weights_causal[(k * n + i) * n + j] == 0.0f);
        }
    ck_assert(s->head_weights_causal[0] == 1.0f);  // token 0 sees only itself
    // the averaged weights are the mean of the heads'
    for (int e = 0; e < n * n; e++)
        ck_assert_float_eq_tol(s->weights[e],
                               (s->head_weights[e] + s->head_weights[n * n + e]) / 2,
                               1e-7f);
    // the heads look differently: their weights differ
    ck_assert_float_gt(max_abs_diff(s->head_weights, s->head_weights + n * n, n * n),
                       0.05f);
}
END_TEST

START_TEST(heads_are_blocks_of_rows_of_in_proj) {
    // h separate nn.Linear(32, 16) per projection give the same bits
    const standard_part *s = &c.standard;
    ck_assert(same(s->out_small_heads, s->out, N_TOKENS * EMBEDDING_DIM));
    // with biases too
    mha_layer m;
    ck_assert_int_eq(mha_alloc(&m, EMBEDDING_DIM, 4), MHA_OK);
    torch_rng g;
    rng_seed(&g, 5);
    ck_assert_int_eq(mha_init(&g, &m.p, EMBEDDING_DIM), 0);
    rng_uniform(&g, m.p.in_proj_bias, 3 * EMBEDDING_DIM, -0.5f, 0.5f);
    rng_uniform(&g, m.p.out_proj_bias, EMBEDDING_DIM, -0.5f, 0.5f);
    float a[N_TOKENS * EMBEDDING_DIM], b[N_TOKENS * EMBEDDING_DIM];
    ck_assert_int_eq(run_layer(a, NULL, NULL, &m, s->x, s->x, NULL, false, N_TOKENS, N_TOKENS),
                     MHA_OK);
    heads_one_by_one(b, &m, s->x, N_TOKENS);
    ck_assert(same(a, b, N_TOKENS * EMBEDDING_DIM));
    mha_free(&m);
}
END_TEST

START_TEST(one_head_is_chapter_3s_biased_head) {
    // h = 1 with out_proj the identity (and no bias) is chapter 3's
    // attention module: biased Q, K, V, scores / sqrt(d), softmax, @ V
    const int d = EMBEDDING_DIM, n = N_TOKENS;
    const float *x = c.standard.x;
    mha_layer m;
    ck_assert_int_eq(mha_alloc(&m, d, 1), MHA_OK);
    ck_assert_int_eq(m.d_k, d);
    torch_rng g;
    rng_seed(&g, 11);
    ck_assert_int_eq(mha_init(&g, &m.p, d), 0);
    rng_uniform(&g, m.p.in_proj_bias, 3 * d, -0.5f, 0.5f);
    memset(m.p.out_proj_weight, 0, (size_t)d * d * sizeof(float));
    for (int i = 0; i < d; i++) m.p.out_proj_weight[i * d + i] = 1.0f;
    memset(m.p.out_proj_bias, 0, (size_t)d * sizeof(float));
    attention_module a;
    ck_assert_int_eq(attention_module_alloc(&a, d, d), 0);
    memcpy(a.q_weight, m.p.in_proj_weight, (size_t)d * d * sizeof(float));
    memcpy(a.k_weight, m.p.in_proj_weight + d * d, (size_t)d * d * sizeof(float));
    memcpy(a.v_weight, m.p.in_proj_weight + 2 * d * d, (size_t)d * d * sizeof(float));
    memcpy(a.q_bias, m.p.in_proj_bias, (size_t)d * sizeof(float));
    memcpy(a.k_bias, m.p.in_proj_bias + d, (size_t)d * sizeof(float));
    memcpy(a.v_bias, m.p.in_proj_bias + 2 * d, (size_t)d * sizeof(float));
    float out[N_TOKENS * EMBEDDING_DIM], w[N_TOKENS * N_TOKENS];
    float hidden[N_TOKENS * EMBEDDING_DIM], w3[N_TOKENS * N_TOKENS];
    ck_assert_int_eq(run_layer(out, w, NULL, &m, x, x, NULL, false, n, n), MHA_OK);
    ck_assert_int_eq(attention_module_forward(hidden, w3, NULL, NULL, NULL, NULL,
                                              &a, x, 1, n), 0);
    // PyTorch scales the queries before the product, chapter 3 the scores
    // after it: the same up to float rounding
    ck_assert(allclose(w, w3, n * n, 1e-5f, 1e-7f));
    ck_assert(allclose(out, hidden, n * d, 1e-5f, 1e-6f));
    attention_module_free(&a);
    mha_free(&m);
}
END_TEST

// x with rows first .. n-1 changed.
static void disturb_rows(float *x, int first, int n, int d) {
    for (int i = first; i < n; i++)
        for (int k = 0; k < d; k++) x[i * d + k] += 2.0f - 0.125f * (float)k;
}

START_TEST(masked_form_is_causal_bit_for_bit) {
    const standard_part *s = &c.standard;
    const int n = N_TOKENS, d = EMBEDDING_DIM;
    for (int t = 0; t < n - 1; t++) {
        float x[N_TOKENS * EMBEDDING_DIM], out[N_TOKENS * EMBEDDING_DIM];
        float heads[HEADS * N_TOKENS * N_TOKENS];
        memcpy(x, s->x, sizeof x);
        disturb_rows(x, t + 1, n, d);
        ck_assert_int_eq(run_layer(out, heads, NULL, &s->mha, x, x, NULL, true, n, n), MHA_OK);
        // outputs and weights of tokens 0 .. t keep their bits
        ck_assert(same(out, s->out_causal, (t + 1) * d));
        for (int k = 0; k < HEADS; k++)
            ck_assert(same(heads + k * n * n, s->head_weights_causal + k * n * n,
                           (t + 1) * n));
        // token t + 1 changes
        ck_assert(!same(out + (t + 1) * d, s->out_causal + (t + 1) * d, d));
        // the control: without the mask row 0 changes too
        ck_assert_int_eq(run_layer(out, NULL, NULL, &s->mha, x, x, NULL, false, n, n), MHA_OK);
        ck_assert(!same(out, s->out, d));
    }
}
END_TEST

START_TEST(heads_must_divide_the_width) {
    mha_layer m;
    ck_assert_int_eq(mha_alloc(&m, 32, 3), MHA_HEADS_DO_NOT_DIVIDE);
    ck_assert_ptr_null(m.p.in_proj_weight);
    ck_assert_int_eq(mha_alloc(&m, 32, 0), MHA_BAD_SIZE);
    ck_assert_int_eq(mha_alloc(&m, 0, 1), MHA_BAD_SIZE);
    ck_assert_int_eq(mha_alloc(&m, 32, 64), MHA_HEADS_DO_NOT_DIVIDE);
    ck_assert_int_eq(mha_check(32, 3), MHA_HEADS_DO_NOT_DIVIDE);
    for (int h = 1; h <= 32; h *= 2) {
        ck_assert_int_eq(mha_alloc(&m, 32, h), MHA_OK);
        ck_assert_int_eq(m.d_k * h, 32);
        mha_free(&m);
        ck_assert_ptr_null(m.p.in_proj_weight);
    }
    ck_assert_int_eq(c.standard.three_heads, MHA_HEADS_DO_NOT_DIVIDE);
    ck_assert_str_eq(mha_status_text(MHA_HEADS_DO_NOT_DIVIDE),
                     "the model width is not divisible by the number of heads");
    char *out = printed();
    expect_in_cell(out, "P4.1", "with 3 heads: error: the model width is not "
                            "divisible by the number of heads\n");
    free(out);
}
END_TEST

START_TEST(cross_attention_and_bad_masks) {
    // queries from 3 tokens, keys and values from 8: (3, 8) weights whose
    // rows sum to one, and each query's output depends on that query alone
    const standard_part *s = &c.standard;
    const int d = EMBEDDING_DIM, n = N_TOKENS;
    float out[3 * EMBEDDING_DIM], w[3 * N_TOKENS], hw[HEADS * 3 * N_TOKENS];
    ck_assert_int_eq(run_layer(out, hw, w, &s->mha, s->x + 2 * d, s->x, NULL, false, 3, n),
                     MHA_OK);
    expect_rows_sum_to_one(w, 3, n);
    expect_rows_sum_to_one(hw, HEADS * 3, n);
    // rows 2 .. 4 of self-attention, up to float rounding
    ck_assert(allclose(out, s->out + 2 * d, 3 * d, 1e-5f, 1e-6f));
    ck_assert(allclose(w, s->weights + 2 * n, 3 * n, 1e-5f, 1e-7f));
    float one[EMBEDDING_DIM];
    ck_assert_int_eq(run_layer(one, NULL, NULL, &s->mha, s->x + 3 * d, s->x, NULL, false, 1, n),
                     MHA_OK);
    ck_assert(same(one, out + d, d));
    // a query that may see nothing is an error, not NaN: under the causal
    // mask query 0 sees key 0 alone, and here key 0 is padding
    bool pad[N_TOKENS] = { true };
    float all[N_TOKENS * EMBEDDING_DIM];
    ck_assert_int_eq(run_layer(all, NULL, NULL, &s->mha, s->x, s->x, pad, true, n, n),
                     MHA_FULLY_MASKED_ROW);
    for (int j = 1; j < n; j++) pad[j] = true;  // every key padding
    ck_assert_int_eq(run_layer(all, NULL, NULL, &s->mha, s->x, s->x, pad, false, n, n),
                     MHA_FULLY_MASKED_ROW);
    ck_assert_int_eq(run_layer(all, NULL, NULL, &s->mha, s->x, s->x, NULL, false, 0, n),
                     MHA_BAD_SIZE);
    ck_assert_str_eq(mha_status_text(MHA_FULLY_MASKED_ROW),
                     "the mask hides every key from a query");
}
END_TEST

START_TEST(cost_does_not_depend_on_the_heads) {
    const long long n = 8, d = 32;
    for (int h = 1; h <= 32; h *= 2) {
        ck_assert_int_eq(multihead_cost(8, 32, h), 4 * n * d * d + 2 * n * n * d);
        // the notebook's form: every head as wide as the model
        ck_assert_int_eq(notebook_cost(8, 32, h), h * (5 * n * n * d + n * d * d));
    }
    ck_assert_int_eq(multihead_cost(8, 32, 2), 36864);
    char *out = printed();
    expect_in_cell(out, "P4.4", " 1          32                  36864            "
                            "18432\n");
    expect_in_cell(out, "P4.4", "32           1                  36864           "
                            "589824\n");
    expect_in_cell(out, "P4.4", "give the same bits: True\n");
    free(out);
}
END_TEST

START_TEST(part2_prints_what_the_twin_prints) {
    char *out = printed();
    expect_in_cell(out, "P4.1", "in_proj_weight: torch.Size([96, 32])\n"
                            "in_proj_bias: torch.Size([96])\n"
                            "out_proj.weight: torch.Size([32, 32])\n"
                            "parameters: 4224\n2 heads of width 16\n");
    // the twin's first lines, printed by PyTorch for the default seed
    expect_in_cell(out, "P4.9", "\ntensor([[[ 0.1041, -0.3129,  0.0016, -0.1488, "
                            "-0.0447,  0.0430,  0.0744,\n          -0.0688,");
    expect_in_cell(out, "P4.10", "\ntensor([[[0.");
    expect_in_cell(out, "P4.11", "\ntensor([[[0.");
    expect_in_cell(out, "P4.12", "\ntensor([[[");
    // causal weights: row 0 is one 1 and seven zeros
    expect_in_cell(out, "P4.13", "\ntensor([[[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, "
                            "0.0000, 0.0000, 0.0000],\n");
    free(out);
}
END_TEST

START_TEST(printing_without_scientific_notation) {
    // as PyTorch 1.13 prints them after torch.set_printoptions(sci_mode=False)
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    const float a[] = { 0.5f, 0.00001f, -0.25f }, b[] = { 1, 20000, 3, 4 };
    const float c2[] = { 0.5f, 0.25f };
    const int s3[] = { 3 }, s22[] = { 2, 2 }, s2[] = { 2 };
    print_tensor_fixed(f, a, 1, s3);
    print_tensor_fixed(f, b, 2, s22);
    print_tensor_fixed(f, c2, 1, s2);
    print_tensor(f, a, 1, s3);
    print_tensor(f, b, 2, s22);  // whole numbers over a range of 1000
    fclose(f);
    ck_assert_str_eq(buf, "tensor([     0.5000,      0.0000,     -0.2500])\n"
                          "tensor([[        1.,     20000.],\n"
                          "        [        3.,         4.]])\n"
                          "tensor([0.5000, 0.2500])\n"
                          "tensor([ 5.0000e-01,  1.0000e-05, -2.5000e-01])\n"
                          "tensor([[1.0000e+00, 2.0000e+04],\n"
                          "        [3.0000e+00, 4.0000e+00]])\n");
    free(buf);
}
END_TEST

// ---------------------------------------------------------------------------
// Program behaviour

START_TEST(golden_files_name_their_script_and_seed) {
    expect_golden_seed_files(GOLDEN_SEEDS, N_SEEDS, "chapter4_golden.py");
}
END_TEST

// The blocks in the order the chapter quotes them: the real layer and its
// trained heads, the notebook's cells and what they get wrong, then the
// blocks the twin prints.
START_TEST(blocks_in_the_chapters_order) {
    char *out = printed();
    const char *labels[] = { "P4.1", "P4.2", "P4.3", "P4.4", "T23", "T24", "P4.5", "P4.6",
                             "P4.7", "P4.8", "P4.9", "P4.10", "P4.11", "P4.12", "P4.13" };
    expect_blocks_in_order(out, labels, sizeof labels / sizeof labels[0]);
    free(out);
}
END_TEST

START_TEST(average_is_flatter_than_either_head) {
    // what the chapter says of blocks [P4.10] and [P4.11], for the default seed:
    // the average's largest weight is below each head's largest (weights are
    // positive: their largest |x| is their largest)
    const int nn = N_TOKENS * N_TOKENS;
    float mean = largest(c.standard.weights, nn);
    ck_assert_float_lt(mean, largest(c.standard.head_weights, nn));
    ck_assert_float_lt(mean, largest(c.standard.head_weights + nn, nn));
}
END_TEST

START_TEST(figure_data_files) {
    char dir[] = "/tmp/chapter4-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chapter4_write_data(&c, dir), 0);
    static const char *const places[N_TOKENS] = { "0", "1", "2", "3", "4", "5", "6", "7" };
    const int n = N_TOKENS;
    const trained_part *t = &c.trained;
    assert_heatmap_file(dir, "chapter4-untrained1.dat", t->before, n, n, places, places);
    assert_heatmap_file(dir, "chapter4-untrained2.dat", t->before + n * n, n, n, places, places);
    assert_heatmap_file(dir, "chapter4-trained1.dat", t->after, n, n, places, places);
    assert_heatmap_file(dir, "chapter4-trained2.dat", t->after + n * n, n, n, places, places);
    rmdir(dir);
    stderr_capture cap;
    capture_begin(&cap);
    ck_assert_int_eq(chapter4_write_data(&c, "/nonexistent/dir"), -1);
    char *said = capture_end(&cap);
    ck_assert_ptr_nonnull(strstr(said, "chapter4: error: cannot write /nonexistent/dir/"));
    free(said);
}
END_TEST

START_TEST(seed_changes_both_parts_and_is_repeatable) {
    chapter4 *other = malloc(sizeof *other);
    ck_assert_ptr_nonnull(other);
    ck_assert_int_eq(chapter4_run(other, DEFAULT_SEED), 0);
    ck_assert(same(other->notebook.mh_out, c.notebook.mh_out, N_TOKENS * EMBEDDING_DIM));
    ck_assert(same(other->standard.out_causal, c.standard.out_causal,
                   N_TOKENS * EMBEDDING_DIM));
    chapter4_free(other);
    ck_assert_int_eq(chapter4_run(other, 1), 0);
    ck_assert(!same(other->notebook.mh_out, c.notebook.mh_out, N_TOKENS * EMBEDDING_DIM));
    ck_assert(!same(other->standard.out, c.standard.out, N_TOKENS * EMBEDDING_DIM));
    // both parts start from the same seed: the same tokens and embeddings
    ck_assert(same(other->notebook.x, other->standard.x, N_TOKENS * EMBEDDING_DIM));
    chapter4_free(other);
    free(other);
}
END_TEST

// ---------------------------------------------------------------------------
// Part 3: two heads trained

START_TEST(task_targets_are_the_previous_and_the_first_content) {
    enum { B = 2, n = N_TOKENS, d = EMBEDDING_DIM };
    float x[B * n * d], y[B * n * d];
    torch_rng g;
    rng_seed(&g, 5);
    task_batch(x, y, &g, B);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < n; t++) {
            const float *xt = x + (b * n + t) * d, *yt = y + (b * n + t) * d;
            const float *prev = x + (b * n + (t > 0 ? t - 1 : 0)) * d, *first = x + b * n * d;
            for (int j = 0; j < d - CONTENT_DIM; j++)  // the position, one-hot
                ck_assert_float_eq(xt[CONTENT_DIM + j], j == t ? 1.0f : 0.0f);
            for (int j = 0; j < CONTENT_DIM; j++) {
                ck_assert_float_eq(yt[j], prev[j]);
                ck_assert_float_eq(yt[CONTENT_DIM + j], first[j]);
            }
        }
    // the contents differ from sequence to sequence
    ck_assert(!same(x, x + n * d, CONTENT_DIM));
}
END_TEST

// What the chapter says of block [P4.2] and its figure, for the default
// seed and two others: the loss falls a hundredfold, and one head puts its
// largest weight on position t - 1 in every row t = 2 .. n-1, the other on
// position 0, each with more than 0.9 of its row; untrained, neither does.
static void expect_heads_learnt_their_places(const trained_part *t) {
    const int n = N_TOKENS;
    ck_assert_float_lt(t->loss_last * 100, t->loss_first);
    int prev = t->on_previous[0] == n - 2 ? 0 : 1, first = 1 - prev;
    ck_assert_int_eq(t->on_previous[prev], n - 2);
    ck_assert_int_eq(t->on_first[prev], 0);
    ck_assert_int_eq(t->on_first[first], n - 2);
    ck_assert_int_eq(t->on_previous[first], 0);
    for (int r = 2; r < n; r++) {
        ck_assert_float_gt(t->after[(prev * n + r) * n + r - 1], 0.9f);
        ck_assert_float_gt(t->after[(first * n + r) * n], 0.9f);
        ck_assert_float_lt(t->before[(prev * n + r) * n + r - 1], 0.9f);
        ck_assert_float_lt(t->before[(first * n + r) * n], 0.9f);
    }
    for (int i = 0; i < HEADS; i++) expect_rows_sum_to_one(t->after + i * n * n, n, n);
}

START_TEST(trained_heads_learn_two_places) {
    expect_heads_learnt_their_places(&c.trained);
    // for the default seed, head 1 takes the previous position
    ck_assert_int_eq(c.trained.on_previous[0], N_TOKENS - 2);
    static trained_part other;
    for (uint64_t seed = 0; seed <= 42; seed += 42) {
        ck_assert_int_eq(trained_part_run(&other, seed), 0);
        expect_heads_learnt_their_places(&other);
        trained_part_free(&other);
    }
}
END_TEST

START_TEST(trained_block_prints_the_weights_and_places) {
    char *out = printed();
    const trained_part *t = &c.trained;
    char want[160];
    snprintf(want, sizeof want, "mean squared error: %.4f at the first step, %.4f at the last\n",
             (double)t->loss_first, (double)t->loss_last);
    ck_assert_ptr_nonnull(strstr(out, want));
    const char *block = strstr(out, "[P4.2]"), *weights = strstr(out, "[P4.3]");
    ck_assert_ptr_nonnull(block);
    ck_assert_ptr_nonnull(weights);
    const char *trained = strstr(weights, "\ntrained:\n");  // not "untrained:"
    ck_assert_ptr_nonnull(trained);
    // row 3 of the trained heads, head 1 then head 2, two decimals
    int len = snprintf(want, sizeof want, "t=3 ");
    for (int i = 0; i < HEADS; i++) {
        len += snprintf(want + len, sizeof want - (size_t)len, "%s", i ? "  " : "");
        for (int j = 0; j < N_TOKENS; j++)
            len += snprintf(want + len, sizeof want - (size_t)len, " %4.2f",
                            (double)t->after[(i * N_TOKENS + 3) * N_TOKENS + j]);
    }
    ck_assert_ptr_nonnull(strstr(trained, want));
    for (int i = 0; i < HEADS; i++) {
        snprintf(want, sizeof want, "head %d %34d %11d\n", i + 1, t->on_previous[i],
                 t->on_first[i]);
        ck_assert_ptr_nonnull(strstr(block, want));
        ck_assert_ptr_null(strstr(trained, want));  // in block [P4.2], before the weights
    }
    free(out);
}
END_TEST

static Suite *chapter4_suite(void) {
    Suite *s = suite_create("chapter4");
    TCase *tc = tcase_create("notebook");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, notebook_draws_what_pytorch_draws);
    tcase_add_test(tc, notebook_outputs_equal_pytorch);
    tcase_add_test(tc, notebook_shapes_and_row_sums);
    tcase_add_test(tc, cell_23_is_chapter_3s_cell_21);
    tcase_add_test(tc, causal_masking_is_accepted_and_ignored);
    tcase_add_test(tc, every_call_draws_new_weights);
    tcase_add_test(tc, attention_scales_by_sqrt_32_whatever_the_width);
    tcase_add_test(tc, notebook_form_does_not_follow_the_tokens);
    tcase_add_test(tc, part1_prints_the_notebooks_cells);
    suite_add_tcase(s, tc);

    tc = tcase_create("multihead");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, standard_draws_what_pytorch_draws);
    tcase_add_test(tc, standard_form_equals_nn_multiheadattention);
    tcase_add_test(tc, weights_sum_to_one_and_mask_is_exact);
    tcase_add_test(tc, heads_are_blocks_of_rows_of_in_proj);
    tcase_add_test(tc, one_head_is_chapter_3s_biased_head);
    tcase_add_test(tc, masked_form_is_causal_bit_for_bit);
    tcase_add_test(tc, heads_must_divide_the_width);
    tcase_add_test(tc, cross_attention_and_bad_masks);
    tcase_add_test(tc, cost_does_not_depend_on_the_heads);
    tcase_add_test(tc, part2_prints_what_the_twin_prints);
    tcase_add_test(tc, printing_without_scientific_notation);
    suite_add_tcase(s, tc);

    tc = tcase_create("program");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, golden_files_name_their_script_and_seed);
    tcase_add_test(tc, figure_data_files);
    tcase_add_test(tc, average_is_flatter_than_either_head);
    tcase_add_test(tc, blocks_in_the_chapters_order);
    tcase_add_test(tc, seed_changes_both_parts_and_is_repeatable);
    suite_add_tcase(s, tc);

    tc = tcase_create("trained");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, task_targets_are_the_previous_and_the_first_content);
    tcase_add_test(tc, trained_heads_learn_two_places);
    tcase_add_test(tc, trained_block_prints_the_weights_and_places);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(chapter4_suite());
}
