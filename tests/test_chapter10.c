// test_chapter10.c: chapter 10's [P10.5] (src/programs/chapter10_training.h):
// chapter 9's model trained with its attention computed the naive way and
// tiled. What the block prints is read back and held to the numbers it was
// printed from; the naive losses are those of a model trained here, step
// by step, on the block's batches; the tiled ones agree with them within
// the tolerance the tiled kernels are held to (TILED_TOL: 2e-5 of
// |the loss| + 1, as tests/test_tiled_attention.c and test_gpt's
// tiled_attention_trains_alike); the batches count up as the header says.
// (The table of [P10.1] to [P10.4] holds times, which no test can expect;
// the kernels it times are held in test_tiled_attention.)
// And [P10.6] (src/programs/chapter10_mfu.h): each model's operations are
// those of the batch it trained on, counted here from that batch again;
// the printed table and the figure's data are read back, every share held
// to the printed operations, time and peak. [P10.1]'s line on which roof
// bounds naive attention comes from ridge_side, held here.
#include "../src/programs/chapter10_training.c"
#include "../src/programs/chapter10_mfu.c"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "suite.h"

#define STEPS 3
#define SEED 3  // its third step's two losses differ (rounding), by about 3e-6
#define TOL 2e-5

static attention_training run_block(void) {
    attention_training r;
    char err[256];
    ck_assert_msg(attention_training_run(&r, STEPS, SEED, err, sizeof err) == 0, "%s", err);
    return r;
}

START_TEST(losses_are_a_naive_models_and_tiled_agrees) {
    attention_training r = run_block();
    ck_assert_int_eq(r.steps, STEPS);
    // a model of the same shape trained here on the same batches
    gpt_config cfg = { .V = V, .T = T, .d = D, .h = HEADS, .L = LAYERS };
    lr_schedule schedule = { .lr_max = LR, .lr_min = LR / 10, .warmup = 0, .decay_steps = STEPS };
    char err[256];
    gpt_model *m = gpt_build(&cfg, B, SHARDS, SEED, NULL, 0.1, &schedule, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    int32_t *windows = malloc((size_t)B * (T + 1) * sizeof *windows);
    ck_assert_ptr_nonnull(windows);
    double largest = 0;
    for (int s = 0; s < STEPS; s++) {
        attention_training_batch(windows, SEED, s);
        double want = gpt_train_step(m, windows, B, T);
        ck_assert_msg(r.naive[s] == want, "step %d: naive %.9g, trained here %.9g", s + 1,
                      r.naive[s], want);
        ck_assert_msg(fabs(r.tiled[s] - want) <= TOL * (fabs(want) + 1),
                      "step %d: tiled %.9g against naive %.9g", s + 1, r.tiled[s], want);
        largest = fmax(largest, fabs(r.tiled[s] - want) / fabs(want));
    }
    ck_assert_double_eq(r.largest, largest);
    ck_assert_msg(largest > 0, "no step's losses differ: the columns below test nothing");
    // and the second model was the tiled one, as its built model says
    ck_assert_int_eq(r.built[0], GPT_ATTENTION_NAIVE);
    ck_assert_int_eq(r.built[1], GPT_ATTENTION_TILED);
    free(windows);
    gpt_free(m);
}
END_TEST

// Each window counts up by its stride, modulo V, but where a random
// character replaced one: about one position in eight.
START_TEST(batches_count_up_with_noise) {
    int32_t w[B * (T + 1)], again[B * (T + 1)];
    attention_training_batch(w, SEED, 0);
    attention_training_batch(again, SEED, 0);
    ck_assert_mem_eq(w, again, sizeof w);
    attention_training_batch(again, SEED, 1);
    ck_assert_int_ne(memcmp(w, again, sizeof w), 0);
    for (int b = 0; b < B; b++) {
        const int32_t *x = w + b * (T + 1);
        int counts[V] = {0}, best = 0;
        for (int t = 0; t < T; t++) {
            ck_assert(x[t] >= 0 && x[t] < V);
            int step = ((x[t + 1] - x[t]) % V + V) % V;
            if (++counts[step] > counts[best]) best = step;
        }
        // the stride is the most common step; two clean neighbours give it
        ck_assert_msg(counts[best] > T / 2 && counts[best] < T, "window %d: stride %d in %d of %d",
                      b, best, counts[best], T);
    }
}
END_TEST

// The printed table, read back: every step's two losses and their
// difference, the largest difference and the verdict, the times.
START_TEST(printed_block_is_the_results) {
    attention_training r = run_block();
    char *text;
    PRINTED(text, f, attention_training_print(f, &r));
    const char *at = strstr(text, " step       naive       tiled  difference\n");
    ck_assert_ptr_nonnull(at);
    at = strchr(at, '\n') + 1;
    for (int s = 0; s < STEPS; s++) {
        int step;
        double naive, tiled, diff;
        ck_assert_int_eq(sscanf(at, "%d %lf %lf %lf", &step, &naive, &tiled, &diff), 4);
        ck_assert_int_eq(step, s + 1);
        ck_assert_double_eq_tol(naive, r.naive[s], 5e-7);
        ck_assert_double_eq_tol(tiled, r.tiled[s], 5e-7);
        ck_assert_double_eq_tol(diff, r.tiled[s] - r.naive[s], 1e-9 + 0.051 * fabs(diff));
        at = strchr(at, '\n') + 1;
    }
    double largest, tol;
    char verdict[8];
    ck_assert_int_eq(sscanf(at, "largest relative difference: %lf of the loss; within the "
                            "tiled kernels'\ntolerance (%lf): %7s", &largest, &tol, verdict), 3);
    ck_assert_double_eq_tol(largest, r.largest, 1e-9 + 0.051 * r.largest);
    ck_assert_double_eq(tol, TILED_TOL);
    ck_assert_str_eq(verdict, r.largest <= TILED_TOL ? "yes" : "no");
    ck_assert_str_eq(verdict, "yes");
    at = strchr(strchr(at, '\n') + 1, '\n') + 1;  // the verdict takes two lines
    double naive_ms, tiled_ms;
    ck_assert_int_eq(sscanf(at, "a step: naive %lf ms, tiled %lf ms", &naive_ms, &tiled_ms), 2);
    ck_assert_double_eq_tol(naive_ms, r.naive_ms, 0.5);
    ck_assert_double_eq_tol(tiled_ms, r.tiled_ms, 0.5);
    free(text);
}
END_TEST

// ---------------------------------------------------------------- [P10.6]

#define PEAK 1e11  // FLOP/s: any peak, the shares are of it

static mfu_table run_mfu(void) {
    mfu_table t;
    char err[256];
    ck_assert_msg(mfu_run(&t, 1, PEAK, SEED, err, sizeof err) == 0, "%s", err);
    return t;
}

// Chapter 7's batch drawn again: its distinct words, and the count of its step.
static void check_ch7(const mfu_table *t) {
    static ch7_run r;  // the batch only: no model built
    torch_rng g;
    rng_seed(&g, SEED + 1);
    ch7_batch(&r, &g);
    static bool seen[CH7_V];
    memset(seen, 0, sizeof seen);
    int words = 0;
    for (int i = 0; i < CH7_B * IMDB_CHUNK; i++) {
        ck_assert(r.ids[i] >= 0 && r.ids[i] < CH7_V);
        words += !seen[r.ids[i]];
        seen[r.ids[i]] = true;
    }
    ck_assert_int_eq(t->words, words);
    // drawn as words are: far fewer than the tokens, far more than a few
    ck_assert_msg(words > 200 && words < CH7_B * IMDB_CHUNK * 3 / 4, "%d words", words);
    sentiment_config cfg = {.kind = MODEL_SOFTMAX_ATTENTION, .V = CH7_V, .d = 100, .d_k = 32,
                            .L = 32, .B = 64};
    step_cost want = sentiment_step_cost(&cfg, 64, words);
    ck_assert_double_eq(t->rows[0].cost.flops, want.flops);
    ck_assert_double_eq(t->rows[0].cost.bytes, want.bytes);
}

// Chapter 8's batch drawn again: n source rows and n + 1 target rows (BOS
// and the digits read, the digits and EOS scored) of a sequence of n digits.
static void check_ch8(const mfu_table *t) {
    reversal_batch b;
    ck_assert_int_eq(reversal_batch_alloc(&b, 64), 0);
    torch_rng g;
    rng_seed(&g, SEED + 1);
    reversal_draw(&b, &g);
    int src[64], tgt[64], src_rows = 0, tgt_rows = 0;
    for (int i = 0; i < 64; i++) {
        src[i] = b.lengths[i], tgt[i] = b.lengths[i] + 1;
        src_rows += src[i], tgt_rows += tgt[i];
    }
    ck_assert_int_eq(t->src_rows, src_rows);
    ck_assert_int_eq(t->tgt_rows, tgt_rows);
    ck_assert_int_lt(src_rows, 64 * REVERSAL_SRC_LEN);  // padding was left out
    seq2seq_config cfg = {.V = 13, .d = 64, .h = 4, .d_ff = 256, .n_enc = 2, .n_dec = 2};
    step_cost want = seq2seq_step_cost(&cfg, 64, src, tgt);
    ck_assert_double_eq(t->rows[1].cost.flops, want.flops);
    ck_assert_double_eq(t->rows[1].cost.bytes, want.bytes);
    reversal_batch_free(&b);
}

START_TEST(mfu_counts_are_the_batches) {
    mfu_table t = run_mfu();
    ck_assert_int_eq(t.steps, 1);
    ck_assert_double_eq(t.peak, PEAK);
    ck_assert_int_eq(t.threads, parallel_threads());
    check_ch7(&t);
    check_ch8(&t);
    gpt_config cfg = {.V = 81, .T = 64, .d = 128, .h = 4, .L = 4};
    ck_assert_double_eq(t.rows[2].cost.flops, gpt_step_flops(&cfg, 32, 64));
    ck_assert_double_eq(t.rows[2].cost.flops, 10596384768.0);
    const char *names[] = {"ch. 7 attention", "ch. 8 reversal", "ch. 9 GPT"};
    int threads[] = {1, 1, t.threads < 2 ? t.threads : 2};
    for (int i = 0; i < MFU_MODELS; i++) {
        ck_assert_str_eq(t.rows[i].name, names[i]);
        ck_assert_int_eq(t.rows[i].threads, threads[i]);
        ck_assert_msg(t.rows[i].seconds > 0 && t.rows[i].seconds < 60, "%g s", t.rows[i].seconds);
        ck_assert_double_eq(mfu_share(&t, &t.rows[i]),
                            t.rows[i].cost.flops / t.rows[i].seconds / PEAK);
    }
}
END_TEST

START_TEST(mfu_refuses_bad_steps) {
    mfu_table t;
    char err[256] = "";
    ck_assert_int_eq(mfu_run(&t, 0, PEAK, SEED, err, sizeof err), -1);
    ck_assert_str_eq(err, "[P10.6]: 0 steps, not 1 to 64");
    ck_assert_int_eq(mfu_run(&t, TRAINING_MAX_STEPS + 1, PEAK, SEED, err, sizeof err), -1);
}
END_TEST

// [P10.1]'s line on naive attention: the peak bounds a kernel at or right
// of the ridge, the bandwidth one left of it.
START_TEST(ridge_side_names_the_roof) {
    ck_assert_ptr_nonnull(strstr(ridge_side(16, 8.4), "right of the ridge"));
    ck_assert_ptr_nonnull(strstr(ridge_side(16, 8.4), "by the peak"));
    ck_assert_ptr_nonnull(strstr(ridge_side(16, 16), "by the peak"));
    ck_assert_ptr_nonnull(strstr(ridge_side(16, 16.1), "left of the ridge"));
    ck_assert_ptr_nonnull(strstr(ridge_side(16, 16.1), "by the bandwidth"));
}
END_TEST

// A table made up.
static mfu_table made_up(void) {
    return (mfu_table){.steps = 4, .peak = 2.5e11, .threads = 2, .words = 700, .src_rows = 300,
                       .tgt_rows = 364,
                       .rows = {{"ch. 7 attention", 1, {7.7e7, 9.1e6}, 1.3e-3},
                                {"ch. 8 reversal", 1, {5.123456e8, 3.7e7}, 4.1e-3},
                                {"ch. 9 GPT", 2, {1.0596384768e10, 3.2e8}, 0.1234}}};
}

// The printed table, read back: its shape, every number the row's, and each
// share the printed operations over the printed time and peak.
START_TEST(printed_mfu_table_is_the_rows) {
    mfu_table t = made_up();
    char *text;
    PRINTED(text, f, mfu_print(f, &t));
    ck_assert_ptr_nonnull(strstr(text, "(700 distinct words in the batch)\n"));
    ck_assert_ptr_nonnull(strstr(text, "(300 source and 364 target rows computed)\n"));
    const char *at = strstr(text, "a step: the best of 4; MFU: its rate over the peak of all "
                                  "cores,\n");
    ck_assert_ptr_nonnull(at);
    double peak;
    int threads;
    ck_assert_int_eq(sscanf(strchr(at, '\n') + 1, "  %lf GFLOP/s (threads: %d)", &peak, &threads),
                     2);
    ck_assert_double_eq_tol(peak, 250, 0.05);
    ck_assert_int_eq(threads, 2);
    at = strstr(text, "model              operations FLOP/B      a step            rate  MFU\n");
    ck_assert_ptr_nonnull(at);
    at = strchr(at, '\n') + 1;
    for (int i = 0; i < MFU_MODELS; i++) {
        const mfu_row *r = &t.rows[i];
        ck_assert_int_eq(strncmp(at, r->name, strlen(r->name)), 0);
        double ops, intensity, ms, rate, share;
        int end = 0;
        ck_assert_int_eq(sscanf(at + 16, "%lf %lf %lf ms %lf GFLOP/s %lf%% of peak%n", &ops,
                                &intensity, &ms, &rate, &share, &end), 5);
        ck_assert_int_eq(at[16 + end], '\n');
        ck_assert_double_eq(ops, round(r->cost.flops));
        ck_assert_double_eq_tol(intensity, r->cost.flops / r->cost.bytes, 0.05);
        ck_assert_double_eq_tol(ms, 1e3 * r->seconds, 0.005);
        // from the printed numbers: rounding in ms and in the peak
        double slack = 0.005 / ms + 0.05 / peak;
        ck_assert_double_eq_tol(rate, ops / ms / 1e6, 0.005 + rate * slack);
        ck_assert_double_eq_tol(share, 100 * ops / ms / 1e6 / peak, 0.05 + share * slack);
        at = strchr(at, '\n') + 1;
    }
    ck_assert_str_eq(at, "");  // the rows end the block
    free(text);
}
END_TEST

// The figure's data: a line a model, its name quoted, its counts, its time.
START_TEST(mfu_data_are_the_rows) {
    mfu_table t = made_up();
    char dir[] = "/tmp/chapter10-test-XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert(mfu_write(&t, "chapter10", dir));
    snprintf(path, sizeof path, "%s/chapter10-mfu.dat", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_int_eq(line[0], '#');
    for (int i = 0; i < MFU_MODELS; i++) {
        const mfu_row *r = &t.rows[i];
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        char want[40];
        snprintf(want, sizeof want, "\"%s\" ", r->name);
        ck_assert_int_eq(strncmp(line, want, strlen(want)), 0);
        double ops, bytes, seconds;
        int threads;
        ck_assert_int_eq(sscanf(line + strlen(want), "%lf %lf %lf %d", &ops, &bytes, &seconds,
                                &threads), 4);
        ck_assert_double_eq(ops, r->cost.flops);
        ck_assert_double_eq(bytes, r->cost.bytes);
        ck_assert_double_eq_tol(seconds, r->seconds, 1e-6 * r->seconds);
        ck_assert_int_eq(threads, r->threads);
    }
    ck_assert_ptr_null(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("chapter10");
    TCase *batches = tcase_create("batches");
    tcase_add_test(batches, batches_count_up_with_noise);
    tcase_add_test(batches, mfu_refuses_bad_steps);
    tcase_add_test(batches, ridge_side_names_the_roof);
    tcase_add_test(batches, printed_mfu_table_is_the_rows);
    tcase_add_test(batches, mfu_data_are_the_rows);
    suite_add_tcase(s, batches);
    // two models of chapter 9's size trained: minutes under memcheck, where
    // ./chapter10's own two steps of them run instead (make valgrind)
    TCase *tc = tcase_create("training");
    tcase_set_tags(tc, "slow");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, losses_are_a_naive_models_and_tiled_agrees);
    tcase_add_test(tc, printed_block_is_the_results);
    tcase_add_test(tc, mfu_counts_are_the_batches);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
