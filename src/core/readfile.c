// readfile.c: reading a whole file into memory.
#define _POSIX_C_SOURCE 200809L
#include "core/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

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
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    int err = buf ? 0 : ENOMEM;
    errno = 0;
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        cap *= 2;
        char *b = realloc(buf, cap + 1);
        if (!b) { free(buf); buf = NULL; err = ENOMEM; break; }
        buf = b;
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
