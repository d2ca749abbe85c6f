// test_tiled_attention.c: the online softmax against the two-pass softmax,
// and tiled attention, forward and backward, against naive attention (the
// n x n weights in memory, naive_attention.h) and against a reference in
// double written here, on random and adversarial inputs, with and without
// the causal mask, with each set of vector instructions this CPU has. The
// gradients are held to finite differences in test_tiled_gradients.c, in
// double.
//
// Tolerances: float arithmetic on scores of order 1 over up to a few
// hundred keys; each result is held to the double reference within
// TOL (max |reference| + 1), an error of a few hundred roundings.
#include <check.h>

#include "suite.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"
#include "layers/attention_head.h"
#include "layers/naive_attention.h"
#include "layers/online_softmax.h"
#include "layers/tiled_attention.h"

#define TOL 2e-5

#include "simd_levels.h"

static float *floats(long n) {
    float *x = calloc((size_t)(n ? n : 1), sizeof *x);
    ck_assert_ptr_nonnull(x);
    return x;
}

static float *random_floats(torch_rng *g, long n, float a, float b) {
    float *x = floats(n);
    rng_uniform(g, x, (size_t)n, a, b);
    return x;
}

static double max_abs(const double *x, long n) {
    double m = 0;
    for (long i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

// got (float) against want (double): within tol (max |want| + 1).
static void expect_close(const char *what, const float *got, const double *want, long n, double tol) {
    double bound = tol * (max_abs(want, n) + 1);
    for (long i = 0; i < n; i++)
        ck_assert_msg(fabs(got[i] - want[i]) <= bound, "%s[%ld]: %.9g, want %.9g (within %.3g)", what, i,
                      (double)got[i], want[i], bound);
}

static void expect_close_floats(const char *what, const float *got, const float *want, long n, double tol) {
    double *w = malloc((size_t)(n ? n : 1) * sizeof *w);
    ck_assert_ptr_nonnull(w);
    for (long i = 0; i < n; i++) w[i] = want[i];
    expect_close(what, got, w, n, tol);
    free(w);
}

// ---------------------------------------------------------------- online softmax

// The softmax of x (n) in double, masked entries 0, all 0 when every entry
// is -inf; and its log-sum-exp.
static double reference_softmax(double *y, const float *x, int n) {
    double top = -INFINITY, sum = 0;
    for (int j = 0; j < n; j++) top = fmax(top, x[j]);
    for (int j = 0; j < n; j++) sum += y[j] = top == -INFINITY ? 0 : exp((double)x[j] - top);
    for (int j = 0; j < n; j++) y[j] = sum > 0 ? y[j] / sum : 0;
    return sum > 0 ? top + log(sum) : -INFINITY;
}

// The online softmax of x: number by number (softmax_online), and block by
// block (softmax_add_block) with its log-sum-exp, against the two-pass
// softmax and the double reference; masked entries exactly 0.
static void check_softmax_row(const float *x, int n) {
    float *online = floats(n), *two = floats(n), *p = floats(n);
    double *want = malloc((size_t)(n ? n : 1) * sizeof *want);
    ck_assert_ptr_nonnull(want);
    double lse = reference_softmax(want, x, n);
    softmax_online(online, x, n);
    softmax_two_pass(two, x, n);
    expect_close("online", online, want, n, 1e-6);
    expect_close("two-pass", two, want, n, 1e-6);
    expect_close_floats("online vs two-pass", online, two, n, 1e-6);
    for (int j = 0; j < n; j++)
        if (x[j] == -INFINITY) ck_assert(online[j] == 0 && two[j] == 0);
    for (int block = 1; block <= 17; block += 4) {
        softmax_state s = softmax_start();
        for (int j0 = 0; j0 < n; j0 += block) softmax_add_block(&s, p + j0, x + j0, n - j0 < block ? n - j0 : block);
        float got = softmax_log_sum_exp(s);
        if (lse == -INFINITY) ck_assert(got == -INFINITY && s.sum == 0);
        else ck_assert_msg(fabs(got - lse) <= 1e-6 * (fabs(lse) + 1), "lse %.9g, want %.9g", (double)got, lse);
    }
    free(online);
    free(two);
    free(p);
    free(want);
}

START_TEST(online_softmax_agrees_with_two_passes) {
    torch_rng g;
    rng_seed(&g, 1);
    int sizes[] = {1, 2, 5, 16, 17, 100, 1000};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        float *x = random_floats(&g, sizes[t], -10, 10);
        check_softmax_row(x, sizes[t]);
        free(x);
    }
}
END_TEST

// Scores far beyond where e^x overflows (e^89 > FLT_MAX): the running
// maximum keeps every e^ at or below e^0.
START_TEST(online_softmax_of_huge_scores) {
    float a[] = {1e30f, 1e30f, -1e30f, 3e29f};
    float b[] = {FLT_MAX, -FLT_MAX, FLT_MAX, 0};
    float c[] = {-FLT_MAX, 1e30f, 1e30f - 7e22f, FLT_MAX};  // the largest last: every rescale at once
    float d[] = {100, 200, 300, 400, 500, 600};              // e^600 overflows even a double's e^
    check_softmax_row(a, 4);
    check_softmax_row(b, 4);
    check_softmax_row(c, 4);
    check_softmax_row(d, 6);
    float y[4];
    softmax_online(y, b, 4);
    ck_assert(y[0] == 0.5f && y[1] == 0 && y[2] == 0.5f && y[3] == 0);
}
END_TEST

// -inf entries (masked keys) get weight exactly 0, wherever they are,
// including a first block of nothing but -inf.
START_TEST(online_softmax_with_masked_entries) {
    float a[] = {-INFINITY, -INFINITY, -INFINITY, 1, 2, -INFINITY, 3};
    float b[] = {0.5f, -INFINITY, -2, -INFINITY};
    float c[] = {-INFINITY, 1e30f, -INFINITY, -1e30f};
    check_softmax_row(a, 7);
    check_softmax_row(b, 4);
    check_softmax_row(c, 4);
}
END_TEST

// A row that is all -inf: weights all 0 (not NaN), the log-sum-exp -inf,
// and a block of it leaves the state untouched, returning 1.
START_TEST(online_softmax_of_a_fully_masked_row) {
    float x[] = {-INFINITY, -INFINITY, -INFINITY};
    check_softmax_row(x, 3);
    float y[3] = {1, 1, 1}, p[3] = {1, 1, 1};
    softmax_online(y, x, 3);
    for (int j = 0; j < 3; j++) ck_assert(y[j] == 0);
    softmax_two_pass(y, x, 3);
    for (int j = 0; j < 3; j++) ck_assert(y[j] == 0);
    softmax_state s = softmax_start();
    ck_assert(softmax_add_block(&s, p, x, 3) == 1);
    for (int j = 0; j < 3; j++) ck_assert(p[j] == 0);
    ck_assert(s.max == -INFINITY && s.sum == 0);
    ck_assert(softmax_log_sum_exp(s) == -INFINITY);
    // then a real score: the row is as if the masked ones were not there
    float z[] = {2};
    ck_assert(softmax_add_block(&s, p, z, 1) == 0);
    ck_assert(p[0] == 1 && s.max == 2 && s.sum == 1);
}
END_TEST

// ---------------------------------------------------------------- attention

// Attention in double, the loops of the definition: out, lse, and the
// gradients dq, dk, dv (set, not added) for dout.
typedef struct {
    double *out, *lse, *dq, *dk, *dv;
} reference;

static reference reference_attention(const float *q, const float *k, const float *v, const float *dout,
                                     int n, int d, double scale, bool causal) {
    reference r;
    double **all[] = {&r.out, &r.dq, &r.dk, &r.dv};
    for (int a = 0; a < 4; a++) {
        *all[a] = calloc((size_t)n * d, sizeof(double));
        ck_assert_ptr_nonnull(*all[a]);
    }
    r.lse = calloc((size_t)n, sizeof(double));
    double *w = calloc((size_t)n, sizeof(double)), *dw = calloc((size_t)n, sizeof(double));
    ck_assert(r.lse && w && dw);
    for (int i = 0; i < n; i++) {
        int seen = causal ? i + 1 : n;
        double top = -INFINITY, sum = 0, D = 0;
        for (int j = 0; j < seen; j++) {
            double s = 0;
            for (int c = 0; c < d; c++) s += (double)q[i * d + c] * k[j * d + c];
            w[j] = scale * s;
            top = fmax(top, w[j]);
        }
        for (int j = 0; j < seen; j++) sum += w[j] = exp(w[j] - top);
        r.lse[i] = top + log(sum);
        for (int j = 0; j < seen; j++) {
            w[j] /= sum;
            dw[j] = 0;
            for (int c = 0; c < d; c++) {
                r.out[i * d + c] += w[j] * v[j * d + c];
                dw[j] += (double)dout[i * d + c] * v[j * d + c];
            }
        }
        for (int j = 0; j < seen; j++) D += w[j] * dw[j];
        for (int j = 0; j < seen; j++) {
            double ds = scale * w[j] * (dw[j] - D);
            for (int c = 0; c < d; c++) {
                r.dv[j * d + c] += w[j] * dout[i * d + c];
                r.dq[i * d + c] += ds * k[j * d + c];
                r.dk[j * d + c] += ds * q[i * d + c];
            }
        }
    }
    free(w);
    free(dw);
    return r;
}

static void free_reference(reference *r) {
    free(r->out);
    free(r->lse);
    free(r->dq);
    free(r->dk);
    free(r->dv);
}

// One problem: the inputs, and the results of one method.
typedef struct {
    int n, d;
    float scale;
    bool causal;
    float *q, *k, *v, *dout;
} problem;

typedef struct {
    float *out, *lse, *dq, *dk, *dv;
} result;

static problem random_problem(torch_rng *g, int n, int d, bool causal, float lo, float hi) {
    problem p = {n, d, 1 / sqrtf((float)d), causal, random_floats(g, (long)n * d, lo, hi),
                 random_floats(g, (long)n * d, lo, hi), random_floats(g, (long)n * d, -1, 1),
                 random_floats(g, (long)n * d, -1, 1)};
    return p;
}

static void free_problem(problem *p) {
    free(p->q);
    free(p->k);
    free(p->v);
    free(p->dout);
}

static result new_result(int n, int d) {
    long nd = (long)n * d;
    result r = {floats(nd), floats(n), floats(nd), floats(nd), floats(nd)};
    return r;
}

static void free_result(result *r) {
    free(r->out);
    free(r->lse);
    free(r->dq);
    free(r->dk);
    free(r->dv);
}

static result run_tiled(const problem *p) {
    result r = new_result(p->n, p->d);
    tiled_attention_forward(r.out, r.lse, p->q, p->k, p->v, p->n, p->d, p->scale, p->causal);
    tiled_attention_backward(r.dq, r.dk, r.dv, p->dout, p->q, p->k, p->v, r.out, r.lse, p->n, p->d,
                             p->scale, p->causal);
    return r;
}

static result run_naive(const problem *p) {
    result r = new_result(p->n, p->d);
    float *w = floats((long)p->n * p->n), *dw = floats((long)p->n * p->n);
    naive_attention_forward(r.out, w, p->q, p->k, p->v, p->n, p->d, p->scale, p->causal);
    naive_attention_backward(r.dq, r.dk, r.dv, dw, p->dout, w, p->q, p->k, p->v, p->n, p->d, p->scale,
                             p->causal);
    free(w);
    free(dw);
    return r;
}

// Every result of a against the double reference, and against b (naive
// attention, or the loops) when given.
static void check_result(const problem *p, const result *a, const result *b, double tol) {
    long nd = (long)p->n * p->d;
    reference want = reference_attention(p->q, p->k, p->v, p->dout, p->n, p->d, p->scale, p->causal);
    expect_close("out", a->out, want.out, nd, tol);
    expect_close("lse", a->lse, want.lse, p->n, tol);
    expect_close("dq", a->dq, want.dq, nd, tol);
    expect_close("dk", a->dk, want.dk, nd, tol);
    expect_close("dv", a->dv, want.dv, nd, tol);
    if (b) {
        expect_close_floats("out vs other", a->out, b->out, nd, tol);
        expect_close_floats("dq vs other", a->dq, b->dq, nd, tol);
        expect_close_floats("dk vs other", a->dk, b->dk, nd, tol);
        expect_close_floats("dv vs other", a->dv, b->dv, nd, tol);
    }
    free_reference(&want);
}

// n: 1, below, at and around one block (64) and a few; d: 1, odd, the
// vector widths, 64, and above two vectors of AVX-512.
static const int SHAPES[][2] = {{1, 1}, {1, 64}, {2, 3},   {7, 8},   {63, 17}, {64, 64},
                                {65, 5}, {100, 33}, {130, 64}, {200, 16}, {129, 65}, {70, 96}};

START_TEST(tiled_agrees_with_naive_and_double) {
    torch_rng g;
    rng_seed(&g, 2);
    simd_level lv[3];
    int nl = levels(lv);
    for (size_t t = 0; t < sizeof SHAPES / sizeof *SHAPES; t++)
        for (int causal = 0; causal <= 1; causal++) {
            problem p = random_problem(&g, SHAPES[t][0], SHAPES[t][1], causal, -2, 2);
            for (int l = 0; l < nl; l++) {  // the loops, and each set of vector kernels
                use_level(lv[l]);
                result tiled = run_tiled(&p), naive = run_naive(&p);
                check_result(&p, &tiled, &naive, TOL);
                free_result(&tiled);
                free_result(&naive);
            }
            use_best_level();
            free_problem(&p);
        }
}
END_TEST

// Naive attention, non-causal at 1/sqrt(d), is the layers' attention head
// (attention_head.c) on one chunk.
START_TEST(naive_is_the_attention_head) {
    torch_rng g;
    rng_seed(&g, 3);
    int n = 37, d = 16;
    problem p = random_problem(&g, n, d, false, -1, 1);
    result naive = run_naive(&p), head = new_result(n, d);
    float *w = floats((long)n * n), *scratch = floats((long)n * n);
    attention_head_forward(head.out, w, p.q, p.k, p.v, 1, n, d, true);
    attention_head_backward(head.dq, head.dk, head.dv, scratch, p.dout, w, p.q, p.k, p.v, 1, n, d, true);
    expect_close_floats("out", naive.out, head.out, (long)n * d, 1e-6);
    expect_close_floats("dq", naive.dq, head.dq, (long)n * d, 1e-6);
    expect_close_floats("dk", naive.dk, head.dk, (long)n * d, 1e-6);
    expect_close_floats("dv", naive.dv, head.dv, (long)n * d, 1e-6);
    free(w);
    free(scratch);
    free_result(&naive);
    free_result(&head);
    free_problem(&p);
}
END_TEST

// The vector kernels against the readable loops they replace.
START_TEST(kernels_agree_with_the_loops) {
    torch_rng g;
    rng_seed(&g, 4);
    simd_level lv[3];
    int nl = levels(lv);
    for (size_t t = 0; t < sizeof SHAPES / sizeof *SHAPES; t++)
        for (int causal = 0; causal <= 1; causal++) {
            problem p = random_problem(&g, SHAPES[t][0], SHAPES[t][1], causal, -2, 2);
            use_level(SIMD_NONE);
            result loops = run_tiled(&p);
            for (int l = 1; l < nl; l++) {
                use_level(lv[l]);
                result fast = run_tiled(&p);
                expect_close_floats("lse", fast.lse, loops.lse, p.n, 1e-5);
                check_result(&p, &fast, &loops, 1e-5);
                free_result(&fast);
            }
            use_best_level();
            free_result(&loops);
            free_problem(&p);
        }
}
END_TEST

// Scores in the hundred-thousands, exact in float: whole numbers for q
// and k and a scale of 1/8, so that the float scores equal the double
// ones and only the softmax's own arithmetic differs. Without the running
// maximum, e^score would overflow at 89. The output within 1e-5; the
// gradients of q and k multiply the rounding of p (dp - D) by keys and
// queries of up to 300, so they are held to 1e-4.
START_TEST(tiled_with_huge_scores) {
    torch_rng g;
    rng_seed(&g, 5);
    simd_level lv[3];
    int nl = levels(lv);
    int shapes[][2] = {{70, 4}, {130, 3}, {64, 8}};
    for (int t = 0; t < 3; t++)
        for (int causal = 0; causal <= 1; causal++) {
            int n = shapes[t][0], d = shapes[t][1];
            problem p = random_problem(&g, n, d, causal, -300, 300);
            for (long i = 0; i < (long)n * d; i++) {
                p.q[i] = roundf(p.q[i]);
                p.k[i] = roundf(p.k[i]);
            }
            p.scale = 0.125f;
            for (int l = 0; l < nl; l++) {
                use_level(lv[l]);
                result tiled = run_tiled(&p), naive = run_naive(&p);
                reference want = reference_attention(p.q, p.k, p.v, p.dout, n, d, p.scale, p.causal);
                expect_close("out", tiled.out, want.out, (long)n * d, 1e-5);
                expect_close("lse", tiled.lse, want.lse, n, 1e-6);
                check_result(&p, &tiled, &naive, 1e-4);
                free_reference(&want);
                free_result(&tiled);
                free_result(&naive);
            }
            use_best_level();
            free_problem(&p);
        }
}
END_TEST

// Scores of 1e30 and more (q, k of 1e15): every weight 0 or 1, the output
// the value of the best key, lse the best score; and the gradient of the
// values (the only one not multiplied by a score-sized number) finite
// and exact. dq and dk are finite.
START_TEST(tiled_with_scores_near_float_max) {
    torch_rng g;
    rng_seed(&g, 6);
    simd_level lv[3];
    int nl = levels(lv);
    int n = 90, d = 5;
    for (int causal = 0; causal <= 1; causal++) {
        problem p = random_problem(&g, n, d, causal, -1e15f, 1e15f);
        p.scale = 1;
        reference want = reference_attention(p.q, p.k, p.v, p.dout, n, d, 1, causal);
        for (int l = 0; l < nl; l++) {
            use_level(lv[l]);
            result r = run_tiled(&p);
            expect_close("out", r.out, want.out, (long)n * d, 1e-6);
            expect_close("dv", r.dv, want.dv, (long)n * d, 1e-6);
            for (int i = 0; i < n; i++)
                ck_assert_msg(fabs(r.lse[i] - want.lse[i]) <= 1e-6 * fabs(want.lse[i]), "lse[%d] %g, want %g", i,
                              (double)r.lse[i], want.lse[i]);
            for (long i = 0; i < (long)n * d; i++) ck_assert(isfinite(r.dq[i]) && isfinite(r.dk[i]));
            free_result(&r);
        }
        use_best_level();
        free_reference(&want);
        free_problem(&p);
    }
}
END_TEST

// One thread or two: the same bits, forward and backward.
START_TEST(same_bits_with_any_threads) {
    torch_rng g;
    rng_seed(&g, 7);
    int threads = parallel_threads();
    for (int causal = 0; causal <= 1; causal++) {
        problem p = random_problem(&g, 300, 64, causal, -2, 2);
        parallel_set_threads(1);
        result one = run_tiled(&p);
        parallel_set_threads(3);
        result three = run_tiled(&p);
        long nd = 300L * 64;
        ck_assert(memcmp(one.out, three.out, nd * sizeof(float)) == 0);
        ck_assert(memcmp(one.lse, three.lse, 300 * sizeof(float)) == 0);
        ck_assert(memcmp(one.dq, three.dq, nd * sizeof(float)) == 0);
        ck_assert(memcmp(one.dk, three.dk, nd * sizeof(float)) == 0);
        ck_assert(memcmp(one.dv, three.dv, nd * sizeof(float)) == 0);
        free_result(&one);
        free_result(&three);
        free_problem(&p);
    }
    parallel_set_threads(threads);
}
END_TEST

// The backward adds into its arrays, as every layer's does.
START_TEST(backward_adds) {
    torch_rng g;
    rng_seed(&g, 8);
    problem p = random_problem(&g, 80, 8, true, -1, 1);
    result r = run_tiled(&p), twice = run_tiled(&p);
    tiled_attention_backward(twice.dq, twice.dk, twice.dv, p.dout, p.q, p.k, p.v, twice.out, twice.lse, 80, 8,
                             p.scale, true);
    for (long i = 0; i < 80 * 8; i++) {
        ck_assert(fabsf(twice.dq[i] - 2 * r.dq[i]) <= 1e-6f * (1 + fabsf(r.dq[i])));
        ck_assert(fabsf(twice.dv[i] - 2 * r.dv[i]) <= 1e-6f * (1 + fabsf(r.dv[i])));
    }
    free_result(&r);
    free_result(&twice);
    free_problem(&p);
}
END_TEST

START_TEST(flops_counted) {
    ck_assert(attention_flops(4096, 64, false, false) == 4.0 * 4096 * 4096 * 64);
    ck_assert(attention_flops(4096, 64, true, false) == 2.0 * 4096 * 4096 * 64);
    ck_assert(attention_flops(1024, 64, false, true) == 10.0 * 1024 * 1024 * 64);
}
END_TEST

int main(void) {
    Suite *s = suite_create("tiled attention");
    TCase *tc = tcase_create("online softmax");
    tcase_add_test(tc, online_softmax_agrees_with_two_passes);
    tcase_add_test(tc, online_softmax_of_huge_scores);
    tcase_add_test(tc, online_softmax_with_masked_entries);
    tcase_add_test(tc, online_softmax_of_a_fully_masked_row);
    suite_add_tcase(s, tc);
    tc = tcase_create("attention");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tiled_agrees_with_naive_and_double);
    tcase_add_test(tc, naive_is_the_attention_head);
    tcase_add_test(tc, kernels_agree_with_the_loops);
    tcase_add_test(tc, tiled_with_huge_scores);
    tcase_add_test(tc, tiled_with_scores_near_float_max);
    tcase_add_test(tc, same_bits_with_any_threads);
    tcase_add_test(tc, backward_adds);
    tcase_add_test(tc, flops_counted);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
