// test_chapter1.c: every result of notebook cells [T2]-[T13], checked on the
// very functions ./chapter1 runs.
#define TESTING
#include "../src/programs/chapter1.c"

#include <check.h>
#include <math.h>

#include "suite.h"

#include "capture.h"
#include "datafile.h"
#include <unistd.h>

#include "cells.h"
#include "golden.h"

static chapter1 c;

static void setup(void) {
    ck_assert_int_eq(chapter1_run(&c, SENTENCE, DEFAULT_SEED), 0);
}

static void teardown(void) {
    chapter1_free(&c);
}

START_TEST(sentence_has_eight_tokens_in_range) {
    ck_assert_int_eq(c.n, 8);
    ck_assert_str_eq(c.words[0], "Sorry");
    ck_assert_str_eq(c.words[7], "that.");
    for (int i = 0; i < c.n; i++) {
        ck_assert_int_ge(c.ids[i], 0);
        ck_assert_int_lt(c.ids[i], VOCAB_SIZE);
    }
}
END_TEST

START_TEST(embedding_has_640000_parameters) {
    ck_assert_int_eq(VOCAB_SIZE * EMBEDDING_DIM, 640000);
    // and the printed line groups the thousands as Python's {:,} does
    char *buf; size_t len;
    FILE *f = open_memstream(&buf, &len);
    chapter1_print(&c, f);
    fclose(f);
    expect_in_cell(buf, "T5", "number of embedding parameters = 640,000\n");
    expect_in_cell(buf, "T4", "\ntorch.Size([8, 32])\n");
    expect_in_cell(buf, "T6", "\ntorch.Size([8, 8])\n");
    free(buf);
}
END_TEST

START_TEST(embedded_rows_are_table_rows) {
    for (int i = 0; i < c.n; i++)
        for (int k = 0; k < EMBEDDING_DIM; k++)
            ck_assert_float_eq(c.x[i * EMBEDDING_DIM + k],
                               c.embedding_table[c.ids[i] * EMBEDDING_DIM + k]);
}
END_TEST

START_TEST(loop_equals_matmul) {
    // cell [T8]: torch.allclose(..., atol=1e-6)
    ck_assert(allclose(c.scores_matmul, c.scores_loop, c.n * c.n, 1e-5f, 1e-6f));
    // the same dot products in the same order: equal, not merely close
    ck_assert_float_eq(max_abs_diff(c.scores_matmul, c.scores_loop, c.n * c.n), 0.0f);
}
END_TEST

START_TEST(scores_are_symmetric_with_squared_norms_on_the_diagonal) {
    for (int i = 0; i < c.n; i++) {
        const float *xi = c.x + i * EMBEDDING_DIM;
        ck_assert_float_eq_tol(c.scores_loop[i * c.n + i], dot(xi, xi, EMBEDDING_DIM), 1e-5f);
        for (int j = 0; j < c.n; j++)
            ck_assert_float_eq(c.scores_loop[i * c.n + j], c.scores_loop[j * c.n + i]);
    }
}
END_TEST

START_TEST(softmax_rows_sum_to_one) {
    for (int i = 0; i < c.n; i++) {
        ck_assert_float_eq_tol(c.sums[i], 1.0f, 1e-6f);
        for (int j = 0; j < c.n; j++) {
            ck_assert_float_gt(c.weights[i * c.n + j], 0.0f);
            ck_assert_float_lt(c.weights[i * c.n + j], 1.0f);
        }
    }
}
END_TEST

START_TEST(figure_diagonal_dominates) {
    // what the chapter says of its figure: every row's largest weight is
    // the word attending to itself
    for (int i = 0; i < c.n; i++)
        for (int j = 0; j < c.n; j++)
            if (j != i) ck_assert_float_gt(c.weights[i * c.n + i], c.weights[i * c.n + j]);
}
END_TEST

START_TEST(weights_are_scaled_by_sqrt_d) {
    // w[i][j] / w[i][k] = exp((s[i][j] - s[i][k]) / sqrt(32))
    const int n = c.n;
    for (int i = 0; i < n; i++) {
        double want = exp(((double)c.scores_loop[i * n + 1] - c.scores_loop[i * n + 2]) / sqrt(32.0));
        double got = (double)c.weights[i * n + 1] / c.weights[i * n + 2];
        ck_assert_double_eq_tol(got / want, 1.0, 1e-4);
    }
}
END_TEST

START_TEST(context_has_shape_8_by_32_and_manual_z3_matches) {
    // cell [T11]: context_weighted_embeddings.shape, printed from the sizes
    // the program computed with
    char *buf; size_t len;
    FILE *f = open_memstream(&buf, &len);
    chapter1_print(&c, f);
    fclose(f);
    expect_in_cell(buf, "T11", "\ntorch.Size([8, 32])\n");
    free(buf);
    // cell [T13]: torch.allclose(z3_manual, z[3], atol=1e-6)
    ck_assert(allclose(c.z3_manual, c.z + 3 * EMBEDDING_DIM, EMBEDDING_DIM, 1e-5f, 1e-6f));
    // and it is not trivially so: z_3 differs from x_3 and from z_2
    ck_assert_float_gt(max_abs_diff(c.z + 3 * EMBEDDING_DIM, c.x + 3 * EMBEDDING_DIM, EMBEDDING_DIM), 1e-3f);
    ck_assert_float_gt(max_abs_diff(c.z + 3 * EMBEDDING_DIM, c.z + 2 * EMBEDDING_DIM, EMBEDDING_DIM), 1e-3f);
}
END_TEST

START_TEST(printed_checks_say_true) {
    char *buf; size_t len;
    FILE *f = open_memstream(&buf, &len);
    chapter1_print(&c, f);
    fclose(f);
    int trues = 0;
    for (char *p = buf; (p = strstr(p, "\nTrue\n")); p++) trues++;
    ck_assert_int_eq(trues, 2);
    ck_assert_ptr_null(strstr(buf, "False"));
    free(buf);
}
END_TEST

START_TEST(tokenizer_rejects_bad_text) {
    int64_t ids[MAX_TOKENS];
    char words[MAX_TOKENS][MAX_WORD];
    torch_rng g;
    rng_seed(&g, 0);
    ck_assert_int_eq(dummy_tokenize(ids, words, "", VOCAB_SIZE, &g), -1);
    ck_assert_int_eq(dummy_tokenize(ids, words, "a  b", VOCAB_SIZE, &g), 3);  // like str.split(" ")
    ck_assert_str_eq(words[1], "");
}
END_TEST

START_TEST(figure_data_has_labels_and_values) {
    char dir[] = "/tmp/chapter1-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chapter1_write_data(&c, dir), 0);
    // every value of both files, where the arrays hold it, under the words
    static const char *const words[8] = {"Sorry", "Dave,", "I'm", "afraid", "I", "can't", "do", "that."};
    assert_heatmap_file(dir, "chapter1-scores.dat", c.scores_loop, 8, 8, words, words);
    assert_heatmap_file(dir, "chapter1-weights.dat", c.weights, 8, 8, words, words);
    rmdir(dir);
    stderr_capture cap;
    capture_begin(&cap);
    ck_assert_int_eq(chapter1_write_data(&c, "/nonexistent/dir"), -1);
    char *said = capture_end(&cap);
    ck_assert_str_eq(said, "chapter1: error: cannot write /nonexistent/dir/chapter1-scores.dat: "
                           "No such file or directory\n");
    free(said);
}
END_TEST

START_TEST(same_seed_same_numbers_other_seed_other_numbers) {
    chapter1 other;
    ck_assert_int_eq(chapter1_run(&other, SENTENCE, DEFAULT_SEED), 0);
    ck_assert_mem_eq(other.z, c.z, sizeof c.z);
    chapter1_free(&other);
    ck_assert_int_eq(chapter1_run(&other, SENTENCE, 1), 0);
    ck_assert(memcmp(other.ids, c.ids, sizeof c.ids) != 0);
    chapter1_free(&other);
}
END_TEST

// The notebook printed these, from a run without a seed; seed 3570563066
// draws them again.
START_TEST(default_seed_prints_the_notebooks_numbers) {
    const int64_t ids[] = { 10277, 18871, 14910, 13181, 2829, 19980, 9604, 10053 };
    const float z3[] = {  // cell [T12], printed to 4 decimals
        -0.7159f,  0.4557f,  0.8079f, -0.3945f, -0.3668f,  0.9979f, -0.1918f, -1.1513f,
        -0.8344f, -0.8734f,  0.7873f, -0.4425f, -0.7375f, -0.5568f,  0.1270f,  0.6518f,
        -0.1288f, -0.5502f,  0.5016f,  0.0821f, -0.1772f,  1.1589f,  0.9620f,  2.0633f,
         1.4493f,  0.5128f, -0.0210f, -0.4529f,  0.0912f, -0.0551f,  0.1342f, -0.4279f };
    ck_assert_uint_eq(DEFAULT_SEED, 3570563066u);
    for (int i = 0; i < 8; i++) ck_assert_int_eq(c.ids[i], ids[i]);
    for (int k = 0; k < EMBEDDING_DIM; k++)
        ck_assert_float_eq_tol(c.z3_manual[k], z3[k], 5e-5f + 1e-6f);
}
END_TEST

// ./chapter1 --seed N computes what PyTorch computes after
// torch.manual_seed(N): tests/reference/chapter1_golden.py wrote these.
static const uint64_t golden_seeds[] = { 0, 42, 3570563066u };

static void expect_close(const char *file, const char *name, const float *got, int n, float tol) {
    golden_expect_near(file, name, got, (size_t)n, 1, tol);
}

START_TEST(matches_pytorch_for_seed) {
    uint64_t seed = golden_seeds[_i];
    char file[64];
    snprintf(file, sizeof file, "chapter1_seed%llu.txt", (unsigned long long)seed);
    chapter1 r;
    ck_assert_int_eq(chapter1_run(&r, SENTENCE, seed), 0);
    golden ids = golden_read(file, "ids", "i64");
    ck_assert_int_eq((int)ids.n, r.n);
    for (int i = 0; i < r.n; i++) ck_assert_int_eq(r.ids[i], ids.i[i]);
    golden_free(&ids);
    const int nd = r.n * EMBEDDING_DIM, nn = r.n * r.n;
    expect_close(file, "embedded", r.x, nd, 1e-6f);      // normals: ~1 ulp
    expect_close(file, "scores", r.scores_loop, nn, 2e-5f);  // sums of 32 products near 40
    expect_close(file, "weights", r.weights, nn, 1e-5f);
    expect_close(file, "context", r.z, nd, 1e-5f);
    chapter1_free(&r);
}
END_TEST

// The three ways of the timing figure compute the same attention.
START_TEST(three_ways_agree) {
    torch_rng g;
    rng_seed(&g, 5);
    int sizes[] = {1, 3, 8, 33, 100};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int n = sizes[t], d = EMBEDDING_DIM;
        float *x = malloc((size_t)n * d * sizeof *x), *w = malloc((size_t)n * n * sizeof *w);
        float *z[TIMING_WAYS];
        rng_randn(&g, x, (size_t)n * d);
        for (int k = 0; k < TIMING_WAYS; k++) {
            z[k] = malloc((size_t)n * d * sizeof *z[k]);
            WAYS[k](z[k], w, x, n, d);
        }
        for (int k = 1; k < TIMING_WAYS; k++)
            for (int i = 0; i < n * d; i++)
                ck_assert_msg(fabsf(z[k][i] - z[0][i]) < 1e-4f, "n %d, way %d, [%d]: %g, loops %g", n, k, i,
                              z[k][i], z[0][i]);
        for (int k = 0; k < TIMING_WAYS; k++) free(z[k]);
        free(x);
        free(w);
    }
}
END_TEST

// The timing table and its figure data, for n = 8 ... 64: a line per n,
// positive times, and the ratios the text quotes.
START_TEST(timing_table_and_data) {
    char dir[] = "/tmp/chapter1-test-XXXXXX", path[256], *text = NULL;
    size_t len = 0;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    FILE *f = open_memstream(&text, &len);
    torch_rng g;
    rng_seed(&g, 1);
    ck_assert_int_eq(chapter1_timing(f, dir, 64, EMBEDDING_DIM, &g), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "from n = 32 to 64 the times grow"));
    snprintf(path, sizeof path, "%s/chapter1-timing.dat", dir);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));  // the header
    int n, rows = 0;
    double ms[3];
    while (fscanf(f, "%d %lg %lg %lg", &n, &ms[0], &ms[1], &ms[2]) == 4) {
        ck_assert_int_eq(n, 8 << rows++);
        for (int k = 0; k < 3; k++) ck_assert(ms[k] > 0);
        // the table's line for n: the same times (printed to 4 digits) and
        // the ratio of the first to the last
        char at[16];
        snprintf(at, sizeof at, "\n%6d ", n);
        const char *row = strstr(text, at);
        ck_assert_msg(row != NULL, "no table line for n = %d:\n%s", n, text);
        double shown[3], ratio;
        ck_assert_int_eq(sscanf(row + strlen(at), "%lg %lg %lg %lg", &shown[0], &shown[1], &shown[2], &ratio), 4);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(fabs(shown[k] - ms[k]) <= 5e-4 * ms[k], "n = %d, way %d: table %g, data %g", n, k,
                          shown[k], ms[k]);
        ck_assert_msg(fabs(ratio - ms[0] / ms[2]) <= 0.05 + 1e-3 * ratio, "n = %d: ratio %g, times give %g", n,
                      ratio, ms[0] / ms[2]);
    }
    ck_assert_int_eq(rows, 4);
    fclose(f);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(rmdir(dir), 0);
    free(text);
}
END_TEST

// Block [P1.1]. The entropy of distributions whose entropy is known.
START_TEST(entropy_of_known_rows) {
    const float even[4] = { 0.25f, 0.25f, 0.25f, 0.25f }, one[4] = { 0, 1, 0, 0 };
    const float halves[4] = { 0.5f, 0, 0.5f, 0 };
    ck_assert_double_eq_tol(entropy(even, 4), log(4.0), 1e-7);
    ck_assert_double_eq_tol(entropy(one, 4), 0, 1e-12);
    ck_assert_double_eq_tol(entropy(halves, 4), log(2.0), 1e-7);
}
END_TEST

// Every number of block [P1.1] recomputed here in double from the same
// draws, in the program's order (a query, then its keys), and what the
// chapter says of them: the variance is the width and 1 after the
// division; without it the largest weight climbs and the entropy falls
// with d, with it both stay put. Then the table and the data file.
START_TEST(scaling_block_numbers) {
    scaling_row rows[SCALING_WIDTHS];
    torch_rng g, h;
    rng_seed(&g, DEFAULT_SEED);
    rng_seed(&h, DEFAULT_SEED);
    ck_assert_int_eq(scaling_run(rows, &g), 0);
    float q[1024], keys[SCALING_KEYS * 1024];
    for (int w = 0; w < SCALING_WIDTHS; w++) {
        const int d = SCALING_D[w], n = SCALING_KEYS;
        double sum = 0, squares = 0, ent[2] = { 0, 0 }, top[2] = { 0, 0 };
        for (int row = 0; row < SCALING_ROWS; row++) {
            rng_randn(&h, q, (size_t)d);
            rng_randn(&h, keys, (size_t)n * d);
            double s[SCALING_KEYS];
            for (int j = 0; j < n; j++) {
                s[j] = 0;
                for (int p = 0; p < d; p++) s[j] += (double)q[p] * keys[j * d + p];
                sum += s[j];
                squares += s[j] * s[j];
            }
            for (int k = 0; k < 2; k++) {
                double div = k ? sqrt((double)d) : 1, mx = -INFINITY, z = 0, e[SCALING_KEYS];
                for (int j = 0; j < n; j++) mx = fmax(mx, s[j] / div);
                for (int j = 0; j < n; j++) z += e[j] = exp(s[j] / div - mx);
                double big = 0;
                for (int j = 0; j < n; j++) {
                    double a = e[j] / z;
                    if (a > 0) ent[k] -= a * log(a) / SCALING_ROWS;
                    big = fmax(big, a);
                }
                top[k] += big / SCALING_ROWS;
            }
        }
        double count = (double)SCALING_ROWS * n, var = squares / count - (sum / count) * (sum / count);
        const scaling_row *r = &rows[w];
        ck_assert_int_eq(r->d, d);
        ck_assert_msg(fabs(r->var_raw - var) <= 1e-4 * var, "d %d: variance %g, here %g", d, r->var_raw, var);
        ck_assert_double_eq_tol(r->var_scaled, r->var_raw / d, 1e-12);
        for (int k = 0; k < 2; k++) {
            ck_assert_msg(fabs(r->entropy[k] - ent[k]) < 2e-4, "d %d, %d: entropy %g, here %g", d, k,
                          r->entropy[k], ent[k]);
            ck_assert_msg(fabs(r->largest[k] - top[k]) < 2e-4, "d %d, %d: largest %g, here %g", d, k,
                          r->largest[k], top[k]);
        }
        // what the chapter says
        ck_assert_msg(fabs(r->var_raw / d - 1) < 0.05, "d %d: variance %g", d, r->var_raw);
        ck_assert_msg(fabs(r->var_scaled - 1) < 0.05, "d %d: scaled variance %g", d, r->var_scaled);
        ck_assert(r->entropy[1] > r->entropy[0] && r->largest[1] < r->largest[0]);
        ck_assert_msg(fabs(r->entropy[1] - rows[0].entropy[1]) < 0.05, "d %d: scaled entropy moves", d);
        ck_assert_msg(fabs(r->largest[1] - rows[0].largest[1]) < 0.03, "d %d: scaled largest moves", d);
        if (w > 0) {
            ck_assert(r->largest[0] > rows[w - 1].largest[0]);
            ck_assert(r->entropy[0] < rows[w - 1].entropy[0]);
        }
    }
    ck_assert(rows[SCALING_WIDTHS - 1].largest[0] > 0.95 && rows[SCALING_WIDTHS - 1].entropy[0] < 0.1);
    // the table, row for row, and the data file
    char *text, dir[] = "/tmp/chapter1-test-XXXXXX", path[256];
    size_t len;
    FILE *f = open_memstream(&text, &len);
    scaling_print(f, rows);
    fclose(f);
    // the two variances under headers a bar apart, so that they cannot be read as one
    ck_assert_ptr_nonnull(strstr(text, "\n     d |        s | s / sqrt(d) |  entropy  largest |"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert(scaling_write_data(rows, dir));
    snprintf(path, sizeof path, "%s/chapter1-scaling.dat", dir);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));  // the header
    for (int w = 0; w < SCALING_WIDTHS; w++) {
        const scaling_row *r = &rows[w];
        char want[128];
        snprintf(want, sizeof want, "\n%6d | %8.2f | %11.3f | %8.3f %8.3f | %8.3f %8.3f\n", r->d, r->var_raw,
                 r->var_scaled, r->entropy[0], r->largest[0], r->entropy[1], r->largest[1]);
        ck_assert_msg(strstr(text, want), "lacks \"%s\":\n%s", want, text);
        int d;
        double v[6], want_v[6] = { r->var_raw, r->var_scaled, r->entropy[0], r->largest[0], r->entropy[1],
                                   r->largest[1] };
        ck_assert_int_eq(fscanf(f, "%d %lg %lg %lg %lg %lg %lg", &d, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]), 7);
        ck_assert_int_eq(d, r->d);
        for (int k = 0; k < 6; k++) ck_assert_msg(fabs(v[k] - want_v[k]) <= 1e-5 * fabs(want_v[k]), "d %d col %d", d, k);
    }
    ck_assert_int_eq(fscanf(f, "%d", &(int){ 0 }), EOF);
    fclose(f);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(rmdir(dir), 0);
    free(text);
}
END_TEST

static Suite *chapter1_suite(void) {
    Suite *s = suite_create("chapter1");
    TCase *tc = tcase_create("cells");
    // [P1.1]'s draws (4,000 rows of a query and its keys at each width) take
    // seconds under the sanitizers, more than Check's default 4 when busy
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, sentence_has_eight_tokens_in_range);
    tcase_add_test(tc, embedding_has_640000_parameters);
    tcase_add_test(tc, embedded_rows_are_table_rows);
    tcase_add_test(tc, loop_equals_matmul);
    tcase_add_test(tc, scores_are_symmetric_with_squared_norms_on_the_diagonal);
    tcase_add_test(tc, softmax_rows_sum_to_one);
    tcase_add_test(tc, figure_diagonal_dominates);
    tcase_add_test(tc, weights_are_scaled_by_sqrt_d);
    tcase_add_test(tc, context_has_shape_8_by_32_and_manual_z3_matches);
    tcase_add_test(tc, printed_checks_say_true);
    tcase_add_test(tc, tokenizer_rejects_bad_text);
    tcase_add_test(tc, figure_data_has_labels_and_values);
    tcase_add_test(tc, same_seed_same_numbers_other_seed_other_numbers);
    tcase_add_test(tc, default_seed_prints_the_notebooks_numbers);
    tcase_add_test(tc, three_ways_agree);
    tcase_add_test(tc, timing_table_and_data);
    tcase_add_test(tc, entropy_of_known_rows);
    tcase_add_test(tc, scaling_block_numbers);
    suite_add_tcase(s, tc);
    TCase *torch = tcase_create("pytorch");
    tcase_add_loop_test(torch, matches_pytorch_for_seed, 0,
                        (int)(sizeof golden_seeds / sizeof golden_seeds[0]));
    suite_add_tcase(s, torch);
    return s;
}

int main(void) {
    return run_suite(chapter1_suite());
}
