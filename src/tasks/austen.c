// austen.c: Jane Austen's novels as character ids, the held-out split, the
// batches. See austen.h.
#include "tasks/austen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/rdb.h"
#include "text/utf8.h"

//> vocab
int austen_vocab_build(austen_vocab *v, const char *text, size_t len) {
    v->size = 0;
    if (!utf8_valid(text, len)) return -1;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += (size_t)utf8_decode(text + i, len - i, &cp);
        if (austen_id(v, cp) >= 0) continue;
        if (v->size == AUSTEN_VOCAB_MAX) return -1;
        // a new character: into its place among the sorted ones
        int at = v->size;
        while (at > 0 && v->chars[at - 1] > cp) {
            v->chars[at] = v->chars[at - 1];
            at--;
        }
        v->chars[at] = cp;
        v->size++;
    }
    return 0;
}
//< vocab

int austen_id(const austen_vocab *v, uint32_t cp) {
    int lo = 0, hi = v->size;  // binary search of the sorted chars
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (v->chars[mid] < cp) lo = mid + 1;
        else hi = mid;
    }
    return lo < v->size && v->chars[lo] == cp ? lo : -1;
}

long austen_encode(const austen_vocab *v, int32_t *ids, const char *text, size_t len) {
    long n = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += (size_t)utf8_decode(text + i, len - i, &cp);
        int id = austen_id(v, cp);
        if (id < 0) return -1;
        ids[n++] = id;
    }
    return n;
}

size_t austen_decode(const austen_vocab *v, char *out, const int32_t *ids, size_t n) {
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] >= 0 && ids[i] < v->size) len += utf8_encode(out + len, v->chars[ids[i]]);
        else out[len++] = '?';
    }
    out[len] = '\0';
    return len;
}

const int32_t *austen_train_ids(const austen_corpus *c) { return c->ids; }
const int32_t *austen_val_ids(const austen_corpus *c) { return c->ids + c->n_train; }

static int load_error(austen_corpus *c, char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    austen_free(c);
    return -1;
}

// Appends vector v's lines (rdb_join) to c->text, which has room.
static int append_novel(austen_corpus *c, size_t *used, const rdb_strings *v) {
    size_t len;
    char *lines = rdb_join(v, &len);
    if (!lines) return -1;
    memcpy(c->text + *used, lines, len + 1);
    *used += len;
    free(lines);
    return 0;
}

// The novels of db into c->text: every novel but the held-out one in the
// file's order, then the held-out one (vector val).
static int join_novels(austen_corpus *c, const rdb_database *db, size_t val) {
    size_t total = 1;
    for (size_t k = 0; k < db->n; k++)  // each line and its '\n'
        for (size_t i = 0; i < db->vec[k].n; i++) total += db->vec[k].len[i] + 1;
    c->text = malloc(total);
    if (!c->text) return -1;
    size_t used = 0;
    for (size_t k = 0; k < db->n; k++)
        if (k != val && append_novel(c, &used, &db->vec[k]) != 0) return -1;
    c->train_bytes = used;
    if (append_novel(c, &used, &db->vec[val]) != 0) return -1;
    c->val_bytes = used - c->train_bytes;
    return 0;
}

// The ids of c->text, in the vocabulary built from it.
static int encode_corpus(austen_corpus *c) {
    size_t bytes = c->train_bytes + c->val_bytes;
    c->ids = malloc((bytes ? bytes : 1) * sizeof *c->ids);
    if (!c->ids) return -1;
    // (every character is in the vocabulary, which was built from them)
    long n_train = austen_encode(&c->vocab, c->ids, c->text, c->train_bytes);
    long n_val = austen_encode(&c->vocab, c->ids + n_train, c->text + c->train_bytes, c->val_bytes);
    c->n_train = (size_t)n_train;
    c->n_val = (size_t)n_val;
    return 0;
}

int austen_load(austen_corpus *c, const char *rdb_path, const char *held_out, char *err,
                size_t errlen) {
    memset(c, 0, sizeof *c);
    rdb_database db;
    if (rdb_load(rdb_path, &db, err, errlen) != 0) return -1;
    size_t val = db.n;
    for (size_t k = 0; k < db.n; k++) {
        const char *title = rdb_austen_title(&db.vec[k]);
        if (!title) {
            rdb_free(&db);
            return load_error(c, err, errlen, "%s: vector %zu is none of Jane Austen's six novels",
                              rdb_path, k);
        }
        if (strcmp(title, held_out) == 0) {
            val = k;
            c->held_out = title;
        }
    }
    if (val == db.n) {
        rdb_free(&db);
        return load_error(c, err, errlen, "%s: no novel titled \"%s\" to hold out", rdb_path,
                          held_out);
    }
    int rc = join_novels(c, &db, val);
    rdb_free(&db);
    if (rc != 0) return load_error(c, err, errlen, "out of memory");
    size_t bytes = c->train_bytes + c->val_bytes;
    if (austen_vocab_build(&c->vocab, c->text, bytes) != 0)
        return load_error(c, err, errlen, "%s: more than %d distinct characters", rdb_path,
                          AUSTEN_VOCAB_MAX);
    if (encode_corpus(c) != 0) return load_error(c, err, errlen, "out of memory");
    return 0;
}

void austen_free(austen_corpus *c) {
    free(c->text);
    free(c->ids);
    c->text = NULL;
    c->ids = NULL;
}

//> batch
void austen_batch(int32_t *windows, int64_t *starts, const int32_t *ids, size_t n, int B, int T,
                  torch_rng *g) {
    for (int b = 0; b < B; b++) {  // torch.randint(n - T, (B,)): one draw each
        int64_t start;
        rng_randint(g, &start, 1, 0, (int64_t)(n - (size_t)T));
        if (starts) starts[b] = start;
        memcpy(windows + (size_t)b * (T + 1), ids + start, (size_t)(T + 1) * sizeof *ids);
    }
}
//< batch
