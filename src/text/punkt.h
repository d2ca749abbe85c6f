// punkt.h: Punkt sentence splitting (Kiss and Strunk, 2006) as NLTK's
// sent_tokenize does it with a trained model's parameters.
//
// Sizes: len is a text's length in bytes (UTF-8).
#ifndef ATTN_PUNKT_H
#define ATTN_PUNKT_H

#include <stddef.h>

#include "text/punkt_params.h"
#include "text/token_list.h"

// The compiled patterns plus scratch space. Not shared between threads; it
// keeps a pointer to the parameters, which must outlive it.
typedef struct punkt_splitter punkt_splitter;

// On failure returns NULL and writes why into err.
punkt_splitter *punkt_splitter_new(const punkt_params *params, char *err, size_t errlen);
void punkt_splitter_free(punkt_splitter *s);

// The sentences of text, which must be valid UTF-8, appended to out as byte
// ranges [start, end). Returns 0, or -1 when out of memory.
int punkt_split(punkt_splitter *s, const char *text, size_t len, span_list *out);

#endif
