// readfile.c: reading a whole file into memory.
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

char *read_whole_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        cap *= 2;
        char *b = realloc(buf, cap + 1);
        if (!b) { free(buf); buf = NULL; break; }
        buf = b;
    }
    if (buf && ferror(f)) { free(buf); buf = NULL; errno = EIO; }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}

typedef enum { PT_SET, PT_PAIR, PT_ORTHO } punkt_file_kind;
