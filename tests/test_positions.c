// test_positions.c: the position tables of src/layers/positions.c, and what
// they are for: chapter 5's encoder layer, given a sequence's tokens in
// another order, gives the same outputs in that order (it cannot tell the
// orders apart), until positions are added.
//
// Tolerances: a sinusoid value is one double rounded to float, so within
// 6e-8 of the double it comes from (checked to 1e-7); sums of a few such
// values within 1e-6. A permuted sequence sums each softmax and product in
// another order, so the outputs follow the tokens to rounding (1e-5, as
// rows_follow_tokens), not to the bit.
#include <check.h>

#include "suite.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "layers/positions.h"
#include "layers/tensor.h"
#include "layers/transformer_layer.h"

// ------------------------------------------------------------ sinusoids

START_TEST(sinusoids_known_values) {
    // d = 4: w_0 = 1 and w_1 = 10000^(-1/2) = 1/100.
    float pe[101 * 4];
    positions_sinusoidal(pe, 101, 4);
    const double want[3][4] = {
        { 0, 1, 0, 1 },                                  // position 0
        { sin(1.0), cos(1.0), sin(0.01), cos(0.01) },    // position 1
        { sin(100.0), cos(100.0), sin(1.0), cos(1.0) },  // position 100
    };
    const int pos[3] = { 0, 1, 100 };
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            ck_assert_double_eq_tol(pe[pos[r] * 4 + c], want[r][c], 1e-7);
    ck_assert_double_eq_tol(positions_frequency(0, 4), 1.0, 1e-15);
    ck_assert_double_eq_tol(positions_frequency(1, 4), 0.01, 1e-15);
    // d = 512, the paper's width: the last pair turns at 10000^(-510/512)
    ck_assert_double_eq_tol(positions_frequency(255, 512), exp(-510.0 / 512 * log(1e4)),
                            1e-18);
}
END_TEST

START_TEST(sinusoids_odd_width_ends_with_a_sine) {
    // d = 5: pairs at w_0 = 1 and w_1 = 10000^(-2/5), then the sine of
    // pair 2, w_2 = 10000^(-4/5), without its cosine
    float pe[3 * 5];
    positions_sinusoidal(pe, 3, 5);
    for (int pos = 0; pos < 3; pos++) {
        ck_assert_double_eq_tol(pe[pos * 5 + 2], sin(pos * pow(1e4, -0.4)), 1e-7);
        ck_assert_double_eq_tol(pe[pos * 5 + 4], sin(pos * pow(1e4, -0.8)), 1e-7);
    }
}
END_TEST

START_TEST(sinusoid_shift_is_a_rotation) {
    // sin(a + b) = sin a cos b + cos a sin b, cos(a + b) = cos a cos b -
    // sin a sin b: moving k positions on turns each column pair by k w_i,
    // whatever the position it starts from.
    enum { N = 64, D = 16 };
    float pe[N * D];
    positions_sinusoidal(pe, N, D);
    for (int k = 1; k <= 8; k++)
        for (int pos = 0; pos + k < N; pos++)
            for (int i = 0; i < D / 2; i++) {
                double t = k * positions_frequency(i, D);
                double s = pe[pos * D + 2 * i], c = pe[pos * D + 2 * i + 1];
                ck_assert_double_eq_tol(pe[(pos + k) * D + 2 * i],
                                        s * cos(t) + c * sin(t), 1e-6);
                ck_assert_double_eq_tol(pe[(pos + k) * D + 2 * i + 1],
                                        c * cos(t) - s * sin(t), 1e-6);
            }
}
END_TEST

START_TEST(sinusoid_distance_depends_on_the_offset_only) {
    // Each pair lies on the unit circle, so |PE(p + k) - PE(p)|^2 =
    // sum_i 2 - 2 cos(k w_i): the same for every p, and never 0 for k != 0
    // within the positions used here.
    enum { N = 200, D = 32 };
    float pe[N * D];
    positions_sinusoidal(pe, N, D);
    for (int k = 1; k < 50; k++) {
        double want = 0;
        for (int i = 0; i < D / 2; i++) want += 2 - 2 * cos(k * positions_frequency(i, D));
        ck_assert(want > 1e-3);
        for (int p = 0; p + k < N; p++) {
            double got = 0;
            for (int c = 0; c < D; c++) {
                double e = (double)pe[(p + k) * D + c] - pe[p * D + c];
                got += e * e;
            }
            ck_assert_double_eq_tol(got, want, 1e-5);
        }
    }
}
END_TEST

START_TEST(positions_forward_adds_row_by_row) {
    float x[6] = { 1, 2, 3, 4, 5, 6 };
    const float p[6] = { 0.5f, -1, 0, 10, -5, 0.25f };
    positions_forward(x, p, NULL, 1, 3, 2);
    const float want[6] = { 1.5f, 1, 3, 14, 0, 6.25f };
    for (int k = 0; k < 6; k++) ck_assert_float_eq(x[k], want[k]);
}
END_TEST

// ------------------------------------------------------------ permutations

enum { N = 9, D = 16, HEADS = 4, D_FF = 32 };

// The rows of x, (N, D), in the order perm gives: out[r] = x[perm[r]].
static void permute_rows(float *out, const float *x, const int64_t *perm) {
    for (int r = 0; r < N; r++) memcpy(out + r * D, x + perm[r] * D, D * sizeof *x);
}

// The largest |a[r] - b[perm[r]]| over the rows and columns: 0 when the
// outputs a, for the permuted input, are b's rows in the permuted order.
static double permutation_gap(const float *a, const float *b, const int64_t *perm) {
    double gap = 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < D; c++)
            gap = fmax(gap, fabs((double)a[r * D + c] - b[perm[r] * D + c]));
    return gap;
}

// An encoder layer with PyTorch's initialisation from seed 0, random biases
// and norms (so that nothing is symmetric by accident), a random input x
// and a permutation of its rows that moves every row.
typedef struct {
    layer_dims dims;
    enc_layer_params layer;
    layer_cache cache;
    float x[N * D];
    int64_t perm[N];
} permutation_case;

static void case_free(permutation_case *t) {
    enc_layer_free(&t->layer);
    layer_cache_free(&t->cache);
}

// The layer of t on one sequence x (N, D), causal or not.
static mha_status run_layer(float *out, permutation_case *t, const float *x, bool causal) {
    return enc_layer_forward(out, &t->cache, &t->layer, x, NULL, causal, &t->dims, 1, N, NULL);
}

static void case_init(permutation_case *t, bool norm_first) {
    torch_rng g;
    rng_seed(&g, 0);
    t->dims = (layer_dims){ .d = D, .h = HEADS, .d_ff = D_FF, .norm_first = norm_first };
    ck_assert_int_eq(enc_layer_alloc(&t->layer, &t->dims), MHA_OK);
    ck_assert_int_eq(enc_layer_cache_alloc(&t->cache, &t->dims, 1, N), 0);
    ck_assert_int_eq(enc_layer_init(&g, &t->layer, &t->dims), 0);
    enc_layer_params *L = &t->layer;
    rng_randn(&g, L->self_attn.in_proj_bias, 3 * D);
    rng_randn(&g, L->self_attn.out_proj_bias, D);
    for (int k = 0; k < 2; k++) {
        rng_uniform(&g, L->norm_weight[k], D, 0.5f, 1.5f);
        rng_randn(&g, L->norm_bias[k], D);
    }
    rng_randn(&g, t->x, N * D);
    for (int r = 0; r < N; r++) t->perm[r] = (r + 4) % N;  // a rotation by 4
}

// The layer's output on x in the permuted order, against its output on x
// permuted, with the positions pos (N, D) added to the input or NULL.
static double gap_with_positions(permutation_case *t, const float *pos) {
    float x[N * D], xp[N * D], out[N * D], outp[N * D];
    memcpy(x, t->x, sizeof x);
    permute_rows(xp, t->x, t->perm);
    if (pos) {
        positions_forward(x, pos, NULL, 1, N, D);
        positions_forward(xp, pos, NULL, 1, N, D);
    }
    ck_assert_int_eq(run_layer(out, t, x, false), MHA_OK);
    ck_assert_int_eq(run_layer(outp, t, xp, false), MHA_OK);
    // the outputs differ from row to row, so following the tokens says
    // something: a layer that gave every row one vector would pass trivially
    ck_assert(permutation_gap(out, out, (int64_t[N]){ 1, 2, 3, 4, 5, 6, 7, 8, 0 }) > 0.1);
    return permutation_gap(outp, out, t->perm);
}

START_TEST(encoder_layer_follows_a_permutation_without_positions) {
    for (int pre = 0; pre < 2; pre++) {
        permutation_case t;
        case_init(&t, pre);
        ck_assert_double_le(gap_with_positions(&t, NULL), 1e-5);
        // with a causal mask, the first token sees only itself: no longer
        // a set, so the same permutation no longer just moves the outputs
        float xp[N * D], out[N * D], outp[N * D];
        permute_rows(xp, t.x, t.perm);
        ck_assert_int_eq(run_layer(out, &t, t.x, true), MHA_OK);
        ck_assert_int_eq(run_layer(outp, &t, xp, true), MHA_OK);
        ck_assert_double_gt(permutation_gap(outp, out, t.perm), 0.1);
        case_free(&t);
    }
}
END_TEST

START_TEST(sinusoidal_positions_tell_the_orders_apart) {
    float pe[N * D];
    positions_sinusoidal(pe, N, D);
    for (int pre = 0; pre < 2; pre++) {
        permutation_case t;
        case_init(&t, pre);
        ck_assert_double_gt(gap_with_positions(&t, pe), 0.1);
        case_free(&t);
    }
}
END_TEST

START_TEST(learned_positions_tell_the_orders_apart) {
    // a learned table before training: nn.Embedding's N(0, 1) rows
    float table[N * D];
    torch_rng g;
    rng_seed(&g, 1);
    rng_randn(&g, table, N * D);
    for (int pre = 0; pre < 2; pre++) {
        permutation_case t;
        case_init(&t, pre);
        ck_assert_double_gt(gap_with_positions(&t, table), 0.1);
        // the same vector at every position tells nothing apart
        float same[N * D];
        for (int r = 0; r < N; r++) memcpy(same + r * D, table, D * sizeof *table);
        ck_assert_double_le(gap_with_positions(&t, same), 1e-5);
        case_free(&t);
    }
}
END_TEST

static Suite *positions_suite(void) {
    Suite *s = suite_create("positions");
    TCase *sinusoids = tcase_create("sinusoids");
    tcase_add_test(sinusoids, sinusoids_known_values);
    tcase_add_test(sinusoids, sinusoids_odd_width_ends_with_a_sine);
    tcase_add_test(sinusoids, sinusoid_shift_is_a_rotation);
    tcase_add_test(sinusoids, sinusoid_distance_depends_on_the_offset_only);
    tcase_add_test(sinusoids, positions_forward_adds_row_by_row);
    suite_add_tcase(s, sinusoids);
    TCase *order = tcase_create("order");
    tcase_add_test(order, encoder_layer_follows_a_permutation_without_positions);
    tcase_add_test(order, sinusoidal_positions_tell_the_orders_apart);
    tcase_add_test(order, learned_positions_tell_the_orders_apart);
    suite_add_tcase(s, order);
    return s;
}

int main(void) {
    return run_suite(positions_suite());
}
