// tokens.c: growing lists of tokens and of byte ranges.
#include "text/tokens.h"

#include <stdlib.h>
#include <string.h>

void token_list_init(token_list *t) { memset(t, 0, sizeof *t); }
void token_list_clear(token_list *t) { t->len = 0; t->n = 0; }
void token_list_free(token_list *t) {
    free(t->buf);
    free(t->off);
    memset(t, 0, sizeof *t);
}

bool token_list_push(token_list *t, const char *s, size_t len) {
    if (t->len + len + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + len + 1) cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b) return false;
        t->buf = b;
        t->cap = cap;
    }
    if (t->n == t->ncap) {
        size_t ncap = t->ncap ? t->ncap * 2 : 256;
        size_t *off = realloc(t->off, ncap * sizeof *off);
        if (!off) return false;
        t->off = off;
        t->ncap = ncap;
    }
    memcpy(t->buf + t->len, s, len);
    t->buf[t->len + len] = '\0';
    t->off[t->n++] = t->len;
    t->len += len + 1;
    return true;
}

void span_list_free(span_list *s) {
    free(s->start);
    free(s->end);
    memset(s, 0, sizeof *s);
}

bool span_list_push(span_list *s, size_t a, size_t b) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        size_t *st = realloc(s->start, cap * sizeof *st);
        if (!st) return false;
        s->start = st;
        size_t *en = realloc(s->end, cap * sizeof *en);
        if (!en) return false;
        s->end = en;
        s->cap = cap;
    }
    s->start[s->n] = a;
    s->end[s->n] = b;
    s->n++;
    return true;
}
