// test_chapter6.c: the functions ./chapter6 runs (chapter6.c is included
// with TESTING defined), against PyTorch's numbers in tests/golden/ (written
// by tests/reference/chapter6_golden.py).
//
// Without data: the GloVe reader on small files in the standard text format
// that the tests write, good and bad; the whole chapter on such a file; the
// trainable and additive modules on random sentences (chapter6_seed1234.txt);
// PyTorch's broadcasting messages (chapter6_errors.txt).
// With data (make data): the chapter's own numbers from the GloVe vectors
// (chapter6_glove_seed0.txt); without data/glove it prints SKIP and passes,
// except in CI, where it fails (skip.h).
#define TESTING
#include "../src/programs/chapter6.c"

#include <check.h>
#include <float.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "cells.h"
#include "datafile.h"
#include "golden.h"
#include "suite.h"
#include "core/readfile.h"
#include "skip.h"
#include "tmpfile.h"

#ifndef DATA_DIR
#define DATA_DIR "data"
#endif

#define TOL 1e-5f   // PyTorch's float sums run in another order


static void assert_close(const float *got, const float *want, size_t n, float tol,
                         const char *what) {
    float diff = max_abs_diff(got, want, (int)n);
    ck_assert_msg(diff <= tol, "%s: max |difference| = %g > %g", what, (double)diff,
                  (double)tol);
}

static void assert_golden(const float *got, const char *file, const char *name,
                          size_t n, float tol) {
    golden_expect_near(file, name, got, n, 1, tol);
}

static void assert_rows_sum_to_one(const float *w, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        double sum = 0;
        for (int j = 0; j < cols; j++) sum += w[i * cols + j];
        ck_assert_msg(fabs(sum - 1.0) < 1e-6, "row %d sums to %.9f", i, sum);
    }
}

// ------------------------------------------------------------ the reader

// glove_lookup of the words "good" and "bad" (d = 3) in a file holding
// content: its status, with the error in err.
static int lookup3(const char *content, char **path, char *err, size_t errlen) {
    strmap w;
    strmap_init(&w);
    strmap_intern(&w, "good", 4, NULL);
    strmap_intern(&w, "bad", 3, NULL);
    float v[2 * 3];
    bool found[2];
    size_t n;
    *path = tmp_with(content);
    int rc = glove_lookup(v, found, &n, *path, 3, &w, err, errlen);
    strmap_free(&w);
    return rc;
}

START_TEST(reader_good_file) {
    char *p = tmp_with("good 1 2.5 -3e-2\nother 4 5 6\n\n  bad\t0.5 -1 7 \n");
    size_t d = 0, n = 0;
    char err[1024];
    ck_assert_int_eq(glove_dimension(&d, p, err, sizeof err), 0);
    ck_assert_uint_eq(d, 3);
    strmap w;
    strmap_init(&w);
    strmap_intern(&w, "bad", 3, NULL);
    strmap_intern(&w, "good", 4, NULL);
    strmap_intern(&w, "missing", 7, NULL);
    float v[3 * 3] = {0};
    bool found[3];
    ck_assert_int_eq(glove_lookup(v, found, &n, p, 3, &w, err, sizeof err), 0);
    ck_assert(found[0] && found[1] && !found[2]);
    ck_assert_uint_eq(n, 4);  // lines, the blank one included
    const float want[6] = { 0.5f, -1.0f, 7.0f, 1.0f, 2.5f, -3e-2f };
    for (int i = 0; i < 6; i++) ck_assert_float_eq(v[i], want[i]);
    strmap_free(&w);
    remove(p);
    free(p);
}
END_TEST

// Lines end as Python's open() ends them in text mode, the notebook's way
// of reading the file: \n, \r\n and a lone \r. "cat" after a lone \r is a
// word of its own line, not a fourth number of "the"'s; the first line's
// width is that of "the 1 2".
START_TEST(reader_line_ends) {
    char *p = tmp_with("the 1 2\rcat 3 4\r\ndog 5 6\n\r\nbird 7 8\r");
    size_t d = 0, n = 0;
    char err[1024];
    ck_assert_msg(glove_dimension(&d, p, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(d, 2);
    strmap w;
    strmap_init(&w);
    const char *words[4] = {"the", "cat", "dog", "bird"};
    for (int i = 0; i < 4; i++) strmap_intern(&w, words[i], strlen(words[i]), NULL);
    float v[4 * 2] = {0};
    bool found[4];
    ck_assert_msg(glove_lookup(v, found, &n, p, 2, &w, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(n, 5);  // Python's lines: the, cat, dog, a blank one, bird
    for (int i = 0; i < 4; i++) {
        ck_assert(found[i]);
        ck_assert_float_eq(v[2 * i], (float)(2 * i + 1));
        ck_assert_float_eq(v[2 * i + 1], (float)(2 * i + 2));
    }
    strmap_free(&w);
    remove(p);
    free(p);
}
END_TEST

// A number is read whole, however long (a field of 64 characters and more
// had been cut to its first 63: 1.000...e-5 read as 1); float's largest
// numbers are kept, as written or rounded down to FLT_MAX.
START_TEST(reader_reads_numbers_whole) {
    char text[400], *p;
    snprintf(text, sizeof text, "good 1.%066de-5 %.70f 3\nbad 3.4028235e38 -3.4028235677973e38 0\n",
             0, 0.25);
    strmap w;
    strmap_init(&w);
    strmap_intern(&w, "good", 4, NULL);
    strmap_intern(&w, "bad", 3, NULL);
    float v[2 * 3];
    bool found[2];
    size_t n;
    char err[1024];
    p = tmp_with(text);
    ck_assert_msg(glove_lookup(v, found, &n, p, 3, &w, err, sizeof err) == 0, "%s", err);
    ck_assert(found[0] && found[1]);
    ck_assert_float_eq(v[0], 1e-5f);
    ck_assert_float_eq(v[1], 0.25f);
    ck_assert_float_eq(v[3], FLT_MAX);
    ck_assert_float_eq(v[4], -FLT_MAX);
    strmap_free(&w);
    remove(p);
    free(p);
}
END_TEST

// Each bad file is refused with its name and the line at fault.
START_TEST(reader_bad_files) {
    const struct { const char *content, *line, *what; } cases[] = {
        { "good 1 2 3\nother 4 5\n", ":2:", "expected 3 numbers after the word, found 2" },
        { "good 1 2 3\nbad 4 5 6 7\n", ":2:", "expected 3 numbers after the word, found 4" },
        { "good 1 x 3\n", ":1:", "\"x\" is not a number" },
        { "other 1 2 3\nbad 1 2 0.5e\n", ":2:", "\"0.5e\" is not a number" },  // cut mid-way
        { "bad 1 2 -\n", ":1:", "\"-\" is not a number" },
        { "bad 1 2 3.4.5\n", ":1:", "\"3.4.5\" is not a number" },
        // the file ends mid-line: mid-vector, or mid-number with the count
        // of numbers still right (3.1 of 3.14), which only the missing
        // newline gives away
        { "good 1 2 3\nbad 1 2", ":2:", "the last line has no newline" },
        { "good 1 2 3\nbad 1 2 3.1", ":2:", "the last line has no newline" },
        // numbers that are not finite floats, as read or once rounded to
        // float (1e39), or beyond double (1e400)
        { "good 1 nan 3\n", ":1:", "\"nan\" is not a finite float" },
        { "good 1 2 3\nbad inf 2 3\n", ":2:", "\"inf\" is not a finite float" },
        { "bad 1 -Infinity 3\n", ":1:", "\"-Infinity\" is not a finite float" },
        { "bad 1 2 1e39\n", ":1:", "\"1e39\" is not a finite float" },
        { "good -1e400 2 3\n", ":1:", "\"-1e400\" is not a finite float" },
        // a field is read whole, however long: 64 characters and more
        { "good 1 2 1.00000000000000000000000000000000000000000000000000000000000000x\n",
          ":1:", "\"1.00000000000000000000000000000000000000000000000000000000000000x\" is not a number" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p, err[1024], where[600];
        ck_assert_int_eq(lookup3(cases[i].content, &p, err, sizeof err), -1);
        snprintf(where, sizeof where, "%s%s", p, cases[i].line);
        ck_assert_msg(strstr(err, where) && strstr(err, cases[i].what),
                      "case %zu: %s", i, err);
        remove(p);
        free(p);
    }
}
END_TEST

// The width is read from the first line; an empty file, a file of blank
// lines, a word with no numbers and a missing file are refused by name.
START_TEST(reader_dimension) {
    const struct { const char *content, *what; } cases[] = {
        { "", ": no vectors (an empty file)" },
        { "\n  \n\n", ": no vectors (only blank lines)" },
        { "\nlonely\n", ":2: a word and no numbers" },
    };
    char err[1024], want[700];
    size_t d;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = tmp_with(cases[i].content);
        ck_assert_int_eq(glove_dimension(&d, p, err, sizeof err), -1);
        snprintf(want, sizeof want, "%s%s", p, cases[i].what);
        ck_assert_str_eq(err, want);
        remove(p);
        free(p);
    }
    ck_assert_int_eq(glove_dimension(&d, "/nonexistent/glove.txt", err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot read /nonexistent/glove.txt: No such file or directory");
    // a FIFO is refused at once by both readers (its open() would wait for a
    // writer); alarm() turns a hang into a failure
    char fifo[] = "/tmp/attn_test_fifo.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(fifo));
    ck_assert_int_eq(rmdir(fifo), 0);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    alarm(5);
    snprintf(want, sizeof want, "cannot read %s: not a regular file (a FIFO, a socket or a device)",
             fifo);
    ck_assert_int_eq(glove_dimension(&d, fifo, err, sizeof err), -1);
    ck_assert_str_eq(err, want);
    strmap w;
    strmap_init(&w);
    float v[3];
    bool found[1];
    size_t n;
    ck_assert_int_eq(glove_lookup(v, found, &n, fifo, 3, &w, err, sizeof err), -1);
    ck_assert_str_eq(err, want);
    alarm(0);
    strmap_free(&w);
    remove(fifo);
    char *p = tmp_with("w 1 2 3 4 5\n");
    ck_assert_int_eq(glove_dimension(&d, p, err, sizeof err), 0);
    ck_assert_uint_eq(d, 5);
    remove(p);
    free(p);
}
END_TEST

// The notebook's np.round(float32, decimals=6), on 1000 numbers.
START_TEST(round_like_numpy) {
    golden in = golden_read("chapter6_seed1234.txt", "round6_in", "f32");
    golden out = golden_read("chapter6_seed1234.txt", "round6_out", "f32");
    ck_assert_uint_eq(in.n, out.n);
    size_t moved = 0;
    for (size_t i = 0; i < in.n; i++) {
        ck_assert_msg(round6(in.f[i]) == out.f[i], "np.round(%.9g) = %.9g, C %.9g",
                      (double)in.f[i], (double)out.f[i], (double)round6(in.f[i]));
        moved += in.f[i] != out.f[i];
    }
    ck_assert_uint_gt(moved, 0);  // the rounding does change some numbers
    golden_free(&in);
    golden_free(&out);
}
END_TEST

// ------------------------------------------------------------ the chapter on a small file

// A 4-d GloVe file for the words of two short sentences: "The" is only there
// lower-cased, "a" and "mat" not at all.
static const char SMALL_GLOVE[] =
    "the 0.1 0.2 0.3 0.4\n"
    "cat -1 0.5 0.25 2\n"
    "sat 0.3 -0.7 1.1 0\n"
    "on 0.01 0.02 -0.03 0.04\n"
    "dog 1 1 -1 0.5\n";

START_TEST(small_chapter) {
    char *p = tmp_with(SMALL_GLOVE);
    ch6_options o = { "The cat sat on a mat", "a dog  sat\ton the cat", p, 7 };
    chapter6 c;
    char err[1024];
    ck_assert_msg(chapter6_run(&c, &o, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(c.query.n, 6);
    ck_assert_int_eq(c.key.n, 6);  // runs of whitespace split as str.split()
    ck_assert_str_eq(c.key.words[4], "the");
    ck_assert_uint_eq(c.d, 4);     // the width adapts to the file
    ck_assert_int_eq(c.q_how[0], FOUND_LOWER);
    ck_assert_int_eq(c.q_how[1], FOUND_EXACT);
    ck_assert_int_eq(c.q_how[4], NOT_FOUND);
    ck_assert_int_eq(c.q_how[5], NOT_FOUND);
    ck_assert_int_eq(c.k_how[0], NOT_FOUND);
    ck_assert_float_eq(c.q_x[0 * 4 + 2], 0.3f);  // "The" has the vector of "the"
    const int n_q = 6, n_k = 6;
    assert_rows_sum_to_one(c.dot_weights, n_q, n_k);
    assert_rows_sum_to_one(c.tr_weights, n_q, n_k);
    assert_rows_sum_to_one(c.add_weights, n_q, n_k);
    // a zero query row: every dot product is 0, the weights are uniform and
    // the output is the mean of the keys
    for (int i = 4; i < 6; i++)
        for (int j = 0; j < n_k; j++)
            ck_assert_float_eq_tol(c.dot_weights[i * n_k + j], 1.0f / n_k, 1e-7f);
    for (int t = 0; t < 4; t++) {
        float mean = 0;
        for (int j = 0; j < n_k; j++) mean += c.k_x[j * 4 + t] / n_k;
        ck_assert_float_eq_tol(c.dot_out[4 * 4 + t], mean, 1e-6f);
    }
    // the notebook's last cell: the trainable matrix again
    ck_assert_float_eq(max_abs_diff(c.additive_cell_weights, c.tr_weights, n_q * n_k), 0.0f);
    // equal lengths: the notebook's forward works, and is one row
    ck_assert_str_eq(c.additive_forward_error, "");
    ck_assert_int_eq(c.n_equal, 6);
    // additive: the fast scores equal the double loop
    assert_close(c.add_scores, c.add_scores_loop, (size_t)n_q * n_k, 1e-5f, "scores");
    // --data writes three heatmaps with the words as labels
    char dir[] = "/tmp/test_chapter6_data.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chapter6_write_data(&c, dir), 0);
    const char *const *q = (const char *const *)c.query.words, *const *k = (const char *const *)c.key.words;
    ck_assert_str_eq(k[0], "a");
    ck_assert_str_eq(q[0], "The");
    assert_heatmap_file(dir, "chapter6-dot.dat", c.dot_weights, n_q, n_k, q, k);
    assert_heatmap_file(dir, "chapter6-trainable.dat", c.tr_weights, n_q, n_k, q, k);
    assert_heatmap_file(dir, "chapter6-additive.dat", c.add_weights, n_q, n_k, q, k);
    rmdir(dir);
    chapter6_free(&c);
    remove(p);
    free(p);
}
END_TEST

// Bad input to the program: a clear error, never a crash.
START_TEST(chapter_errors) {
    char *p = tmp_with(SMALL_GLOVE);
    chapter6 c;
    char err[1024], want[700];
    ch6_options o = { " \t ", "the cat", p, 0 };
    ck_assert_int_eq(chapter6_run(&c, &o, err, sizeof err), -1);
    ck_assert_str_eq(err, "the query sentence has no words: attention needs at least "
                          "one query and one key");
    chapter6_free(&c);
    o = (ch6_options){ "the cat", "  ", p, 0 };
    ck_assert_int_eq(chapter6_run(&c, &o, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "the key sentence has no words"));
    chapter6_free(&c);
    // a bad line in the file: its name and line number come through
    char *bad = tmp_with("the 1 2 3 4\ncat 1 2 3\n");
    o = (ch6_options){ "the cat", "the cat", bad, 0 };
    ck_assert_int_eq(chapter6_run(&c, &o, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: expected 4 numbers after the word, found 3", bad);
    ck_assert_str_eq(err, want);
    chapter6_free(&c);
    remove(bad);
    free(bad);
    bad = tmp_with("the 1 2 nan 4\n");
    o = (ch6_options){ "the", "the", bad, 0 };
    ck_assert_int_eq(chapter6_run(&c, &o, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:1: \"nan\" is not a finite float", bad);
    ck_assert_str_eq(err, want);
    chapter6_free(&c);
    remove(bad);
    free(bad);
    o = (ch6_options){ "the", "the", "/nonexistent/glove.txt", 0 };
    ck_assert_int_eq(chapter6_run(&c, &o, err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot read /nonexistent/glove.txt: No such file or directory");
    chapter6_free(&c);
    remove(p);
    free(p);
}
END_TEST

// The word limit fires at exactly MAX_WORDS + 1 words, with a message of
// its own (not "out of memory"), before any vector is looked up.
START_TEST(sentence_word_limit) {
    size_t cap = (MAX_WORDS + 2) * 2 + 1;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    const int counts[] = {MAX_WORDS - 1, MAX_WORDS, MAX_WORDS + 1};
    for (int k = 0; k < 3; k++) {
        size_t len = 0;
        for (int w = 0; w < counts[k]; w++) {
            text[len++] = 'a';
            text[len++] = ' ';
        }
        text[len] = '\0';
        sentence s;
        int rc = sentence_split(&s, text);
        if (counts[k] <= MAX_WORDS) {
            ck_assert_int_eq(rc, 0);
            ck_assert_int_eq(s.n, counts[k]);
        } else {
            ck_assert_int_eq(rc, -2);
        }
        sentence_free(&s);
    }
    chapter6 c;
    char err[256];
    ch6_options o = {text, "a", "/nonexistent/glove.txt", 0};
    ck_assert_int_eq(chapter6_run(&c, &o, err, sizeof err), -1);
    ck_assert_str_eq(err, "a sentence has more than 10000 words");
    chapter6_free(&c);
    free(text);
}
END_TEST

START_TEST(options) {
    ch6_options o;
    const char *data;
    char *a1[] = { "chapter6", "--query", "a b", "--key", "c d e", "--glove", "g.txt",
                   "--seed", "9", "--data", "out", NULL };
    ck_assert_int_eq(parse_args(11, a1, &o, &data), -1);
    ck_assert_str_eq(o.query, "a b");
    ck_assert_str_eq(o.key, "c d e");
    ck_assert_str_eq(o.glove, "g.txt");
    ck_assert_uint_eq(o.seed, 9);
    ck_assert_str_eq(data, "out");
    char *a2[] = { "chapter6", NULL };
    ck_assert_int_eq(parse_args(1, a2, &o, &data), -1);
    ck_assert_str_eq(o.query, QUERY_SENTENCE);
    ck_assert_str_eq(o.glove, DEFAULT_GLOVE);
    ck_assert_uint_eq(o.seed, DEFAULT_SEED);
    ck_assert_ptr_null(data);
    stderr_capture cap;
    char *a3[] = { "chapter6", "--frobnicate", NULL };
    char *a4[] = { "chapter6", "--query", "", NULL };
    char *a5[] = { "chapter6", "--key", NULL };
    char **bad[] = { a3, a4, a5 };
    const int argc[] = { 2, 3, 2 };
    const char *said[] = { "chapter6: error: unknown option '--frobnicate'",
                           "chapter6: error: --query needs a sentence",
                           "chapter6: error: --key needs a sentence" };
    for (int i = 0; i < 3; i++) {
        capture_begin(&cap);
        int rc = parse_args(argc[i], bad[i], &o, &data);
        char *text = capture_end(&cap);
        ck_assert_int_eq(rc, 2);
        ck_assert_msg(strncmp(text, said[i], strlen(said[i])) == 0, "%s", text);
        ck_assert_ptr_nonnull(strstr(text, "usage: chapter6 "));
        free(text);
    }
}
END_TEST

// ------------------------------------------------------------ against PyTorch, no data

#define SYN "chapter6_seed1234.txt"

START_TEST(modules_match_pytorch) {
    const int n_q = 8, n_k = 9, d = 100, d_h = HIDDEN;
    golden gq = golden_read(SYN, "queries", "f32"), gk = golden_read(SYN, "keys", "f32");
    ck_assert_uint_eq(gq.n, (size_t)n_q * d);
    ck_assert_uint_eq(gk.n, (size_t)n_k * d);
    // the inputs: torch.rand(8, 100) - 0.5 and torch.rand(9, 100) - 0.5,
    // bit for bit; query 3 set to zeros
    torch_rng g;
    rng_seed(&g, 1234);
    float q[8 * 100], k[9 * 100];
    rng_rand(&g, q, (size_t)n_q * d);
    rng_rand(&g, k, (size_t)n_k * d);
    for (int i = 0; i < n_q * d; i++) q[i] = i / d == 3 ? 0.0f : q[i] - 0.5f;
    for (int i = 0; i < n_k * d; i++) k[i] -= 0.5f;
    ck_assert_mem_eq(q, gq.f, sizeof q);
    ck_assert_mem_eq(k, gk.f, sizeof k);
    golden_free(&gq);
    golden_free(&gk);

    // the modules, in the twin's order after torch.manual_seed(1234)
    attention_module tr;
    additive_attention add;
    ck_assert_int_eq(attention_module_alloc(&tr, d, d_h), 0);
    ck_assert_int_eq(additive_alloc(&add, d, d, d_h), 0);
    rng_seed(&g, 1234);
    rng_linear_init(&g, tr.q_weight, tr.q_bias, d, d_h);
    rng_linear_init(&g, tr.k_weight, tr.k_bias, d, d_h);
    rng_linear_init(&g, tr.v_weight, tr.v_bias, d, d_h);
    additive_init(&add, &g);
    assert_golden(tr.q_weight, SYN, "trainable_wq_weight_row0", (size_t)d, 0.0f);
    assert_golden(tr.v_bias, SYN, "trainable_wv_bias", (size_t)d_h, 0.0f);
    assert_golden(add.s_weight, SYN, "additive_ws_weight", (size_t)d_h, 0.0f);
    assert_golden(add.s_bias, SYN, "additive_ws_bias", 1, 0.0f);

    float w[8 * 9], out_h[8 * 256], out_d[8 * 100], scores[8 * 9], loop[8 * 9];
    ck_assert_int_eq(trainable_attention(out_h, w, &tr, q, k, k, n_q, n_k), 0);
    assert_golden(w, SYN, "trainable_weights", (size_t)n_q * n_k, TOL);
    assert_golden(out_h, SYN, "trainable_out", (size_t)n_q * d_h, TOL);
    assert_rows_sum_to_one(w, n_q, n_k);

    ck_assert_int_eq(additive_scores(scores, NULL, NULL, &add, q, k, n_q, n_k), 0);
    additive_scores_loop(loop, &add, q, k, n_q, n_k);
    assert_close(scores, loop, (size_t)n_q * n_k, TOL, "additive scores, loop");
    assert_golden(scores, SYN, "additive_scores", (size_t)n_q * n_k, TOL);
    assert_golden(loop, SYN, "additive_scores", (size_t)n_q * n_k, TOL);
    ck_assert_int_eq(additive_attention_forward(out_d, w, &add, q, k, k, n_q, n_k, d), 0);
    assert_golden(w, SYN, "additive_weights", (size_t)n_q * n_k, TOL);
    assert_golden(out_d, SYN, "additive_out", (size_t)n_q * d, TOL);
    assert_rows_sum_to_one(w, n_q, n_k);

    // the notebook's forward on 8 queries and 8 keys: one row of 8, the
    // softmax of the diagonal of the full scores
    float row[8], row_out[100], diag[8];
    char err[256];
    ck_assert_int_eq(additive_notebook_forward(row_out, row, &add, q, k, k, n_q, 8, d,
                                               err, sizeof err), 0);
    assert_golden(row, SYN, "notebook_weights", 8, TOL);
    assert_golden(row_out, SYN, "notebook_out", (size_t)d, TOL);
    for (int i = 0; i < 8; i++) diag[i] = scores[i * n_k + i];
    softmax_rows(diag, 1, 8);
    assert_close(row, diag, 8, 1e-6f, "the notebook's row against the diagonal");

    // dot-product attention: the zero query gets uniform weights
    dot_product_attention(out_d, w, q, k, k, n_q, n_k, d);
    assert_rows_sum_to_one(w, n_q, n_k);
    for (int j = 0; j < n_k; j++) ck_assert_float_eq_tol(w[3 * n_k + j], 1.0f / n_k, 1e-7f);
    attention_module_free(&tr);
    additive_free(&add);
}
END_TEST

// broadcast_ok and the notebook's forward give PyTorch's messages.
START_TEST(pytorch_messages) {
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/chapter6_errors.txt", GOLDEN_DIR);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s (make golden writes it)", path);
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        ck_assert_ptr_nonnull(tab);
        *tab = '\0';
        const char *want = tab + 1;
        char err[256] = "";
        if (strncmp(line, "notebook ", 9) == 0) {
            int n_q, n_k;
            ck_assert_int_eq(sscanf(line + 9, "%d %d", &n_q, &n_k), 2);
            additive_attention m;
            ck_assert_int_eq(additive_alloc(&m, 100, 100, 256), 0);
            torch_rng g;
            rng_seed(&g, 0);
            additive_init(&m, &g);
            float q[8 * 100] = {0}, k[8 * 100] = {0}, w[8], out[100];
            ck_assert_int_eq(additive_notebook_forward(out, w, &m, q, k, k, n_q, n_k, 100,
                                                       err, sizeof err), -1);
            additive_free(&m);
        } else {
            int a[4], b[4], na = 0, nb = 0;
            char *sa = strtok(line, " "), *sb = strtok(NULL, " ");
            for (char *t = strtok(sa, ","); t; t = strtok(NULL, ",")) a[na++] = atoi(t);
            for (char *t = strtok(sb, ","); t; t = strtok(NULL, ",")) b[nb++] = atoi(t);
            ck_assert_int_eq(broadcast_ok(a, na, b, nb, err, sizeof err), 0);
        }
        ck_assert_str_eq(err, want);
        cases++;
    }
    fclose(f);
    ck_assert_int_ge(cases, 6);
    const int a[] = { 8, 256 }, one[] = { 1, 256 };
    char err[256];
    ck_assert_int_eq(broadcast_ok(a, 2, one, 2, err, sizeof err), 1);
}
END_TEST

// ------------------------------------------------------------ the chapter's numbers, with data

#define GLV "chapter6_glove_seed0.txt"

START_TEST(chapter_with_glove) {
    const char *glove = DATA_DIR "/glove/wink-sg-100d.txt";
    if (!exists(glove)) SKIP_TEST("chapter 6 GloVe test: no %s (make data fetches it)", glove);
    ch6_options o = { QUERY_SENTENCE, KEY_SENTENCE, glove, DEFAULT_SEED };
    chapter6 c;
    char err[1024];
    ck_assert_msg(chapter6_run(&c, &o, err, sizeof err) == 0, "%s", err);
    const int n_q = 8, n_k = 9, d = 100, d_h = HIDDEN;
    ck_assert_int_eq(c.query.n, n_q);
    ck_assert_int_eq(c.key.n, n_k);
    ck_assert_uint_eq(c.d, 100);
    ck_assert_uint_eq(c.glove_lines, 341479);
    // "a" and "A" have no vector in these files; "The" is found as "the"
    for (int i = 0; i < n_q; i++)
        ck_assert_int_eq(c.q_how[i], i == 3 ? NOT_FOUND : i == 0 ? FOUND_LOWER : FOUND_EXACT);
    for (int j = 0; j < n_k; j++)
        ck_assert_int_eq(c.k_how[j], j == 0 ? NOT_FOUND : FOUND_EXACT);
    // the vectors, checked by the sums of their rows
    float sums[9];
    for (int i = 0; i < n_q; i++) {
        double s = 0;
        for (int t = 0; t < d; t++) s += c.q_x[i * d + t];
        sums[i] = (float)s;
    }
    assert_golden(sums, GLV, "query_row_sums", (size_t)n_q, TOL);
    for (int j = 0; j < n_k; j++) {
        double s = 0;
        for (int t = 0; t < d; t++) s += c.k_x[j * d + t];
        sums[j] = (float)s;
    }
    assert_golden(sums, GLV, "key_row_sums", (size_t)n_k, TOL);
    // the three attentions against PyTorch
    assert_golden(c.dot_weights, GLV, "dot_weights", (size_t)n_q * n_k, TOL);
    assert_golden(c.dot_out, GLV, "dot_out", (size_t)n_q * d, TOL);
    assert_golden(c.tr_weights, GLV, "trainable_weights", (size_t)n_q * n_k, TOL);
    assert_golden(c.tr_out, GLV, "trainable_out", (size_t)n_q * d_h, TOL);
    assert_golden(c.add_weights, GLV, "additive_weights", (size_t)n_q * n_k, TOL);
    assert_golden(c.add_out, GLV, "additive_out", (size_t)n_q * d, TOL);
    assert_rows_sum_to_one(c.dot_weights, n_q, n_k);
    assert_rows_sum_to_one(c.tr_weights, n_q, n_k);
    assert_rows_sum_to_one(c.add_weights, n_q, n_k);
    // what the chapter says of its figures: in the dot-product weights,
    // The, teacher, student, she and improved look hardest at the, teacher,
    // student, her and improving; the untrained additive weights are all
    // within 0.03 of the uniform 1/9, and each key's column varies by less
    // than 0.01 over the queries (the rows are nearly alike)
    static const int heavy[][2] = {{0, 3}, {1, 4}, {4, 1}, {6, 7}, {7, 8}};
    for (size_t h = 0; h < sizeof heavy / sizeof heavy[0]; h++) {
        const float *row = c.dot_weights + heavy[h][0] * n_k;
        for (int j = 0; j < n_k; j++)
            if (j != heavy[h][1]) ck_assert_float_gt(row[heavy[h][1]], row[j]);
    }
    for (int j = 0; j < n_k; j++) {
        float lo_j = 1, hi_j = 0;
        for (int i = 0; i < n_q; i++) {
            float w = c.add_weights[i * n_k + j];
            ck_assert_float_lt(fabsf(w - 1.0f / n_k), 0.03f);
            lo_j = fminf(lo_j, w);
            hi_j = fmaxf(hi_j, w);
        }
        ck_assert_float_lt(hi_j - lo_j, 0.01f);
    }
    // "a" attends uniformly in dot-product attention, not in the others
    for (int j = 0; j < n_k; j++)
        ck_assert_float_eq_tol(c.dot_weights[3 * n_k + j], 1.0f / n_k, 1e-7f);
    ck_assert_float_gt(c.tr_query_range[3].hi - c.tr_query_range[3].lo, 1e-3f);
    // what the printout says of the words without a vector, from the
    // weights: query 'a' (row 3) in each attention, key 'A' (column 0)
    float lo[4] = {1, 1, 1, 1}, hi[4] = {0, 0, 0, 0};
    const float *rows[3] = {c.dot_weights, c.tr_weights, c.add_weights};
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < n_k; j++) {
            lo[k] = fminf(lo[k], rows[k][3 * n_k + j]);
            hi[k] = fmaxf(hi[k], rows[k][3 * n_k + j]);
        }
    for (int i = 0; i < n_q; i++) {
        lo[3] = fminf(lo[3], c.dot_weights[i * n_k]);
        hi[3] = fmaxf(hi[3], c.dot_weights[i * n_k]);
    }
    char *printed;
    size_t printed_len;
    FILE *pf = open_memstream(&printed, &printed_len);
    ck_assert_ptr_nonnull(pf);
    chapter6_print(&c, &o, pf);
    fclose(pf);
    char want[256];
    const char *after[3] = {"\n[U11] ", "\n[U15] ", "\n[P6.1] "};
    for (int k = 0; k < 3; k++) {
        snprintf(want, sizeof want, "query 'a' (a zero row): weights from %.4f to %.4f;", (double)lo[k], (double)hi[k]);
        const char *cell = strstr(printed, after[k]), *line = cell ? strstr(cell, "query 'a' (a zero row)") : NULL;
        ck_assert_msg(line && strncmp(line, want, strlen(want)) == 0, "after %s: want \"%s\"", after[k], want);
    }
    snprintf(want, sizeof want, "key 'A' (a zero row): score 0 for every query, weights from %.4f to %.4f;",
             (double)lo[3], (double)hi[3]);
    ck_assert_msg(strstr(printed, want), "want \"%s\"", want);
    ck_assert_float_lt(lo[3], hi[3]);  // a column, not a row: its weights differ
    free(printed);
    // the notebook's two bugs
    ck_assert_float_eq(max_abs_diff(c.additive_cell_weights, c.tr_weights, n_q * n_k), 0.0f);
    ck_assert_str_eq(c.additive_forward_error,
                     "The size of tensor a (8) must match the size of tensor b (9) "
                     "at non-singleton dimension 0");
    ck_assert_int_eq(c.n_equal, 8);
    // the printed output has every cell, and the numbers the book quotes
    FILE *f = tmpfile();
    chapter6_print(&c, &o, f);
    rewind(f);
    char text[40000];
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    const char *cells[] = { "U1", "U4", "U8", "U9", "U11", "U13", "U15", "U16", "U25", "U26",
                            "P6.1", "P6.2", "P6.3", "P6.4" };
    expect_blocks_in_order(text, cells, sizeof cells / sizeof cells[0]);  // the book quotes them so
    ck_assert_ptr_nonnull(strstr(text, "query words with no vector, so a row of zeros: 'a'"));
    ck_assert_ptr_nonnull(strstr(text, "key words with no vector, so a row of zeros: 'A'"));
    ck_assert_ptr_nonnull(strstr(text, "data/glove/wink-sg-100d.txt: 341479 lines, 100 numbers"));
    ck_assert_ptr_nonnull(strstr(text, "max |additive_attn_matrix - trainable_attn_matrix| = 0\n"));
    chapter6_free(&c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("chapter6");
    TCase *tc = tcase_create("chapter6");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, reader_good_file);
    tcase_add_test(tc, reader_line_ends);
    tcase_add_test(tc, reader_reads_numbers_whole);
    tcase_add_test(tc, reader_bad_files);
    tcase_add_test(tc, reader_dimension);
    tcase_add_test(tc, round_like_numpy);
    tcase_add_test(tc, small_chapter);
    tcase_add_test(tc, chapter_errors);
    tcase_add_test(tc, sentence_word_limit);
    tcase_add_test(tc, options);
    tcase_add_test(tc, modules_match_pytorch);
    tcase_add_test(tc, pytorch_messages);
    tcase_add_test(tc, chapter_with_glove);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
