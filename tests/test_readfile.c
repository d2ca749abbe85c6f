// test_readfile.c: read_whole_file, and the reason it gives when it cannot.
#define _POSIX_C_SOURCE 200809L
#include <check.h>

#include "suite.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/readfile.h"

START_TEST(reads_the_whole_file) {
    char path[] = "/tmp/test_readfile.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    // more than the first buffer, with a NUL inside: every byte arrives
    size_t n = 200000;
    char *want = malloc(n);
    ck_assert_ptr_nonnull(want);
    for (size_t i = 0; i < n; i++) want[i] = (char)(i * 7 % 251);
    ck_assert_int_eq(write(fd, want, n), (ssize_t)n);
    close(fd);
    size_t len = 0;
    char *got = read_whole_file(path, &len);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(len, n);
    ck_assert_mem_eq(got, want, n);
    ck_assert_int_eq(got[n], '\0');
    free(got);
    free(want);
    // an empty file is an empty string, not an error
    fclose(fopen(path, "w"));
    got = read_whole_file(path, &len);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(len, 0);
    free(got);
    remove(path);
}
END_TEST

START_TEST(says_why_it_cannot) {
    size_t len;
    errno = 0;
    ck_assert_ptr_null(read_whole_file("/nonexistent/file", &len));
    ck_assert_int_eq(errno, ENOENT);
    // a directory opens, but is not a file: "Is a directory", not an I/O error
    errno = 0;
    ck_assert_ptr_null(read_whole_file("/tmp", &len));
    ck_assert_int_eq(errno, EISDIR);
    ck_assert_str_eq(strerror(errno), "Is a directory");
    // what a program checks of its inputs before any work: the same reasons
    ck_assert(!file_readable("/nonexistent/file"));
    ck_assert_int_eq(errno, ENOENT);
    ck_assert(!file_readable("/tmp"));
    ck_assert_int_eq(errno, EISDIR);
    ck_assert(file_readable("/etc/passwd"));
}
END_TEST

int main(void) {
    Suite *s = suite_create("readfile");
    TCase *tc = tcase_create("readfile");
    tcase_add_test(tc, reads_the_whole_file);
    tcase_add_test(tc, says_why_it_cannot);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
