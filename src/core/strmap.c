// strmap.c: see strmap.h.
#include "core/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

static uint64_t hash_bytes(const char *s, size_t len) {
    return fnv1a(FNV1A_START, s, len);
}

uint64_t fnv1a(uint64_t h, const char *s, size_t len) {
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void strmap_init(strmap *m) { memset(m, 0, sizeof *m); }

void strmap_free(strmap *m) {
    free(m->slots);
    free(m->key_off);
    free(m->key_len);
    free(m->arena);
    memset(m, 0, sizeof *m);
}

long strmap_find(const strmap *m, const char *key, size_t len) {
    if (m->cap == 0) return -1;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)hash_bytes(key, len) & mask;; i = (i + 1) & mask) {
        uint32_t s = m->slots[i];
        if (s == 0) return -1;
        size_t id = s - 1;
        if (m->key_len[id] == len && memcmp(m->arena + m->key_off[id], key, len) == 0)
            return (long)id;
    }
}

static bool grow_slots(strmap *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    for (size_t id = 0; id < m->n; id++) {
        size_t i = (size_t)hash_bytes(m->arena + m->key_off[id], m->key_len[id]) & (cap - 1);
        while (slots[i]) i = (i + 1) & (cap - 1);
        slots[i] = (uint32_t)(id + 1);
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return true;
}

long strmap_intern(strmap *m, const char *key, size_t len, bool *added) {
    long id = strmap_find(m, key, len);
    if (added) *added = id < 0;
    if (id >= 0) return id;
    if (m->n >= UINT32_MAX - 1) return -1;
    if ((m->n + 1) * 2 > m->cap && !grow_slots(m)) return -1;
    size_t ncap = m->ncap;  // key_off and key_len share m->ncap
    size_t *off = grow_array(m->key_off, &ncap, m->n + 1, sizeof *off, 64);
    if (!off) return -1;
    m->key_off = off;
    size_t *kl = grow_array(m->key_len, &m->ncap, m->n + 1, sizeof *kl, 64);
    if (!kl) return -1;
    m->key_len = kl;
    char *a = grow_array(m->arena, &m->arena_cap, m->arena_len + len + 1, 1, 4096);
    if (!a) return -1;
    m->arena = a;
    memcpy(m->arena + m->arena_len, key, len);
    m->arena[m->arena_len + len] = '\0';
    m->key_off[m->n] = m->arena_len;
    m->key_len[m->n] = len;
    m->arena_len += len + 1;
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash_bytes(key, len) & mask;
    while (m->slots[i]) i = (i + 1) & mask;
    m->slots[i] = (uint32_t)(m->n + 1);
    return (long)m->n++;
}
