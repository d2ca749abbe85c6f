// text.h: seed 000's text preprocessing in C. clean_paragraph, then NLTK's
// word_tokenize, which is Punkt sentence splitting (Kiss and Strunk, 2006)
// followed by the NLTK ("Treebank") word tokenizer on each sentence.
//
// Text is UTF-8 throughout; offsets and lengths are in bytes. Where Python
// works on characters (lower(), \s, \d, \w), these functions follow Python's
// Unicode rules: "whitespace" is what str.isspace() says (29 code points:
// \t \n \v \f \r, \x1c-\x1f, space, \x85, \xa0, \u1680, \u2000-\u200a,
// \u2028, \u2029, \u202f, \u205f, \u3000), not C's isspace.
#ifndef ATTN_TEXT_H
#define ATTN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Python's str.isspace() for one code point.
bool py_isspace(uint32_t cp);

// Decodes the code point at s[0..len) into *cp; returns how many bytes it
// took (1..4). A malformed or truncated sequence decodes as U+FFFD, 1 byte.
int utf8_decode(const char *s, size_t len, uint32_t *cp);

// Seed 000's clean_paragraph on text (len bytes, UTF-8): lower-case, `<br />`
// to a space, `-` to a space, `.` to `. `, then drop every character but
// a-z, 0-9, whitespace and . , ! ? ; : -. Returns a new NUL-terminated string
// (its length in *out_len), or NULL when out of memory.
char *clean_paragraph(const char *text, size_t len, size_t *out_len);

// Reads a whole file into a new NUL-terminated buffer (its length in *len,
// not counting the NUL). NULL with errno set on failure.
char *read_whole_file(const char *path, size_t *len);

// ---------------------------------------------------------------- tokens
// A growing list of tokens: token i is the NUL-terminated string at
// buf + off[i].
typedef struct {
    char *buf;
    size_t len, cap;
    size_t *off;
    size_t n, ncap;
} token_list;

void token_list_init(token_list *t);
void token_list_clear(token_list *t);  // keeps the memory
void token_list_free(token_list *t);
// Appends s (len bytes); false when out of memory.
bool token_list_push(token_list *t, const char *s, size_t len);
static inline const char *token_at(const token_list *t, size_t i) { return t->buf + t->off[i]; }

// ---------------------------------------------------------------- Punkt
// The four learned parameter sets of a Punkt model, as NLTK's punkt_tab
// stores them: abbreviation types, collocations (pairs of types), frequent
// sentence starters, and the orthographic context of each type (bit flags:
// seen upper/lower case at the beginning, middle, or unknown position of a
// sentence).
typedef struct punkt_params punkt_params;

// Loads DIR/abbrev_types.txt, collocations.tab, sent_starters.txt and
// ortho_context.tab. On failure returns NULL and writes why (file and line
// for a malformed entry) into err.
punkt_params *punkt_load(const char *dir, char *err, size_t errlen);

// Parameters with nothing learned: Punkt's rules alone (the fallback).
punkt_params *punkt_empty(void);
void punkt_free(punkt_params *p);

// Sizes of the four sets, for reporting.
void punkt_sizes(const punkt_params *p, size_t *abbrevs, size_t *collocations,
                 size_t *starters, size_t *ortho);

// Finds the English punkt_tab directory the way NLTK looks for data: each
// directory of nltk_data_path (a colon-separated list, e.g. $NLTK_DATA; may
// be NULL), then $HOME/nltk_data (home may be NULL) and the system
// directories /usr/share, /usr/local/share, /usr/lib, /usr/local/lib
// (each + /nltk_data). Writes DIR/tokenizers/punkt_tab/english into out and
// returns true if it has abbrev_types.txt.
bool punkt_find(const char *nltk_data_path, const char *home, char *out, size_t outlen);

// ---------------------------------------------------------------- tokenizer
// The compiled rules plus scratch space. Not shared between threads; it keeps
// a pointer to params, which must outlive it.
typedef struct tokenizer tokenizer;

tokenizer *tokenizer_new(const punkt_params *params, char *err, size_t errlen);
void tokenizer_free(tokenizer *t);

// Punkt: the sentences of text as byte ranges [start[i], end[i]); at most
// max are written, the count is returned (-1 when out of memory). Call with
// max = 0 to count.
typedef struct {
    size_t *start, *end;
    size_t n, cap;
} span_list;
void span_list_free(span_list *s);
int sent_tokenize(tokenizer *t, const char *text, size_t len, span_list *out);

// The NLTK word tokenizer on one sentence: appends its tokens to out.
// Returns 0, or -1 when out of memory.
int treebank_tokenize(tokenizer *t, const char *sent, size_t len, token_list *out);

// NLTK's word_tokenize: sent_tokenize, then treebank_tokenize on each
// sentence. Appends to out. Returns 0, or -1 when out of memory.
int word_tokenize(tokenizer *t, const char *text, size_t len, token_list *out);

#endif
