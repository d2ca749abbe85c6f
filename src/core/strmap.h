// strmap.h: a string -> integer hash map (open addressing, FNV-1a), the one
// data structure the text pipeline of chapter 7 keeps needing: Punkt's
// parameter sets, the token counter, the vocabulary index, the GloVe lookup.
//
// Keys are copied into one arena owned by the map. Ids are dense: the i-th
// distinct key inserted gets id i, so "first-seen order" (what Python's dict
// and Counter keep) is simply id order.
#ifndef ATTN_STRMAP_H
#define ATTN_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t *slots;   // (cap) id + 1, or 0 for an empty slot
    size_t cap;        // a power of two
    size_t *key_off;   // (n) offset of key i in arena
    size_t *key_len;   // (n) its length in bytes
    size_t n, ncap;
    char *arena;       // all keys, each followed by a NUL
    size_t arena_len, arena_cap;
} strmap;

void strmap_init(strmap *m);
void strmap_free(strmap *m);

// The id of key (len bytes), or -1 if it is not in the map.
long strmap_find(const strmap *m, const char *key, size_t len);

// The id of key, inserting it if new (*added says which, if not NULL).
// Returns -1 when out of memory.
long strmap_intern(strmap *m, const char *key, size_t len, bool *added);

// FNV-1a, 64 bit, of len bytes, continued from h (FNV1A_START for a new
// hash): the map's hash of a key, and a digest of a stream of bytes fed in
// pieces.
#define FNV1A_START 14695981039346656037ULL
uint64_t fnv1a(uint64_t h, const char *s, size_t len);

// Key number id (NUL-terminated), and its length.
static inline const char *strmap_key(const strmap *m, size_t id) {
    return m->arena + m->key_off[id];
}
static inline size_t strmap_key_len(const strmap *m, size_t id) {
    return m->key_len[id];
}

#endif
