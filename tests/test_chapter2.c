// test_chapter2.c: chapter 2's program, cells [T14]-[T18], run on chapter 1's
// tokens and embeddings; and the property that makes masking correct: no
// z_i depends on a token after i.
#define TESTING
#include "../src/programs/chapter2.c"

#include <check.h>

#include "suite.h"

#include "capture.h"
#include "datafile.h"
#include <unistd.h>

#include "golden.h"

// One run with the default seed, shared by the tests (each test gets a fresh
// copy in its own process unless CK_FORK=no; none of them changes it).
static chapter2 ch;

static void setup(void) {
    ck_assert_int_eq(chapter2_run(&ch, SENTENCE, DEFAULT_SEED), 0);
}

// What chapter2_print writes, as one string (the caller frees it).
static char *printed(const chapter2 *c) {
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    chapter2_print(c, f);
    long len = ftell(f);
    ck_assert_int_gt(len, 0);
    char *s = malloc((size_t)len + 1);
    ck_assert_ptr_nonnull(s);
    rewind(f);
    ck_assert_int_eq(fread(s, 1, (size_t)len, f), (size_t)len);
    s[len] = '\0';
    fclose(f);
    return s;
}

static int count_occurrences(const char *s, const char *needle) {
    int count = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        count++;
    return count;
}

// ------------------------------------------------------------ the run

START_TEST(runs_on_chapter1_sentence) {
    ck_assert_int_eq(ch.n, 8);
    ck_assert_str_eq(ch.words[0], "Sorry");
    ck_assert_str_eq(ch.words[7], "that.");
    for (int i = 0; i < ch.n; i++) {
        ck_assert_int_ge(ch.ids[i], 0);
        ck_assert_int_lt(ch.ids[i], VOCAB_SIZE);
    }
    ck_assert_int_eq(ch.fully_masked_rows, 0);
}
END_TEST

START_TEST(draws_are_chapter1_draws) {
    // Cells [T3]-[T4] after rng_seed: randint for the 8 ids, then the whole
    // (V, d) normal table; x holds the ids' rows.
    torch_rng g;
    int64_t ids[8];
    rng_seed(&g, DEFAULT_SEED);
    rng_randint(&g, ids, 8, 0, VOCAB_SIZE);
    float *table = malloc((size_t)VOCAB_SIZE * EMBEDDING_DIM * sizeof(float));
    ck_assert_ptr_nonnull(table);
    rng_embedding_init(&g, table, VOCAB_SIZE, EMBEDDING_DIM);
    for (int i = 0; i < 8; i++) {
        ck_assert_int_eq(ch.ids[i], ids[i]);
        ck_assert(same_bits(ch.x + i * EMBEDDING_DIM,
                            table + ids[i] * EMBEDDING_DIM, EMBEDDING_DIM));
    }
    free(table);
}
END_TEST

START_TEST(seed_changes_tokens_and_is_repeatable) {
    chapter2 a, b;
    ck_assert_int_eq(chapter2_run(&a, SENTENCE, 42), 0);
    ck_assert_int_eq(chapter2_run(&b, SENTENCE, 42), 0);
    ck_assert(memcmp(a.ids, b.ids, sizeof a.ids) == 0);
    ck_assert(same_bits(a.z, b.z, 8 * EMBEDDING_DIM));
    ck_assert(memcmp(a.ids, ch.ids, 8 * sizeof a.ids[0]) != 0);
    char *s = printed(&a);
    ck_assert_ptr_nonnull(strstr(s, "\nTrue\n"));
    free(s);
}
END_TEST

START_TEST(too_short_a_sentence_is_an_error) {
    chapter2 c;
    stderr_capture cap;
    capture_begin(&cap);
    ck_assert_int_eq(chapter2_run(&c, "only three words", DEFAULT_SEED), -1);
    ck_assert_int_eq(chapter2_run(&c, "", DEFAULT_SEED), -1);
    char *said = capture_end(&cap);
    ck_assert_ptr_nonnull(strstr(said, "chapter2: error: the sentence must have 4 to 64 words"));
    free(said);
    ck_assert_int_eq(chapter2_run(&c, "now four words here", DEFAULT_SEED), 0);
    ck_assert_int_eq(c.n, 4);
}
END_TEST

// ------------------------------------------------------------ cells

START_TEST(cell14_mask_is_true_above_the_diagonal) {
    const int n = ch.n;
    int count = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            ck_assert_int_eq(ch.mask[i * n + j], j > i);
            count += ch.mask[i * n + j];
        }
    ck_assert_int_eq(count, 28);
}
END_TEST

START_TEST(cell15_masked_entries_are_minus_1e10_the_rest_untouched) {
    const int n = ch.n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float got = ch.masked_scores[i * n + j];
            if (j > i) ck_assert(got == -1e10f);
            else ck_assert(got == ch.scores[i * n + j]);
        }
    // row 0 keeps only x_0 . x_0 = |x_0|^2 > 0
    ck_assert_float_eq(ch.masked_scores[0], dot(ch.x, ch.x, EMBEDDING_DIM));
    ck_assert_float_gt(ch.masked_scores[0], 0.0f);
}
END_TEST

START_TEST(cell16_weights_above_the_diagonal_are_exactly_zero) {
    const int n = ch.n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float w = ch.causal_weights[i * n + j];
            if (j > i) ck_assert(w == 0.0f);
            else ck_assert_float_gt(w, 0.0f);  // nothing visible underflows
        }
    // row 0 sees only itself: weight exactly 1
    ck_assert(ch.causal_weights[0] == 1.0f);
}
END_TEST

START_TEST(cell16_rows_sum_to_one) {
    for (int i = 0; i < ch.n; i++)
        ck_assert_float_eq_tol(ch.causal_sums[i], 1.0f, 1e-6f);
}
END_TEST

START_TEST(cell16_is_softmax_over_visible_keys) {
    // Masking before the softmax renormalises each row over keys 0 .. i:
    // causal row i is unmasked row i's first i + 1 weights divided by their
    // sum (relative tolerance 1e-5).
    const int n = ch.n;
    for (int i = 0; i < n; i++) {
        float visible = 0.0f;
        for (int j = 0; j <= i; j++) visible += ch.weights[i * n + j];
        for (int j = 0; j <= i; j++) {
            float want = ch.weights[i * n + j] / visible;
            ck_assert_float_eq_tol(ch.causal_weights[i * n + j], want,
                                   1e-5f * want);
        }
    }
    // the last row sees everything: masking leaves it unchanged, bit for bit
    ck_assert(same_bits(ch.causal_weights + (n - 1) * n,
                        ch.weights + (n - 1) * n, n));
}
END_TEST

START_TEST(zeroing_after_the_softmax_would_break_the_sums) {
    // The shortcut the chapter warns against, on the chapter's weights: every
    // row but the last loses the weight it gave to later tokens.
    const int n = ch.n;
    float after[64], sums[8];
    masked_fill(after, ch.weights, ch.mask, 0.0f, n * n);
    row_sums(sums, after, n, n);
    for (int i = 0; i < n - 1; i++) ck_assert_float_lt(sums[i], 1.0f - 1e-6f);
    ck_assert_float_eq_tol(sums[n - 1], 1.0f, 1e-6f);
}
END_TEST

START_TEST(library_masked_softmax_gives_the_same_bits) {
    ck_assert(same_bits(ch.library_weights, ch.causal_weights, ch.n * ch.n));
}
END_TEST

START_TEST(minus_infinity_gives_the_same_bits_as_minus_1e10) {
    // exp(-1e10 / sqrt(32) - max) underflows to exactly 0, as exp(-inf) is.
    const int n = ch.n;
    float filled[64], w[64];
    masked_fill(filled, ch.scores, ch.mask, -INFINITY, n * n);
    attention_weights(w, filled, n, EMBEDDING_DIM);
    ck_assert(same_bits(w, ch.causal_weights, n * n));
    // a control that can fail: a fill of only -10 leaks weight to the future
    masked_fill(filled, ch.scores, ch.mask, -10.0f, n * n);
    attention_weights(w, filled, n, EMBEDDING_DIM);
    ck_assert_float_gt(w[1], 0.0f);
}
END_TEST

START_TEST(cell17_z0_is_x0) {
    // row 0 of the weights is (1, 0, ..., 0), so z_0 is x_0 exactly
    ck_assert(same_bits(ch.z, ch.x, EMBEDDING_DIM));
}
END_TEST

START_TEST(cell18_manual_z3_uses_tokens_0_to_3_and_matches_row_3) {
    const int d = EMBEDDING_DIM;
    // torch.allclose with its defaults, rtol=1e-5 and atol=1e-8, as printed
    ck_assert(allclose(ch.z3_manual, ch.z + 3 * d, d, 1e-5f, 1e-8f));
    // in fact equal: the same products summed in the same order, then + 0
    ck_assert(same_bits(ch.z3_manual, ch.z + 3 * d, d));
    // and not chapter 1's z_3, which saw all eight tokens
    float z_unmasked[8 * EMBEDDING_DIM];
    matmul(z_unmasked, ch.weights, ch.x, ch.n, ch.n, d);
    ck_assert(!allclose(ch.z3_manual, z_unmasked + 3 * d, d, 1e-5f, 1e-8f));
}
END_TEST

START_TEST(output_shows_the_cells) {
    char *s = printed(&ch);
    ck_assert_ptr_nonnull(strstr(s,
        "[T14] causal_mask: True above the diagonal\n"
        "tensor([[False,  True,  True,  True,  True,  True,  True,  True],\n"
        "        [False, False,  True,  True,  True,  True,  True,  True],\n"));
    ck_assert_ptr_nonnull(strstr(s,
        "        [False, False, False, False, False, False, False, False]])\n"));
    // [T15]: row 0, its first entry, then seven -1.0000e+10
    char row0[64];
    snprintf(row0, sizeof row0, "tensor([ %.4e, -1.0000e+10,",
             (double)ch.masked_scores[0]);
    ck_assert_ptr_nonnull(strstr(s, row0));
    ck_assert_int_eq(count_occurrences(s, "-1.0000e+10"), 7);
    ck_assert_ptr_nonnull(strstr(s,
        "tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000, "
        "1.0000])\n"));
    ck_assert_ptr_nonnull(strstr(s,
        "[T17] causal_context_weighted_embeddings.shape\n"
        "torch.Size([8, 32])\n"));
    const char *last = "allclose to row 3\n";
    const char *p = strstr(s, last);
    ck_assert_ptr_nonnull(p);
    size_t len = strlen(s);
    ck_assert(len > 5 && strcmp(s + len - 5, "True\n") == 0);
    for (int cell = 14; cell <= 18; cell++) {
        char head[24];
        snprintf(head, sizeof head, "\n[T%d] ", cell);
        ck_assert_int_eq(count_occurrences(s, head), 1);
    }
    free(s);
}
END_TEST

START_TEST(default_seed_prints_the_notebooks_row_0) {
    // cell [T15] of the notebook, as it printed it (without grad_fn)
    ck_assert_uint_eq(DEFAULT_SEED, 3570563066u);  // chapter 1's default too
    char *s = printed(&ch);
    ck_assert_ptr_nonnull(strstr(s,
        "tensor([ 4.3661e+01, -1.0000e+10, -1.0000e+10, -1.0000e+10, "
        "-1.0000e+10,\n"
        "        -1.0000e+10, -1.0000e+10, -1.0000e+10])\n"));
    free(s);
    const int64_t ids[] = { 10277, 18871, 14910, 13181, 2829, 19980, 9604,
                            10053 };
    for (int i = 0; i < 8; i++) ck_assert_int_eq(ch.ids[i], ids[i]);
}
END_TEST

// tests/reference/chapter1_golden.py wrote what PyTorch computes for cells
// [T3]-[T9] after torch.manual_seed(N); chapter 2 starts from the same numbers.
static const uint64_t golden_seeds[] = { 0, 42, 3570563066u };

START_TEST(starts_from_pytorchs_numbers_for_seed) {
    uint64_t seed = golden_seeds[_i];
    char file[64];
    snprintf(file, sizeof file, "chapter1_seed%llu.txt",
             (unsigned long long)seed);
    chapter2 *r = malloc(sizeof *r);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(chapter2_run(r, SENTENCE, seed), 0);
    const int n = r->n, d = EMBEDDING_DIM;
    golden ids = golden_read(file, "ids", "i64");
    golden x = golden_read(file, "embedded", "f32");
    golden w = golden_read(file, "weights", "f32");
    ck_assert_int_eq((int)ids.n, n);
    for (int i = 0; i < n; i++) ck_assert_int_eq(r->ids[i], ids.i[i]);
    ck_assert_float_le(max_abs_diff(r->x, x.f, n * d), 1e-6f);
    ck_assert_float_le(max_abs_diff(r->weights, w.f, n * n), 1e-5f);
    // PyTorch's unmasked weights, renormalised over keys 0 .. i, are what
    // the causal softmax must give (to 1e-5)
    for (int i = 0; i < n; i++) {
        double visible = 0.0;
        for (int j = 0; j <= i; j++) visible += w.f[i * n + j];
        for (int j = 0; j <= i; j++)
            ck_assert_float_eq_tol(r->causal_weights[i * n + j],
                                   (float)(w.f[i * n + j] / visible), 1e-5f);
    }
    golden_free(&ids);
    golden_free(&x);
    golden_free(&w);
    free(r);
}
END_TEST

// The figure's weights: softmax(scores / (4 sqrt(d))), computed here in
// double, and the causal ones each the unmasked row's visible part divided
// by its sum. At that temperature no row of this sentence puts more than
// 0.6 on its own token, and the mask moves at least 0.3 of a row's weight
// onto its diagonal somewhere: the figure's two panels differ.
START_TEST(figure_weights_are_tempered_and_renormalised) {
    const int n = ch.n;
    double largest_move = 0;
    for (int i = 0; i < n; i++) {
        double max = -HUGE_VAL, sum = 0, visible = 0, e[MAX_TOKENS];
        for (int j = 0; j < n; j++) max = fmax(max, ch.scores[i * n + j]);
        for (int j = 0; j < n; j++) {
            e[j] = exp((ch.scores[i * n + j] - max) / (4 * sqrt(EMBEDDING_DIM)));
            sum += e[j];
            visible += j <= i ? e[j] : 0;
        }
        for (int j = 0; j < n; j++) {
            ck_assert_float_eq_tol(ch.tempered[i * n + j], (float)(e[j] / sum), 1e-6f);
            float want = j <= i ? (float)(e[j] / visible) : 0.0f;
            ck_assert_float_eq_tol(ch.tempered_causal[i * n + j], want, 1e-6f);
        }
        ck_assert_float_lt(ch.tempered[i * n + i], 0.6f);
        largest_move = fmax(largest_move, ch.tempered_causal[i * n + i] - ch.tempered[i * n + i]);
    }
    ck_assert_double_gt(largest_move, 0.3);
}
END_TEST

START_TEST(figure_data_has_both_panels) {
    char dir[] = "/tmp/chapter2-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chapter2_write_data(&ch, dir), 0);
    static const char *const words[8] = {"Sorry", "Dave,", "I'm", "afraid", "I", "can't", "do", "that."};
    assert_heatmap_file(dir, "chapter2-tempered-weights.dat", ch.tempered, 8, 8, words, words);
    assert_heatmap_file(dir, "chapter2-tempered-causal-weights.dat", ch.tempered_causal, 8, 8,
                        words, words);
    char path[128];
    snprintf(path, sizeof path, "%s/chapter2-temperature.dat", dir);
    size_t len;
    char *text = read_whole_file(path, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "4\n");
    free(text);
    ck_assert_int_eq(remove(path), 0);
    rmdir(dir);
    stderr_capture cap;
    capture_begin(&cap);
    ck_assert_int_eq(chapter2_write_data(&ch, "/nonexistent/dir"), -1);
    char *said = capture_end(&cap);
    ck_assert_ptr_nonnull(strstr(said, "chapter2: error: cannot write /nonexistent/dir/"));
    free(said);
}
END_TEST

// ------------------------------------------------------------ causality

// Adds a different, large amount to every entry of rows first .. n-1 of x.
static void disturb_rows(float *x, int first, int n, int d) {
    for (int i = first; i < n; i++)
        for (int k = 0; k < d; k++) x[i * d + k] += 3.0f + 0.25f * (float)k;
}

START_TEST(changing_tokens_4_to_7_leaves_z0_to_z3_unchanged) {
    const int n = ch.n, d = EMBEDDING_DIM;
    chapter2 *c = malloc(sizeof *c);
    ck_assert_ptr_nonnull(c);
    *c = ch;
    disturb_rows(c->x, 4, n, d);
    chapter2_attend(c);
    // exactly: the same bits, not just close
    ck_assert(same_bits(c->z, ch.z, 4 * d));
    ck_assert(same_bits(c->causal_weights, ch.causal_weights, 4 * n));
    // z_4 .. z_7 did change
    for (int i = 4; i < n; i++)
        ck_assert(!allclose(c->z + i * d, ch.z + i * d, d, 1e-5f, 1e-8f));
    // the control: without the mask z_0 .. z_3 move too
    for (int i = 0; i < 4; i++) {
        float before[EMBEDDING_DIM], after[EMBEDDING_DIM];
        weighted_sum(before, ch.weights + i * n, ch.x, n, d);
        weighted_sum(after, c->weights + i * n, c->x, n, d);
        ck_assert(!same_bits(before, after, d));
    }
    free(c);
}
END_TEST

START_TEST(no_z_depends_on_a_later_token) {
    // For every j: change x_j alone; z_0 .. z_{j-1} keep their bits, z_j
    // moves.
    const int n = ch.n, d = EMBEDDING_DIM;
    chapter2 *c = malloc(sizeof *c);
    ck_assert_ptr_nonnull(c);
    for (int j = 0; j < n; j++) {
        *c = ch;
        disturb_rows(c->x, j, j + 1, d);
        chapter2_attend(c);
        ck_assert(same_bits(c->z, ch.z, j * d));
        ck_assert(!same_bits(c->z + j * d, ch.z + j * d, d));
    }
    free(c);
}
END_TEST

static Suite *chapter2_suite(void) {
    Suite *s = suite_create("chapter2");
    TCase *run = tcase_create("run");
    tcase_add_checked_fixture(run, setup, NULL);
    tcase_add_test(run, runs_on_chapter1_sentence);
    tcase_add_test(run, draws_are_chapter1_draws);
    tcase_add_test(run, seed_changes_tokens_and_is_repeatable);
    tcase_add_test(run, too_short_a_sentence_is_an_error);
    suite_add_tcase(s, run);
    TCase *cells = tcase_create("cells");
    tcase_add_checked_fixture(cells, setup, NULL);
    tcase_add_test(cells, cell14_mask_is_true_above_the_diagonal);
    tcase_add_test(cells, cell15_masked_entries_are_minus_1e10_the_rest_untouched);
    tcase_add_test(cells, cell16_weights_above_the_diagonal_are_exactly_zero);
    tcase_add_test(cells, cell16_rows_sum_to_one);
    tcase_add_test(cells, cell16_is_softmax_over_visible_keys);
    tcase_add_test(cells, zeroing_after_the_softmax_would_break_the_sums);
    tcase_add_test(cells, library_masked_softmax_gives_the_same_bits);
    tcase_add_test(cells, minus_infinity_gives_the_same_bits_as_minus_1e10);
    tcase_add_test(cells, cell17_z0_is_x0);
    tcase_add_test(cells, cell18_manual_z3_uses_tokens_0_to_3_and_matches_row_3);
    tcase_add_test(cells, output_shows_the_cells);
    tcase_add_test(cells, default_seed_prints_the_notebooks_row_0);
    tcase_add_test(cells, figure_weights_are_tempered_and_renormalised);
    tcase_add_test(cells, figure_data_has_both_panels);
    suite_add_tcase(s, cells);
    TCase *torch = tcase_create("pytorch");
    tcase_add_loop_test(torch, starts_from_pytorchs_numbers_for_seed, 0,
                        (int)(sizeof golden_seeds / sizeof golden_seeds[0]));
    suite_add_tcase(s, torch);
    TCase *causal = tcase_create("causality");
    tcase_add_checked_fixture(causal, setup, NULL);
    tcase_add_test(causal, changing_tokens_4_to_7_leaves_z0_to_z3_unchanged);
    tcase_add_test(causal, no_z_depends_on_a_later_token);
    suite_add_tcase(s, causal);
    return s;
}

int main(void) {
    return run_suite(chapter2_suite());
}
