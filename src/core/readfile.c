// readfile.c: reading a whole file into memory.
#define _POSIX_C_SOURCE 200809L
#include "core/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/grow.h"

// fopen(path, "rb"), refusing a directory (which fopen accepts) with EISDIR.
static FILE *open_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    return f;
}

bool file_readable(const char *path) {
    FILE *f = open_file(path);
    if (f) fclose(f);
    return f != NULL;
}

char *read_whole_file(const char *path, size_t *len) {
    FILE *f = open_file(path);
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;  // cap bytes, the last kept for the NUL
    int err = 0;
    errno = 0;
    for (;;) {
        char *b = grow_array(buf, &cap, n + 2, 1, 1 << 16);  // a byte more, and the NUL
        if (!b) { free(buf); buf = NULL; err = ENOMEM; break; }
        buf = b;
        size_t want = cap - 1 - n, got = fread(buf + n, 1, want, f);
        n += got;
        if (got < want) break;
    }
    if (buf && ferror(f)) {
        err = errno ? errno : EIO;  // what the failed read said
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (!buf) {
        errno = err;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
