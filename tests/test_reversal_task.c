// test_reversal_task.c: the reversal task of src/tasks/reversal_task.c: its
// ids, its batches drawn as PyTorch draws them, its exact-match score and
// its set of sequences seen.
//
// Tolerances: none; every value here is an integer, compared exactly. The
// batches are held to GOLDEN_DIR/chapter8_seed<S>.txt, written by
// tests/reference/chapter8_golden.py with torch.randint on a
// torch.Generator.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "suite.h"
#include "tasks/reversal_task.h"

enum { S = REVERSAL_SRC_LEN, T = REVERSAL_TGT_LEN, N = REVERSAL_N_MAX };

START_TEST(encodes_as_the_header_says) {
    const int digits[3] = { 4, 7, 1 };
    int32_t src[S], tgt_in[T], tgt_out[T];
    reversal_encode(src, tgt_in, tgt_out, digits, 3);
    const int32_t want_src[S] = { 7, 10, 4, 0, 0, 0, 0, 0, 0, 0 };
    const int32_t want_in[T] = { 1, 4, 10, 7, 0, 0, 0, 0, 0, 0, 0 };
    const int32_t want_out[T] = { 4, 10, 7, 2, 0, 0, 0, 0, 0, 0, 0 };
    ck_assert_mem_eq(src, want_src, sizeof src);
    ck_assert_mem_eq(tgt_in, want_in, sizeof tgt_in);
    ck_assert_mem_eq(tgt_out, want_out, sizeof tgt_out);
    // the longest: no padding in src, none in the targets either
    const int ten[N] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    reversal_encode(src, tgt_in, tgt_out, ten, N);
    for (int i = 0; i < S; i++) ck_assert_int_eq(src[i], 3 + i);
    ck_assert_int_eq(tgt_in[0], REVERSAL_BOS);
    for (int t = 0; t < N; t++) {
        ck_assert_int_eq(tgt_out[t], 3 + 9 - t);
        ck_assert_int_eq(tgt_in[t + 1], tgt_out[t]);
    }
    ck_assert_int_eq(tgt_out[N], REVERSAL_EOS);
}
END_TEST

// Section name of seed's golden file must equal the n ints got.
static void expect_ints(uint64_t seed, const char *name, const void *got, size_t n,
                        bool is_int32) {
    char file[64];
    snprintf(file, sizeof file, "chapter8_seed%llu.txt", (unsigned long long)seed);
    double *want = golden_doubles(file, name, "i64", n);
    for (size_t i = 0; i < n; i++) {
        long long g = is_int32 ? ((const int32_t *)got)[i] : ((const int *)got)[i];
        if (g != (long long)want[i])
            ck_abort_msg("seed %llu, %s[%zu]: got %lld, PyTorch %lld",
                         (unsigned long long)seed, name, i, g, (long long)want[i]);
    }
    free(want);
}

START_TEST(draws_what_torch_randint_draws) {
    const uint64_t seeds[2] = { 1, 7 };
    for (int k = 0; k < 2; k++) {
        torch_rng g;
        rng_seed(&g, seeds[k]);
        reversal_batch b;
        ck_assert_int_eq(reversal_batch_alloc(&b, 64), 0);
        reversal_draw(&b, &g);
        expect_ints(seeds[k], "lengths", b.lengths, 64, false);
        expect_ints(seeds[k], "digits", b.digits, 64 * N, false);
        expect_ints(seeds[k], "src", b.src, 64 * S, true);
        expect_ints(seeds[k], "tgt_in", b.tgt_in, 64 * T, true);
        expect_ints(seeds[k], "tgt_out", b.tgt_out, 64 * T, true);
        reversal_draw(&b, &g);  // the generator's state carries on
        expect_ints(seeds[k], "lengths2", b.lengths, 64, false);
        expect_ints(seeds[k], "digits2", b.digits, 64 * N, false);
        reversal_batch_free(&b);
    }
}
END_TEST

START_TEST(exact_match_counts_up_to_eos) {
    const int digits[3] = { 4, 7, 1 };
    int32_t src[S], tgt_in[T], tgt_out[T], out[T];
    reversal_encode(src, tgt_in, tgt_out, digits, 3);
    memcpy(out, tgt_out, sizeof out);
    ck_assert(reversal_exact(out, tgt_out));
    out[6] = 5;  // after EOS: does not count
    ck_assert(reversal_exact(out, tgt_out));
    out[1] = 3;  // a wrong digit
    ck_assert(!reversal_exact(out, tgt_out));
    memcpy(out, tgt_out, sizeof out);
    out[3] = 9;  // EOS missing: the output runs on
    ck_assert(!reversal_exact(out, tgt_out));
    memcpy(out, tgt_out, sizeof out);
    out[2] = REVERSAL_EOS;  // stops one digit short
    ck_assert(!reversal_exact(out, tgt_out));
    char text[T + 1];
    ck_assert(reversal_text(text, tgt_out));
    ck_assert_str_eq(text, "174");
    out[0] = REVERSAL_BOS;
    ck_assert(reversal_text(text, out));
    ck_assert_str_eq(text, "?7");
    for (int t = 0; t < T; t++) out[t] = 3 + t % 10;
    ck_assert(!reversal_text(text, out));
    ck_assert_str_eq(text, "01234567890");
}
END_TEST

START_TEST(keys_tell_every_sequence_apart) {
    // 0 and 0 0 differ; so do 1 0 and 0 1; the largest fits in 35 bits
    const int zero2[2] = { 0, 0 }, a[2] = { 1, 0 }, b[2] = { 0, 1 };
    ck_assert_uint_ne(reversal_key(zero2, 1), reversal_key(zero2, 2));
    ck_assert_uint_ne(reversal_key(a, 2), reversal_key(b, 2));
    ck_assert_uint_gt(reversal_key(zero2, 1), 0);
    const int nines[N] = { 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 };
    ck_assert_uint_lt(reversal_key(nines, N), UINT64_C(1) << 35);
    // every sequence of up to three digits has its own key: 1110 keys
    uint64_t *keys = malloc(1110 * sizeof *keys);
    ck_assert_ptr_nonnull(keys);
    int count = 0;
    for (int n = 1; n <= 3; n++) {
        int lim = n == 1 ? 10 : n == 2 ? 100 : 1000;
        for (int v = 0; v < lim; v++) {
            int d[3] = { v % 10, v / 10 % 10, v / 100 };
            keys[count++] = reversal_key(d, n);
        }
    }
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++) ck_assert_uint_ne(keys[i], keys[j]);
    free(keys);
}
END_TEST

START_TEST(seen_holds_what_was_added) {
    torch_rng g;
    rng_seed(&g, 3);
    reversal_batch b;
    ck_assert_int_eq(reversal_batch_alloc(&b, 500), 0);
    reversal_seen seen = { 0 };
    reversal_draw(&b, &g);
    ck_assert_int_eq(reversal_seen_add(&seen, &b), 0);
    ck_assert_int_eq(reversal_seen_add(&seen, &b), 0);  // twice: kept once
    reversal_seen_finish(&seen);
    ck_assert_uint_le(seen.n, 500);
    ck_assert_uint_gt(seen.n, 400);  // the short ones repeat, few others
    for (int r = 0; r < b.B; r++)
        ck_assert(reversal_seen_has(&seen, b.digits + r * N, b.lengths[r]));
    for (size_t i = 1; i < seen.n; i++) ck_assert_uint_lt(seen.keys[i - 1], seen.keys[i]);
    // a ten-digit sequence drawn afresh is all but surely new
    reversal_batch fresh;
    ck_assert_int_eq(reversal_batch_alloc(&fresh, 100), 0);
    reversal_draw(&fresh, &g);
    int unseen = 0;
    for (int r = 0; r < fresh.B; r++)
        unseen += !reversal_seen_has(&seen, fresh.digits + r * N, N);
    ck_assert_int_eq(unseen, 100);
    reversal_seen empty = { 0 };
    reversal_seen_finish(&empty);
    ck_assert(!reversal_seen_has(&empty, b.digits, 1));
    reversal_seen_free(&seen);
    reversal_batch_free(&b);
    reversal_batch_free(&fresh);
}
END_TEST

static Suite *reversal_suite(void) {
    Suite *s = suite_create("reversal_task");
    TCase *tc = tcase_create("task");
    tcase_add_test(tc, encodes_as_the_header_says);
    tcase_add_test(tc, draws_what_torch_randint_draws);
    tcase_add_test(tc, exact_match_counts_up_to_eos);
    tcase_add_test(tc, keys_tell_every_sequence_apart);
    tcase_add_test(tc, seen_holds_what_was_added);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(reversal_suite());
}
