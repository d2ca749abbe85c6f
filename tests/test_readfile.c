// test_readfile.c: read_whole_file, and the reason it gives when it cannot.
#define _POSIX_C_SOURCE 200809L
#include <check.h>

#include "suite.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

// Only a regular file is an input: a FIFO (whose open() would wait for a
// writer forever), a device (/dev/zero never ends), a directory and a
// dangling symbolic link are refused at once, each with its reason. alarm()
// turns a hang into a failure.
START_TEST(refuses_what_is_not_a_regular_file) {
    char dir[] = "/tmp/test_readfile.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char fifo[600], link[600];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(symlink("missing", link), 0);
    alarm(5);
    const struct { const char *path; int err; const char *why; } cases[] = {
        { fifo, ENOTREGULAR, "not a regular file (a FIFO, a socket or a device)" },
        { "/dev/zero", ENOTREGULAR, "not a regular file (a FIFO, a socket or a device)" },
        { dir, EISDIR, "Is a directory" },
        { link, ENOENT, "No such file or directory" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        errno = 0;
        ck_assert_msg(!file_readable(cases[i].path), "%s", cases[i].path);
        ck_assert_int_eq(errno, cases[i].err);
        errno = 0;
        ck_assert_ptr_null(read_whole_file(cases[i].path, &len));
        ck_assert_int_eq(errno, cases[i].err);
        ck_assert_str_eq(file_error(errno), cases[i].why);
        errno = 0;
        ck_assert_ptr_null(open_input_file(cases[i].path));
        ck_assert_int_eq(errno, cases[i].err);
    }
    alarm(0);
    // a link to a regular file is followed
    ck_assert_int_eq(remove(link), 0);
    ck_assert_int_eq(symlink("/etc/passwd", link), 0);
    ck_assert(file_readable(link));
    remove(link);
    remove(fifo);
    rmdir(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("readfile");
    TCase *tc = tcase_create("readfile");
    tcase_add_test(tc, reads_the_whole_file);
    tcase_add_test(tc, says_why_it_cannot);
    tcase_add_test(tc, refuses_what_is_not_a_regular_file);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
