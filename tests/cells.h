// cells.h: find one labelled block in a chapter program's printed output.
// Each block starts on a line "[LABEL] title" (print_cell), LABEL a source's
// letter and a notebook cell's number ("T23") or the program's own chapter
// and place ("P4.2"), and runs up to the next such line.
#ifndef ATTN_TESTS_CELLS_H
#define ATTN_TESTS_CELLS_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Whether s starts a header line: "[", a label of capital letters, digits
// and dots, "] ". Output lines such as "[Negative] ..." or "[0.0, 0.5]" are
// not headers.
static bool is_cell_header(const char *s) {
    if (*s++ != '[') return false;
    const char *label = s;
    while ((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.') s++;
    return s > label && s[-1] >= '0' && s[-1] <= '9' && s[0] == ']' && s[1] == ' ';
}

// The text of block [label] of out, from its header line up to the next
// header; the caller frees it. Fails the test if there is no such block.
static char *cell_text(const char *out, const char *label) {
    char head[32];
    snprintf(head, sizeof head, "[%s] ", label);
    const char *start = out;
    while (start && strncmp(start, head, strlen(head)) != 0) {
        start = strchr(start, '\n');
        if (start) start++;
    }
    ck_assert_msg(start != NULL, "no cell [%s] in the output", label);
    const char *end = start;
    do end = strchr(end + 1, '\n'); while (end && !is_cell_header(end + 1));
    size_t len = end ? (size_t)(end - start) + 1 : strlen(start);
    char *s = malloc(len + 1);
    ck_assert_ptr_nonnull(s);
    memcpy(s, start, len);
    s[len] = '\0';
    return s;
}

// Fails the test unless block [label] of out contains text.
static void expect_in_cell(const char *out, const char *label, const char *text) {
    char *s = cell_text(out, label);
    ck_assert_msg(strstr(s, text) != NULL, "cell [%s] does not contain \"%s\":\n%s",
                  label, text, s);
    free(s);
}

// Fails the test unless out has the blocks of labels, in that order.
static void expect_blocks_in_order(const char *out, const char *const *labels, size_t n) {
    const char *previous = out;
    for (size_t i = 0; i < n; i++) {
        char head[16];
        snprintf(head, sizeof head, "\n[%s] ", labels[i]);
        const char *at = strstr(out, head);
        ck_assert_msg(at, "no block [%s]", labels[i]);
        ck_assert_msg(at > previous, "block [%s] printed before the one listed before it",
                      labels[i]);
        previous = at;
    }
}

#endif
