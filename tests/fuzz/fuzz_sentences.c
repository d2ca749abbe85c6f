// fuzz_sentences.c: libFuzzer target for chapter 6 on sentences of any
// bytes: the query before the input's first '|', the key after it, looked
// up in a small GloVe file of width 4 that the target writes once (the
// words of the chapter's two sentences, so that some words have a vector
// and the rest get a row of zeros).
//
// Every pair must run or be refused with a reason:
//   - refused only when a sentence has no words (or more than MAX_WORDS),
//     and then with a message;
//   - run: each sentence has as many words as a count made here (runs of
//     anything but C's whitespace, \t \n \v \f \r and space); every row of
//     the dot-product, trainable and additive weights is finite and sums
//     to 1; and the chapter's printout of it completes.
#define TESTING
#include "../../src/programs/chapter6.c"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char glove[64];

static int count_words(const char *s) {
    int n = 0;
    bool in_word = false;
    for (; *s; s++) {
        bool space = strchr(" \t\n\v\f\r", *s) != NULL;
        if (!space && !in_word) n++;
        in_word = !space;
    }
    return n;
}

static void check_rows(const float *w, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        double sum = 0;
        for (int j = 0; j < cols; j++) {
            if (!isfinite(w[i * cols + j]) || w[i * cols + j] < 0) abort();
            sum += w[i * cols + j];
        }
        if (fabs(sum - 1) > 1e-5) abort();
    }
}

static void write_glove(void) {
    snprintf(glove, sizeof glove, "/tmp/fuzz-sentences-XXXXXX");
    int fd = mkstemp(glove);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) abort();
    static const char *const WORDS[] = {"the", "teacher", "praised", "a", "student", "because",
                                        "she", "improved", "asked", "to", "help", "her", "improving"};
    for (size_t k = 0; k < sizeof WORDS / sizeof *WORDS; k++)
        fprintf(f, "%s %.3f %.3f %.3f %.3f\n", WORDS[k], sin((double)k), cos((double)k),
                sin(2.0 * k), cos(3.0 * k));
    if (fclose(f) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!glove[0]) write_glove();
    // beyond a few hundred words a pair costs seconds (n_q n_k 256 numbers)
    if (size > 600 || memchr(data, 0, size)) return 0;
    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *bar = strchr(text, '|');
    const char *query = text, *key = "";
    if (bar) {
        *bar = '\0';
        key = bar + 1;
    }
    int n_q = count_words(query), n_k = count_words(key);
    ch6_options o = {query, key, glove, 0};
    chapter6 c;
    char err[1024] = "";
    if (chapter6_run(&c, &o, err, sizeof err) != 0) {
        bool empty = n_q == 0 || n_k == 0;
        if (!err[0] || !empty || !strstr(err, "has no words")) abort();
    } else {
        if (c.query.n != n_q || c.key.n != n_k) abort();
        check_rows(c.dot_weights, n_q, n_k);
        check_rows(c.tr_weights, n_q, n_k);
        check_rows(c.add_weights, n_q, n_k);
        char *out;
        size_t len;
        FILE *f = open_memstream(&out, &len);
        if (!f) abort();
        chapter6_print(&c, &o, f);
        if (fclose(f) != 0 || len == 0) abort();
        free(out);
    }
    chapter6_free(&c);
    free(text);
    return 0;
}
