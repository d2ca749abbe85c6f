// datafile.h: what the chapter suites assert of the figure data files the
// programs write: each file read back whole and held to the arrays it came
// from, so that a value in the wrong place, a row or column left out or
// added, or a label moved fails the test.
#ifndef ATTN_TESTS_DATAFILE_H
#define ATTN_TESTS_DATAFILE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/readfile.h"

// The next field of a heatmap line at *p: a label in double quotes (which
// may hold spaces) or a number up to the next space. Copies it into out
// without the quotes; returns false at the end of the line.
static bool heatmap_field(const char **p, char *out, size_t outlen) {
    const char *s = *p;
    while (*s == ' ') s++;
    if (*s == '\n' || *s == '\0') return false;
    size_t n = 0;
    if (*s == '"') {
        for (s++; *s && *s != '"'; s++)
            if (n + 1 < outlen) out[n++] = *s;
        ck_assert_msg(*s == '"', "a label without its closing quote");
        s++;
    } else {
        for (; *s && *s != ' ' && *s != '\n'; s++)
            if (n + 1 < outlen) out[n++] = *s;
    }
    out[n] = '\0';
    *p = s;
    return true;
}

// The label as write_heatmap must write it: a double quote becomes '.
static void heatmap_label(char *out, size_t outlen, const char *label) {
    snprintf(out, outlen, "%s", label);
    for (char *c = out; *c; c++)
        if (*c == '"') *c = '\'';
}

// DIR/NAME as write_heatmap writes m (rows, cols): a first line of "" and
// the column labels, then per row its label and its cols values, each
// reading back (strtof) to the very float of m. Removes the file.
static void assert_heatmap_file(const char *dir, const char *name, const float *m, int rows,
                                int cols, const char *const *row_labels,
                                const char *const *col_labels) {
    char path[512], field[256], want[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *text = read_whole_file(path, &len);
    ck_assert_msg(text != NULL, "%s: not written", path);
    const char *p = text;
    ck_assert_msg(heatmap_field(&p, field, sizeof field) && field[0] == '\0', "%s: no \"\" first", name);
    for (int j = 0; j < cols; j++) {
        heatmap_label(want, sizeof want, col_labels[j]);
        ck_assert_msg(heatmap_field(&p, field, sizeof field), "%s: %d column labels", name, j);
        ck_assert_msg(strcmp(field, want) == 0, "%s: column %d is \"%s\", not \"%s\"", name, j, field, want);
    }
    ck_assert_msg(!heatmap_field(&p, field, sizeof field) && *p == '\n', "%s: more than %d columns",
                  name, cols);
    p++;
    for (int i = 0; i < rows; i++) {
        heatmap_label(want, sizeof want, row_labels[i]);
        ck_assert_msg(heatmap_field(&p, field, sizeof field) && strcmp(field, want) == 0,
                      "%s: row %d is labelled \"%s\", not \"%s\"", name, i, field, want);
        for (int j = 0; j < cols; j++) {
            ck_assert_msg(heatmap_field(&p, field, sizeof field), "%s: row %d has %d values", name, i, j);
            char *end;
            float v = strtof(field, &end);
            ck_assert_msg(*end == '\0' && (v == m[i * cols + j] || (v != v && m[i * cols + j] != m[i * cols + j])),
                          "%s: [%d][%d] is %s, the array holds %.9g", name, i, j, field,
                          (double)m[i * cols + j]);
        }
        ck_assert_msg(!heatmap_field(&p, field, sizeof field) && *p == '\n', "%s: row %d has more "
                      "than %d values", name, i, cols);
        p++;
    }
    ck_assert_msg(*p == '\0', "%s: more than %d rows", name, rows);
    free(text);
    ck_assert_int_eq(remove(path), 0);
}

#endif
