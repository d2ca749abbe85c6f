// test_kernels.c: the fast kernels against the readable reference code
// they replace, on many shapes, odd ones included, with every set of
// vector instructions this CPU has (ATTN_SIMD caps simd_best, simd.h).
//
// The matrix product and the softmax compute the same sums in another
// order (fused multiply-adds, sums a vector at a time): they must agree to
// rounding. Adam, the embedding's gradient and the means do the very same
// operations in the same order: they must agree to the bit. And the lazy
// Adam of a table must give the same bits as the dense step, however many
// steps a row sits out. Memory from aligned.h starts on a cache line.
#include <check.h>

#include "suite.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layers/adam.h"
#include "layers/adamw.h"
#include "layers/grad_clip.h"
#include "kernels/aligned.h"
#include "kernels/parallel.h"
#include "layers/attention_head.h"
#include "layers/cross_entropy.h"
#include "layers/embedding.h"
#include "kernels/gemm_fast.h"
#include "layers/layernorm.h"
#include "layers/linear.h"
#include "layers/mean.h"
#include "layers/multihead_attention.h"
#include "core/rng.h"
#include "kernels/simd.h"

#include "simd_levels.h"

static float *random_floats(torch_rng *g, long n, float a, float b) {
    float *x = malloc((size_t)(n ? n : 1) * sizeof *x);
    ck_assert_ptr_nonnull(x);
    rng_uniform(g, x, (size_t)n, a, b);
    return x;
}

static float *copy_of(const float *x, long n) {
    float *y = malloc((size_t)(n ? n : 1) * sizeof *y);
    ck_assert_ptr_nonnull(y);
    memcpy(y, x, (size_t)n * sizeof *y);
    return y;
}

// ---------------------------------------------------------------- gemm

// Shapes: tiny, around the vector widths (8, 16, 32) and the row blocks
// (6, 8), the training's, and k beyond the 256 that GEMM_ABT copies at once.
static const int SHAPES[][3] = {
    {1, 1, 1},   {2, 3, 5},    {7, 9, 8},     {8, 16, 16},   {9, 17, 33},  {13, 5, 31},
    {6, 64, 47}, {17, 100, 32}, {32, 32, 32}, {64, 100, 32}, {100, 70, 96}, {3, 300, 20},
    {25, 600, 7}, {129, 33, 100}, {5, 1, 64},  {1, 257, 1}, {1, 130, 256}, {3, 40, 300},
};

START_TEST(gemm_fast_agrees_with_the_reference) {
    torch_rng g;
    rng_seed(&g, 1);
    simd_level lv[3];
    int nl = levels(lv);
    for (size_t t = 0; t < sizeof SHAPES / sizeof *SHAPES; t++) {
        int n = SHAPES[t][0], k = SHAPES[t][1], m = SHAPES[t][2];
        float *a = random_floats(&g, (long)n * k, -1, 1), *b = random_floats(&g, (long)k * m, -1, 1);
        float *c0 = random_floats(&g, (long)n * m, -1, 1);
        for (gemm_layout layout = GEMM_AB; layout <= GEMM_ATB; layout++) {
            float *want = copy_of(c0, (long)n * m);
            gemm_reference(want, a, b, n, k, m, layout);
            float *first = NULL;  // the first vector level's result
            for (int l = 0; l < nl; l++) {
                float *got = copy_of(c0, (long)n * m);
                gemm_fast_rows(lv[l], got, a, b, n, k, m, layout, 0, n);
                // |a b| <= k here; float sums of k terms agree to about k ulp of that
                for (long i = 0; i < (long)n * m; i++)
                    ck_assert_msg(fabsf(got[i] - want[i]) <= 4e-7f * k + 1e-6f,
                                  "%s, layout %d, (%d, %d, %d)[%ld]: %.9g, reference %.9g", simd_name(lv[l]),
                                  layout, n, k, m, i, got[i], want[i]);
                // any split of the rows gives the same bits
                float *split = copy_of(c0, (long)n * m);
                int cut = n / 3;
                gemm_fast_rows(lv[l], split, a, b, n, k, m, layout, cut, n);
                gemm_fast_rows(lv[l], split, a, b, n, k, m, layout, 0, cut);
                ck_assert_msg(memcmp(split, got, (size_t)n * m * sizeof *got) == 0,
                              "%s, layout %d, (%d, %d, %d): rows split at %d differ", simd_name(lv[l]), layout, n,
                              k, m, cut);
                free(split);
                // and so does each row alone (one row has a kernel of its own)
                float *rows = copy_of(c0, (long)n * m);
                for (int i = 0; i < n; i++) gemm_fast_rows(lv[l], rows, a, b, n, k, m, layout, i, i + 1);
                ck_assert_msg(memcmp(rows, got, (size_t)n * m * sizeof *got) == 0,
                              "%s, layout %d, (%d, %d, %d): one row at a time differs", simd_name(lv[l]),
                              layout, n, k, m);
                free(rows);
                if (lv[l] == SIMD_NONE) {
                    free(got);
                } else if (!first) {
                    first = got;
                } else {  // AVX2 and AVX-512 do the same operations
                    ck_assert_msg(memcmp(first, got, (size_t)n * m * sizeof *got) == 0,
                                  "layout %d, (%d, %d, %d): avx2 and avx512 differ", layout, n, k, m);
                    free(got);
                }
            }
            free(first);
            free(want);
        }
        free(a);
        free(b);
        free(c0);
    }
}
END_TEST

// ---------------------------------------------------------------- attention

// gemm_fast_rows_from: each row of c starts from a row (or 0), never from
// what c held, with the bits of setting the rows first and adding the
// product, whole or in slices of rows, at every level.
START_TEST(gemm_from_a_row_writes_what_setting_the_rows_and_adding_gives) {
    torch_rng g;
    rng_seed(&g, 2);
    simd_level lv[3];
    int nl = levels(lv);
    for (size_t t = 0; t < sizeof SHAPES / sizeof *SHAPES; t++) {
        int n = SHAPES[t][0], k = SHAPES[t][1], m = SHAPES[t][2];
        float *a = random_floats(&g, (long)n * k, -1, 1);
        float *b = random_floats(&g, (long)k * m, -1, 1), *row = random_floats(&g, m, -1, 1);
        float *junk = random_floats(&g, (long)n * m, 1e6f, 2e6f);  // what c held
        for (gemm_layout layout = GEMM_AB; layout <= GEMM_ATB; layout++)
            for (int l = 0; l < nl; l++)
                for (int zero = 0; zero <= 1; zero++) {
                    float *want = calloc((size_t)n * m, sizeof *want);
                    ck_assert_ptr_nonnull(want);
                    for (int i = 0; i < n && !zero; i++)
                        memcpy(want + (long)i * m, row, m * sizeof *row);
                    gemm_fast_rows(lv[l], want, a, b, n, k, m, layout, 0, n);
                    float *got = copy_of(junk, (long)n * m), *rows = copy_of(junk, (long)n * m);
                    gemm_fast_rows_from(lv[l], got, zero ? NULL : row, a, b, n, k, m, layout, 0,
                                        n);
                    for (int i = 0; i < n; i++)  // a row at a time
                        gemm_fast_rows_from(lv[l], rows, zero ? NULL : row, a, b, n, k, m,
                                            layout, i, i + 1);
                    ck_assert_msg(memcmp(got, want, (size_t)n * m * sizeof *got) == 0 &&
                                      memcmp(rows, want, (size_t)n * m * sizeof *got) == 0,
                                  "%s, layout %d, (%d, %d, %d), %s: not the bits of the rows "
                                  "set and the product added", simd_name(lv[l]), layout, n, k,
                                  m, zero ? "from 0" : "from a row");
                    free(want);
                    free(got);
                    free(rows);
                }
        // no terms: c is the start row
        float *none = copy_of(junk, (long)n * m);
        gemm_fast_rows_from(lv[nl - 1], none, row, a, b, n, 0, m, GEMM_AB, 0, n);
        for (long i = 0; i < (long)n * m; i++) ck_assert_float_eq(none[i], row[i % m]);
        free(none);
        free(a);
        free(b);
        free(row);
        free(junk);
    }
}
END_TEST

// linear_forward and linear_backward_write write their outputs: the numbers
// out and dinp held before do not count, and linear_backward_write's dinp is
// what linear_backward adds into a cleared one, to the bit, at every level.
START_TEST(linear_layers_write_what_they_are_asked_for) {
    torch_rng g;
    rng_seed(&g, 3);
    simd_level lv[3];
    int nl = levels(lv);
    // in > 256: two slices of the copied weight; out: blocks of four vectors and a rest
    const int n = 37, in = 300, out = 150;
    float *x = random_floats(&g, (long)n * in, -1, 1);
    float *w = random_floats(&g, (long)in * out, -1, 1);
    float *bias = random_floats(&g, out, -1, 1), *dy = random_floats(&g, (long)n * out, -1, 1);
    float *junk = random_floats(&g, (long)n * (in > out ? in : out), 1e6f, 2e6f);
    float *db0 = NULL;  // the bias's gradient at the first level: every level's bits
    for (int l = 0; l < nl; l++)
        for (weight_layout layout = WEIGHT_OUT_IN; layout <= WEIGHT_IN_OUT; layout++) {
            use_level(lv[l]);
            float *y1 = calloc((size_t)n * out, sizeof *y1), *y2 = copy_of(junk, (long)n * out);
            ck_assert_ptr_nonnull(y1);
            linear_forward(y1, x, w, bias, n, in, out, layout);
            linear_forward(y2, x, w, bias, n, in, out, layout);
            ck_assert_mem_eq(y1, y2, (size_t)n * out * sizeof *y1);
            float *dx1 = calloc((size_t)n * in, sizeof *dx1), *dx2 = copy_of(junk, (long)n * in);
            float *dw1 = calloc((size_t)in * out, sizeof *dw1), *dw2 = calloc((size_t)in * out, 4);
            float *db1 = calloc(out, sizeof *db1), *db2 = calloc(out, sizeof *db2);
            ck_assert(dx1 && dw1 && dw2 && db1 && db2);
            linear_backward(dx1, dw1, db1, dy, x, w, n, in, out, layout);
            linear_backward_write(dx2, dw2, db2, dy, x, w, n, in, out, layout);
            ck_assert_msg(memcmp(dx1, dx2, (size_t)n * in * sizeof *dx1) == 0 &&
                              memcmp(dw1, dw2, (size_t)in * out * sizeof *dw1) == 0 &&
                              memcmp(db1, db2, (size_t)out * sizeof *db1) == 0,
                          "%s, layout %d: linear_backward_write differs", simd_name(lv[l]), layout);
            if (!db0) db0 = copy_of(db1, out);
            ck_assert_msg(memcmp(db1, db0, (size_t)out * sizeof *db1) == 0,
                          "%s: the bias's gradient differs from %s's", simd_name(lv[l]),
                          simd_name(lv[0]));
            free(y1), free(y2), free(dx1), free(dx2), free(dw1), free(dw2), free(db1), free(db2);
        }
    use_best_level();
    free(x), free(w), free(bias), free(dy), free(junk), free(db0);
}
END_TEST

START_TEST(attention_fast_agrees_with_the_reference) {
    torch_rng g;
    rng_seed(&g, 2);
    simd_level lv[3];
    int nl = levels(lv);
    int shapes[][3] = {{1, 1, 1}, {2, 5, 3}, {3, 17, 9}, {4, 32, 32}, {2, 33, 40}, {1, 64, 16}};  // B, L, d_k
    for (size_t t = 0; t < sizeof shapes / sizeof *shapes; t++) {
        int B = shapes[t][0], L = shapes[t][1], dk = shapes[t][2];
        long nq = (long)B * L * dk, nw = (long)B * L * L;
        float *q = random_floats(&g, nq, -2, 2), *k = random_floats(&g, nq, -2, 2), *v = random_floats(&g, nq, -1, 1);
        float *dout = random_floats(&g, nq, -1, 1);
        for (int softmax = 0; softmax <= 1; softmax++) {
            float *out0 = calloc((size_t)nq, 4), *w0 = calloc((size_t)nw, 4), *s0 = calloc((size_t)L * L, 4);
            float *dq0 = calloc((size_t)nq, 4), *dk0 = calloc((size_t)nq, 4), *dv0 = calloc((size_t)nq, 4);
            use_level(SIMD_NONE);  // the plain loops
            attention_head_forward(out0, w0, q, k, v, B, L, dk, softmax);
            attention_head_backward(dq0, dk0, dv0, s0, dout, w0, q, k, v, B, L, dk, softmax);
            for (int l = 1; l < nl; l++) {
                use_level(lv[l]);
                float *out = calloc((size_t)nq, 4), *w = calloc((size_t)nw, 4), *s = calloc((size_t)L * L, 4);
                float *dq = calloc((size_t)nq, 4), *dkk = calloc((size_t)nq, 4), *dv = calloc((size_t)nq, 4);
                attention_head_forward(out, w, q, k, v, B, L, dk, softmax);
                attention_head_backward(dq, dkk, dv, s, dout, w, q, k, v, B, L, dk, softmax);
                const float *got[] = {out, w, dq, dkk, dv}, *want[] = {out0, w0, dq0, dk0, dv0};
                const long len[] = {nq, nw, nq, nq, nq};
                const char *what[] = {"out", "w", "dq", "dk", "dv"};
                for (int x = 0; x < 5; x++)
                    for (long i = 0; i < len[x]; i++) {
                        float tol = 2e-6f * (L + dk) * (softmax ? 1 : 4 * dk) * (1 + fabsf(want[x][i]));
                        ck_assert_msg(fabsf(got[x][i] - want[x][i]) <= tol,
                                      "%s, softmax %d, (%d, %d, %d): %s[%ld] %.9g, reference %.9g",
                                      simd_name(lv[l]), softmax, B, L, dk, what[x], i, got[x][i], want[x][i]);
                    }
                if (softmax)  // the weights of a row sum to 1
                    for (int r = 0; r < B * L; r++) {
                        double sum = 0;
                        for (int j = 0; j < L; j++) sum += w[(long)r * L + j];
                        ck_assert_msg(fabs(sum - 1) < 1e-5, "%s: a softmax row sums to %.9g", simd_name(lv[l]), sum);
                    }
                free(out), free(w), free(s), free(dq), free(dkk), free(dv);
            }
            free(out0), free(w0), free(s0), free(dq0), free(dk0), free(dv0);
        }
        free(q), free(k), free(v), free(dout);
    }
    use_best_level();
}
END_TEST

// nn.MultiheadAttention (multihead_attention.c): with kernels, each head is
// read in place by attention_head_forward and _backward; at SIMD_NONE the
// readable loops copy the heads out and back. The products differ in
// rounding (gemm_reference against fused multiply-adds), so the two agree
// to rounding; the AVX2 and AVX-512 kernels sum every entry in the same
// order and agree to the bit. Self-attention, causal, with key padding and
// with rows left out (q_len, k_len), and cross-attention.
enum { MB = 3, MNQ = 7, MNK = 9, MD = 32, MH = 2 };

typedef struct {
    float out[MB * MNQ * MD], w[MB * MH * MNQ * MNK], dq[MB * MNQ * MD], dkv[MB * MNK * MD];
    float grads[4 * MD * MD + 4 * MD];
} mha_result;

static void run_mha(mha_result *r, const float *params, const float *query, const float *kv,
                    const float *dout, const bool *pad, bool causal, bool self, const int *q_len,
                    const int *k_len) {
    int n_k = self ? MNQ : MNK;
    mha_cache c;
    ck_assert_int_eq(mha_cache_alloc(&c, MB, MNQ, n_k, MD, MH), 0);
    // with rows left out the weights are packed and fill only the front of
    // c.w: the rest is never written, so it starts as zeros in every run
    memset(c.w, 0, sizeof(float) * MB * MH * MNQ * n_k);
    mha_params p = {(float *)params, (float *)params + 3 * MD * MD,
                    (float *)params + 3 * MD * MD + 3 * MD, (float *)params + 4 * MD * MD + 3 * MD};
    memset(r, 0, sizeof *r);
    float *gb = r->grads;
    mha_params g = {gb, gb + 3 * MD * MD, gb + 3 * MD * MD + 3 * MD, gb + 4 * MD * MD + 3 * MD};
    mha_forward(r->out, &c, &p, query, self ? query : kv, pad, causal, MB, MNQ, n_k, MD, MH, q_len,
                k_len);
    memcpy(r->w, c.w, sizeof(float) * MB * MH * MNQ * n_k);
    mha_backward(r->dq, self ? r->dq : r->dkv, &g, &c, dout, query, self ? query : kv, &p, MB,
                 MNQ, n_k, MD, MH, q_len, k_len);
    mha_cache_free(&c);
}

// One query against keys kept transposed in a wider room (a cache's
// layout) gives the bits of mha_head_forward on the keys themselves, at
// every vector level.
START_TEST(query_against_transposed_keys_gives_the_same_bits) {
    torch_rng g;
    rng_seed(&g, 5);
    simd_level lv[3];
    int nl = levels(lv);
    const int shapes[][2] = { {1, 8}, {5, 32}, {33, 32}, {64, 16}, {70, 24} };  // n_k, d_k
    for (size_t t = 0; t < sizeof shapes / sizeof *shapes; t++) {
        int nk = shapes[t][0], dk = shapes[t][1];
        const long room = nk + 7;  // the transposed keys' rows, room apart
        float *q = random_floats(&g, dk, -2, 2), *k = random_floats(&g, (long)nk * dk, -2, 2);
        float *v = random_floats(&g, (long)nk * dk, -1, 1), *kt = calloc((size_t)room * dk, 4);
        float *w0 = calloc((size_t)nk, 4), *z0 = calloc((size_t)dk, 4);
        float *w = calloc((size_t)nk, 4), *z = calloc((size_t)dk, 4);
        float *scratch = calloc((size_t)nk * dk, 4);
        for (int j = 0; j < nk; j++)
            for (int p = 0; p < dk; p++) kt[p * room + j] = k[j * dk + p];
        for (int l = 0; l < nl; l++) {
            use_level(lv[l]);
            mha_head_forward(w0, z0, q, k, v, NULL, false, 1, nk, dk, scratch);
            mha_query_forward(w, z, q, kt, room, v, nk, dk);
            ck_assert_msg(memcmp(w, w0, (size_t)nk * 4) == 0, "%s, n_k %d: weights", simd_name(lv[l]), nk);
            ck_assert_msg(memcmp(z, z0, (size_t)dk * 4) == 0, "%s, n_k %d: output", simd_name(lv[l]), nk);
        }
        use_best_level();
        float *arrays[] = { q, k, v, kt, w0, z0, w, z, scratch };
        for (int a = 0; a < 9; a++) free(arrays[a]);
    }
}
END_TEST

START_TEST(multihead_attention_fast_agrees_with_the_reference) {
    torch_rng g;
    rng_seed(&g, 5);
    simd_level lv[3];
    int nl = levels(lv);
    float *params = random_floats(&g, 4 * MD * MD + 4 * MD, -0.3f, 0.3f);
    float *query = random_floats(&g, MB * MNQ * MD, -1, 1), *kv = random_floats(&g, MB * MNK * MD, -1, 1);
    float *dout = random_floats(&g, MB * MNQ * MD, -1, 1);
    bool pad[MB * MNK];
    for (int e = 0; e < MB * MNK; e++) pad[e] = e % MNK >= MNK - 2 * (e / MNK);  // 0, 2, 4 padded
    const int q_len[MB] = {7, 5, 3}, k_len[MB] = {9, 7, 5};
    mha_result *want = malloc(sizeof *want), *got = malloc(sizeof *got), *first = malloc(sizeof *first);
    ck_assert(want && got && first);
    for (int kind = 0; kind < 3; kind++) {  // self causal, cross, cross on rows kept
        bool self = kind == 0;
        const int *ql = kind == 2 ? q_len : NULL, *kl = kind == 2 ? k_len : NULL;
        use_level(SIMD_NONE);
        run_mha(want, params, query, kv, dout, self ? NULL : pad, self, self, ql, kl);
        for (int l = 1; l < nl; l++) {
            use_level(lv[l]);
            run_mha(got, params, query, kv, dout, self ? NULL : pad, self, self, ql, kl);
            const float *x = (const float *)got, *y = (const float *)want;
            for (size_t i = 0; i < sizeof *got / sizeof(float); i++)
                ck_assert_msg(fabsf(x[i] - y[i]) <= 1e-5f * (1 + fabsf(y[i])),
                              "%s, kind %d: number %zu %.9g, reference %.9g", simd_name(lv[l]), kind,
                              i, x[i], y[i]);
            if (l == 1) memcpy(first, got, sizeof *got);
            else ck_assert_msg(memcmp(first, got, sizeof *got) == 0, "kind %d: %s and %s differ",
                               kind, simd_name(lv[1]), simd_name(lv[l]));
        }
    }
    free(want), free(got), free(first), free(params), free(query), free(kv), free(dout);
    use_best_level();
}
END_TEST

// Causal self-attention over sequences longer than the kernels' blocks
// (rows of GEMM_ROWS, panels of two vectors of keys, head_dot's 16), whose
// products skip the terms of the keys a query does not see: the readable
// loops' results to rounding, AVX2 and AVX-512 to the bit.
START_TEST(causal_attention_of_long_sequences) {
    enum { B = 2, D = 64, H = 2 };
    torch_rng g;
    rng_seed(&g, 6);
    simd_level lv[3];
    int nl = levels(lv);
    const int lengths[] = {40, 64, 70};
    float *params = random_floats(&g, 4 * D * D + 4 * D, -0.3f, 0.3f);
    mha_params p = {params, params + 3 * D * D, params + 3 * D * D + 3 * D,
                    params + 4 * D * D + 3 * D};
    for (size_t t = 0; t < sizeof lengths / sizeof *lengths; t++) {
        const int n = lengths[t];
        const long nd = (long)B * n * D, np = 4 * D * D + 4 * D, all = 2 * nd + np;
        float *x = random_floats(&g, nd, -2, 2), *dout = random_floats(&g, nd, -1, 1);
        float *want = calloc((size_t)all, 4), *first = calloc((size_t)all, 4);
        for (int l = 0; l < nl; l++) {
            use_level(lv[l]);
            float *got = l == 0 ? want : calloc((size_t)all, 4);  // out, dx, the gradients
            mha_params gr = {got + 2 * nd, got + 2 * nd + 3 * D * D,
                             got + 2 * nd + 3 * D * D + 3 * D, got + 2 * nd + 4 * D * D + 3 * D};
            mha_cache c;
            ck_assert_int_eq(mha_cache_alloc(&c, B, n, n, D, H), 0);
            mha_forward(got, &c, &p, x, x, NULL, true, B, n, n, D, H, NULL, NULL);
            mha_backward(got + nd, got + nd, &gr, &c, dout, x, x, &p, B, n, n, D, H, NULL, NULL);
            mha_cache_free(&c);
            for (long i = 0; l > 0 && i < all; i++)
                ck_assert_msg(fabsf(got[i] - want[i]) <= 1e-4f * (1 + fabsf(want[i])),
                              "%s, n %d: number %ld %.9g, reference %.9g", simd_name(lv[l]), n, i,
                              got[i], want[i]);
            if (l == 1) memcpy(first, got, (size_t)all * 4);
            if (l > 1)
                ck_assert_msg(memcmp(first, got, (size_t)all * 4) == 0, "n %d: %s and %s differ",
                              n, simd_name(lv[1]), simd_name(lv[l]));
            if (l > 0) free(got);
        }
        free(x), free(dout), free(want), free(first);
    }
    free(params);
    use_best_level();
}
END_TEST

// layernorm_forward and _backward: the kernels' vectors of partial sums
// are the readable code's 16 interleaved sums, and the backward sums are
// taken in the readable order, so the two agree to the bit; widths with
// and without a tail of the 16, under a vector, and beyond the backward
// kernel's block of 256.
START_TEST(layer_norm_gives_the_same_bits) {
    torch_rng g;
    rng_seed(&g, 6);
    simd_level lv[3];
    int nl = levels(lv);
    const int widths[] = {1, 5, 16, 32, 37, 64, 100, 300};
    for (size_t t = 0; t < sizeof widths / sizeof *widths; t++) {
        int n = 9, d = widths[t];
        float *x = random_floats(&g, (long)n * d, -3, 5), *gain = random_floats(&g, d, 0.5f, 1.5f);
        float *bias = random_floats(&g, d, -1, 1);
        float *y0 = calloc((size_t)n * d, 4), *y = calloc((size_t)n * d, 4), m0[9], r0[9], m[9], r[9];
        float *dy = random_floats(&g, (long)n * d, -1, 1), *start = random_floats(&g, (long)n * d + 2 * d, -1, 1);
        float *grads0 = copy_of(start, (long)n * d + 2 * d), *grads = malloc(((size_t)n * d + 2 * d) * 4);
        use_level(SIMD_NONE);
        layernorm_forward(y0, m0, r0, x, gain, bias, n, d);
        // dinp, dgain, dbias added to what grads0 holds
        layernorm_backward(grads0, grads0 + n * d, grads0 + n * d + d, dy, x, m0, r0, gain, n, d);
        for (int l = 1; l < nl; l++) {
            use_level(lv[l]);
            layernorm_forward(y, m, r, x, gain, bias, n, d);
            ck_assert_msg(memcmp(y, y0, (size_t)n * d * 4) == 0 && memcmp(m, m0, sizeof m) == 0 &&
                          memcmp(r, r0, sizeof r) == 0, "%s, d %d: not the same bits", simd_name(lv[l]), d);
            memcpy(grads, start, ((size_t)n * d + 2 * d) * 4);
            layernorm_backward(grads, grads + n * d, grads + n * d + d, dy, x, m0, r0, gain, n, d);
            ck_assert_msg(memcmp(grads, grads0, ((size_t)n * d + 2 * d) * 4) == 0,
                          "%s, d %d: backward, not the same bits", simd_name(lv[l]), d);
        }
        free(x), free(gain), free(bias), free(y0), free(y), free(dy), free(start), free(grads0), free(grads);
    }
    use_best_level();
}
END_TEST

// add_arrays, the residual sums of transformer_layer.c: y = a + b, the
// same bits as the loop, also when y is a; lengths around the vectors.
START_TEST(residual_sums_give_the_same_bits) {
    torch_rng g;
    rng_seed(&g, 7);
    simd_level lv[3];
    int nl = levels(lv);
    const long lengths[] = {1, 7, 8, 15, 16, 17, 64, 1000};
    for (size_t t = 0; t < sizeof lengths / sizeof *lengths; t++) {
        long n = lengths[t];
        float *a = random_floats(&g, n, -3, 3), *b = random_floats(&g, n, -1e-3f, 1e-3f);
        float *want = malloc((size_t)n * 4);
        for (long i = 0; i < n; i++) want[i] = a[i] + b[i];
        for (int l = 1; l < nl; l++) {
            float *y = copy_of(a, n);
            ck_assert(SIMD_RUN(lv[l], add_arrays, y, y, b, n));  // y = y + b
            ck_assert_msg(memcmp(y, want, (size_t)n * 4) == 0, "%s, n %ld: not the same bits",
                          simd_name(lv[l]), n);
            free(y);
        }
        free(a), free(b), free(want);
    }
}
END_TEST

// Scores far apart: the largest weight is 1, the others underflow to
// (nearly) nothing, and nothing becomes infinite or NaN.
START_TEST(softmax_of_extreme_scores) {
    simd_level lv[3];
    int nl = levels(lv);
    enum { L = 19 };
    for (int l = 0; l < nl; l++) {
        use_level(lv[l]);
        float q[L], k[L], v[L], out[L], w[L * L];
        for (int i = 0; i < L; i++) q[i] = 1, k[i] = (float)(i * 40 - 300), v[i] = (float)i;
        attention_head_forward(out, w, q, k, v, 1, L, 1, true);
        for (int i = 0; i < L; i++) {
            ck_assert_msg(fabsf(w[i * L + L - 1] - 1) < 1e-6f, "%s: %g", simd_name(lv[l]), w[i * L + L - 1]);
            ck_assert_msg(fabsf(out[i] - (L - 1)) < 1e-4f, "%s: %g", simd_name(lv[l]), out[i]);
            for (int j = 0; j < L - 1; j++) ck_assert(w[i * L + j] >= 0 && w[i * L + j] < 1e-17f);
        }
    }
    use_best_level();
}
END_TEST

// ---------------------------------------------------------------- cross-entropy

// cross_entropy_rows and _backward at each level against the loops (in
// double) on widths around the vectors' and the GPT's 81, one row with a
// logit far above the others, one whose logits are all far below 0 (whose
// e^z underflow but for the largest's shift): the losses to float's rounding, every number
// of dz written, AVX2 and AVX-512 the same bits. A flat row costs log V,
// and each row's gradient sums to 0.
START_TEST(cross_entropy_rows_agree_at_every_level) {
    simd_level lv[3];
    int nl = levels(lv);
    static const int WIDTHS[] = {1, 5, 8, 15, 16, 17, 31, 33, 81};
    enum { ROWS = 6, C = 3 };
    torch_rng g;
    rng_seed(&g, 11);
    for (size_t s = 0; s < sizeof WIDTHS / sizeof *WIDTHS; s++) {
        const int V = WIDTHS[s];
        float *z = random_floats(&g, (long)ROWS * V, -8, 8);
        for (int v = 0; v < V; v++) z[v] = 0;           // row 0 flat
        z[V + V / 2] = 60;                             // row 1 nearly sure of one token
        for (int v = 0; v < V; v++) z[2 * V + v] = -300 + (float)v / V;  // row 2 far below 0
        int32_t y[ROWS];
        for (int r = 0; r < ROWS; r++) y[r] = (r * 7 + 3) % V;
        y[1] = V / 2;
        double loss[3][ROWS], lse[3][ROWS];
        float *dz[3];
        for (int l = 0; l < nl; l++) {
            use_level(lv[l]);
            dz[l] = malloc((size_t)ROWS * V * sizeof *dz[l]);
            ck_assert_ptr_nonnull(dz[l]);
            for (int i = 0; i < ROWS * V; i++) dz[l][i] = NAN;  // written, never read
            cross_entropy_rows(loss[l], lse[l], z, y, ROWS, V);
            cross_entropy_rows_backward(dz[l], z, y, lse[l], ROWS, V, C);
            ck_assert_msg(fabs(loss[l][0] - log((double)V)) < 1e-6, "%s V %d: flat row %.9g",
                          simd_name(lv[l]), V, loss[l][0]);
            for (int r = 0; r < ROWS; r++) {
                double sum = 0;
                for (int v = 0; v < V; v++) sum += dz[l][r * V + v];
                ck_assert_msg(fabs(sum) < 1e-6, "%s V %d row %d: gradient sums to %g",
                              simd_name(lv[l]), V, r, sum);
                ck_assert_msg(fabs(loss[l][r] - loss[0][r]) <= 1e-6 + 1e-6 * fabs(loss[0][r]),
                              "%s V %d row %d: loss %.9g, loop %.9g", simd_name(lv[l]), V, r,
                              loss[l][r], loss[0][r]);
                ck_assert(fabs(lse[l][r] - lse[0][r]) <= 1e-6 + 1e-6 * fabs(lse[0][r]));
            }
            for (int i = 0; i < ROWS * V; i++)
                ck_assert_msg(fabsf(dz[l][i] - dz[0][i]) <= 1e-7f + 4e-6f * fabsf(dz[0][i]),
                              "%s V %d at %d: %.9g, loop %.9g", simd_name(lv[l]), V, i,
                              dz[l][i], dz[0][i]);
        }
        if (nl == 3) {  // AVX2 and AVX-512
            ck_assert(memcmp(loss[1], loss[2], sizeof loss[1]) == 0);
            ck_assert(memcmp(lse[1], lse[2], sizeof lse[1]) == 0);
            ck_assert(memcmp(dz[1], dz[2], (size_t)ROWS * V * sizeof *dz[1]) == 0);
        }
        for (int l = 0; l < nl; l++) free(dz[l]);
        free(z);
    }
    use_best_level();
}
END_TEST

// ---------------------------------------------------------------- layers

START_TEST(embedding_and_mean_give_the_same_bits) {
    torch_rng g;
    rng_seed(&g, 3);
    simd_level lv[3];
    int nl = levels(lv);
    int sizes[][3] = {{1, 1, 1}, {3, 7, 5}, {4, 32, 100}, {2, 9, 33}, {5, 3, 16}};  // B, L, d
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int B = sizes[t][0], L = sizes[t][1], d = sizes[t][2], V = 11, n = B * L;
        float *x = random_floats(&g, (long)n * d, -1, 1), *table0 = random_floats(&g, (long)V * d, -1, 1);
        float *dout = random_floats(&g, (long)B * d, -1, 1);
        int32_t *ids = malloc((size_t)n * sizeof *ids);
        for (int i = 0; i < n; i++) ids[i] = (int32_t)(rng_next_u32(&g) % V);  // repeats, surely
        float *table[3], *mean[3], *dx[3];
        for (int l = 0; l < nl; l++) {
            use_level(lv[l]);
            table[l] = copy_of(table0, (long)V * d);
            embedding_backward(table[l], x, ids, n, d);
            mean[l] = calloc((size_t)B * d, sizeof(float));
            mean_forward(mean[l], x, B, L, d);
            dx[l] = copy_of(x, (long)n * d);
            mean_backward(dx[l], dout, B, L, d);
        }
        for (int l = 1; l < nl; l++) {
            ck_assert_msg(memcmp(table[l], table[0], (size_t)V * d * 4) == 0, "%s: embedding_backward", simd_name(lv[l]));
            ck_assert_msg(memcmp(mean[l], mean[0], (size_t)B * d * 4) == 0, "%s: mean_forward", simd_name(lv[l]));
            ck_assert_msg(memcmp(dx[l], dx[0], (size_t)n * d * 4) == 0, "%s: mean_backward", simd_name(lv[l]));
        }
        for (int l = 0; l < nl; l++) free(table[l]), free(mean[l]), free(dx[l]);
        free(x), free(table0), free(dout), free(ids);
    }
    use_best_level();
}
END_TEST

// ---------------------------------------------------------------- Adam

START_TEST(adam_step_rows_gives_the_bits_of_adam_step) {
    torch_rng g;
    rng_seed(&g, 4);
    simd_level lv[3];
    int nl = levels(lv);
    int sizes[] = {1, 7, 16, 17, 100, 1001};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int n = sizes[t];
        float *p0 = random_floats(&g, n, -1, 1);
        adam_state ref;
        ck_assert_int_eq(adam_init(&ref, (size_t)n, 1e-2), 0);
        float *pref = copy_of(p0, n);
        for (int l = 0; l < nl; l++) {
            use_level(lv[l]);
            adam_state fast;
            ck_assert_int_eq(adam_init(&fast, (size_t)n, 1e-2), 0);
            float *p = copy_of(p0, n);
            torch_rng gg;
            rng_seed(&gg, 40);
            for (int step = 0; step < 30; step++) {
                float *grad = random_floats(&gg, n, -1, 1);
                for (int i = 0; i < n; i += 3) grad[i] = 0;  // some zero, as an unused row's
                if (l == 0) adam_step(&ref, pref, grad);
                adam_step_rows(&fast, p, grad, NULL, 0);  // no table: all of them
                free(grad);
            }
            ck_assert_msg(memcmp(p, pref, (size_t)n * 4) == 0, "%s, n %d: parameters", simd_name(lv[l]), n);
            ck_assert_msg(memcmp(fast.m, ref.m, (size_t)n * 4) == 0, "%s, n %d: first moments", simd_name(lv[l]), n);
            ck_assert_msg(memcmp(fast.v, ref.v, (size_t)n * 4) == 0, "%s, n %d: second moments", simd_name(lv[l]), n);
            adam_free(&fast);
            free(p);
        }
        adam_free(&ref);
        free(pref);
        free(p0);
    }
    use_best_level();
}
END_TEST

// AdamW (adamw_step: the adamw_dense kernel on each run of decayed or not
// decayed parameters) with every level: the bits of the readable loop
// (level none), runs of odd lengths, parameters decayed first and last.
START_TEST(adamw_step_gives_the_same_bits_with_every_level) {
    enum { N = 1001, STEPS = 20 };
    torch_rng g;
    rng_seed(&g, 5);
    simd_level lv[3];
    int nl = levels(lv);
    float *p0 = random_floats(&g, N, -1, 1), *grads = random_floats(&g, (long)N * STEPS, -1, 1);
    float *want = NULL, *want_m = NULL, *want_v = NULL;
    for (int l = 0; l < nl; l++) {
        use_level(lv[l]);
        adamw_state s;
        ck_assert_int_eq(adamw_init(&s, N, 0.1), 0);
        const size_t runs[][2] = { {0, 1}, {5, 17}, {40, 300}, {341, 1}, {600, 401} };
        for (size_t r = 0; r < sizeof runs / sizeof *runs; r++)
            ck_assert_int_eq(adamw_decay(&s, runs[r][0], runs[r][1]), 0);
        float *p = copy_of(p0, N);
        for (int t = 0; t < STEPS; t++) adamw_step(&s, p, grads + (long)t * N, 1e-2 * (t + 1));
        if (l == 0) {
            want = p, want_m = copy_of(s.m, N), want_v = copy_of(s.v, N);
        } else {
            ck_assert_msg(memcmp(p, want, N * 4) == 0, "%s: parameters", simd_name(lv[l]));
            ck_assert_msg(memcmp(s.m, want_m, N * 4) == 0, "%s: first moments", simd_name(lv[l]));
            ck_assert_msg(memcmp(s.v, want_v, N * 4) == 0, "%s: second moments", simd_name(lv[l]));
            free(p);
        }
        adamw_free(&s);
    }
    free(p0), free(grads), free(want), free(want_m), free(want_v);
    use_best_level();
}
END_TEST

// A table of rows, most of them unused in most steps, some never used and
// some used only once, over more steps than a lazy table keeps constants
// for: after adam_catch_up, the same bits as adam_step on every number.
// The lazy run writes each step's gradients as a training step does: into
// the rows it has just caught up (the table keeps the others until then).
// AdamW and clipping on enough parameters for the threads to share them:
// the same bits on one thread and on two, and clipping scales every
// gradient by the one factor.
START_TEST(adamw_and_clipping_give_the_same_bits_on_any_threads) {
    enum { N = 70001, STEPS = 3 };
    torch_rng g;
    rng_seed(&g, 6);
    float *p0 = random_floats(&g, N, -1, 1), *g0 = random_floats(&g, N, -1, 1);
    float *want = NULL, *want_g = NULL;
    for (int threads = 1; threads <= 2; threads++) {
        parallel_set_threads(threads);
        adamw_state s;
        ck_assert_int_eq(adamw_init(&s, N, 0.1), 0);
        ck_assert_int_eq(adamw_decay(&s, 1000, 40000), 0);
        float *p = copy_of(p0, N), *grads = copy_of(g0, N);
        double norm = grad_clip(grads, N, 1.0);
        for (long i = 0; i < N; i++)  // the norm is about sqrt(N / 3): every one clipped
            ck_assert_float_eq(grads[i], g0[i] * (float)(1.0 / (norm + 1e-6)));
        for (int t = 0; t < STEPS; t++) adamw_step(&s, p, grads, 1e-2);
        if (threads == 1) {
            want = p, want_g = grads;
        } else {
            ck_assert_msg(memcmp(p, want, N * sizeof *p) == 0, "AdamW on two threads differs");
            ck_assert_msg(memcmp(grads, want_g, N * sizeof *p) == 0, "clipping differs");
            free(p), free(grads);
        }
        adamw_free(&s);
    }
    free(p0), free(g0), free(want), free(want_g);
}
END_TEST

START_TEST(lazy_rows_give_the_bits_of_the_dense_step) {
    enum { DENSE = 13, ROWS = 40, WIDTH = 21, N = DENSE + ROWS * WIDTH, STEPS = ADAM_LAZY_STEPS + 300 };
    simd_level lv[3];
    int nl = levels(lv);
    for (int l = 0; l < nl; l++) {
        use_level(lv[l]);
        torch_rng g;
        rng_seed(&g, 5);
        float *p0 = random_floats(&g, N, -1, 1);
        float *dense = copy_of(p0, N), *lazy = copy_of(p0, N), grad[N], held[N] = {0};
        adam_state a, b;
        ck_assert_int_eq(adam_init(&a, N, 5e-2), 0);
        ck_assert_int_eq(adam_init(&b, N, 5e-2), 0);
        ck_assert_int_eq(adam_lazy_rows(&b, ROWS, WIDTH), 0);
        for (int step = 0; step < STEPS; step++) {
            memset(grad, 0, sizeof grad);
            rng_uniform(&g, grad, DENSE, -1, 1);
            int32_t rows[4];
            int nrows = 0;
            for (int r = 0; r < 4; r++) {  // rows 0 .. 35 now and then; row 36 once; 37 .. 39 never
                int32_t row = (int32_t)(rng_next_u32(&g) % 36);
                if (step == 1000 && r == 0) row = 36;
                if (rng_next_u32(&g) % 3 == 0) continue;
                bool seen = false;
                for (int i = 0; i < nrows; i++) seen |= rows[i] == row;
                if (seen) continue;
                rows[nrows++] = row;
                rng_uniform(&g, grad + DENSE + (long)row * WIDTH, WIDTH, -1, 1);
            }
            adam_catch_up(&b, lazy, held, rows, nrows);  // as a training step does before its forward pass
            for (int i = 0; i < nrows; i++) {  // the rows read are up to date, their gradient rows clear
                long at = DENSE + (long)rows[i] * WIDTH;
                ck_assert(memcmp(lazy + at, dense + at, WIDTH * 4) == 0);
                for (int j = 0; j < WIDTH; j++) ck_assert(held[at + j] == 0);
                memcpy(held + at, grad + at, WIDTH * 4);  // the backward pass writes them
            }
            memcpy(held, grad, DENSE * 4);
            adam_step(&a, dense, grad);
            adam_step_rows(&b, lazy, held, rows, nrows);
        }
        adam_catch_up(&b, lazy, held, NULL, 0);
        ck_assert_msg(memcmp(lazy, dense, sizeof grad) == 0, "%s: parameters", simd_name(lv[l]));
        for (int i = DENSE; i < N; i++) ck_assert(held[i] == 0);
        for (int i = 0; i < N; i++)  // equal values (a zero's sign may differ)
            ck_assert_msg(a.m[i] == b.m[i] && a.v[i] == b.v[i], "%s: moments of %d", simd_name(lv[l]), i);
        adam_free(&a);
        adam_free(&b);
        free(p0), free(dense), free(lazy);
    }
    use_best_level();
}
END_TEST

START_TEST(lazy_rows_refuse_what_does_not_fit) {
    adam_state s;
    ck_assert_int_eq(adam_init(&s, 100, 1e-3), 0);
    ck_assert_int_eq(adam_lazy_rows(&s, 11, 10), -1);  // 110 > 100
    ck_assert_int_eq(adam_lazy_rows(&s, 0, 10), -1);
    ck_assert_int_eq(adam_lazy_rows(&s, 10, 10), 0);
    adam_free(&s);
}
END_TEST

// aligned.h's sizes: whole cache lines, at least one, as C11's
// aligned_alloc asks; for a count and size whose product overflows, a size
// no object can have (so aligned_alloc returns NULL); and a block starts on
// a line, zeroed by ALIGNED_CALLOC.
START_TEST(aligned_memory_is_whole_lines) {
    ck_assert_uint_eq(aligned_size(0, 4), 64);
    ck_assert_uint_eq(aligned_size(1, 4), 64);
    ck_assert_uint_eq(aligned_size(16, 4), 64);
    ck_assert_uint_eq(aligned_size(17, 4), 128);
    ck_assert_uint_eq(aligned_size(3, 1000), 3008);
    ck_assert_uint_eq(aligned_size(SIZE_MAX / 2, 4) % 64, 0);
    ck_assert_uint_ge(aligned_size(SIZE_MAX / 2, 4), (size_t)PTRDIFF_MAX / 2);
    float *x = ALIGNED_CALLOC(1001, sizeof *x);
    ck_assert_ptr_nonnull(x);
    ck_assert_uint_eq((uintptr_t)x % 64, 0);
    for (int i = 0; i < 1001; i++) ck_assert_float_eq(x[i], 0);
    free(x);
}
END_TEST

int main(void) {
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("kernels");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gemm_fast_agrees_with_the_reference);
    tcase_add_test(tc, gemm_from_a_row_writes_what_setting_the_rows_and_adding_gives);
    tcase_add_test(tc, linear_layers_write_what_they_are_asked_for);
    tcase_add_test(tc, attention_fast_agrees_with_the_reference);
    tcase_add_test(tc, multihead_attention_fast_agrees_with_the_reference);
    tcase_add_test(tc, query_against_transposed_keys_gives_the_same_bits);
    tcase_add_test(tc, causal_attention_of_long_sequences);
    tcase_add_test(tc, layer_norm_gives_the_same_bits);
    tcase_add_test(tc, residual_sums_give_the_same_bits);
    tcase_add_test(tc, softmax_of_extreme_scores);
    tcase_add_test(tc, cross_entropy_rows_agree_at_every_level);
    tcase_add_test(tc, embedding_and_mean_give_the_same_bits);
    tcase_add_test(tc, adam_step_rows_gives_the_bits_of_adam_step);
    tcase_add_test(tc, adamw_step_gives_the_same_bits_with_every_level);
    tcase_add_test(tc, adamw_and_clipping_give_the_same_bits_on_any_threads);
    tcase_add_test(tc, lazy_rows_give_the_bits_of_the_dense_step);
    tcase_add_test(tc, lazy_rows_refuse_what_does_not_fit);
    tcase_add_test(tc, aligned_memory_is_whole_lines);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
