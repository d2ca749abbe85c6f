// tmpfile.h: small files for tests that read files: a temporary file with
// given content, and whether a path can be read.
#ifndef ATTN_TESTS_TMPFILE_H
#define ATTN_TESTS_TMPFILE_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool exists(const char *path) { return access(path, R_OK) == 0; }

// A new file under /tmp holding content; the caller removes it and frees
// the returned path.
static char *tmp_with(const char *content) {
    char tmpl[] = "/tmp/attn_test.XXXXXX";
    int fd = mkstemp(tmpl);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    ck_assert_int_eq(fclose(f), 0);
    return strdup(tmpl);
}

#endif
