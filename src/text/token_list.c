// token_list.c: see token_list.h.
#include "text/token_list.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void token_list_init(token_list *t) { memset(t, 0, sizeof *t); }
void token_list_clear(token_list *t) { t->len = 0; t->n = 0; }
void token_list_free(token_list *t) {
    free(t->buf);
    free(t->off);
    memset(t, 0, sizeof *t);
}

bool token_list_push(token_list *t, const char *s, size_t len) {
    char *buf = grow_array(t->buf, &t->cap, t->len + len + 1, 1, 1024);
    if (!buf) return false;
    t->buf = buf;
    size_t *off = grow_array(t->off, &t->ncap, t->n + 1, sizeof *off, 256);
    if (!off) return false;
    t->off = off;
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
    size_t cap = s->cap;  // start and end share s->cap
    size_t *st = grow_array(s->start, &cap, s->n + 1, sizeof *st, 64);
    if (!st) return false;
    s->start = st;
    size_t *en = grow_array(s->end, &s->cap, s->n + 1, sizeof *en, 64);
    if (!en) return false;
    s->end = en;
    s->start[s->n] = a;
    s->end[s->n] = b;
    s->n++;
    return true;
}
