// vocab.c: see vocab.h.
#include "text/vocab.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void corpus_init(corpus *c) {
    memset(c, 0, sizeof *c);
    strmap_init(&c->types);
}

void corpus_free(corpus *c) {
    strmap_free(&c->types);
    free(c->count);
    free(c->ids);
    free(c->doc_start);
    memset(c, 0, sizeof *c);
}

bool corpus_add(corpus *c, const token_list *tokens, bool count) {
    size_t *doc_start = grow_array(c->doc_start, &c->docs_cap, c->ndocs + 2, sizeof *doc_start, 1024);
    if (!doc_start) return false;
    c->doc_start = doc_start;
    int32_t *ids = grow_array(c->ids, &c->ids_cap, c->nids + tokens->n, sizeof *ids, 1024);
    if (!ids) return false;
    c->ids = ids;
    if (c->ndocs == 0) c->doc_start[0] = 0;
    for (size_t i = 0; i < tokens->n; i++) {
        const char *tok = token_at(tokens, i);
        bool added;
        long id = strmap_intern(&c->types, tok, strlen(tok), &added);
        if (id < 0 || id > INT32_MAX) return false;
        if (added) {
            int64_t *counts = grow_array_zeroed(c->count, &c->count_cap, c->types.n,
                                                sizeof *counts, 1024);
            if (!counts) return false;
            c->count = counts;
        }
        if (count) c->count[id]++;
        c->ids[c->nids++] = (int32_t)id;
    }
    c->doc_start[++c->ndocs] = c->nids;
    return true;
}

//> most-common
// Counter.most_common() sorts by count with Python's stable sort, so equal
// counts stay in insertion (first-seen) order: count descending, then id.
typedef struct {
    int64_t count;
    int32_t id;
} type_count;

static int by_count(const void *a, const void *b) {
    const type_count *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}
//< most-common

bool vocab_build(vocab *v, const corpus *c, size_t max_words) {
    memset(v, 0, sizeof *v);
    strmap_init(&v->words);
    size_t T = c->types.n, n = 0;
    type_count *order = malloc((T ? T : 1) * sizeof *order);
    v->of_type = malloc((T ? T : 1) * sizeof *v->of_type);
    if (!order || !v->of_type) goto fail;
    for (size_t i = 0; i < T; i++)
        if (c->count[i] > 0) order[n++] = (type_count){c->count[i], (int32_t)i};
    qsort(order, n, sizeof *order, by_count);
    if (n > max_words) n = max_words;
    for (size_t i = 0; i < n; i++) {
        const char *w = strmap_key(&c->types, (size_t)order[i].id);
        if (strmap_intern(&v->words, w, strlen(w), NULL) < 0) goto fail;
    }
    long unk = strmap_intern(&v->words, "<UNK>", 5, NULL);
    long pad = strmap_intern(&v->words, "<PAD>", 5, NULL);
    if (unk < 0 || pad < 0) goto fail;
    v->unk = (int32_t)unk;
    v->pad = (int32_t)pad;
    for (size_t i = 0; i < T; i++) v->of_type[i] = v->unk;
    for (size_t i = 0; i < n; i++) v->of_type[order[i].id] = (int32_t)i;
    free(order);
    return true;
fail:
    free(order);
    vocab_free(v);
    return false;
}

void vocab_free(vocab *v) {
    strmap_free(&v->words);
    free(v->of_type);
    memset(v, 0, sizeof *v);
}

//> chunks
bool make_chunks(int32_t **X, int32_t **Y, int32_t **doc_of, size_t *nchunks, const corpus *c,
                 const vocab *v, const size_t *docs, const int *labels, size_t ndocs,
                 size_t L) {
    size_t C = 0;
    for (size_t i = 0; i < ndocs; i++) {
        size_t n = c->doc_start[docs[i] + 1] - c->doc_start[docs[i]];
        C += (n + L - 1) / L;  // range(0, n, L): no chunk for an empty review
    }
    *X = malloc((C ? C : 1) * L * sizeof **X);
    *Y = malloc((C ? C : 1) * sizeof **Y);
    int32_t *of = doc_of ? malloc((C ? C : 1) * sizeof *of) : NULL;
    if (!*X || !*Y || (doc_of && !of)) {
        free(*X);
        free(*Y);
        free(of);
        *X = *Y = NULL;
        return false;
    }
    size_t row = 0;
    for (size_t i = 0; i < ndocs; i++) {
        const int32_t *ids = c->ids + c->doc_start[docs[i]];
        size_t n = c->doc_start[docs[i] + 1] - c->doc_start[docs[i]];
        for (size_t s = 0; s < n; s += L, row++) {
            for (size_t j = 0; j < L; j++)
                (*X)[row * L + j] = s + j < n ? v->of_type[ids[s + j]] : v->pad;
            (*Y)[row] = labels[i];
            if (of) of[row] = (int32_t)i;
        }
    }
    if (doc_of) *doc_of = of;
    *nchunks = C;
    return true;
}
//< chunks

static int compare_counts_descending(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

//> zipf
// The counts of the counted (training) token types, largest first: count
// rank r is the r-th most frequent word. Returns a new array of *n counts.
int64_t *counts_by_rank(const corpus *c, size_t *n) {
    int64_t *sorted = malloc((c->types.n ? c->types.n : 1) * sizeof *sorted);
    if (!sorted) return NULL;
    *n = 0;
    for (size_t i = 0; i < c->types.n; i++)
        if (c->count[i] > 0) sorted[(*n)++] = c->count[i];
    qsort(sorted, *n, sizeof *sorted, compare_counts_descending);
    return sorted;
}

// The fraction of all counted tokens that the top words, (top) of them,
// account for: how much of the text a vocabulary of that size covers.
double coverage(const int64_t *sorted, size_t n, size_t top) {
    double all = 0, kept = 0;
    for (size_t r = 0; r < n; r++) {
        all += (double)sorted[r];
        if (r < top) kept += (double)sorted[r];
    }
    return all > 0 ? kept / all : 0.0;
}
//< zipf
