// rdb.c: see rdb.h.
#define _POSIX_C_SOURCE 200809L
#include "text/rdb.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "core/readfile.h"
#include "text/utf8.h"

// R's type codes, and the bits of a flags word we look at.
enum { R_CHARSXP = 9, R_STRSXP = 16 };
#define R_TYPE(flags) ((flags) & 0xff)
#define R_HAS_ATTR (1u << 9)
// A string's encoding, in the flags' "levels" (bits 12 and up).
#define R_LEVELS(flags) ((flags) >> 12 & 0xffff)
#define R_BYTES_MASK (1u << 1)
#define R_LATIN1_MASK (1u << 2)

// zlib's deflate packs at most about 1032 bytes into one (RFC 1950's
// streams of stored runs of zeros): a length beyond that many times the
// bytes left cannot be true, and is refused before any allocation.
#define ZLIB_MAX_RATIO 1032u

// Where the reader is, for its messages.
typedef struct {
    const char *path;
    size_t object, at;   // the object's number, and the file's byte it starts at
    char *err;
    size_t errlen;
} where;

// "path: object K at byte B: " and the message.
static int fail(const where *w, const char *fmt, ...) {
    int n = snprintf(w->err, w->errlen, "%s: object %zu at byte %zu: ", w->path, w->object, w->at);
    if (n >= 0 && (size_t)n < w->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err + n, w->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

// The inflated serialization of one object, read an integer at a time.
typedef struct {
    const unsigned char *p;
    size_t n, at;
    const where *w;
} cursor;

// The next 4-byte integer into *v (what names it in the message); -1 with
// the message when the serialization ends first.
static int next_int(cursor *c, int32_t *v, const char *what) {
    if (c->n - c->at < 4)
        return fail(c->w, "the serialization ends at its byte %zu, where %s should be", c->at, what);
    *v = (int32_t)be32(c->p + c->at);
    c->at += 4;
    return 0;
}

// The header up to the object: the format, the versions, the encoding.
static int read_header(cursor *c) {
    if (c->n < 2 || c->p[0] != 'X' || c->p[1] != '\n') {
        if (c->n >= 2 && (c->p[0] == 'A' || c->p[0] == 'B') && c->p[1] == '\n')
            return fail(c->w, "R's %s serialization, not read (only XDR, \"X\\n\")",
                        c->p[0] == 'A' ? "ASCII" : "native binary");
        return fail(c->w, "not an R serialization in XDR form (it does not start with \"X\\n\")");
    }
    c->at = 2;
    int32_t version, writer, reader;
    if (next_int(c, &version, "the format's version") || next_int(c, &writer, "R's version") ||
        next_int(c, &reader, "R's version"))
        return -1;
    if (version != 2 && version != 3)
        return fail(c->w, "serialization version %d at its byte 2 (2 and 3 are read)", (int)version);
    if (version == 3) {
        int32_t nelen;
        if (next_int(c, &nelen, "the length of the encoding's name")) return -1;
        if (nelen < 0 || (size_t)nelen > c->n - c->at)
            return fail(c->w, "the encoding's name at its byte %zu has length %d, past the end (%zu bytes left)",
                        c->at - 4, (int)nelen, c->n - c->at);
        c->at += (size_t)nelen;
    }
    return 0;
}

// String i at the cursor into v (whose text has room for it): its flags,
// its length, its bytes.
static int read_string(cursor *c, rdb_strings *v, size_t i, size_t *used) {
    int32_t flags, len;
    size_t at = c->at;
    if (next_int(c, &flags, "a string's flags")) return -1;
    if (R_TYPE((uint32_t)flags) != R_CHARSXP)
        return fail(c->w, "string %zu at its byte %zu is of R type %u, not a string (%d)", i, at,
                    R_TYPE((uint32_t)flags), R_CHARSXP);
    if (R_LEVELS((uint32_t)flags) & (R_LATIN1_MASK | R_BYTES_MASK))
        return fail(c->w, "string %zu at its byte %zu is marked %s, not UTF-8", i, at,
                    R_LEVELS((uint32_t)flags) & R_LATIN1_MASK ? "Latin-1" : "bytes");
    if (next_int(c, &len, "a string's length")) return -1;
    v->off[i] = *used;
    if (len == -1) {  // NA
        v->na[i] = true;
        v->len[i] = 0;
        v->text[(*used)++] = '\0';
        return 0;
    }
    if (len < 0 || (size_t)len > c->n - c->at)
        return fail(c->w, "string %zu at its byte %zu has length %d, past the end of the serialization "
                    "(%zu bytes left)", i, at, (int)len, c->n - c->at);
    const char *s = (const char *)c->p + c->at;
    if (!utf8_valid(s, (size_t)len) || memchr(s, '\0', (size_t)len))
        return fail(c->w, "string %zu at its byte %zu is not valid UTF-8 text", i, at);
    memcpy(v->text + *used, s, (size_t)len);
    v->len[i] = (size_t)len;
    *used += (size_t)len;
    v->text[(*used)++] = '\0';
    c->at += (size_t)len;
    return 0;
}

static void strings_free(rdb_strings *v) {
    free(v->text);
    free(v->off);
    free(v->len);
    free(v->na);
    memset(v, 0, sizeof *v);
}

// The serialized character vector c holds, into v.
static int read_vector(cursor *c, rdb_strings *v) {
    if (read_header(c)) return -1;
    int32_t flags, n;
    size_t at = c->at;
    if (next_int(c, &flags, "the object's flags")) return -1;
    if (R_TYPE((uint32_t)flags) != R_STRSXP)
        return fail(c->w, "the object at its byte %zu is of R type %u, not a character vector (%d)", at,
                    R_TYPE((uint32_t)flags), R_STRSXP);
    if ((uint32_t)flags & R_HAS_ATTR)
        return fail(c->w, "the character vector at its byte %zu has attributes (not read)", at);
    if (next_int(c, &n, "the vector's length")) return -1;
    // each string takes at least its flags and its length, 8 bytes
    if (n < 0 || (size_t)n > (c->n - c->at) / 8)
        return fail(c->w, "the vector's length %d at its byte %zu is %s", (int)n, c->at - 4,
                    n == -1 ? "a long vector's mark (not read)" :
                    n < 0 ? "negative" : "more strings than the bytes left can hold");
    // the strings and their NULs fit in the serialization's bytes
    size_t cap = c->n - c->at, count = (size_t)n ? (size_t)n : 1, used = 0;
    v->text = malloc(cap ? cap : 1);
    v->off = malloc(count * sizeof *v->off);
    v->len = malloc(count * sizeof *v->len);
    v->na = calloc(count, sizeof *v->na);
    if (!v->text || !v->off || !v->len || !v->na) return fail(c->w, "out of memory");
    v->n = (size_t)n;
    for (size_t i = 0; i < v->n; i++)
        if (read_string(c, v, i, &used)) return -1;
    if (c->at != c->n)
        return fail(c->w, "%zu bytes after the character vector, from its byte %zu", c->n - c->at, c->at);
    return 0;
}

// Inflates the zlib stream at buf[0..avail) into out (want bytes, the
// length the object gave); *consumed gets the stream's compressed size.
static int inflate_object(const where *w, const unsigned char *buf, size_t avail,
                          unsigned char *out, size_t want, size_t *consumed) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return fail(w, "zlib could not start (out of memory)");
    unsigned char extra;  // room for a byte past want: a stream longer than its length shows
    size_t got = 0;
    int rc = Z_OK;
    z.next_in = (unsigned char *)buf;
    while (rc == Z_OK) {
        // zlib counts in uInt: feed and drain at most 1 GiB at a time
        size_t in_left = avail - (size_t)(z.next_in - buf);
        if (z.avail_in == 0) z.avail_in = (uInt)(in_left < (1u << 30) ? in_left : (1u << 30));
        if (got < want) {
            z.next_out = out + got;
            z.avail_out = (uInt)(want - got < (1u << 30) ? want - got : (1u << 30));
        } else {
            z.next_out = &extra;
            z.avail_out = 1;
        }
        uInt before = z.avail_out;
        rc = inflate(&z, Z_NO_FLUSH);
        got += before - z.avail_out;
        if (got > want) break;
    }
    size_t in = (size_t)(z.next_in - buf);
    const char *msg = z.msg;
    inflateEnd(&z);
    if (got > want)
        return fail(w, "the zlib stream inflates to more than the %zu bytes its length says", want);
    // no progress with output room left: the input ran out
    if (rc == Z_BUF_ERROR)
        return fail(w, "the zlib stream is cut short at byte %zu, the end of the file", w->at + 4 + in);
    if (rc == Z_MEM_ERROR) return fail(w, "out of memory");
    if (rc != Z_STREAM_END)
        return fail(w, "not a valid zlib stream at byte %zu (zlib: %s)", w->at + 4 + in, msg ? msg : "error");
    if (got != want)
        return fail(w, "the zlib stream inflates to %zu bytes, its length says %zu", got, want);
    *consumed = in;
    return 0;
}

// Object w->object at byte w->at of buf: its length, its stream, its vector.
static int read_object(const where *w, const unsigned char *buf, size_t len, rdb_strings *v,
                       size_t *next) {
    if (len - w->at < 4)
        return fail(w, "%zu bytes where an object's 4-byte length should be (the file is cut short, "
                    "or has bytes after its last object)", len - w->at);
    size_t want = be32(buf + w->at), avail = len - w->at - 4;
    if (want / ZLIB_MAX_RATIO > avail)
        return fail(w, "its length says %zu bytes, more than the %zu bytes left can inflate to", want, avail);
    unsigned char *raw = malloc(want ? want : 1);
    if (!raw) return fail(w, "out of memory");
    size_t consumed = 0;
    int rc = inflate_object(w, buf + w->at + 4, avail, raw, want, &consumed);
    if (rc == 0) {
        cursor c = {raw, want, 0, w};
        rc = read_vector(&c, v);
    }
    free(raw);
    *next = w->at + 4 + consumed;  // the next object starts where the stream ended
    return rc;
}

void rdb_free(rdb_database *db) {
    for (size_t i = 0; i < db->n; i++) strings_free(&db->vec[i]);
    free(db->vec);
    memset(db, 0, sizeof *db);
}

int rdb_parse(rdb_database *db, const unsigned char *buf, size_t len, const char *path,
              char *err, size_t errlen) {
    memset(db, 0, sizeof *db);
    if (len == 0) {
        snprintf(err, errlen, "%s: an empty file, not an R database", path);
        return -1;
    }
    where w = {path, 0, 0, err, errlen};
    size_t cap = 0;
    while (w.at < len) {
        if (db->n == cap) {
            size_t ncap = cap ? 2 * cap : 8;
            rdb_strings *vec = realloc(db->vec, ncap * sizeof *vec);
            if (!vec) {
                fail(&w, "out of memory");
                rdb_free(db);
                return -1;
            }
            db->vec = vec;
            cap = ncap;
        }
        rdb_strings *v = &db->vec[db->n];
        memset(v, 0, sizeof *v);
        size_t next = len;
        if (read_object(&w, buf, len, v, &next)) {
            strings_free(v);
            rdb_free(db);
            return -1;
        }
        db->n++;
        w.object++;
        w.at = next;
    }
    return 0;
}

int rdb_load(const char *path, rdb_database *db, char *err, size_t errlen) {
    memset(db, 0, sizeof *db);
    size_t len;
    char *buf = read_whole_file(path, &len);
    if (!buf) {
        snprintf(err, errlen, "cannot read %s: %s", path, file_error(errno));
        return -1;
    }
    int rc = rdb_parse(db, (const unsigned char *)buf, len, path, err, errlen);
    free(buf);
    return rc;
}

char *rdb_join(const rdb_strings *v, size_t *len) {
    size_t total = 0;
    for (size_t i = 0; i < v->n; i++) total += v->len[i] + 1;
    char *text = malloc(total + 1);
    if (!text) return NULL;
    size_t at = 0;
    for (size_t i = 0; i < v->n; i++) {
        memcpy(text + at, v->text + v->off[i], v->len[i]);
        at += v->len[i];
        text[at++] = '\n';
    }
    text[at] = '\0';
    *len = at;
    return text;
}

const char *rdb_austen_title(const rdb_strings *v) {
    static const char *const TITLES[] = {
        "Emma", "Mansfield Park", "Northanger Abbey", "Persuasion", "Pride and Prejudice",
        "Sense and Sensibility",
    };
    if (v->n == 0 || v->na[0]) return NULL;
    for (size_t i = 0; i < sizeof TITLES / sizeof *TITLES; i++)
        if (strcasecmp(v->text + v->off[0], TITLES[i]) == 0) return TITLES[i];
    return NULL;
}
