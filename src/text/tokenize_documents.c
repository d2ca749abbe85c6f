// tokenize_documents.c: see tokenize_documents.h.
#define _POSIX_C_SOURCE 200809L
#include "text/tokenize_documents.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/readfile.h"
#include "core/strmap.h"
#include "text/clean.h"
#include "text/utf8.h"

//> cell-64
// [H64] clean_paragraph, then word_tokenize, each review; the training
// reviews first, so that first-seen order is the notebook's Counter's.
int tokenize_reviews(corpus *c, tokenizer *t, const imdb_reviews *reviews,
                     const size_t *train, size_t n_train, const size_t *test, size_t n_test,
                     char *err, size_t errlen) {
    token_list toks;
    token_list_init(&toks);
    for (size_t k = 0; k < n_train + n_test; k++) {
        bool counted = k < n_train;
        size_t r = counted ? train[k] : test[k - n_train];
        size_t clen;
        const char *text = reviews->arena + reviews->off[r];
        char *clean = clean_paragraph(text, reviews->len[r], &clen);
        token_list_clear(&toks);
        int rc = clean ? word_tokenize(t, clean, clen, &toks) : -1;
        free(clean);
        if (rc < 0 || !corpus_add(c, &toks, counted)) {
            token_list_free(&toks);
            snprintf(err, errlen, "out of memory tokenizing review %zu", r);
            return -1;
        }
    }
    token_list_free(&toks);
    return 0;
}
//< cell-64

// The longest line buffer tokenize_stream keeps for the next line.
#define LONG_LINE ((size_t)1 << 20)

//> tokenize-mode
// --tokenize: one document a line in, its tokens a line out. A line ends at
// \n alone, as Python's sys.stdin splits it on POSIX systems (newline="\n"):
// a \r stays in the text, where clean_paragraph keeps it as whitespace.
int tokenize_stream(FILE *in, FILE *out, tokenizer *t, char *err, size_t errlen) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t got = 0;
    int rc = 0;
    size_t lineno = 0;
    while (rc == 0 && (got = read_line(&line, &cap, in)) >= 0) {
        size_t n = (size_t)got, valid = utf8_valid_prefix(line, n);
        lineno++;
        if (valid < n) {  // Python, decoding strictly, raises UnicodeDecodeError
            snprintf(err, errlen, "standard input, line %zu, byte %zu: 0x%02x is not UTF-8 "
                     "(Python's strict decoding refuses it too)",
                     lineno, valid + 1, (unsigned)(unsigned char)line[valid]);
            rc = -1;
            break;
        }
        if (n > 0 && line[n - 1] == '\n') n--;
        size_t clen;
        char *clean = clean_paragraph(line, n, &clen);
        if (cap > LONG_LINE) {  // a long line is not kept while it is tokenized
            free(line);
            line = NULL;
            cap = 0;
        }
        if (!clean || word_tokenize_write(t, clean, clen, out) < 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
        free(clean);
        // a full disk: stop now (a failed flush inside fputs or fputc
        // leaves the stream's error flag even when the next call succeeds)
        if (rc == 0 && (fputc('\n', out) == EOF || ferror(out))) {
            snprintf(err, errlen, "cannot write standard output: %s", file_error(errno));
            rc = -1;
        }
    }
    if (rc == 0 && got == -2) {
        snprintf(err, errlen, "cannot read standard input: %s", file_error(errno));
        rc = -1;
    }
    free(line);
    return rc;
}
//< tokenize-mode

int reviews_token_digest(uint64_t *digest, const corpus *c, const size_t *train, size_t n_train,
                         const size_t *test, size_t n_test) {
    size_t n = n_train + n_test;
    size_t *doc_of = malloc((n ? n : 1) * sizeof *doc_of);  // review number -> document
    if (!doc_of) return -1;
    for (size_t i = 0; i < n_train; i++) doc_of[train[i]] = i;
    for (size_t i = 0; i < n_test; i++) doc_of[test[i]] = n_train + i;
    uint64_t h = FNV1A_START;
    for (size_t r = 0; r < n; r++) {
        size_t d = doc_of[r];
        for (size_t k = c->doc_start[d]; k < c->doc_start[d + 1]; k++) {
            if (k > c->doc_start[d]) h = fnv1a(h, " ", 1);
            size_t id = (size_t)c->ids[k];
            h = fnv1a(h, strmap_key(&c->types, id), strmap_key_len(&c->types, id));
        }
        h = fnv1a(h, "\n", 1);
    }
    free(doc_of);
    *digest = h;
    return 0;
}
