// fuzz_tokenize.c: libFuzzer target for what `chapter7 --tokenize` does to
// one review: clean_paragraph, then word_tokenize (Punkt with Debian's
// English parameters when installed, else Punkt's rules alone). The raw
// bytes go through word_tokenize too: the tokenizer takes any text, valid
// UTF-8 or not. As NLTK's end with str.split(), no token may be empty or
// hold whitespace (checked unless the text holds a NUL, which a token, a C
// string, cannot show; clean_paragraph drops it). And the bytes as the
// standard input of --tokenize (tokenize_stream): taken when they are
// valid UTF-8, else refused with the line and byte of the first invalid
// one, as Python's strict decoding refuses them.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/clean.h"
#include "text/punkt_params.h"
#include "text/tokenize_documents.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

static punkt_params *params;
static tokenizer *tok;
static token_list toks;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    char err[1024];
    params = punkt_load_json(PUNKT_DEBIAN_JSON, err, sizeof err);
    if (!params) {
        fprintf(stderr, "fuzz_tokenize: %s; Punkt's rules alone\n", err);
        params = punkt_empty();
    }
    tok = params ? tokenizer_new(params, err, sizeof err) : NULL;
    if (!tok) {
        fprintf(stderr, "fuzz_tokenize: %s\n", params ? err : "out of memory");
        exit(1);
    }
    token_list_init(&toks);
    return 0;
}

// Aborts on an empty token or one that holds whitespace (Python's).
static void check_tokens(const token_list *t) {
    for (size_t i = 0; i < t->n; i++) {
        const char *s = token_at(t, i);
        size_t n = strlen(s);
        if (n == 0) abort();
        for (size_t k = 0; k < n;) {
            uint32_t cp;
            k += (size_t)utf8_decode(s + k, n - k, &cp);
            if (py_isspace(cp)) abort();
        }
    }
}

// tokenize_stream on text as standard input: an error exactly when the
// text is not UTF-8, naming the line that holds the first invalid byte.
static void check_stream(const char *text, size_t size) {
    // (fmemopen needs a size of 1 at least: no text is /dev/null)
    FILE *in = size ? fmemopen((void *)text, size, "r") : fopen("/dev/null", "r");
    FILE *out = fopen("/dev/null", "w");
    if (!in || !out) abort();
    char err[512] = "";
    int rc = tokenize_stream(in, out, tok, err, sizeof err);
    size_t valid = utf8_valid_prefix(text, size);
    if ((rc == 0) != (valid == size)) abort();
    if (rc < 0) {
        size_t line = 1;
        for (size_t i = 0; i < valid; i++) line += text[i] == '\n';
        char want[64];
        snprintf(want, sizeof want, "standard input, line %zu, byte ", line);
        if (strncmp(err, want, strlen(want)) != 0) abort();
    }
    fclose(in);
    fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    size_t clen;
    char *clean = clean_paragraph(text, size, &clen);
    if (!clean) abort();
    token_list_clear(&toks);
    if (word_tokenize(tok, clean, clen, &toks) < 0) abort();
    check_tokens(&toks);
    free(clean);
    token_list_clear(&toks);
    if (word_tokenize(tok, text, size, &toks) < 0) abort();
    if (!memchr(text, '\0', size)) check_tokens(&toks);
    check_stream(text, size);
    return 0;
}
