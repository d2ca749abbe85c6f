// golden.h: read the reference values that tests/reference/*.py write with
// PyTorch into tests/golden/. Included by the test suites (static functions,
// so each suite is one translation unit).
//
// File format:
//     # comment lines
//     section <name> <kind> <count>
//     <count> values, whitespace-separated
// kind f32: float32 values written as the shortest decimal that reads back
// (strtof) to exactly the same float; kind i64: integers.
//
// GOLDEN_DIR is where the files are; the Makefile passes an absolute path,
// the default suits running from the project root.
#ifndef ATTN_TESTS_GOLDEN_H
#define ATTN_TESTS_GOLDEN_H

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/readfile.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden"
#endif

typedef struct golden {
    size_t n;   // number of values
    float *f;   // values of an f32 section, else NULL
    int64_t *i; // values of an i64 section, else NULL
} golden;

static void golden_free(golden *gd) {
    free(gd->f);
    free(gd->i);
    gd->f = NULL;
    gd->i = NULL;
    gd->n = 0;
}

// Load section `name` of kind "f32" or "i64" from GOLDEN_DIR/file. Fails the
// running test with a clear message if the file or the section is missing or
// malformed.
static golden golden_read(const char *file, const char *name, const char *kind) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, file);
    errno = 0;
    size_t text_len;
    char *text = read_whole_file(path, &text_len);
    if (!text)
        ck_abort_msg("cannot read golden file %s (%s); regenerate it with "
                     "make golden (needs python3-torch)",
                     path, errno ? strerror(errno) : "out of memory");

    // Find the line "section <name> <kind> <count>".
    char header[256];
    int hlen = snprintf(header, sizeof header, "section %s ", name);
    const char *p = text;
    for (;;) {
        if (strncmp(p, header, (size_t)hlen) == 0) break;
        p = strchr(p, '\n');
        if (!p) {
            free(text);
            ck_abort_msg("golden file %s has no section '%s'", path, name);
            return (golden){0};
        }
        p++;
    }
    p += hlen;
    char got_kind[8] = {0};
    unsigned long long count = 0;
    if (sscanf(p, "%7s %llu", got_kind, &count) != 2 || strcmp(got_kind, kind) != 0) {
        free(text);
        ck_abort_msg("golden file %s: section '%s' is not of kind %s", path, name, kind);
    }
    p = strchr(p, '\n');
    p = p ? p + 1 : "";

    golden gd = {0};
    gd.n = (size_t)count;
    if (strcmp(kind, "f32") == 0)
        gd.f = malloc((gd.n ? gd.n : 1) * sizeof *gd.f);
    else
        gd.i = malloc((gd.n ? gd.n : 1) * sizeof *gd.i);
    if (!gd.f && !gd.i) {
        free(text);
        ck_abort_msg("out of memory reading section '%s' of %s", name, path);
    }
    for (size_t k = 0; k < gd.n; k++) {
        char *end;
        errno = 0;
        if (gd.f)
            gd.f[k] = strtof(p, &end);
        else
            gd.i[k] = (int64_t)strtoll(p, &end, 10);
        if (end == p || errno != 0) {
            free(text);
            golden_free(&gd);
            ck_abort_msg("golden file %s: section '%s' has a bad or missing value %zu of %llu",
                         path, name, k, count);
        }
        p = end;
    }
    free(text);
    return gd;
}

// Section `name` of GOLDEN_DIR/file as doubles, whatever its kind; it must
// hold exactly want values. The caller frees the result.
static double *golden_doubles(const char *file, const char *name, const char *kind,
                              size_t want) {
    golden gd = golden_read(file, name, kind);
    if (gd.n != want) {
        golden_free(&gd);
        ck_abort_msg("section %s of %s has %zu values, want %zu", name, file, gd.n, want);
    }
    double *v = malloc((want ? want : 1) * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (size_t i = 0; i < want; i++) v[i] = gd.f ? (double)gd.f[i] : (double)gd.i[i];
    golden_free(&gd);
    return v;
}

#endif
