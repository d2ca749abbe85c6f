// rdb_write.h: R's lazy-load databases written byte by byte, for the tests
// of the reader (test_rdb.c) and for make oom's small novels
// (tests/oom/austen_rdb.c): R's XDR serialization of a character vector,
// and objects as R writes them, each its serialization's length, then the
// serialization through zlib's compress.
#ifndef TESTS_RDB_WRITE_H
#define TESTS_RDB_WRITE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// Bytes that grow: a serialization being written, or a whole file.
typedef struct {
    unsigned char b[16384];
    size_t n;
} bytes;

// Stops the run: a test's database outgrew its buffer, which is a fault of
// the test.
static inline void rdb_write_overflow(void) {
    fprintf(stderr, "rdb_write.h: a database of more than %zu bytes\n", sizeof ((bytes *)0)->b);
    abort();
}

static inline void put_bytes(bytes *o, const void *p, size_t n) {
    if (o->n + n > sizeof o->b) rdb_write_overflow();
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

static inline void put_int(bytes *o, uint32_t v) {
    unsigned char p[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
                          (unsigned char)v};
    put_bytes(o, p, 4);
}

// The flags R writes for a string: type 9, and ASCII (bit 6 of the levels)
// or UTF-8 (bit 3) as its bytes are.
static inline uint32_t string_flags(const char *s) {
    for (const char *c = s; *c; c++)
        if ((unsigned char)*c >= 0x80) return 9 | (1u << 3) << 12;
    return 9 | (1u << 6) << 12;
}

// R's XDR serialization, version 3 as R 4.2.1 writes it, of the character
// vector of the n strings s (NULL for NA).
static inline bytes serialize(const char *const *s, size_t n) {
    bytes o = {.n = 0};
    put_bytes(&o, "X\n", 2);
    put_int(&o, 3);
    put_int(&o, 0x040201);  // R 4.2.1
    put_int(&o, 0x030500);  // readable from R 3.5.0
    put_int(&o, 5);
    put_bytes(&o, "UTF-8", 5);
    put_int(&o, 16);
    put_int(&o, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        if (!s[i]) {
            put_int(&o, 9);
            put_int(&o, 0xffffffffu);  // -1: NA
            continue;
        }
        put_int(&o, string_flags(s[i]));
        put_int(&o, (uint32_t)strlen(s[i]));
        put_bytes(&o, s[i], strlen(s[i]));
    }
    return o;
}

// One object of a database appended to file: the serialization's length,
// then the serialization through zlib's compress.
static inline void put_object(bytes *file, const bytes *ser) {
    unsigned char z[sizeof ser->b + 64];
    uLongf zn = sizeof z;
    if (compress(z, &zn, ser->b, ser->n) != Z_OK) rdb_write_overflow();
    put_int(file, (uint32_t)ser->n);
    put_bytes(file, z, zn);
}

#endif
