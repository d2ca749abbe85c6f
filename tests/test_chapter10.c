// test_chapter10.c: chapter 10's [10.5] (src/programs/chapter10_training.h):
// chapter 9's model trained with its attention computed the naive way and
// tiled. What the block prints is read back and held to the numbers it was
// printed from; the naive losses are those of a model trained here, step
// by step, on the block's batches; the tiled ones agree with them within
// the tolerance the tiled kernels are held to (TILED_TOL: 2e-5 of
// |the loss| + 1, as tests/test_tiled_attention.c and test_gpt's
// tiled_attention_trains_alike); the batches count up as the header says.
// (The table of [10.1] to [10.4] holds times, which no test can expect;
// the kernels it times are held in test_tiled_attention.)
#include "../src/programs/chapter10_training.c"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    attention_training_print(f, &r);
    fclose(f);
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
    ck_assert_int_eq(sscanf(at, "largest difference: %lf of the loss; within the tiled kernels' "
                            "tolerance (%lf): %7s", &largest, &tol, verdict), 3);
    ck_assert_double_eq_tol(largest, r.largest, 1e-9 + 0.051 * r.largest);
    ck_assert_double_eq(tol, TILED_TOL);
    ck_assert_str_eq(verdict, r.largest <= TILED_TOL ? "yes" : "no");
    ck_assert_str_eq(verdict, "yes");
    at = strchr(at, '\n') + 1;
    double naive_ms, tiled_ms;
    ck_assert_int_eq(sscanf(at, "a step: naive %lf ms, tiled %lf ms", &naive_ms, &tiled_ms), 2);
    ck_assert_double_eq_tol(naive_ms, r.naive_ms, 0.5);
    ck_assert_double_eq_tol(tiled_ms, r.tiled_ms, 0.5);
    free(text);
}
END_TEST

int main(void) {
    Suite *s = suite_create("chapter10");
    TCase *batches = tcase_create("batches");
    tcase_add_test(batches, batches_count_up_with_noise);
    suite_add_tcase(s, batches);
    // two models of chapter 9's size trained: minutes under memcheck, where
    // ./chapter10's own two steps of them run instead (make valgrind)
    TCase *tc = tcase_create("training");
    tcase_set_tags(tc, "slow");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, losses_are_a_naive_models_and_tiled_agrees);
    tcase_add_test(tc, printed_block_is_the_results);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
