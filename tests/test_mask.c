// test_mask.c: the causal mask and the masked softmax of src/layers/mask.c on small
// inputs whose answers are known exactly, and what the two usual fill values,
// -1e10 and -INFINITY, do to a plain softmax (tensor.c's softmax_rows).
#include <check.h>

#include "suite.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mask.h"
#include "layers/softmax.h"
#include "layers/tensor.h"

// ------------------------------------------------------------ causal_mask

START_TEST(causal_mask_3x3) {
    const bool want[] = { false, true,  true,
                          false, false, true,
                          false, false, false };
    bool m[9];
    causal_mask(m, 3);
    for (int k = 0; k < 9; k++) ck_assert_int_eq(m[k], want[k]);
}
END_TEST

START_TEST(causal_mask_is_triu_diagonal_1) {
    // torch.triu(full((n, n), True), diagonal=1): true exactly when j > i;
    // n (n - 1) / 2 entries in all, none on the diagonal.
    for (int n = 1; n <= 9; n++) {
        bool m[81];
        causal_mask(m, n);
        int count = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                ck_assert_int_eq(m[i * n + j], j > i);
                count += m[i * n + j];
            }
        ck_assert_int_eq(count, n * (n - 1) / 2);
    }
}
END_TEST

// ------------------------------------------------------------ masked_fill

START_TEST(masked_fill_writes_only_where_masked) {
    const float x[] = { 1, 2, 3, 4 };
    const bool m[] = { false, true, false, true };
    float out[4];
    masked_fill(out, x, m, -1e10f, 4);
    ck_assert_float_eq(out[0], 1.0f);
    ck_assert_float_eq(out[1], -1e10f);
    ck_assert_float_eq(out[2], 3.0f);
    ck_assert_float_eq(out[3], -1e10f);
    // -1e10 is a float exactly (9765625 * 2^10), so it prints as -1.0000e+10
    ck_assert(out[1] == -1e10);
}
END_TEST

START_TEST(masked_fill_in_place) {
    float x[] = { 1, 2, 3 };
    const bool m[] = { true, false, false };
    masked_fill(x, x, m, -INFINITY, 3);
    ck_assert(isinf(x[0]) && x[0] < 0);
    ck_assert_float_eq(x[1], 2.0f);
    ck_assert_float_eq(x[2], 3.0f);
}
END_TEST

// ------------------------------------------------------------ masked softmax

START_TEST(masked_softmax_known_values) {
    // unmasked exp: 1 and 3 -> 1/4 and 3/4; the masked entry is exactly 0
    float x[] = { 0, logf(3.0f), 123 };
    const bool m[] = { false, false, true };
    ck_assert_int_eq(masked_softmax_rows(x, m, 1, 3), 0);
    ck_assert_float_eq_tol(x[0], 0.25f, 1e-7f);
    ck_assert_float_eq_tol(x[1], 0.75f, 1e-7f);
    ck_assert_float_eq(x[2], 0.0f);
}
END_TEST

START_TEST(masked_entries_are_never_read) {
    // Whatever sits under the mask, NaN and inf included, changes nothing.
    float clean[] = { 0.5f, -1, 2, 0, 0, 0 };
    float dirty[] = { 0.5f, -1, 2, NAN, INFINITY, -INFINITY };
    const bool m[] = { false, false, false, true, true, true };
    masked_softmax_rows(clean, m, 1, 6);
    masked_softmax_rows(dirty, m, 1, 6);
    ck_assert(same_bits(clean, dirty, 6));
    for (int j = 3; j < 6; j++) ck_assert(dirty[j] == 0.0f);
}
END_TEST

START_TEST(masked_softmax_rows_sum_to_one) {
    float x[] = { 3, -2, 7, 1,
                  -40, 40, 0, 0.5f,
                  1, 1, 1, 1 };
    const bool m[] = { false, true, true, true,
                       false, false, true, false,
                       true, false, false, true };
    float sums[3];
    ck_assert_int_eq(masked_softmax_rows(x, m, 3, 4), 0);
    row_sums(sums, x, 3, 4);
    for (int i = 0; i < 3; i++) ck_assert_float_eq_tol(sums[i], 1.0f, 1e-6f);
    ck_assert_float_eq(x[0], 1.0f);           // one visible key: all of it
    ck_assert_float_eq_tol(x[9], 0.5f, 1e-7f); // two equal visible keys
    ck_assert_float_eq_tol(x[10], 0.5f, 1e-7f);
}
END_TEST

// A (4, 4) score matrix with a causal mask, filled with `fill` and passed
// through the plain softmax.
static void fill_then_softmax(float *out, const float *scores, float fill) {
    bool m[16];
    causal_mask(m, 4);
    masked_fill(out, scores, m, fill, 16);
    softmax_rows(out, 4, 4);
}

static const float scores4[] = { 1.5f, -0.25f, 3, 0.125f,
                                 -2, 0.75f, 1, -1,
                                 0.5f, 2.5f, -3.5f, 4,
                                 10, -10, 0.3f, 0.7f };

START_TEST(masked_softmax_equals_fill_then_softmax_bitwise) {
    // With at least one visible key per row, exp(-1e10 - max) and
    // exp(-inf) are both exactly 0 in float: all three ways give the same
    // bits.
    float big[16], inf[16], lib[16];
    bool m[16];
    fill_then_softmax(big, scores4, -1e10f);
    fill_then_softmax(inf, scores4, -INFINITY);
    memcpy(lib, scores4, sizeof lib);
    causal_mask(m, 4);
    ck_assert_int_eq(masked_softmax_rows(lib, m, 4, 4), 0);
    ck_assert(same_bits(big, inf, 16));
    ck_assert(same_bits(lib, inf, 16));
    for (int k = 0; k < 16; k++)
        if (m[k]) ck_assert(lib[k] == 0.0f);
}
END_TEST

START_TEST(masking_before_is_renormalising_over_visible_keys) {
    // Row 2 sees keys 0, 1, 2: its weights are the plain softmax of those
    // three scores alone.
    float lib[16], three[3];
    bool m[16];
    memcpy(lib, scores4, sizeof lib);
    memcpy(three, scores4 + 8, sizeof three);
    causal_mask(m, 4);
    masked_softmax_rows(lib, m, 4, 4);
    softmax_rows(three, 1, 3);
    for (int j = 0; j < 3; j++) ck_assert_float_eq(lib[8 + j], three[j]);
}
END_TEST

START_TEST(zeroing_after_softmax_breaks_row_sums) {
    // The tempting shortcut: softmax everything, then zero the future. Row
    // 0 of {0, 0, 0} keeps 1/3 and sums to 1/3, not 1.
    float after[] = { 0, 0, 0 }, before[] = { 0, 0, 0 };
    const bool m[] = { false, true, true };
    softmax_rows(after, 1, 3);
    masked_fill(after, after, m, 0.0f, 3);
    masked_softmax_rows(before, m, 1, 3);
    float s_after, s_before;
    row_sums(&s_after, after, 1, 3);
    row_sums(&s_before, before, 1, 3);
    ck_assert_float_eq_tol(s_after, 1.0f / 3.0f, 1e-7f);
    ck_assert_float_eq(s_before, 1.0f);
}
END_TEST

// ------------------------------------------------------------ fully masked

static const bool mask_row1_full[] = { false, true, true, true,
                                       true, true, true, true };
static const float scores_2x4[] = { 0.5f, 1, 2, 3,
                                    4, -5, 6, 0 };

START_TEST(fully_masked_row_with_minus_infinity_is_nan) {
    // max = -inf, and (-inf) - (-inf) is NaN: the whole row is NaN.
    float x[8];
    masked_fill(x, scores_2x4, mask_row1_full, -INFINITY, 8);
    softmax_rows(x, 2, 4);
    for (int j = 4; j < 8; j++) ck_assert(isnan(x[j]));
    ck_assert_float_eq(x[0], 1.0f);  // row 0 is fine
}
END_TEST

START_TEST(fully_masked_row_with_minus_1e10_is_uniform) {
    // Every entry is -1e10, so every exp(x - max) is exp(0) = 1: the row
    // silently attends equally to exactly the keys it must not see.
    float x[8];
    masked_fill(x, scores_2x4, mask_row1_full, -1e10f, 8);
    softmax_rows(x, 2, 4);
    for (int j = 4; j < 8; j++) ck_assert_float_eq(x[j], 0.25f);
    ck_assert_float_eq(x[0], 1.0f);
}
END_TEST

START_TEST(fully_masked_row_with_library_is_zeros) {
    // The library's choice: nothing to attend to, so no weight at all; the
    // caller learns how many such rows there were.
    float x[8];
    memcpy(x, scores_2x4, sizeof x);
    ck_assert_int_eq(masked_softmax_rows(x, mask_row1_full, 2, 4), 1);
    for (int j = 4; j < 8; j++) ck_assert(x[j] == 0.0f && !signbit(x[j]));
    ck_assert_float_eq(x[0], 1.0f);
    for (int j = 1; j < 4; j++) ck_assert(x[j] == 0.0f);
    // so the context vector of that query is the zero vector, not NaN
    const float v[] = { 1, 2, 3, 4, 5, 6, 7, 8 };  // (4, 2) values
    float z[2];
    weighted_sum(z, x + 4, v, 4, 2);
    ck_assert(z[0] == 0.0f && z[1] == 0.0f);
}
END_TEST

START_TEST(minus_1e10_fails_when_scores_reach_it) {
    // -1e10 is only "minus infinity" while the visible scores are far above
    // it. A visible score of -1e10 ties with the fill and the masked key gets
    // half the weight; the library does not depend on the scores' size.
    const float s[] = { -1e10f, 5 };
    const bool m[] = { false, true };
    float big[2], lib[2];
    masked_fill(big, s, m, -1e10f, 2);
    softmax_rows(big, 1, 2);
    ck_assert_float_eq(big[1], 0.5f);
    memcpy(lib, s, sizeof lib);
    masked_softmax_rows(lib, m, 1, 2);
    ck_assert_float_eq(lib[0], 1.0f);
    ck_assert(lib[1] == 0.0f);
}
END_TEST

static Suite *mask_suite(void) {
    Suite *s = suite_create("mask");
    TCase *mask = tcase_create("mask");
    tcase_add_test(mask, causal_mask_3x3);
    tcase_add_test(mask, causal_mask_is_triu_diagonal_1);
    tcase_add_test(mask, masked_fill_writes_only_where_masked);
    tcase_add_test(mask, masked_fill_in_place);
    suite_add_tcase(s, mask);
    TCase *softmax = tcase_create("masked softmax");
    tcase_add_test(softmax, masked_softmax_known_values);
    tcase_add_test(softmax, masked_entries_are_never_read);
    tcase_add_test(softmax, masked_softmax_rows_sum_to_one);
    tcase_add_test(softmax, masked_softmax_equals_fill_then_softmax_bitwise);
    tcase_add_test(softmax, masking_before_is_renormalising_over_visible_keys);
    tcase_add_test(softmax, zeroing_after_softmax_breaks_row_sums);
    suite_add_tcase(s, softmax);
    TCase *full = tcase_create("fully masked rows");
    tcase_add_test(full, fully_masked_row_with_minus_infinity_is_nan);
    tcase_add_test(full, fully_masked_row_with_minus_1e10_is_uniform);
    tcase_add_test(full, fully_masked_row_with_library_is_zeros);
    tcase_add_test(full, minus_1e10_fails_when_scores_reach_it);
    suite_add_tcase(s, full);
    return s;
}

int main(void) {
    return run_suite(mask_suite());
}
