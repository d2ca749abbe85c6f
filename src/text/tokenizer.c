// tokenizer.c: word_tokenize, Punkt's sentences split into words.
#include "text/tokenizer.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "text/buffer.h"
#include "text/punkt.h"
#include "text/treebank.h"
#include "text/utf8.h"

struct tokenizer {
    punkt_params *owned;         // the empty parameters, when none were given
    punkt_splitter *punkt;
    treebank_tokenizer *treebank;
    span_list spans;             // scratch: the sentences of one text
    char *clean;                 // scratch: text with invalid UTF-8 replaced
    size_t clean_cap;
};

tokenizer *tokenizer_new(const punkt_params *params, char *err, size_t errlen) {
    tokenizer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!params) {
        t->owned = punkt_empty();
        if (!t->owned) {
            snprintf(err, errlen, "out of memory");
            tokenizer_free(t);
            return NULL;
        }
        params = t->owned;
    }
    if (!(t->punkt = punkt_splitter_new(params, err, errlen)) ||
        !(t->treebank = treebank_new(err, errlen))) {
        tokenizer_free(t);
        return NULL;
    }
    return t;
}

void tokenizer_free(tokenizer *t) {
    if (!t) return;
    punkt_splitter_free(t->punkt);
    treebank_free(t->treebank);
    punkt_free(t->owned);
    span_list_free(&t->spans);
    free(t->clean);
    free(t);
}

// Text as PCRE2 may read it without checking: valid UTF-8. Invalid bytes
// become U+FFFD in a scratch copy.
static const char *valid_text(tokenizer *t, const char *text, size_t *len) {
    if (utf8_valid(text, *len)) return text;
    if (!grow_buffer(&t->clean, &t->clean_cap, 3 * *len + 1)) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < *len;) {
        uint32_t c;
        int k = utf8_decode(text + i, *len - i, &c);
        o += utf8_encode(t->clean + o, c);
        i += (size_t)k;
    }
    t->clean[o] = '\0';
    *len = o;
    return t->clean;
}

int sent_tokenize(tokenizer *t, const char *text, size_t len, span_list *out) {
    const char *s = valid_text(t, text, &len);
    return s ? punkt_split(t->punkt, s, len, out) : -1;
}

int treebank_tokenize(tokenizer *t, const char *sent, size_t len, token_list *out) {
    const char *s = valid_text(t, sent, &len);
    return s ? treebank_split(t->treebank, s, len, out) : -1;
}

//> word-tokenize
int word_tokenize(tokenizer *t, const char *text, size_t len, token_list *out) {
    const char *s = valid_text(t, text, &len);
    if (!s) return -1;
    t->spans.n = 0;
    if (punkt_split(t->punkt, s, len, &t->spans) < 0) return -1;
    for (size_t i = 0; i < t->spans.n; i++)
        if (treebank_split(t->treebank, s + t->spans.start[i],
                           t->spans.end[i] - t->spans.start[i], out) < 0)
            return -1;
    return 0;
}
//< word-tokenize

int word_tokenize_write(tokenizer *t, const char *text, size_t len, FILE *out) {
    const char *s = valid_text(t, text, &len);
    if (!s) return -1;
    t->spans.n = 0;
    if (punkt_split(t->punkt, s, len, &t->spans) < 0) return -1;
    bool first = true;
    for (size_t i = 0; i < t->spans.n; i++) {
        const char *r;
        size_t rlen, k = 0, start, n;
        if (treebank_rewrite(t->treebank, s + t->spans.start[i],
                             t->spans.end[i] - t->spans.start[i], &r, &rlen) < 0)
            return -1;
        while (py_split_next(r, rlen, PY_SPACE, &k, &start, &n)) {
            if (!first) putc(' ', out);
            fwrite(r + start, 1, n, out);
            first = false;
        }
    }
    return 0;
}
