// fuzz_rdb.c: libFuzzer target for the reader of R's lazy-load databases
// (rdb_parse): it must read its input or refuse it with a message, and
// what it reads must be whole: every string as long as it says,
// NUL-terminated, valid UTF-8, and joined back with a newline a line.
//
// An input is a database file's bytes; or, when it starts with 'Z', the
// serialization of one object, which the target compresses into a database
// itself (its length, then zlib's compress): mutations of compressed bytes
// mostly break the stream's checksum, and these reach the parser behind it.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "text/rdb.h"
#include "text/utf8.h"

// Reads buf[0..size) and holds what it read to the promises above.
static void check_database(const unsigned char *buf, size_t size) {
    rdb_database db;
    char err[1024] = "";
    if (rdb_parse(&db, buf, size, "fuzz.rdb", err, sizeof err) < 0) {
        if (!err[0] || db.vec || db.n) abort();
        return;
    }
    for (size_t i = 0; i < db.n; i++) {
        const rdb_strings *v = &db.vec[i];
        size_t want = 0;
        for (size_t j = 0; j < v->n; j++) {
            const char *s = v->text + v->off[j];
            if (strlen(s) != v->len[j] || !utf8_valid(s, v->len[j]) || (v->na[j] && v->len[j]))
                abort();
            want += v->len[j] + 1;
        }
        size_t len;
        char *text = rdb_join(v, &len);
        if (!text || len != want || strlen(text) != len) abort();
        free(text);
        (void)rdb_austen_title(v);
    }
    rdb_free(&db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || data[0] != 'Z' || size - 1 > (1u << 20)) {
        check_database(data, size);
        return 0;
    }
    uLong n = (uLong)(size - 1);
    uLongf zn = compressBound(n);
    unsigned char *file = malloc(4 + zn);
    if (!file) abort();
    if (compress(file + 4, &zn, data + 1, n) != Z_OK) abort();
    for (int i = 0; i < 4; i++) file[i] = (unsigned char)(n >> (24 - 8 * i));
    check_database(file, 4 + zn);
    free(file);
    return 0;
}
