// readfile.c: reading a whole file into memory, and opening input files.
#define _POSIX_C_SOURCE 200809L
#include "core/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"

const char *file_error(int err) {
    if (err == ENOTREGULAR) return "not a regular file (a FIFO, a socket or a device)";
    // what the user is to know: not a problem with the file, and no data to delete
    if (err == ENOMEM) return "out of memory";
    return strerror(err);
}

FILE *open_input_file(const char *path) {
    // O_NONBLOCK: open() of a FIFO with no writer would wait for one forever
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) != 0)
        err = errno;
    else if (S_ISDIR(st.st_mode))
        err = EISDIR;
    else if (!S_ISREG(st.st_mode))
        err = ENOTREGULAR;
    else {
        int flags = fcntl(fd, F_GETFL);  // a regular file: back to blocking reads
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) err = errno;
    }
    FILE *f = err ? NULL : fdopen(fd, "rb");
    if (!f) {
        if (!err) err = errno;
        close(fd);
        errno = err;
    }
    return f;
}

bool file_readable(const char *path) {
    FILE *f = open_input_file(path);
    if (f) fclose(f);
    return f != NULL;
}

char *read_whole_file(const char *path, size_t *len) {
    FILE *f = open_input_file(path);
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

ssize_t read_line(char **line, size_t *cap, FILE *f) {
    errno = 0;
    ssize_t got = getline(line, cap, f);
    if (got >= 0) return got;
    if (errno == ENOMEM) return -2;
    if (ferror(f)) {
        if (!errno) errno = EIO;
        return -2;
    }
    return -1;
}

ssize_t read_text_line(text_reader *r, char **line) {
    if (r->at >= (size_t)r->got || !r->buf) {
        r->got = read_line(&r->buf, &r->cap, r->f);
        r->at = 0;
        if (r->got < 0) return r->got;
    }
    char *start = r->buf + r->at, *end = r->buf + r->got;
    char *cr = memchr(start, '\r', (size_t)(end - start));
    *line = start;
    if (!cr) {  // the rest of getline's line: up to its \n, or the file's end
        r->at = (size_t)r->got;
        return end - start;
    }
    *cr = '\n';  // \r\n or a lone \r: one line end
    r->at = (size_t)(cr - r->buf) + 1 + (cr + 1 < end && cr[1] == '\n');
    return cr + 1 - start;
}

void text_reader_free(text_reader *r) {
    free(r->buf);
    r->buf = NULL;
}
