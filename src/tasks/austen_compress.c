// austen_compress.c: the bits per character of gzip -9 and xz -9 on the
// held-out novel. See austen_compress.h.
#define _POSIX_C_SOURCE 200809L
#include "tasks/austen_compress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/readfile.h"

// The Debian package that holds program.
static const char *package_of(const char *program) {
    return strcmp(program, "xz") == 0 ? "xz-utils" : program;
}

// text (len bytes) into a new temporary file, its name into path (size
// cap). Returns 0, or -1 with the reason in err.
static int write_temporary(char *path, size_t cap, const char *text, size_t len, char *err,
                           size_t errlen) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    if ((size_t)snprintf(path, cap, "%s/attn-compress.XXXXXX", dir) >= cap || strchr(path, '\'')) {
        snprintf(err, errlen, "TMPDIR %s: too long, or holds a quote", dir);
        return -1;
    }
    // the caller removes it, unless a signal ends the run first
    int fd = mkstemp_removed_on_signal(path);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, file_error(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "wb");
    int ok = f && fwrite(text, 1, len, f) == len;
    ok = (f ? fclose(f) == 0 : close(fd) == 0) && ok;
    if (!ok) {
        snprintf(err, errlen, "cannot write %s: %s", path, file_error(errno));
        unlink(path);
        keep_on_signal(path);
        return -1;
    }
    return 0;
}

// The bytes program -9 -c writes for the file at path, or -1.
static long long run_compressor(const char *program, const char *path, char *err, size_t errlen) {
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1 || exit 127; exec %s -9 -c < '%s'",
             program, program, path);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(err, errlen, "cannot run %s: %s", program, file_error(errno));
        return -1;
    }
    char buf[65536];
    long long size = 0;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, p)) > 0) size += (long long)got;
    int status = pclose(p);
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        snprintf(err, errlen, "no %s program: install it (Debian's package %s)", program,
                 package_of(program));
        return -1;
    }
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "%s -9 failed (status %d)", program, status);
        return -1;
    }
    return size;
}

long long compressed_size(const char *program, const char *text, size_t len, char *err,
                          size_t errlen) {
    char path[4096];
    if (write_temporary(path, sizeof path, text, len, err, errlen) != 0) return -1;
    long long size = run_compressor(program, path, err, errlen);
    unlink(path);
    keep_on_signal(path);
    return size;
}

int austen_compression_bits(austen_compression *out, const austen_corpus *c, char *err,
                            size_t errlen) {
    const char *val = c->text + c->train_bytes;
    out->gzip_val = compressed_size("gzip", val, c->val_bytes, err, errlen);
    if (out->gzip_val < 0) return -1;
    out->xz_val = compressed_size("xz", val, c->val_bytes, err, errlen);
    if (out->xz_val < 0) return -1;
    out->xz_train = compressed_size("xz", c->text, c->train_bytes, err, errlen);
    if (out->xz_train < 0) return -1;
    out->xz_both = compressed_size("xz", c->text, c->train_bytes + c->val_bytes, err, errlen);
    if (out->xz_both < 0) return -1;
    double chars = (double)c->n_val;
    out->gzip_bits = 8.0 * (double)out->gzip_val / chars;
    out->xz_bits = 8.0 * (double)out->xz_val / chars;
    out->xz_fair_bits = 8.0 * (double)(out->xz_both - out->xz_train) / chars;
    return 0;
}
