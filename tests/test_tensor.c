// test_tensor.c: the matrix operations of src/layers/tensor.c on small inputs whose
// answers are known exactly.
#include <check.h>

#include "suite.h"
#include <math.h>
#include <stdlib.h>

#include "layers/softmax.h"
#include "layers/tensor.h"

START_TEST(dot_of_small_vectors) {
    const float a[] = { 1, 2, 3 }, b[] = { 4, -5, 6 };
    ck_assert_float_eq(dot(a, b, 3), 12.0f);
    ck_assert_float_eq(dot(a, b, 0), 0.0f);
}
END_TEST

START_TEST(matmul_2x3_by_3x2) {
    const float a[] = { 1, 2, 3,
                        4, 5, 6 };
    const float b[] = { 7, 8,
                        9, 10,
                        11, 12 };
    const float want[] = { 58, 64,
                           139, 154 };
    float out[4];
    matmul(out, a, b, 2, 3, 2);
    for (int i = 0; i < 4; i++) ck_assert_float_eq(out[i], want[i]);
}
END_TEST

START_TEST(matmul_by_identity_is_unchanged) {
    const float a[] = { 1.5f, -2, 0.25f, 8, 3, -1 };  // (3, 2)
    const float eye[] = { 1, 0, 0, 1 };
    float out[6];
    matmul(out, a, eye, 3, 2, 2);
    for (int i = 0; i < 6; i++) ck_assert_float_eq(out[i], a[i]);
}
END_TEST

START_TEST(matmul_transposed_equals_matmul_of_transpose) {
    const float a[] = { 1, 2, 3,
                        4, 5, 6 };          // (2, 3)
    const float b[] = { 1, 0, -1,
                        2, 1, 0,
                        0, 3, 1,
                        -2, 1, 1 };         // (4, 3)
    float bt[12], want[8], got[8];
    transpose(bt, b, 4, 3);                 // (3, 4)
    ck_assert_float_eq(bt[0 * 4 + 1], 2.0f);
    ck_assert_float_eq(bt[2 * 4 + 3], 1.0f);
    matmul(want, a, bt, 2, 3, 4);
    matmul_transposed(got, a, b, 2, 3, 4);
    for (int i = 0; i < 8; i++) ck_assert_float_eq(got[i], want[i]);
    ck_assert_float_eq(got[0], -2.0f);      // 1*1 + 2*0 + 3*(-1)
    ck_assert_float_eq(got[7], 3.0f);       // 4*(-2) + 5*1 + 6*1
}
END_TEST

// Every entry lands where the definition puts it, for sizes that are not
// multiples of the tiles transpose copies, and below and above one tile.
START_TEST(transpose_moves_every_entry) {
    const int sizes[][2] = { {1, 1}, {3, 40}, {37, 21}, {16, 16}, {33, 17} };
    for (int s = 0; s < 5; s++) {
        int n = sizes[s][0], m = sizes[s][1];
        float *a = malloc(sizeof(float) * n * m), *out = malloc(sizeof(float) * n * m);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(out);
        for (int e = 0; e < n * m; e++) a[e] = (float)e, out[e] = -1;
        transpose(out, a, n, m);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++) ck_assert_float_eq(out[j * n + i], (float)(i * m + j));
        free(a);
        free(out);
    }
}
END_TEST

START_TEST(softmax_known_values) {
    float x[] = { 0, 0, log(3.0f) };  // exp: 1, 1, 3 -> 1/5, 1/5, 3/5
    softmax_rows(x, 1, 3);
    ck_assert_float_eq_tol(x[0], 0.2f, 1e-7f);
    ck_assert_float_eq_tol(x[1], 0.2f, 1e-7f);
    ck_assert_float_eq_tol(x[2], 0.6f, 1e-7f);
}
END_TEST

START_TEST(softmax_of_equal_inputs_is_uniform) {
    float x[] = { 7, 7, 7, 7,
                  -3, -3, -3, -3 };
    softmax_rows(x, 2, 4);
    for (int i = 0; i < 8; i++) ck_assert_float_eq(x[i], 0.25f);
}
END_TEST

START_TEST(softmax_of_large_inputs_does_not_overflow) {
    // exp(1000) is inf in float; subtracting the row maximum first makes
    // these exp(-2), exp(-1), exp(0).
    float x[] = { 1000, 1001, 1002 };
    softmax_rows(x, 1, 3);
    double e1 = exp(-1.0), e2 = exp(-2.0), s = 1 + e1 + e2;
    ck_assert_float_eq_tol(x[0], (float)(e2 / s), 1e-7f);
    ck_assert_float_eq_tol(x[1], (float)(e1 / s), 1e-7f);
    ck_assert_float_eq_tol(x[2], (float)(1 / s), 1e-7f);
    for (int i = 0; i < 3; i++) ck_assert(isfinite(x[i]));
}
END_TEST

START_TEST(softmax_rows_are_independent_and_sum_to_one) {
    float x[] = { 1, 2, 3,
                  -50, 0, 50,
                  0.5f, 0.5f, -100 };
    float sums[3];
    softmax_rows(x, 3, 3);
    row_sums(sums, x, 3, 3);
    for (int i = 0; i < 3; i++) ck_assert_float_eq_tol(sums[i], 1.0f, 1e-6f);
    ck_assert_float_eq_tol(x[6], 0.5f, 1e-6f);  // exp(-100.5) is ~0
}
END_TEST

START_TEST(weighted_sum_of_rows) {
    const float w[] = { 0.5f, 0.25f, 0.25f };
    const float x[] = { 2, 4,
                        4, 8,
                        -4, 0 };
    float out[2];
    weighted_sum(out, w, x, 3, 2);
    ck_assert_float_eq(out[0], 1.0f);
    ck_assert_float_eq(out[1], 4.0f);
}
END_TEST

START_TEST(allclose_follows_torch) {
    const float a[] = { 1.0f, 100.0f }, b[] = { 1.0f + 5e-7f, 100.0f + 9e-4f };
    ck_assert(allclose(a, b, 2, 1e-5f, 1e-6f));         // 9e-4 <= 1e-6 + 1e-3
    const float c[] = { 1.0f, 100.0f + 2e-3f };
    ck_assert(!allclose(a, c, 2, 1e-5f, 1e-6f));
    const float nan[] = { NAN, 100.0f };
    ck_assert(!allclose(nan, a, 2, 1e-5f, 1e-6f));
    ck_assert_float_eq(max_abs_diff(a, c, 2), 100.0f + 2e-3f - 100.0f);
}
END_TEST

static Suite *tensor_suite(void) {
    Suite *s = suite_create("tensor");
    TCase *products = tcase_create("products");
    tcase_add_test(products, dot_of_small_vectors);
    tcase_add_test(products, matmul_2x3_by_3x2);
    tcase_add_test(products, matmul_by_identity_is_unchanged);
    tcase_add_test(products, matmul_transposed_equals_matmul_of_transpose);
    tcase_add_test(products, transpose_moves_every_entry);
    tcase_add_test(products, weighted_sum_of_rows);
    suite_add_tcase(s, products);
    TCase *softmax = tcase_create("softmax");
    tcase_add_test(softmax, softmax_known_values);
    tcase_add_test(softmax, softmax_of_equal_inputs_is_uniform);
    tcase_add_test(softmax, softmax_of_large_inputs_does_not_overflow);
    tcase_add_test(softmax, softmax_rows_are_independent_and_sum_to_one);
    suite_add_tcase(s, softmax);
    TCase *compare = tcase_create("compare");
    tcase_add_test(compare, allclose_follows_torch);
    suite_add_tcase(s, compare);
    return s;
}

int main(void) {
    return run_suite(tensor_suite());
}
