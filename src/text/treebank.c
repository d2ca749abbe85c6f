// treebank.c: the NLTK word tokenizer, written from the Penn Treebank
// tokenization conventions and NLTK's documentation, and checked against
// NLTK 3.8 on the 50,000 IMDb reviews (tests/reference/nltk_golden.py).
#include "text/treebank.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/buffer.h"
#include "text/pyregex.h"
#include "text/utf8.h"

#define S "[" PYSPACE "]"

// A rewrite rule of the word tokenizer: every match of pattern becomes
// replacement ($1 is group 1, $0 the whole match). trigger lists bytes of
// which any match must contain at least one, so that a sentence without them
// skips the rule (a speed-up only).
typedef struct {
    const char *pattern, *replacement, *trigger;
} rule;

//> treebank-rules
// The NLTK word tokenizer: Penn Treebank conventions, applied as rewrites of
// the sentence in this order; then the sentence is split at whitespace.
static const rule STARTING_QUOTES[] = {
    // opening guillemet and curly quotes, and backticks
    {"([\\x{ab}\\x{201c}\\x{2018}\\x{201e}]|`+)", " $1 ", "`\xc2\xe2"},
    {"^\"", "``", "\""},                           // an opening " becomes ``
    {"(``)", " $1 ", "`"},
    {"([ (\\[{<])(\"|'{2})", "$1 `` ", "\"'"},  // " or '' after a space or bracket
    {"(?i)(')(?!re|ve|ll|m|t|s|d|n)(\\w)\\b", "$1 $2", "'"},
};
static const rule PUNCTUATION[] = {
    // the sentence's final period, before any closing brackets, quotes and spaces
    {"([^.])(\\.)([\\])}>\"'\\x{bb}\\x{201d}\\x{2019} ]*)" S "*$", "$1 $2 $3 ", "."},
    {"([:,])([^\\d])", " $1 $2", ":,"},            // , and : unless a digit follows
    {"([:,])$", " $1 ", ":,"},
    {"\\.{2,}", " $0 ", "."},                      // an ellipsis of periods
    {"[;@#$%&]", " $0 ", ";@#$%&"},
    {"([^.])(\\.)([\\])}>\"']*)" S "*$", "$1 $2$3 ", "."},
    {"[?!]", " $0 ", "?!"},
    {"([^'])' ", "$1 ' ", "'"},
    {"[*]", " $0 ", "*"},
    {"[\\]\\[(){}<>]", " $0 ", "[](){}<>"},        // brackets
    {"--", " -- ", "-"},                           // double dashes
};
// (here the sentence gets a space added at each end)
static const rule ENDING_QUOTES[] = {
    // closing guillemet and curly quotes
    {"([\\x{bb}\\x{201d}\\x{2019}])", " $1 ", "\xc2\xe2"},
    {"''", " '' ", "'"},
    {"\"", " '' ", "\""},                          // a closing " becomes ''
    {"([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 ", "'"},  // clitics: 's 'm 'd
    {"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 ", "'"},
    // contractions split in two: cannot, d'ye, gimme, gonna, gotta, lemme,
    // more'n, wanna; 'tis, 'twas
    {"(?i)\\b(can)(not)\\b", " $1 $2 ", "nN"},
    {"(?i)\\b(d)('ye)\\b", " $1 $2 ", "'"},
    {"(?i)\\b(gim)(me)\\b", " $1 $2 ", "mM"},
    {"(?i)\\b(gon)(na)\\b", " $1 $2 ", "nN"},
    {"(?i)\\b(got)(ta)\\b", " $1 $2 ", "tT"},
    {"(?i)\\b(lem)(me)\\b", " $1 $2 ", "mM"},
    {"(?i)\\b(more)('n)\\b", " $1 $2 ", "'"},
    {"(?i)\\b(wan)(na)(?=" S ")", " $1 $2 ", "nN"},
    {"(?i) ('t)(is)\\b", " $1 $2 ", "'"},
    {"(?i) ('t)(was)\\b", " $1 $2 ", "'"},
};
//< treebank-rules

#define N_START (sizeof STARTING_QUOTES / sizeof *STARTING_QUOTES)
#define N_PUNCT (sizeof PUNCTUATION / sizeof *PUNCTUATION)
#define N_END (sizeof ENDING_QUOTES / sizeof *ENDING_QUOTES)
#define N_RULES (N_START + N_PUNCT + N_END)

struct treebank_tokenizer {
    pcre2_code *rules[N_RULES];
    bool trigger[N_RULES][256];
    pcre2_match_data *md;
    char *a, *b;                 // scratch for the rewrites
    size_t acap, bcap;
};

static const rule *rule_at(size_t i) {
    if (i < N_START) return &STARTING_QUOTES[i];
    if (i < N_START + N_PUNCT) return &PUNCTUATION[i - N_START];
    return &ENDING_QUOTES[i - N_START - N_PUNCT];
}

treebank_tokenizer *treebank_new(char *err, size_t errlen) {
    treebank_tokenizer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < N_RULES; i++) {
        const rule *r = rule_at(i);
        if (!(t->rules[i] = regex_compile(r->pattern, 0, err, errlen))) {
            treebank_free(t);
            return NULL;
        }
        for (const char *c = r->trigger; *c; c++) t->trigger[i][(unsigned char)*c] = true;
    }
    t->md = pcre2_match_data_create(8, NULL);
    if (!t->md) {
        snprintf(err, errlen, "out of memory");
        treebank_free(t);
        return NULL;
    }
    return t;
}

void treebank_free(treebank_tokenizer *t) {
    if (!t) return;
    for (size_t i = 0; i < N_RULES; i++) pcre2_code_free(t->rules[i]);
    pcre2_match_data_free(t->md);
    free(t->a);
    free(t->b);
    free(t);
}

// Applies rule i to t->a (alen bytes, NUL-terminated). Returns false when out
// of memory.
static bool apply_rule(treebank_tokenizer *t, size_t i, size_t *alen) {
    const char *a = t->a;
    size_t k = 0;
    while (k < *alen && !t->trigger[i][(unsigned char)a[k]]) k++;
    if (k == *alen) return true;  // cannot match
    const rule *r = rule_at(i);
    for (;;) {
        PCRE2_SIZE blen = t->bcap;
        int rc = pcre2_substitute(t->rules[i], (PCRE2_SPTR)t->a, *alen, 0,
                                  PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH |
                                      PCRE2_SUBSTITUTE_UNSET_EMPTY | PCRE2_NO_UTF_CHECK,
                                  t->md, NULL, (PCRE2_SPTR)r->replacement, PCRE2_ZERO_TERMINATED,
                                  (PCRE2_UCHAR *)t->b, &blen);
        if (rc == PCRE2_ERROR_NOMEMORY) {
            if (!grow_buffer(&t->b, &t->bcap, blen + 1)) return false;
            continue;
        }
        if (rc < 0) return false;  // cannot happen with valid patterns and UTF-8
        if (rc > 0) {
            char *tmp = t->a; t->a = t->b; t->b = tmp;
            size_t c = t->acap; t->acap = t->bcap; t->bcap = c;
            *alen = blen;
        }
        return true;
    }
}

// Appends the pieces of s[0..len) between runs of Python whitespace.
static bool split_whitespace(const char *s, size_t len, token_list *out) {
    size_t i = 0, start, n;
    while (py_split_next(s, len, PY_SPACE, &i, &start, &n))
        if (!token_list_push(out, s + start, n)) return false;
    return true;
}

//> treebank-tokenize
int treebank_rewrite(treebank_tokenizer *t, const char *sent, size_t len, const char **text,
                     size_t *text_len) {
    if (!grow_buffer(&t->a, &t->acap, len + 3) || !grow_buffer(&t->b, &t->bcap, len + 3))
        return -1;
    memcpy(t->a, sent, len);
    t->a[len] = '\0';
    size_t alen = len;
    for (size_t i = 0; i < N_START + N_PUNCT; i++)
        if (!apply_rule(t, i, &alen)) return -1;
    // " " + text + " ": the ending-quote and contraction rules look for
    // spaces around words
    if (!grow_buffer(&t->a, &t->acap, alen + 3)) return -1;
    memmove(t->a + 1, t->a, alen);
    t->a[0] = ' ';
    t->a[alen + 1] = ' ';
    t->a[alen + 2] = '\0';
    alen += 2;
    for (size_t i = N_START + N_PUNCT; i < N_RULES; i++)
        if (!apply_rule(t, i, &alen)) return -1;
    *text = t->a;
    *text_len = alen;
    return 0;
}

int treebank_split(treebank_tokenizer *t, const char *sent, size_t len,
                   token_list *out) {
    const char *text;
    size_t n;
    if (treebank_rewrite(t, sent, len, &text, &n) < 0) return -1;
    return split_whitespace(text, n, out) ? 0 : -1;
}
//< treebank-tokenize
