// test_chapter9.c: what ./chapter9 claims, checked on the very functions it
// runs: its first training losses against PyTorch's, the statistics it
// prints recomputed from what it prints beside them, the comparison with
// fair xz, cached and uncached generation alike, and, where the book's run
// has been made, its held-out figure below fair xz.
//
// Tolerances:
//   twin: the losses of the first TWIN_STEPS steps within 1e-4 of those
//     tests/reference/chapter9_twin.py computes with torch.nn and
//     torch.optim.AdamW from the same starting model and batches (written
//     by tests/reference/chapter9_losses_golden.py into
//     GOLDEN_DIR/chapter9_losses.txt for seeds 1337, the book's, and 7;
//     they agree to about 1e-6: float sums in other orders).
//   printed figures: to the last digit printed (half a unit of it, and as
//     much again for the number it is computed from).
#define TESTING
#include "../src/programs/chapter9.c"

#include <check.h>

#include "cells.h"
#include "golden.h"
#include "suite.h"

#define TWIN_STEPS 20
#define TWIN_TOL 1e-4
#define BOOK_OUTPUT SRC_DIR "/../build/out/chapter9.txt"

static settings short_settings(uint64_t seed, long steps, bool compressors) {
    return (settings){ .seed = seed, .steps = steps, .eval_chars = 3000,
                       .eval_batches = EVAL_BATCHES, .rdb = RDB_PATH,
                       .prompt = "It is a truth", .tokens = 60, .temperature = -1,
                       .compressors = compressors };
}

// What the run prints, [9.1] to [9.8], as one string (the caller frees it).
static char *printed(chapter9 *c) {
    char *text = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    print_data(c, f);  // what the program's chapter9_print_run prints, in its order
    print_yardsticks(c, f);
    print_model(c, f);
    print_first_losses(c, f);
    print_training(c, f);
    print_held_out(c, f);
    ck_assert_int_eq(generate(c, f, err, sizeof err), 0);
    fclose(f);
    return text;
}

// ---------------------------------------------------------------------------
// Against PyTorch

START_TEST(first_losses_are_the_twins) {
    const uint64_t seeds[2] = { 1337, 7 };
    for (int k = 0; k < 2; k++) {
        chapter9 c;
        settings s = short_settings(seeds[k], TWIN_STEPS, false);
        char err[256];
        ck_assert_msg(chapter9_run(&c, &s, err, sizeof err) == 0, "%s", err);
        char section[32];
        snprintf(section, sizeof section, "losses_seed%llu", (unsigned long long)seeds[k]);
        double *want = golden_doubles("chapter9_losses.txt", section, "f32", TWIN_STEPS);
        for (int i = 0; i < TWIN_STEPS; i++)
            ck_assert_msg(fabs(c.losses[i] - want[i]) <= TWIN_TOL,
                          "seed %llu, step %d: %.7f, PyTorch %.7f",
                          (unsigned long long)seeds[k], i + 1, c.losses[i], want[i]);
        free(want);
        chapter9_free(&c);
    }
}
END_TEST

// ---------------------------------------------------------------------------
// The printed figures

// Each row of [9.5]: the bits per character are the nats over ln 2.
static void check_training_table(const char *out) {
    char *cell = cell_text(out, "9.5");
    int rows = 0;
    for (char *line = strchr(cell, '\n'); line; line = strchr(line + 1, '\n')) {
        long step;
        double nats, b;
        if (sscanf(line + 1, "%ld %lf %lf", &step, &nats, &b) != 3) continue;
        ck_assert_msg(fabs(nats / log(2.0) - b) <= 0.5e-4 + 0.5e-4 / log(2.0),
                      "step %ld: %.4f nats printed as %.4f bits", step, nats, b);
        rows++;
    }
    ck_assert_int_ge(rows, 2);
    free(cell);
}

// [9.2]: fair xz is 8 (both - train) bytes over the held-out characters,
// and [9.6] says below, level or above as its two printed figures are.
static void check_against_xz(const char *out, size_t n_val) {
    char *cell = cell_text(out, "9.2");
    const char *at = strstr(cell, "xz -9 after the training");
    ck_assert_ptr_nonnull(at);
    double fair;
    long long both, train;
    ck_assert_int_eq(sscanf(at, "xz -9 after the training %lf (%lld - %lld bytes)", &fair, &both,
                            &train), 3);
    ck_assert_double_eq_tol(fair, 8.0 * (double)(both - train) / (double)n_val, 0.5e-3);
    free(cell);
    cell = cell_text(out, "9.6");
    at = strstr(cell, "\nPersuasion, ");
    ck_assert_ptr_nonnull(at);
    long chars;
    double nats, b, fair6, gap;
    char word[16];
    ck_assert_int_eq(sscanf(at, "\nPersuasion, %ld characters: %lf nats, %lf bits per character\n"
                            "%15s", &chars, &nats, &b, word), 4);
    ck_assert_double_eq_tol(b, nats / log(2.0), 0.5e-3 + 0.5e-4 / log(2.0));
    at = strstr(at, " fair xz (");
    ck_assert_ptr_nonnull(at);
    ck_assert_int_eq(sscanf(at, " fair xz (%lf bits per character) by %lf", &fair6, &gap), 2);
    ck_assert_double_eq_tol(fair6, fair, 1e-9);
    ck_assert_double_eq_tol(gap, fabs(b - fair), 1e-6);
    ck_assert_str_eq(word, b < fair ? "below" : b > fair ? "above" : "level");
    free(cell);
}

START_TEST(printed_figures_recomputed) {
    chapter9 c;
    settings s = short_settings(DEFAULT_SEED, 5, true);
    char err[256];
    ck_assert_msg(chapter9_run(&c, &s, err, sizeof err) == 0, "%s", err);
    char *out = printed(&c);
    check_training_table(out);
    check_against_xz(out, c.corpus.n_val);
    // what the novels give: 81 characters, Persuasion 466,854 of them
    expect_in_cell(out, "9.1", "held out: Persuasion, 466854 characters");
    expect_in_cell(out, "9.1", "vocabulary: 81 characters");
    // the bigram beats the uniform code, and gzip (alone) is the worst compressor
    ck_assert(c.bigram_bits < log2(81.0));
    ck_assert(c.comp.xz_fair_bits < c.comp.xz_bits && c.comp.xz_bits < c.comp.gzip_bits);
    ck_assert(c.same_tokens);
    expect_in_cell(out, "9.8", "the same 73 tokens: yes");
    free(out);
    chapter9_free(&c);
}
END_TEST

START_TEST(versus_to_the_printed_thousandth) {
    ck_assert_int_eq(versus(2.135, 2.141), -1);
    ck_assert_int_eq(versus(2.2, 2.141), 1);
    ck_assert_int_eq(versus(2.1412, 2.1408), 0);  // both print 2.141
    ck_assert_int_eq(versus(2.1404, 2.1406), -1); // 2.140 and 2.141
}
END_TEST

// The book's run (build/out/chapter9.txt, made by make book): its held-out
// bits per character below fair xz's, both read as printed.
START_TEST(book_run_beats_fair_xz) {
    FILE *f = fopen(BOOK_OUTPUT, "r");
    if (!f) {
        fprintf(stderr, "test_chapter9: no %s (make book writes it): not checked\n", BOOK_OUTPUT);
        return;
    }
    char line[512];
    double b = -1, fair = -1;
    while (fgets(line, sizeof line, f)) {
        long chars;
        double nats;
        if (sscanf(line, "Persuasion, %ld characters: %lf nats, %lf bits", &chars, &nats, &b) == 3)
            ck_assert_msg(chars >= 466854 - 65 && chars < 466854, "%ld characters", chars);
        if (strstr(line, "xz -9 after the training")) sscanf(line, "xz -9 after the training %lf",
                                                             &fair);
    }
    fclose(f);
    ck_assert_msg(b > 0 && fair > 0, "no held-out or fair xz figure in %s", BOOK_OUTPUT);
    ck_assert_msg(b < fair, "held-out %.3f bits per character, fair xz %.3f", b, fair);
}
END_TEST

static Suite *chapter9_suite(void) {
    Suite *s = suite_create("chapter9");
    TCase *tc = tcase_create("runs");
    tcase_set_timeout(tc, 1200);  // minutes on a loaded machine
    tcase_add_test(tc, first_losses_are_the_twins);
    tcase_add_test(tc, printed_figures_recomputed);
    tcase_add_test(tc, versus_to_the_printed_thousandth);
    tcase_add_test(tc, book_run_beats_fair_xz);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(chapter9_suite());
}
