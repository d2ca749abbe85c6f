// test_step_flops.c: models/step_flops.h's counts of a training step, each
// held against its products added up here one by one, sequence by sequence
// and head by head, with the operations (2 m k n) and bytes (4 (m k + k n +
// m n)) of an (m, k) by (k, n) product written out; the GPT's against
// gpt_step_flops as well (test_gpt holds that one by its own products).
#include <check.h>

#include "models/step_flops.h"
#include "suite.h"

static double ops(double m, double k, double n) { return 2 * m * k * n; }
static double bytes(double m, double k, double n) { return 4 * (m * k + k * n + m * n); }

START_TEST(a_product_and_its_gradients) {
    step_cost c = {0, 0};
    step_cost_product(&c, 1, 2, 3, 4, 0);
    ck_assert_double_eq(c.flops, 48);
    ck_assert_double_eq(c.bytes, 4 * (6 + 12 + 8));
    step_cost_product(&c, 5, 2, 3, 4, 2);  // five more, each with its two gradients
    ck_assert_double_eq(c.flops, 48 + 15 * 48);
    ck_assert_double_eq(c.bytes, 16 * 104);
    step_cost_product(&c, 1, 1, 1, 1, 1);
    ck_assert_double_eq(c.flops, 16 * 48 + 4);
}
END_TEST

// Chapter 7's attention classifier: U words projected three times, each
// chunk's two products, Dense(1); the backward twice each but for the
// projections' input, whose gradient a frozen embedding does not take.
START_TEST(sentiment_counts_every_product) {
    const int B = 3, L = 5, d = 7, d_k = 4, U = 11;
    sentiment_config cfg = {.kind = MODEL_SOFTMAX_ATTENTION, .V = 50, .d = d, .d_k = d_k, .L = L,
                            .B = B, .frozen = false};
    double f_proj = 0, b_proj = 0, f_rest = 0, b_rest = 0;
    for (int p = 0; p < 3; p++) f_proj += ops(U, d, d_k), b_proj += bytes(U, d, d_k);
    for (int b = 0; b < B; b++) {
        f_rest += ops(L, d_k, L) + ops(L, L, d_k);        // q k^T, w v
        b_rest += bytes(L, d_k, L) + bytes(L, L, d_k);
    }
    f_rest += ops(B, d_k, 1), b_rest += bytes(B, d_k, 1);  // Dense(1)
    step_cost c = sentiment_step_cost(&cfg, B, U);
    ck_assert_double_eq_tol(c.flops, 3 * (f_proj + f_rest), 1e-6);
    ck_assert_double_eq_tol(c.bytes, 3 * (b_proj + b_rest), 1e-6);
    cfg.frozen = true;
    c = sentiment_step_cost(&cfg, B, U);
    ck_assert_double_eq_tol(c.flops, 2 * f_proj + 3 * f_rest, 1e-6);
    ck_assert_double_eq_tol(c.bytes, 2 * b_proj + 3 * b_rest, 1e-6);
    cfg.kind = MODEL_NOTEBOOK_ATTENTION;  // the same products without the softmax
    ck_assert_double_eq_tol(sentiment_step_cost(&cfg, B, U).flops, 2 * f_proj + 3 * f_rest, 1e-6);
    // at the book's sizes, with the words of a batch of 64 chunks of 32
    cfg = (sentiment_config){.kind = MODEL_SOFTMAX_ATTENTION, .V = 10002, .d = 100, .d_k = 32,
                             .L = 32, .B = 64, .frozen = false};
    double book = 3 * (3 * ops(900, 100, 32) + 64 * 2 * ops(32, 32, 32) + ops(64, 32, 1));
    ck_assert_double_eq_tol(sentiment_step_cost(&cfg, 64, 900).flops, book, 1e-3);
    ck_assert_double_eq_tol(book, 77018112, 1e-3);
    // no count for the others
    cfg.kind = MODEL_BASELINE;
    ck_assert_double_eq(sentiment_step_cost(&cfg, 64, 900).flops, 0);
    cfg.kind = MODEL_TRANSFORMER;
    ck_assert_double_eq(sentiment_step_cost(&cfg, 64, 900).flops, 0);
}
END_TEST

// The encoder-decoder on rows of uneven lengths: a sequence's own rows
// only, in every layer; the decoder's cross-attention projects its keys and
// values from the source rows.
START_TEST(seq2seq_counts_every_product) {
    seq2seq_config cfg = {.V = 13, .d = 8, .h = 2, .d_ff = 16, .n_enc = 2, .n_dec = 3};
    const int B = 3, src[3] = {3, 5, 1}, tgt[3] = {4, 6, 2}, d = 8, d_k = 4, h = 2, ff = 16;
    double f = 0;
    for (int b = 0; b < B; b++) {
        double s = src[b], t = tgt[b];
        for (int l = 0; l < cfg.n_enc; l++) {
            for (int p = 0; p < 4; p++) f += ops(s, d, d);
            for (int i = 0; i < h; i++) f += ops(s, d_k, s) + ops(s, s, d_k);
            f += ops(s, d, ff) + ops(s, ff, d);
        }
        for (int l = 0; l < cfg.n_dec; l++) {
            for (int p = 0; p < 4; p++) f += ops(t, d, d);       // self-attention's
            for (int p = 0; p < 2; p++) f += ops(t, d, d);       // cross: queries, output
            for (int p = 0; p < 2; p++) f += ops(s, d, d);       // cross: keys, values
            for (int i = 0; i < h; i++)
                f += ops(t, d_k, t) + ops(t, t, d_k) + ops(t, d_k, s) + ops(t, s, d_k);
            f += ops(t, d, ff) + ops(t, ff, d);
        }
        f += ops(t, d, cfg.V);  // the generator
    }
    step_cost c = seq2seq_step_cost(&cfg, B, src, tgt);
    ck_assert_double_eq_tol(c.flops, 3 * f, 1e-6);
    // the encoder and the generator alone: their bytes, the rows of the
    // whole batch in each projection
    seq2seq_config enc = cfg;
    enc.n_dec = 0;
    double N = 9, enc_bytes = bytes(12, d, cfg.V);
    for (int l = 0; l < enc.n_enc; l++) {
        enc_bytes += 4 * bytes(N, d, d) + bytes(N, d, ff) + bytes(N, ff, d);
        for (int b = 0; b < B; b++)
            enc_bytes += h * (bytes(src[b], d_k, src[b]) + bytes(src[b], src[b], d_k));
    }
    ck_assert_double_eq_tol(seq2seq_step_cost(&enc, B, src, tgt).bytes, 3 * enc_bytes, 1e-6);
}
END_TEST

// The GPT's products are gpt_step_flops's operations; its bytes, one block
// written out.
START_TEST(gpt_cost_is_gpt_step_flops) {
    gpt_config c = {.V = 81, .T = 64, .d = 128, .h = 4, .L = 4};
    ck_assert_double_eq_tol(gpt_step_cost(&c, 32, 64).flops, gpt_step_flops(&c, 32, 64), 1e-3);
    ck_assert_double_eq_tol(gpt_step_cost(&c, 32, 64).flops, 10596384768.0, 1e-3);
    c = (gpt_config){.V = 11, .T = 16, .d = 8, .h = 2, .L = 1};
    ck_assert_double_eq_tol(gpt_step_cost(&c, 3, 5).flops, gpt_step_flops(&c, 3, 5), 1e-6);
    double rows = 15, by = bytes(rows, 8, 24) + bytes(rows, 8, 8) + bytes(rows, 8, 32) +
                          bytes(rows, 32, 8) + bytes(rows, 8, 11);
    for (int i = 0; i < 3 * 2; i++) by += bytes(5, 4, 5) + bytes(5, 5, 4);  // B h heads
    ck_assert_double_eq_tol(gpt_step_cost(&c, 3, 5).bytes, 3 * by, 1e-6);
}
END_TEST

int main(void) {
    Suite *s = suite_create("step_flops");
    TCase *tc = tcase_create("counts");
    tcase_add_test(tc, a_product_and_its_gradients);
    tcase_add_test(tc, sentiment_counts_every_product);
    tcase_add_test(tc, seq2seq_counts_every_product);
    tcase_add_test(tc, gpt_cost_is_gpt_step_flops);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
