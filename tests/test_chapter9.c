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
#include "../src/programs/chapter9_attention.c"

#include <check.h>
#include <unistd.h>

#include "cells.h"
#include "datafile.h"
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

// What the run prints, [P9.1] to [P9.9], as one string (the caller frees it).
static char *printed(chapter9 *c) {
    char *text = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    print_data(c, f);  // what the program's chapter9_print_run prints, in its order
    print_model(c, f);
    print_yardsticks(c, f);
    print_training(c, f);
    print_held_out(c, f);
    print_first_losses(c, f);
    attention_print(f, &c->att, &c->corpus.vocab, c->corpus.held_out, "P9.7");
    ck_assert_int_eq(generate(c, f, err, sizeof err), 0);
    fclose(f);
    return text;
}

static void check_word_counts(const char *out, const chapter9 *c);

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

// Each row of [P9.4]: the bits per character are the nats over ln 2.
static void check_training_table(const char *out) {
    char *cell = cell_text(out, "P9.4");
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

// [P9.4]'s last line names, for each yardstick beside the table, the step
// of the first row whose bits per character (four decimals) are below it
// (three), as printed, or none.
static void check_first_below(const char *out) {
    char *cell = cell_text(out, "P9.4");
    long steps[16];
    double rows[16];
    int n = 0;
    for (char *line = strchr(cell, '\n'); line && n < 16; line = strchr(line + 1, '\n')) {
        double nats;
        if (sscanf(line + 1, "%ld %lf %lf", &steps[n], &nats, &rows[n]) == 3) n++;
    }
    const char *names[] = { "bigram", "gzip", "xz", "fair xz" };
    const char *beside = strstr(cell, "beside it: bigram ");
    const char *first = strstr(cell, "first step below");
    ck_assert_msg(beside && first, "%s", cell);
    double bar[4];
    int bars = sscanf(beside, "beside it: bigram %lf, gzip %lf, xz %lf, fair xz %lf", &bar[0],
                      &bar[1], &bar[2], &bar[3]);
    ck_assert(bars == 1 || bars == 4);
    const char *at = first + strlen("first step below");
    for (int y = 0; y < bars; y++) {
        int i = 0;
        while (i < n && llround(1e4 * rows[i]) >= 10 * llround(1e3 * bar[y])) i++;
        char want[64];
        if (i < n) snprintf(want, sizeof want, "%s %s %ld", y ? "," : ":", names[y], steps[i]);
        else snprintf(want, sizeof want, "%s %s none", y ? "," : ":", names[y]);
        ck_assert_msg(strncmp(at, want, strlen(want)) == 0, "want '%s' in: %s", want, first);
        at += strlen(want);
    }
    ck_assert_msg(*at == '\n', "more after the yardsticks: %s", first);
    free(cell);
}

// The last measurement of [P9.4] below the one before it: the held-out
// loss still falling at the end, as chapter 9 says of the book's run.
static void check_still_falling(const char *out) {
    char *cell = cell_text(out, "P9.4");
    double last[2] = { 0, 0 };
    int n = 0;
    for (char *line = strchr(cell, '\n'); line; line = strchr(line + 1, '\n')) {
        long step;
        double nats, b;
        if (sscanf(line + 1, "%ld %lf %lf", &step, &nats, &b) != 3) continue;
        last[0] = last[1], last[1] = b, n++;
    }
    ck_assert_int_ge(n, 2);
    ck_assert_msg(last[1] < last[0], "the last held-out loss %.4f, the one before %.4f", last[1],
                  last[0]);
    free(cell);
}

// [P9.3]: fair xz is 8 (both - train) bytes over the held-out characters,
// and [P9.5] says below, level or above as its two printed figures are; its
// scored characters, the first left out and the tail, add up to the novel.
static void check_against_xz(const char *out, size_t n_val) {
    char *cell = cell_text(out, "P9.3");
    const char *at = strstr(cell, "xz -9 after the training");
    ck_assert_ptr_nonnull(at);
    double fair;
    long long both, train;
    ck_assert_int_eq(sscanf(at, "xz -9 after the training %lf (%lld - %lld bytes)", &fair, &both,
                            &train), 3);
    ck_assert_double_eq_tol(fair, 8.0 * (double)(both - train) / (double)n_val, 0.5e-3);
    free(cell);
    cell = cell_text(out, "P9.5");
    at = strstr(cell, "\nPersuasion: ");
    ck_assert_ptr_nonnull(at);
    long chars, last, of, tail;
    double nats, b, fair6, gap;
    char word[16];
    // the tests score the first 3000 characters (short_settings)
    ck_assert_int_eq(sscanf(at, "\nPersuasion: characters 2 to %ld of the first %ld", &last, &of),
                     2);
    at = strstr(at, "the last ");
    ck_assert_ptr_nonnull(at);
    ck_assert_int_eq(sscanf(at, "the last %ld fill no whole window)\n%ld characters: %lf nats, "
                            "%lf bits per character\n%15s", &tail, &chars, &nats, &b, word), 5);
    ck_assert_int_eq(of, 3000);
    ck_assert_int_eq(last, chars + 1);
    ck_assert_int_eq(1 + chars + tail, of);
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
    check_first_below(out);
    check_against_xz(out, c.corpus.n_val);
    // what the novels give: 81 characters, Persuasion 466,854 of them
    expect_in_cell(out, "P9.1", "held out: Persuasion, 466854 characters");
    expect_in_cell(out, "P9.1", "vocabulary: 81 characters");
    // the bigram beats the uniform code, and gzip (alone) is the worst compressor
    ck_assert(c.bigram_bits < log2(81.0));
    ck_assert(c.comp.xz_fair_bits < c.comp.xz_bits && c.comp.xz_bits < c.comp.gzip_bits);
    ck_assert(c.same_tokens);
    expect_in_cell(out, "P9.9", "the same 73 tokens (the prompt's 13 and the 60 drawn): yes");
    check_word_counts(out, &c);
    free(out);
    chapter9_free(&c);
}
END_TEST

// Each sample's count of its words, under it in [P9.8], recounted from the
// sample as printed (after the prompt) against the training novels' words.
static void check_word_counts(const char *out, const chapter9 *c) {
    austen_words w;
    ck_assert_int_eq(austen_words_build(&w, c->corpus.text, c->corpus.train_bytes), 0);
    int samples = 0;
    const char *at = out;
    while ((at = strstr(at, "--- temperature ")) != NULL) {
        const char *sample = strchr(at, '\n') + 1 + strlen("It is a truth");
        const char *count = strstr(sample, "\n(");
        ck_assert_ptr_nonnull(count);
        long total, known, want_total, want_known;
        double share;
        ck_assert_int_eq(sscanf(count, "\n(%ld words drawn, %ld of them words of the training "
                                       "novels: %lf%%)", &total, &known, &share), 3);
        austen_words_count(&w, sample, (size_t)(count - sample), &want_total, &want_known);
        ck_assert_int_eq(total, want_total);
        ck_assert_int_eq(known, want_known);
        ck_assert_double_eq_tol(share, round(100.0 * known / total), 1e-9);
        samples++;
        at = count + 1;
    }
    ck_assert_int_eq(samples, 3);
    austen_words_free(&w);
}

// A word: a run of ASCII letters, without case; a word never seen, or
// longer than any kept, is not found.
START_TEST(words_of_the_novels) {
    austen_words w;
    const char *novel = "It is a truth universally acknowledged, that a single man";
    ck_assert_int_eq(austen_words_build(&w, novel, strlen(novel)), 0);
    long total, known;
    const char *text = "A TRUTH untruth; is--man-made 42 Truth";
    austen_words_count(&w, text, strlen(text), &total, &known);
    ck_assert_int_eq(total, 7);  // a truth untruth is man made truth
    ck_assert_int_eq(known, 5);  // all but untruth and made
    austen_words_free(&w);
    char lng[AUSTEN_WORD_MAX + 2];
    memset(lng, 'e', sizeof lng - 1);
    lng[sizeof lng - 1] = 0;
    ck_assert_int_eq(austen_words_build(&w, lng, strlen(lng)), 0);
    austen_words_count(&w, lng, strlen(lng), &total, &known);
    ck_assert_int_eq(total, 1);
    ck_assert_int_eq(known, 0);
    austen_words_free(&w);
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
// bits per character below fair xz's, both read as printed; its line of
// the yardsticks each measurement passed; its held-out loss still falling.
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
        if (sscanf(line, "%ld characters: %lf nats, %lf bits", &chars, &nats, &b) == 3)
            ck_assert_msg(chars >= 466854 - 65 && chars < 466854, "%ld characters", chars);
        if (strstr(line, "xz -9 after the training")) sscanf(line, "xz -9 after the training %lf",
                                                             &fair);
    }
    ck_assert_msg(b > 0 && fair > 0, "no held-out or fair xz figure in %s", BOOK_OUTPUT);
    ck_assert_msg(b < fair, "held-out %.3f bits per character, fair xz %.3f", b, fair);
    // and its training table's line of yardsticks passed, with the compressors
    static char text[1 << 16];
    rewind(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    ck_assert_ptr_nonnull(strstr(text, "first step below: bigram "));
    check_first_below(text);
    check_still_falling(text);
    fclose(f);
}
END_TEST

// ---------------------------------------------------------------------------
// [P9.7]: the heads over one held-out sentence

// The sentence by its rule, found again in the held-out novel's UTF-8 text
// (not its ids): the first line that opens with '"', starts the novel or
// follows a blank line, is followed by a blank line or the end, and holds at
// most ATTN_SENTENCE_MAX characters. into: characters before it.
static void rule_sentence(const austen_corpus *a, char *out, size_t *into) {
    const char *text = a->text + a->train_bytes, *end = text + a->val_bytes;
    for (const char *p = text; p < end; p++) {
        if (*p != '"' || (p > text && (p < text + 2 || strncmp(p - 2, "\n\n", 2) != 0)))
            continue;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        long chars = 0;
        for (const char *c = p; c < eol; c++) chars += ((unsigned char)*c & 0xC0) != 0x80;
        if (chars > ATTN_SENTENCE_MAX || (eol < end && eol + 1 < end && eol[1] != '\n'))
            continue;
        memcpy(out, p, (size_t)(eol - p));
        out[eol - p] = '\0';
        *into = 0;
        for (const char *c = text; c < p; c++) *into += ((unsigned char)*c & 0xC0) != 0x80;
        return;
    }
    ck_abort_msg("no sentence by the rule");
}

// Head (l, i)'s mean weights over queries 2 .. n - 1 of the sentence s (n
// bytes, ASCII), recomputed from w (n, n): previous, itself, the keys after
// the last space before q - 1 up to q - 2, that space, the first.
static void shares_of(double *share, const real *w, const char *s, int n) {
    memset(share, 0, N_KEYS * sizeof *share);
    for (int q = 2; q < n; q++) {
        const char *space = NULL;
        for (const char *c = s + q - 2; c >= s && !space; c--)
            if (*c == ' ') space = c;
        int from = space ? (int)(space - s) + 1 : 1;
        share[0] += w[q * n + q - 1];
        share[1] += w[q * n + q];
        for (int j = from; j <= q - 2; j++) share[2] += w[q * n + j];
        share[3] += space ? w[q * n + (space - s)] : 0;
        share[4] += w[q * n];
    }
    for (int k = 0; k < N_KEYS; k++) share[k] /= n - 2;
}

// The printed numbers of [P9.7] against the weights of a fresh forward pass
// over the printed sentence: rows of 1 with nothing above the diagonal,
// the shares to the printed digit, the leaders, the figure's heads, their
// three largest weights and distances.
static void check_attention_cell(gpt_model *m, const char *cell, char *sentence, int *panel) {
    const char *line = strstr(cell, "a space shown as _:\n");
    ck_assert_ptr_nonnull(line);
    line += strlen("a space shown as _:\n");
    int n = (int)strcspn(line, "\n");
    memcpy(sentence, line, n);
    sentence[n] = '\0';
    for (char *c = sentence; *c; c++) *c = *c == '_' ? ' ' : *c;
    const int L = m->cfg.L, h = m->cfg.h;
    real *w = malloc((size_t)L * h * n * n * sizeof *w);
    double share[16][N_KEYS];
    ck_assert(w && L * h <= 16);
    for (int head = 0; head < L * h; head++) {
        ck_assert_int_eq(gpt_attention_weights(m, 0, head / h, head % h, w + head * n * n), 0);
        const real *r = w + head * n * n;
        for (int q = 0; q < n; q++) {
            double sum = 0;
            for (int k = 0; k < n; k++) {
                if (k > q) ck_assert_msg(r[q * n + k] == 0, "a weight above the diagonal");
                sum += r[q * n + k];
            }
            ck_assert_msg(fabs(sum - 1) < 1e-5, "head %d, query %d: %.7f", head, q, sum);
        }
        shares_of(share[head], r, sentence, n);
    }
    // the table, one row a head
    const char *row = strstr(cell, "last space  first\n");
    ck_assert_ptr_nonnull(row);
    row = strchr(row, '\n') + 1;
    for (int head = 0; head < L * h; head++, row = strchr(row, '\n') + 1) {
        int b, i;
        double got[N_KEYS];
        ck_assert_int_eq(sscanf(row, "%d %d %lf %lf %lf %lf %lf", &b, &i, &got[0], &got[1],
                                &got[2], &got[3], &got[4]), 7);
        ck_assert_int_eq((b - 1) * h + i - 1, head);
        double sum = 0;
        for (int k = 0; k < N_KEYS; k++) {
            ck_assert_msg(fabs(got[k] - share[head][k]) <= 0.5e-3 + 1e-6,
                          "block %d, head %d, set %d: printed %.3f, recomputed %.6f", b, i, k,
                          got[k], share[head][k]);
            sum += got[k];
        }
        ck_assert_msg(sum <= 1 + 5 * 0.5e-3, "block %d, head %d: shares of %.3f", b, i, sum);
    }
    // the leaders: each printed head has the largest share (to ties)
    for (int k = 0; k < N_KEYS; k++, row = strchr(row, '\n') + 1) {
        const char *at = strstr(row, " block ");
        int b, i;
        ck_assert(at && sscanf(at, " block %d, head %d", &b, &i) == 2);
        for (int head = 0; head < L * h; head++)
            ck_assert(share[(b - 1) * h + i - 1][k] >= share[head][k]);
    }
    // the figure's heads
    int b1, i1, b2, i2;
    const char *fig = strstr(cell, "the figure draws");
    ck_assert(fig && sscanf(fig, "the figure draws block %d, head %d (most on the previous "
                                 "character) and\nblock %d, head %d", &b1, &i1, &b2, &i2) == 4);
    panel[0] = (b1 - 1) * h + i1 - 1, panel[1] = (b2 - 1) * h + i2 - 1;
    ck_assert_int_ne(panel[0], panel[1]);
    for (int head = 0; head < L * h; head++) {
        ck_assert(share[panel[0]][0] >= share[head][0]);
        if (head != panel[0]) ck_assert(share[panel[1]][2] >= share[head][2]);
    }
    // the three largest weights of four queries of each, and their distances
    const char *top = strstr(fig, "weight):\n") + strlen("weight):\n");
    for (int r = 0; r < 2 * 4; r++, top = strchr(top, '\n') + 1) {
        int b, i, q, k[3];
        char c[4][8];
        double v[3];
        ck_assert_int_eq(sscanf(top, "block %d, head %d %d %7s %d %7s %lf %d %7s %lf %d %7s %lf",
                                &b, &i, &q, c[3], &k[0], c[0], &v[0], &k[1], c[1], &v[1], &k[2],
                                c[2], &v[2]), 13);
        const real *wq = w + ((size_t)((b - 1) * h + i - 1) * n + q) * n;
        ck_assert_int_eq((b - 1) * h + i - 1, panel[r / 4]);
        ck_assert_int_eq(q, (r % 4 + 1) * (n - 1) / 4);
        for (int t = 0; t < 3; t++) {
            ck_assert_msg(fabs(v[t] - wq[k[t]]) <= 0.5e-3 + 1e-6, "query %d, key %d", q, k[t]);
            ck_assert_int_eq(c[t][0], sentence[k[t]] == ' ' ? '_' : sentence[k[t]]);
            for (int j = 0; j <= q; j++)  // no key left out weighs more
                if (j != k[0] && j != k[1] && j != k[2]) ck_assert(wq[j] <= wq[k[2]]);
        }
    }
    for (int p = 0; p < 2; p++, top = strchr(top, '\n') + 1) {
        int b, i, back, count, queries, seen[ATTN_SENTENCE_MAX] = { 0 };
        ck_assert_int_eq(sscanf(top, "block %d, head %d: the largest weight is %d place", &b, &i,
                                &back), 3);
        ck_assert_int_eq((b - 1) * h + i - 1, panel[p]);
        const char *at = strstr(top, " back at ");
        ck_assert(at && sscanf(at, " back at %d of the %d", &count, &queries) == 2);
        for (int q = 2; q < n; q++) {
            const real *wq = w + ((size_t)panel[p] * n + q) * n;
            int best = q;
            for (int j = q; j >= 0; j--)
                if (wq[j] >= wq[best]) best = j;
            seen[q - best]++;
        }
        ck_assert_int_eq(queries, n - 2);
        ck_assert_int_eq(seen[back], count);
        for (int d = 0; d < n; d++) ck_assert(seen[d] <= count);
    }
    free(w);
}

// attention_sentence's rule on small texts (each character its own id):
// where the first qualifying line starts, or -1 for none.
static long sentence_at(const char *text, int max) {
    int32_t ids[128];
    size_t n = strlen(text), at;
    for (size_t i = 0; i < n; i++) ids[i] = (unsigned char)text[i];
    int len = attention_sentence(ids, n, '"', '\n', max, &at);
    return len > 0 ? (long)at : -1;
}

START_TEST(sentence_rule) {
    ck_assert_int_eq(sentence_at("\"Yes.\"\n\nNo.", 8), 0);            // the text's start
    ck_assert_int_eq(sentence_at("A.\n\n\"Yes.\"", 8), 4);             // the text's end
    ck_assert_int_eq(sentence_at("A.\n\"No.\"\n\n\"Yes.\"\n\n", 8), 10);  // not after a blank line
    ck_assert_int_eq(sentence_at("A.\n\n\"No.\"\nB.\n\n\"Yes.\"\n\n", 8), 14);  // no blank line after
    ck_assert_int_eq(sentence_at("A.\n\n\"Nine ch.\n\n\"Yes.\"", 8), 15);  // longer than max
    ck_assert_int_eq(sentence_at("A.\n\n\"Eight c\n\n", 8), 4);        // max itself
    ck_assert_int_eq(sentence_at("A.\n\nB \"No.\"\n\n", 8), -1);      // no quote first
}
END_TEST

// Exercise 7: after three steps the heads spread their weight about evenly,
// so that the shares of one key (previous, itself, first) are all within
// 0.01 of the mean of 1 / (q + 1) over the queries.
static void check_nearly_even(const attention_view *v) {
    double even = 0;
    for (int q = 2; q < v->n; q++) even += 1.0 / (q + 1);
    even /= v->n - 2;
    for (int head = 0; head < v->L * v->h; head++) {
        const double *s = v->share + (size_t)head * N_KEYS;
        ck_assert_msg(fabs(s[KEY_PREVIOUS] - even) < 0.01 && fabs(s[KEY_ITSELF] - even) < 0.01 &&
                      fabs(s[KEY_FIRST] - even) < 0.01, "head %d: %.3f %.3f %.3f, even %.3f",
                      head, s[KEY_PREVIOUS], s[KEY_ITSELF], s[KEY_FIRST], even);
    }
}

START_TEST(attention_cell_recomputed) {
    chapter9 c;
    settings s = short_settings(DEFAULT_SEED, 3, false);
    char err[256], sentence[ATTN_SENTENCE_MAX * 4 + 1], want[256];
    ck_assert_msg(chapter9_run(&c, &s, err, sizeof err) == 0, "%s", err);
    char *text = NULL;
    size_t len = 0, into;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    attention_print(f, &c.att, &c.corpus.vocab, c.corpus.held_out, "P9.7");
    fclose(f);
    char *cell = cell_text(text, "P9.7");
    // the sentence, by the rule stated
    rule_sentence(&c.corpus, want, &into);
    char stated[128];
    snprintf(stated, sizeof stated, "(so that the figure can label each one): %zu characters\n"
             "into the novel, %zu long", into, strlen(want));
    ck_assert_msg(strstr(cell, stated), "not \"%s\" in\n%s", stated, cell);
    int32_t ids[ATTN_SENTENCE_MAX];
    long n = austen_encode(&c.corpus.vocab, ids, want, strlen(want));
    ck_assert_int_eq(n, (long)strlen(want));
    gpt_forward(c.m, ids, NULL, 1, (int)n);  // afresh, on the rule's sentence
    int panel[2];
    check_attention_cell(c.m, cell, sentence, panel);
    check_nearly_even(&c.att);
    ck_assert_str_eq(sentence, want);
    // the figure data: each panel's weights, to the float, under the
    // characters (a space an open box, the quotes opening and closing)
    char dir[] = "/tmp/test_chapter9_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert(attention_write_data(&c.att, &c.corpus.vocab, PROGRAM, dir));
    const char *labels[ATTN_SENTENCE_MAX];
    char plain[ATTN_SENTENCE_MAX][2];
    for (int q = 0; q < n; q++) {
        plain[q][0] = want[q], plain[q][1] = '\0';
        labels[q] = want[q] == ' ' ? "\u2423" : want[q] != '"' ? plain[q]
                  : q == 0 || want[q - 1] == ' ' ? "\u201c" : "\u201d";
    }
    float w[ATTN_SENTENCE_MAX * ATTN_SENTENCE_MAX];
    real r[ATTN_SENTENCE_MAX * ATTN_SENTENCE_MAX];
    for (int p = 0; p < 2; p++) {
        gpt_attention_weights(c.m, 0, panel[p] / c.m->cfg.h, panel[p] % c.m->cfg.h, r);
        for (int e = 0; e < n * n; e++) w[e] = (float)r[e];
        char name[64];
        snprintf(name, sizeof name, "chapter9-attention-%d.dat", p + 1);
        assert_heatmap_file(dir, name, w, (int)n, (int)n, labels, labels);
    }
    char path[256], heads[256];
    snprintf(path, sizeof path, "%s/chapter9-attention-heads.dat", dir);
    size_t hl;
    char *got = read_whole_file(path, &hl);
    ck_assert_ptr_nonnull(got);
    const int h = c.m->cfg.h;
    int back[2];  // how far back each panel's head looks, as block P9.7 prints it
    for (int p = 0; p < 2; p++) {
        char say[64];
        snprintf(say, sizeof say, "block %d, head %d: the largest weight is ", panel[p] / h + 1,
                 panel[p] % h + 1);
        const char *at = strstr(cell, say);
        ck_assert_ptr_nonnull(at);
        ck_assert_int_eq(sscanf(at + strlen(say), "%d", &back[p]), 1);
    }
    snprintf(heads, sizeof heads, "\n%d %d %d\n%d %d %d\n", panel[0] / h + 1, panel[0] % h + 1,
             back[0], panel[1] / h + 1, panel[1] % h + 1, back[1]);
    ck_assert_msg(hl > strlen(heads) && strcmp(got + hl - strlen(heads), heads) == 0, "%s", got);
    free(got);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(rmdir(dir), 0);
    free(cell);
    free(text);
    chapter9_free(&c);
}
END_TEST

static Suite *chapter9_suite(void) {
    Suite *s = suite_create("chapter9");
    // trainings of chapter 9's model on the novels: minutes, and over ten
    // under memcheck, where test_gpt's short trainings and ./chapter9's
    // run of a saved model stand in (make valgrind)
    TCase *tc = tcase_create("runs");
    tcase_set_tags(tc, "data slow");
    tcase_set_timeout(tc, 1200);  // minutes on a loaded machine
    tcase_add_test(tc, first_losses_are_the_twins);
    tcase_add_test(tc, printed_figures_recomputed);
    tcase_add_test(tc, versus_to_the_printed_thousandth);
    tcase_add_test(tc, words_of_the_novels);
    tcase_add_test(tc, book_run_beats_fair_xz);
    tcase_add_test(tc, attention_cell_recomputed);
    suite_add_tcase(s, tc);
    TCase *rules = tcase_create("rules");
    tcase_add_test(rules, sentence_rule);
    suite_add_tcase(s, rules);
    return s;
}

int main(void) {
    return run_suite(chapter9_suite());
}
