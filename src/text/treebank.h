// treebank.h: the NLTK word tokenizer (NLTK's improved Penn Treebank
// tokenizer), which word_tokenize runs on each sentence.
#ifndef ATTN_TREEBANK_H
#define ATTN_TREEBANK_H

#include <stddef.h>

#include "text/token_list.h"

// The compiled rules plus scratch space. Not shared between threads.
typedef struct treebank_tokenizer treebank_tokenizer;

// On failure returns NULL and writes why into err.
treebank_tokenizer *treebank_new(char *err, size_t errlen);
void treebank_free(treebank_tokenizer *t);

// The tokens of one sentence, which must be valid UTF-8, appended to out.
// Returns 0, or -1 when out of memory.
int treebank_split(treebank_tokenizer *t, const char *sent, size_t len, token_list *out);

// The same sentence rewritten, before the split: its tokens are the pieces of
// *text (*text_len bytes, held by t until its next call) between runs of
// Python whitespace. Returns 0, or -1 when out of memory.
int treebank_rewrite(treebank_tokenizer *t, const char *sent, size_t len, const char **text,
                     size_t *text_len);

#endif
