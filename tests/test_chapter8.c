// test_chapter8.c: what ./chapter8 claims, checked on the very functions it
// runs: the order blindness of a model without positions, the parameter
// count, the training losses against PyTorch's, and the accuracy claims on
// a short run.
//
// Tolerances:
//   twin: the losses of the first TWIN_STEPS steps within 1e-4 of those
//     tests/reference/chapter8_twin.py computes with torch.nn and
//     torch.optim.Adam from the same weights and batches (written by
//     tests/reference/chapter8_golden.py into GOLDEN_DIR/chapter8_seed<S>.txt;
//     they agree to about 1e-6: float sums in another order, through 20
//     Adam steps).
//   order: without positions, a source and its reverse give the same
//     encoder rows, reversed, and the same logits, to rounding (1e-5; sums
//     of the same terms in another order); with positions they differ by
//     more than 0.1.
//   short run: SHORT_STEPS steps from seed 1, scored on SHORT_TEST
//     held-out sequences (a quarter of the program's training, so that
//     the suite takes seconds, and minutes under the sanitizers); the
//     bounds are well away from the values measured (exact match 0.72 with
//     positions and 0.18 without; on sequences never trained on, 0.63 and
//     0.01; the mean of the last 20 losses 0.38 and 1.30), so that they
//     hold for any correct implementation, and fail for one that does not
//     learn or that sees order without positions.
#define TESTING
#include "../src/programs/chapter8.c"
#include "../src/programs/chapter8_imdb.c"

#include <check.h>
#include <unistd.h>

#include "datafile.h"
#include "cells.h"
#include "golden.h"
#include "suite.h"

#define TWIN_STEPS 20
#define TWIN_TOL 1e-4
#define ORDER_TOL 1e-5
#define SHORT_STEPS 150
#define SHORT_TEST 300

static chapter8 short_run;   // one run, shared by the tests that read it

static void short_run_setup(void) {
    ck_assert_int_eq(chapter8_run(&short_run, 1, SHORT_STEPS, SHORT_TEST), 0);
}

static void short_run_teardown(void) {
    chapter8_free(&short_run);
}

// ---------------------------------------------------------------------------
// Against PyTorch

START_TEST(first_losses_are_the_twins) {
    const uint64_t seeds[2] = { 1, 7 };
    for (int k = 0; k < 2; k++) {
        chapter8 c;
        ck_assert_int_eq(chapter8_run(&c, seeds[k], TWIN_STEPS, 16), 0);
        char file[64];
        snprintf(file, sizeof file, "chapter8_seed%llu.txt", (unsigned long long)seeds[k]);
        const char *sections[2] = { "losses_positions", "losses_none" };
        const run *runs[2] = { &c.with, &c.without };
        for (int r = 0; r < 2; r++) {
            double *want = golden_doubles(file, sections[r], "f32", TWIN_STEPS);
            for (int s = 0; s < TWIN_STEPS; s++) {
                double diff = fabs((double)runs[r]->losses[s] - want[s]);
                if (!(diff <= TWIN_TOL))
                    ck_abort_msg("seed %llu, %s, step %d: %.7f, PyTorch %.7f",
                                 (unsigned long long)seeds[k], sections[r], s + 1,
                                 (double)runs[r]->losses[s], want[s]);
            }
            free(want);
        }
        chapter8_free(&c);
    }
}
END_TEST

// ---------------------------------------------------------------------------
// The model

START_TEST(parameters_counted_by_hand) {
    const seq2seq_model *m = &short_run.with.model;
    const int d = D_MODEL, f = D_FF, V = REVERSAL_VOCAB;
    int attention = 3 * d * d + 3 * d + d * d + d;    // in_proj, out_proj
    int ffn = f * d + f + d * f + d;                   // linear1, linear2
    int encoder = attention + ffn + 2 * 2 * d;        // two LayerNorms
    int decoder = 2 * attention + ffn + 3 * 2 * d;    // three
    ck_assert_int_eq(params_named(m, "enc.0."), encoder);
    ck_assert_int_eq(params_named(m, "dec.1."), decoder);
    ck_assert_int_eq(params_named(m, "embedding."), V * d);
    ck_assert_int_eq(params_named(m, "generator."), d * V + V);
    ck_assert_uint_eq(m->n_params, (size_t)(V * d + 2 * encoder + 2 * decoder + d * V + V));
    ck_assert_uint_eq(m->n_params, 235149);
    // the model without positions has the same parameters
    ck_assert_uint_eq(short_run.without.model.n_params, m->n_params);
}
END_TEST

// ---------------------------------------------------------------------------
// Order

START_TEST(reversing_the_source_reverses_the_encoder_without_positions) {
    ck_assert_int_eq(short_run.test.lengths[short_run.reverse_index], N_MAX);
    ck_assert_double_le(short_run.reverse_gap[0], ORDER_TOL);
    ck_assert_double_gt(short_run.reverse_gap[1], 0.1);
    // and on other sources, of every length but 1 (whose reverse is itself)
    int tried = 0;
    for (int i = 0; i < short_run.test.B && tried < 20; i++) {
        int n = short_run.test.lengths[i];
        if (n < 2) continue;
        const int32_t *src = short_run.test.src + (size_t)i * S;
        ck_assert_double_le(reverse_gap(&short_run.without.model, src, n), ORDER_TOL);
        tried++;
    }
    ck_assert_int_eq(tried, 20);
}
END_TEST

START_TEST(trained_without_positions_the_logits_ignore_the_order) {
    ck_assert_double_le(short_run.order_gap, ORDER_TOL);
    // and so it decodes a source and its reverse the same way
    ck_assert_mem_eq(short_run.reverse_out,
                     short_run.without.decoded + (size_t)short_run.reverse_index * T,
                     sizeof short_run.reverse_out);
    int differ = 0, tried = 0;
    for (int i = 0; i < short_run.test.B && tried < 20; i++) {
        if (short_run.test.lengths[i] < 3) continue;
        ck_assert_double_le(logits_gap(&short_run.without.model, &short_run.test, i), ORDER_TOL);
        differ += logits_gap(&short_run.with.model, &short_run.test, i) > 0.1;
        tried++;
    }
    ck_assert_int_eq(tried, 20);
    ck_assert_int_eq(differ, 20);  // with positions, every one differs
}
END_TEST

START_TEST(orders_counted) {
    reversal_batch b;
    ck_assert_int_eq(reversal_batch_alloc(&b, 3), 0);
    const int rows[3][N_MAX] = { { 1, 2, 3 }, { 4, 4, 5, 5 }, { 7, 7, 7, 7, 7 } };
    const int lengths[3] = { 3, 4, 5 };
    for (int r = 0; r < 3; r++) {
        memcpy(b.digits + r * N_MAX, rows[r], sizeof rows[r]);
        b.lengths[r] = lengths[r];
    }
    ck_assert_double_eq_tol(orders_of(&b, 0), 6, 1e-12);   // 3!
    ck_assert_double_eq_tol(orders_of(&b, 1), 6, 1e-12);   // 4! / (2! 2!)
    ck_assert_double_eq_tol(orders_of(&b, 2), 1, 1e-12);   // a palindrome
    reversal_batch_free(&b);
    const int32_t src[S] = { 4, 5, 5 }, right[T] = { 5, 5, 4, 2 }, wrong[T] = { 5, 4, 4, 2 },
                  longer[T] = { 5, 5, 4, 4, 2 }, open[T] = { 5, 5, 4, 9, 9, 9, 9, 9, 9, 9, 9 };
    ck_assert(same_multiset(right, src, 3));
    ck_assert(!same_multiset(wrong, src, 3));
    ck_assert(!same_multiset(longer, src, 3));
    ck_assert(!same_multiset(open, src, 3));
}
END_TEST

// ---------------------------------------------------------------------------
// The short run

// The mean of a run's last 20 losses.
static double last_losses(const run *r) {
    double sum = 0;
    for (int s = SHORT_STEPS - 20; s < SHORT_STEPS; s++) sum += r->losses[s];
    return sum / 20;
}

// The fraction of the test set r decodes exactly, all of it or (unseen)
// only the sequences never trained on.
static double exact_fraction(const run *r, bool unseen) {
    int right = 0, count = 0;
    for (int i = 0; i < short_run.test.B; i++) {
        if (unseen && reversal_seen_has(&short_run.seen, short_run.test.digits + (size_t)i * N_MAX,
                                        short_run.test.lengths[i]))
            continue;
        count++;
        right += r->exact[i];
    }
    ck_assert_int_gt(count, SHORT_TEST / 2);
    return (double)right / count;
}

START_TEST(a_short_run_learns_with_positions_only) {
    // the loss starts near log 13 = 2.56 for both
    ck_assert_double_gt(short_run.with.losses[0], 2.4);
    ck_assert_double_gt(short_run.without.losses[0], 2.4);
    ck_assert_double_lt(last_losses(&short_run.with), 0.6);
    ck_assert_double_gt(last_losses(&short_run.without), 0.9);
    ck_assert_double_gt(exact_fraction(&short_run.with, false), 0.5);
    ck_assert_double_gt(exact_fraction(&short_run.with, true), 0.4);
    ck_assert_double_lt(exact_fraction(&short_run.without, false), 0.3);
    ck_assert_double_lt(exact_fraction(&short_run.without, true), 0.05);
    // an exact output has the right digits; without positions the model
    // gets the digits right far more often than their order
    int multiset = 0;
    for (int i = 0; i < short_run.test.B; i++) {
        ck_assert(!short_run.with.exact[i] || short_run.with.multiset[i]);
        ck_assert(!short_run.without.exact[i] || short_run.without.multiset[i]);
        multiset += short_run.without.multiset[i];
    }
    ck_assert_double_gt((double)multiset / SHORT_TEST, 2 * exact_fraction(&short_run.without, false));
}
END_TEST

START_TEST(every_training_sequence_is_seen) {
    // the training batches again, from the same generator: each is in seen
    torch_rng data;
    rng_seed(&data, 1 + 1);
    reversal_batch b;
    ck_assert_int_eq(reversal_batch_alloc(&b, BATCH), 0);
    for (int step = 0; step < SHORT_STEPS; step++) {
        reversal_draw(&b, &data);
        for (int r = 0; r < BATCH; r++)
            ck_assert(reversal_seen_has(&short_run.seen, b.digits + r * N_MAX, b.lengths[r]));
    }
    ck_assert_uint_le(short_run.seen.n, (size_t)SHORT_STEPS * BATCH);
    reversal_batch_free(&b);
}
END_TEST

// ---------------------------------------------------------------------------
// What it prints and writes

START_TEST(prints_every_block_and_its_counts) {
    char *out;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    ck_assert_ptr_nonnull(f);
    chapter8_print(&short_run, f);
    fclose(f);
    for (int k = 1; k <= 11; k++) {
        char label[16];
        snprintf(label, sizeof label, "P8.%d", k);
        free(cell_text(out, label));
    }
    const run *runs[2] = { &short_run.with, &short_run.without };
    const char *cells[2] = { "P8.6", "P8.9" };
    for (int k = 0; k < 2; k++) {
        int right = 0;
        for (int i = 0; i < SHORT_TEST; i++) right += runs[k]->exact[i];
        char want[96];
        snprintf(want, sizeof want, "all %d held-out sequences: %.4f (%d of %d)", SHORT_TEST,
                 (double)right / SHORT_TEST, right, SHORT_TEST);
        expect_in_cell(out, cells[k], want);
    }
    char want[64];
    snprintf(want, sizeof want, " 1st  %14.6f  %7.6f", (double)short_run.with.losses[0],
             (double)short_run.without.losses[0]);
    expect_in_cell(out, "P8.4", want);
    expect_in_cell(out, "P8.3", "  total       235,149\n");
    // the largest loss after the warm-up, found again here, and the
    // gradient's norms around it, each step's recomputed below
    const run *w = &short_run.with;
    int peak = WARMUP;
    for (int s = WARMUP + 1; s < SHORT_STEPS; s++)
        if (w->losses[s] > w->losses[peak]) peak = s;
    double near = 0, far = 0;
    for (int s = peak - 9; s <= peak; s++) near += w->norms[s] / 10;
    for (int s = peak - 79; s < peak - 29; s++) far += w->norms[s] / 50;
    char spike[256];
    snprintf(spike, sizeof spike, "the largest loss of a step after the warm-up: %.4f, at step %d; "
             "the gradient's norm\n(before Adam) averaged %.2f over steps %d-%d, and %.2f over steps "
             "%d-%d: %.1f times\n", (double)w->losses[peak], peak + 1, far, peak - 78, peak - 29, near,
             peak - 8, peak + 1, near / far);
    expect_in_cell(out, "P8.5", spike);
    free(out);
}
END_TEST

// Each step's recorded gradient norm is the norm of the gradient that step
// computed: a step of the short run's batches again, on a model built as
// the run's, its gradient summed here in double.
START_TEST(recorded_norm_is_the_gradients) {
    chapter8 c = { .seed = 1, .steps = 1 };
    positions_sinusoidal(c.pe, T, D_MODEL);
    for (int i = 0; i < T * D_MODEL; i++) c.pe_real[i] = (real)c.pe[i];
    seq2seq_model m;
    ck_assert_int_eq(model_build(&m, &c, POSITIONS_SINUSOIDAL), 0);
    torch_rng data;
    rng_seed(&data, 2);
    reversal_batch b;
    ck_assert_int_eq(reversal_batch_alloc(&b, BATCH), 0);
    reversal_draw(&b, &data);
    seq2seq_train_step(&m, 0, b.src, b.tgt_in, b.tgt_out, BATCH, S, T);  // lr 0: the block stays
    double sum = 0;
    for (size_t i = 0; i < m.n_params; i++) sum += (double)m.grad_block[i] * m.grad_block[i];
    ck_assert_double_gt(m.grad_norm, 0.1);
    ck_assert_double_eq_tol(m.grad_norm, sqrt(sum), 1e-9 * sqrt(sum));
    ck_assert_double_eq_tol(short_run.with.norms[0], m.grad_norm, 1e-6 * m.grad_norm);
    reversal_batch_free(&b);
    seq2seq_free(&m);
}
END_TEST

// The rows of the table by length in [P8.6] and [P8.9], each column counted
// again here from the runs' raw results (exact, multiset) and the test set.
START_TEST(table_by_length_from_the_raw_results) {
    char *out;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    ck_assert_ptr_nonnull(f);
    chapter8_print(&short_run, f);
    fclose(f);
    const reversal_batch *t = &short_run.test;
    const run *runs[2] = { &short_run.with, &short_run.without };
    const char *cells[2] = { "P8.6", "P8.9" };
    int rows = 0;
    for (int k = 0; k < 2; k++)
        for (int n = 1; n <= N_MAX; n++) {
            int count = 0, fresh = 0, ok = 0, ok_fresh = 0, digits = 0;
            double best = 0;
            for (int i = 0; i < t->B; i++) {
                if (t->lengths[i] != n) continue;
                bool never = !reversal_seen_has(&short_run.seen, t->digits + (size_t)i * N_MAX, n);
                count++;
                fresh += never;
                ok += runs[k]->exact[i];
                ok_fresh += never && runs[k]->exact[i];
                digits += runs[k]->multiset[i];
                best += 1 / orders_of(t, i);
            }
            if (count == 0) continue;
            char want[128], tail[48];
            if (k == 1)
                snprintf(tail, sizeof tail, "  %16.3f  %10.3f\n", (double)digits / count,
                         best / count);
            else if (fresh)
                snprintf(tail, sizeof tail, "  %17.3f\n", (double)ok_fresh / fresh);
            else
                snprintf(tail, sizeof tail, "  %17s\n", "-");
            snprintf(want, sizeof want, "\n%6d  %9d  %10d  %5.3f%s", n, count, fresh,
                     (double)ok / count, tail);
            expect_in_cell(out, cells[k], want);
            rows++;
        }
    ck_assert_int_ge(rows, 4);
    free(out);
}
END_TEST

START_TEST(writes_the_figure_data) {
    char dir[] = "/tmp/test_chapter8_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chapter8_write_data(&short_run, dir), 0);
    int i = short_run.example, n = short_run.test.lengths[i];
    ck_assert_int_eq(n, EXAMPLE_LEN);
    char labels[N_MAX][4];
    const char *src[N_MAX], *out[T];
    for (int k = 0; k < n; k++) {
        snprintf(labels[k], sizeof labels[k], "%d", short_run.test.digits[(size_t)i * N_MAX + k]);
        src[k] = labels[k];
    }
    for (int t = 0; t < n; t++) out[t] = src[n - 1 - t];
    out[n] = "EOS";
    assert_heatmap_file(dir, "chapter8-cross.dat", short_run.cross, n + 1, n, out, src);
    assert_heatmap_file(dir, "chapter8-cross-none.dat", short_run.cross_none, n + 1, n, out, src);
    assert_heatmap_file(dir, "chapter8-self.dat", short_run.self, n, n, src, src);
    // each row of a map sums to one; the encoder's gives every digit of the
    // source some weight (chapter 8's text about Figure 08-self)
    for (int q = 0; q <= n; q++) {
        double sum = 0, self = 0;
        for (int k = 0; k < n; k++) sum += short_run.cross[q * n + k];
        ck_assert_double_eq_tol(sum, 1, 1e-5);
        sum = 0;
        for (int k = 0; k < n; k++) sum += short_run.cross_none[q * n + k];
        ck_assert_double_eq_tol(sum, 1, 1e-5);
        for (int k = 0; k < n && q < n; k++) {
            ck_assert_float_gt(short_run.self[q * n + k], 0);
            self += short_run.self[q * n + k];
        }
        if (q < n) ck_assert_double_eq_tol(self, 1, 1e-5);
    }
    // without positions a source digit is only its value: two places that
    // hold the same digit get the same weight from every row; with
    // positions they do not
    const int *digits = short_run.test.digits + (size_t)i * N_MAX;
    int twins = 0;
    double with_gap = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (digits[a] != digits[b]) continue;
            twins++;
            for (int q = 0; q <= n; q++) {
                ck_assert_float_eq_tol(short_run.cross_none[q * n + a],
                                       short_run.cross_none[q * n + b], 1e-5);
                with_gap = fmax(with_gap, fabs((double)short_run.cross[q * n + a] -
                                               short_run.cross[q * n + b]));
            }
        }
    ck_assert_int_gt(twins, 0);
    ck_assert_double_gt(with_gap, 0.05);
    const char *names[3] = { "chapter8-loss-positions.dat", "chapter8-loss-none.dat",
                             "chapter8-sinusoids.dat" };
    const int lines[3] = { SHORT_STEPS + 1, SHORT_STEPS + 1, N_SINUSOID };
    for (int k = 0; k < 3; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        size_t len;
        char *text = read_whole_file(path, &len);
        ck_assert_ptr_nonnull(text);
        int count = 0;
        for (size_t c = 0; c < len; c++) count += text[c] == '\n';
        ck_assert_int_eq(count, lines[k]);
        if (k == 0) {  // the first step's loss, as printed
            char want[64];
            snprintf(want, sizeof want, "\n1 %.6f\n", (double)short_run.with.losses[0]);
            ck_assert_ptr_nonnull(strstr(text, want));
        }
        free(text);
        unlink(path);
    }
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

// ---------------------------------------------------------------------------
// The command line (tests/fuzz/fuzz_options8.c tries many more)

START_TEST(command_line_fills_the_settings) {
    char *plain[] = {"chapter8", NULL};
    ch8_settings s;
    ck_assert_int_eq(parse_chapter8(1, plain, &s), -1);
    ck_assert_int_eq(s.steps, DEFAULT_STEPS);
    ck_assert_int_eq(s.test_size, DEFAULT_TEST);
    ck_assert(!s.no_imdb);
    ck_assert_int_eq(s.io.epochs, 1);
    ck_assert_str_eq(s.io.imdb_path, IMDB_CELL_IMDB);
    char *given[] = {"chapter8", "--steps", "3", "--seed", "5", "--imdb-epochs", "2",
                     "--imdb-limit", "64", "--imdb-test-limit", "25000", "--glove", "g.txt",
                     NULL};
    ck_assert_int_eq(parse_chapter8(13, given, &s), -1);
    ck_assert_int_eq(s.steps, 3);
    ck_assert_uint_eq(s.io.seed, 5);
    ck_assert_int_eq(s.io.epochs, 2);
    ck_assert_int_eq(s.io.limit, 64);
    ck_assert_int_eq(s.io.test_limit, 25000);
    ck_assert_str_eq(s.io.glove_path, "g.txt");
}
END_TEST

static Suite *chapter8_suite(void) {
    Suite *s = suite_create("chapter8");
    // two runs of 20 steps against PyTorch's losses: 1 s, and over 15
    // minutes under memcheck; tagged "slow", as the short run below
    TCase *twin = tcase_create("twin");
    tcase_set_tags(twin, "slow");
    tcase_add_test(twin, first_losses_are_the_twins);
    tcase_set_timeout(twin, 60);
    suite_add_tcase(s, twin);
    TCase *model = tcase_create("model");
    tcase_add_test(model, orders_counted);
    tcase_add_test(model, command_line_fills_the_settings);
    suite_add_tcase(s, model);
    // the models trained once for these tests: 5 s, and over 20 minutes
    // under memcheck; tagged "slow", which make valgrind leaves out (its
    // run of ./chapter8 --steps 3 trains the same code under memcheck)
    TCase *tc = tcase_create("short run");
    tcase_set_tags(tc, "slow");
    tcase_add_unchecked_fixture(tc, short_run_setup, short_run_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, parameters_counted_by_hand);
    tcase_add_test(tc, reversing_the_source_reverses_the_encoder_without_positions);
    tcase_add_test(tc, trained_without_positions_the_logits_ignore_the_order);
    tcase_add_test(tc, a_short_run_learns_with_positions_only);
    tcase_add_test(tc, every_training_sequence_is_seen);
    tcase_add_test(tc, prints_every_block_and_its_counts);
    tcase_add_test(tc, recorded_norm_is_the_gradients);
    tcase_add_test(tc, table_by_length_from_the_raw_results);
    tcase_add_test(tc, writes_the_figure_data);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(chapter8_suite());
}
