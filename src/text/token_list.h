// token_list.h: growing lists of tokens (token_list) and of byte ranges,
// such as sentences (span_list).
#ifndef ATTN_TOKEN_LIST_H
#define ATTN_TOKEN_LIST_H

#include <stdbool.h>
#include <stddef.h>

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

// A growing list of byte ranges [start[i], end[i]) of a text.
typedef struct {
    size_t *start, *end;
    size_t n, cap;
} span_list;

void span_list_free(span_list *s);
// Appends [a, b); false when out of memory.
bool span_list_push(span_list *s, size_t a, size_t b);

#endif
