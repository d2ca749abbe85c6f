// cells.h: find one notebook cell in a chapter program's printed output.
// Each cell's output starts on a line "[N] title" (print_cell) and runs up
// to the next such line.
#ifndef ATTN_TESTS_CELLS_H
#define ATTN_TESTS_CELLS_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The text of cell [cell] of out, from its header line up to the next cell;
// the caller frees it. Fails the test if there is no such cell.
static char *cell_text(const char *out, int cell) {
    char head[16];
    snprintf(head, sizeof head, "[%d] ", cell);
    const char *start = out;
    while (start && strncmp(start, head, strlen(head)) != 0) {
        start = strchr(start, '\n');
        if (start) start++;
    }
    ck_assert_msg(start != NULL, "no cell [%d] in the output", cell);
    const char *end = strstr(start, "\n[");
    size_t len = end ? (size_t)(end - start) + 1 : strlen(start);
    char *s = malloc(len + 1);
    ck_assert_ptr_nonnull(s);
    memcpy(s, start, len);
    s[len] = '\0';
    return s;
}

// Fails the test unless cell [cell] of out contains text.
static void expect_in_cell(const char *out, int cell, const char *text) {
    char *s = cell_text(out, cell);
    ck_assert_msg(strstr(s, text) != NULL, "cell [%d] does not contain \"%s\":\n%s",
                  cell, text, s);
    free(s);
}

#endif
