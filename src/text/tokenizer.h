// tokenizer.h: NLTK's word_tokenize, as the notebook
// "How and Why does Self Attention Work?" runs it after
// clean_paragraph: Punkt sentence splitting (punkt.h), then the NLTK word
// tokenizer (treebank.h) on each sentence.
//
// Sizes: len is a text's length in bytes (UTF-8; invalid bytes are read as
// U+FFFD, as Python reads text decoded with errors="replace").
#ifndef ATTN_TOKENIZER_H
#define ATTN_TOKENIZER_H

#include <stddef.h>
#include <stdio.h>

#include "text/punkt_params.h"
#include "text/token_list.h"

// Both tokenizers plus scratch space. Not shared between threads; it keeps a
// pointer to params, which must outlive it.
typedef struct tokenizer tokenizer;

// params may be NULL: Punkt's rules alone. On failure returns NULL and
// writes why into err.
tokenizer *tokenizer_new(const punkt_params *params, char *err, size_t errlen);
void tokenizer_free(tokenizer *t);

// NLTK's sent_tokenize: the sentences of text as byte ranges, appended to
// out. Returns 0, or -1 when out of memory.
int sent_tokenize(tokenizer *t, const char *text, size_t len, span_list *out);

// The NLTK word tokenizer on one sentence: appends its tokens to out.
// Returns 0, or -1 when out of memory.
int treebank_tokenize(tokenizer *t, const char *sent, size_t len, token_list *out);

// NLTK's word_tokenize: sent_tokenize, then treebank_tokenize on each
// sentence. Appends to out. Returns 0, or -1 when out of memory.
int word_tokenize(tokenizer *t, const char *text, size_t len, token_list *out);

// word_tokenize's tokens written to out, separated by single spaces (no
// newline), one sentence at a time: a long text costs no list of its tokens.
// Returns 0, or -1 when out of memory; a failed write is left to ferror(out).
int word_tokenize_write(tokenizer *t, const char *text, size_t len, FILE *out);

#endif
