// capture.h: catch what a function prints to stderr, so that a test can
// assert the error message instead of letting it clutter the test log; and
// what a function prints into a stream it is given (PRINTED).
//
//     stderr_capture cap;
//     capture_begin(&cap);
//     ... code that should complain ...
//     char *said = capture_end(&cap);   // what it printed; free() it
#ifndef ATTN_TESTS_CAPTURE_H
#define ATTN_TESTS_CAPTURE_H

#include <check.h>
#include <stdio.h>

typedef struct {
    FILE *saved, *mem;
    char *buf;
    size_t len;
} stderr_capture;

static void capture_begin(stderr_capture *c) {
    c->buf = NULL;
    c->len = 0;
    c->mem = open_memstream(&c->buf, &c->len);
    ck_assert_ptr_nonnull(c->mem);
    c->saved = stderr;
    stderr = c->mem;
}

static char *capture_end(stderr_capture *c) {
    stderr = c->saved;
    fclose(c->mem);
    return c->buf;
}

// The text that `print`, a statement writing into the FILE *f it names,
// writes, into `text` (a char * to free()):
//
//     char *text;
//     PRINTED(text, f, mfu_print(f, &table));
#define PRINTED(text, f, print)                                                                    \
    do {                                                                                           \
        size_t printed_len_ = 0;                                                                   \
        (text) = NULL;                                                                             \
        FILE *f = open_memstream(&(text), &printed_len_);                                          \
        ck_assert_ptr_nonnull(f);                                                                  \
        print;                                                                                     \
        fclose(f);                                                                                 \
    } while (0)

#endif
