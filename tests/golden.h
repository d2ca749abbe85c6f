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
//
// golden_read() and golden_doubles() read a section; golden_expect_near(),
// golden_expect_exact() and golden_expect_ids() hold what a suite computed
// to one; golden_expect_header() checks which script wrote a file. A suite
// with one file per seed gets them keyed by seed (GOLDEN_SEED_FILE, below).
#ifndef ATTN_TESTS_GOLDEN_H
#define ATTN_TESTS_GOLDEN_H

#include <check.h>
#include <errno.h>
#include <math.h>
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


// got (n floats, every stride-th of them) within tol of section `section`
// of GOLDEN_DIR/file; returns the largest difference.
static double golden_expect_near(const char *file, const char *section, const float *got,
                                 size_t n, size_t stride, double tol) {
    double *want = golden_doubles(file, section, "f32", n), worst = 0;
    for (size_t i = 0; i < n; i++) {
        double diff = fabs((double)got[i * stride] - want[i]);
        if (!(diff <= tol))
            ck_abort_msg("%s, %s[%zu]: got %.9g, PyTorch %.9g (|diff| %.3g > %.1g)", file,
                         section, i, (double)got[i * stride], want[i], diff, tol);
        if (diff > worst) worst = diff;
    }
    free(want);
    return worst;
}

// Section `section` of GOLDEN_DIR/file, which must hold exactly n values of
// kind; the caller frees it with golden_free.
static golden golden_section(const char *file, const char *section, const char *kind,
                             size_t n) {
    golden gd = golden_read(file, section, kind);
    if (gd.n != n) {
        golden_free(&gd);
        ck_abort_msg("section %s of %s has %zu values, want %zu", section, file, gd.n, n);
    }
    return gd;
}

// got (n floats) bit for bit the section's (the golden values are shortest
// round-trip decimals, so strtof of them is the float itself; -0 is not 0).
static void golden_expect_exact(const char *file, const char *section, const float *got,
                                size_t n) {
    golden gd = golden_section(file, section, "f32", n);
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &gd.f[i], sizeof got[i]) != 0) {
            double want = gd.f[i];
            golden_free(&gd);
            ck_abort_msg("%s, %s[%zu]: got %.9g, PyTorch %.9g", file, section, i,
                         (double)got[i], want);
        }
    golden_free(&gd);
}

// ids (n) equal to the i64 section.
static void golden_expect_ids(const char *file, const char *section, const int64_t *ids,
                              size_t n) {
    golden gd = golden_section(file, section, "i64", n);
    for (size_t i = 0; i < n; i++)
        if (ids[i] != gd.i[i]) {
            long long want = (long long)gd.i[i];
            golden_free(&gd);
            ck_abort_msg("%s, %s[%zu]: got %lld, PyTorch %lld", file, section, i,
                         (long long)ids[i], want);
        }
    golden_free(&gd);
}

// The f32 section as floats, into out (n).
static void golden_read_floats(float *out, const char *file, const char *section, size_t n) {
    double *v = golden_doubles(file, section, "f32", n);
    for (size_t i = 0; i < n; i++) out[i] = (float)v[i];
    free(v);
}

// The text of GOLDEN_DIR/file, after asserting its first line starts
// "# written by tests/reference/<script>, torch "; the caller frees it.
static char *golden_expect_header(const char *file, const char *script) {
    char path[4096], want[256];
    snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, file);
    size_t len;
    char *text = read_whole_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s; regenerate it with make golden", path);
    int n = snprintf(want, sizeof want, "# written by tests/reference/%s, torch ", script);
    ck_assert_msg(strncmp(text, want, (size_t)n) == 0, "%s: unexpected header: %.80s", file, text);
    return text;
}

// A suite with one golden file per seed defines GOLDEN_SEED_FILE, the
// file's name as a printf format with one %llu for the seed, before it
// includes this header, and gets the functions above keyed by seed.
#ifdef GOLDEN_SEED_FILE
static const char *golden_seed_file(uint64_t seed) {
    static char name[128];
    snprintf(name, sizeof name, GOLDEN_SEED_FILE, (unsigned long long)seed);
    return name;
}

// Section `section` of seed's golden file as doubles; it must hold exactly
// want values. The caller frees the result.
static double *golden_values(uint64_t seed, const char *section, const char *kind, size_t want) {
    return golden_doubles(golden_seed_file(seed), section, kind, want);
}

static void golden_floats(float *out, uint64_t seed, const char *section, size_t n) {
    golden_read_floats(out, golden_seed_file(seed), section, n);
}

static double expect_golden_strided(uint64_t seed, const char *section, const float *got,
                                    size_t n, size_t stride, double tol) {
    return golden_expect_near(golden_seed_file(seed), section, got, n, stride, tol);
}

static double expect_golden(uint64_t seed, const char *section, const float *got, size_t n,
                            double tol) {
    return golden_expect_near(golden_seed_file(seed), section, got, n, 1, tol);
}

static void expect_golden_exact(uint64_t seed, const char *section, const float *got, size_t n) {
    golden_expect_exact(golden_seed_file(seed), section, got, n);
}

static void expect_golden_ids(uint64_t seed, const char *section, const int64_t *ids, size_t n) {
    golden_expect_ids(golden_seed_file(seed), section, ids, n);
}

// Each of the n seeds' files written by script, with its seed in section
// "seed".
static void expect_golden_seed_files(const uint64_t *seeds, int n, const char *script) {
    for (int s = 0; s < n; s++) {
        free(golden_expect_header(golden_seed_file(seeds[s]), script));
        double *seed = golden_values(seeds[s], "seed", "i64", 1);
        ck_assert_msg(seed[0] == (double)seeds[s], "%s holds seed %.0f", golden_seed_file(seeds[s]),
                      seed[0]);
        free(seed);
    }
}
#endif

#endif
