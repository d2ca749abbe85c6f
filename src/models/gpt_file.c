// gpt_file.c: a GPT to a file and back (the format in gpt.h): written
// whole to a temporary file beside the target and renamed into place, so
// that the target is the old file or the new one, never half of one; read
// whole and checked before anything is built from it.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/cleanup.h"
#include "core/readfile.h"
#include "models/gpt.h"

static const char MAGIC[8] = { 'G', 'P', 'T', 'C', 'H', 'A', 'R', '\n' };
enum { HEADER = 8 + 6 * 4, SIZE_MAX_FIELD = 1 << 16 };

static void say(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static unsigned char *put_u32(unsigned char *b, uint32_t v) {
    for (int i = 0; i < 4; i++) b[i] = (unsigned char)(v >> (8 * i));
    return b + 4;
}

static uint32_t get_u32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static unsigned char *put_f64(unsigned char *b, double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(u >> (8 * i));
    return b + 8;
}

static double get_f64(const unsigned char *b) {
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--) u = u << 8 | b[i];
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

// The file's length for that configuration.
static size_t file_size(const gpt_config *c) {
    return HEADER + 4 * (size_t)c->V + 8 * gpt_param_count(c) + 4;
}

static int write_all(const char *tmp, const unsigned char *buf, size_t len) {
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    int ok = fwrite(buf, 1, len, f) == len;
    ok &= fflush(f) == 0;
    int saved = errno;
    ok &= fclose(f) == 0;
    if (!ok && saved) errno = saved;
    return ok ? 0 : -1;
}

int gpt_save(const gpt_model *m, const char *path, char *err, size_t errlen) {
    const gpt_config *c = &m->cfg;
    size_t len = file_size(c);
    unsigned char *buf = malloc(len), *at = buf;
    char *tmp = malloc(strlen(path) + 32);
    if (!buf || !tmp) {
        free(buf), free(tmp);
        return say(err, errlen, "%s: out of memory", path), -1;
    }
    memcpy(at, MAGIC, sizeof MAGIC);
    at += sizeof MAGIC;
    const int fields[] = { GPT_FILE_VERSION, c->V, c->T, c->d, c->h, c->L };
    for (int i = 0; i < 6; i++) at = put_u32(at, (uint32_t)fields[i]);
    for (int v = 0; v < c->V; v++) at = put_u32(at, m->vocab[v]);
    for (size_t i = 0; i < m->n_params; i++) at = put_f64(at, (double)m->param_block[i]);
    put_u32(at, (uint32_t)crc32(0L, buf, (uInt)(len - 4)));
    // a name of this process's own, removed if a signal ends the run meanwhile
    sprintf(tmp, "%s.tmp.%ld", path, (long)getpid());
    remove_on_signal(tmp);
    int rc = write_all(tmp, buf, len);
    if (rc == 0 && rename(tmp, path) != 0) rc = -1;
    if (rc != 0) {
        say(err, errlen, "%s: cannot write it: %s", path, file_error(errno));
        remove(tmp);
    }
    keep_on_signal(tmp);
    free(buf);
    free(tmp);
    return rc;
}

// The configuration of a file's header, checked: 0, or -1 with the reason.
static int read_header(gpt_config *c, const unsigned char *buf, size_t len, const char *path,
                       char *err, size_t errlen) {
    if (len < sizeof MAGIC || memcmp(buf, MAGIC, sizeof MAGIC) != 0)
        return say(err, errlen, "%s: not a GPT model file (its first bytes are not \"GPTCHAR\")",
                   path), -1;
    if (len < HEADER)
        return say(err, errlen, "%s: truncated: %zu bytes, not even a whole header", path, len),
               -1;
    uint32_t version = get_u32(buf + 8), f[5];
    if (version != GPT_FILE_VERSION)
        return say(err, errlen, "%s: version %u of the format; this program reads version %d",
                   path, version, GPT_FILE_VERSION), -1;
    for (int i = 0; i < 5; i++) f[i] = get_u32(buf + 12 + 4 * i);
    for (int i = 0; i < 5; i++)
        if (f[i] < 1 || f[i] > SIZE_MAX_FIELD || (f[3] >= 1 && f[2] % f[3] != 0))
            return say(err, errlen,
                       "%s: sizes out of range (V %u, T %u, d %u, h %u, L %u)", path, f[0],
                       f[1], f[2], f[3], f[4]), -1;
    *c = (gpt_config){ .V = (int)f[0], .T = (int)f[1], .d = (int)f[2], .h = (int)f[3],
                       .L = (int)f[4] };
    size_t want = file_size(c);
    if (len != want)
        return say(err, errlen, "%s: %s: %zu bytes where its sizes make %zu", path,
                   len < want ? "truncated" : "bytes after the end", len, want), -1;
    uint32_t crc = (uint32_t)crc32(0L, buf, (uInt)(len - 4));
    if (crc != get_u32(buf + len - 4))
        return say(err, errlen, "%s: checksum mismatch (CRC-32 %08x, the file says %08x): damaged",
                   path, crc, get_u32(buf + len - 4)), -1;
    return 0;
}

gpt_model *gpt_load(const char *path, int B, int shards, double wd, const lr_schedule *schedule,
                    char *err, size_t errlen) {
    size_t len;
    unsigned char *buf = (unsigned char *)read_whole_file(path, &len);
    if (!buf) return say(err, errlen, "%s: %s", path, file_error(errno)), NULL;
    gpt_config c;
    gpt_model *m = NULL;
    if (read_header(&c, buf, len, path, err, errlen) == 0) {
        uint32_t *vocab = malloc(c.V * sizeof *vocab);
        for (int v = 0; vocab && v < c.V; v++) vocab[v] = get_u32(buf + HEADER + 4 * v);
        char why[200];
        m = vocab ? gpt_build(&c, B, shards, 0, vocab, wd, schedule, why, sizeof why) : NULL;
        if (!m) say(err, errlen, "%s: %s", path, vocab ? why : "out of memory");
        const unsigned char *at = buf + HEADER + 4 * (size_t)c.V;
        for (size_t i = 0; m && i < m->n_params; i++) m->param_block[i] = (real)get_f64(at + 8 * i);
        free(vocab);
    }
    free(buf);
    return m;
}
