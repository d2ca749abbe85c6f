// austen_words.h: which words of a text the training novels use. A word is
// a run of ASCII letters, compared without case ("Elinor" and "elinor" are
// one word); everything else (spaces, punctuation, digits, the pound sign)
// separates words. Chapter 9 counts, under each sample, how many of the
// words a model wrote are words of the novels it read, and how many it made
// up.
#ifndef ATTN_AUSTEN_WORDS_H
#define ATTN_AUSTEN_WORDS_H

#include <stddef.h>

#include "core/strmap.h"

// Words longer than this are never found (none of the novels' is).
#define AUSTEN_WORD_MAX 64

typedef struct {
    strmap words;  // each distinct word of the text, in lower case
} austen_words;

// The distinct words of text (len bytes). Returns 0, or -1 when out of
// memory (nothing then stays allocated).
int austen_words_build(austen_words *w, const char *text, size_t len);
void austen_words_free(austen_words *w);

// The words of text (len bytes) in *total, and in *known those that w holds.
void austen_words_count(const austen_words *w, const char *text, size_t len, long *total,
                        long *known);

#endif
