// test_print.c: src/core/print.c prints tensors exactly as PyTorch does. The
// cases and PyTorch's own text were written by tests/reference/print_golden.py.
#include <check.h>

#include "suite.h"
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "core/print.h"

enum { MAX_CASES = 64, MAX_VALUES = 1024 };

typedef struct {
    char name[64], kind[8];
    int ndim, shape[3], n;
    float f[MAX_VALUES];
    int64_t i[MAX_VALUES];
    bool b[MAX_VALUES];
    char *text;  // what PyTorch printed, newline-terminated
} print_case;

static print_case cases[MAX_CASES];
static int n_cases;

// Parses print_cases.txt once; a malformed file fails the test that needs it.
static void load_cases(void) {
    if (n_cases) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/print_cases.txt", GOLDEN_DIR);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s; regenerate it with make golden", path);
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "case ", 5) != 0) continue;
        ck_assert_int_lt(n_cases, MAX_CASES);
        print_case *c = &cases[n_cases++];
        int used = 0;
        ck_assert_int_ge(sscanf(line, "case %63s %7s %d%n", c->name, c->kind, &c->ndim, &used), 3);
        ck_assert(c->ndim >= 1 && c->ndim <= 3);
        c->n = 1;
        char *p = line + used;
        for (int k = 0; k < c->ndim; k++) {
            c->shape[k] = (int)strtol(p, &p, 10);
            c->n *= c->shape[k];
        }
        ck_assert_int_le(c->n, MAX_VALUES);
        static char values[1 << 16];
        ck_assert_ptr_nonnull(fgets(values, sizeof values, f));
        p = values;
        for (int k = 0; k < c->n; k++) {
            char *end;
            if (strcmp(c->kind, "f32") == 0) c->f[k] = strtof(p, &end);
            else if (strcmp(c->kind, "i64") == 0) c->i[k] = strtoll(p, &end, 10);
            else c->b[k] = strtol(p, &end, 10) != 0;
            ck_assert_msg(end != p, "%s: case %s has too few values", path, c->name);
            p = end;
        }
        size_t cap = 1 << 14, len = 0;
        c->text = calloc(cap, 1);
        while (fgets(line, sizeof line, f) && strcmp(line, "endcase\n") != 0) {
            size_t l = strlen(line);
            ck_assert_int_lt(len + l, cap);
            memcpy(c->text + len, line, l + 1);
            len += l;
        }
    }
    fclose(f);
    ck_assert_int_gt(n_cases, 10);
}

START_TEST(prints_like_pytorch) {
    load_cases();
    ck_assert_int_lt(_i, n_cases);
    const print_case *c = &cases[_i];
    char *buf;
    size_t len;
    FILE *out = open_memstream(&buf, &len);
    if (strcmp(c->kind, "f32") == 0) print_tensor(out, c->f, c->ndim, c->shape);
    else if (strcmp(c->kind, "i64") == 0) print_int_tensor(out, c->i, c->ndim, c->shape);
    else print_bool_tensor(out, c->b, c->ndim, c->shape);
    fclose(out);
    ck_assert_msg(strcmp(buf, c->text) == 0, "case %s:\nC printed\n%s\nPyTorch printed\n%s",
                  c->name, buf, c->text);
    free(buf);
}
END_TEST

START_TEST(sizes_bools_and_lists) {
    char *buf;
    size_t len;
    FILE *out = open_memstream(&buf, &len);
    const int shape[] = { 1, 5, 10 };
    const float v[] = { 2.0f, 7.0f, 1.5f };
    print_size(out, 3, shape);
    print_bool(out, true);
    print_bool(out, false);
    print_list(out, v, 3, 1);
    print_cell(out, "T6", "title");
    fclose(out);
    ck_assert_str_eq(buf, "torch.Size([1, 5, 10])\nTrue\nFalse\n[2.0, 7.0, 1.5]\n\n[T6] title\n");
    free(buf);
}
END_TEST

// x[:, :cols] read in place prints as the slice copied out does, its
// format chosen from the slice only (the wide column 4 would make the
// whole matrix scientific), and cols beyond the width print every column.
START_TEST(columns_print_as_their_slice) {
    const float x[3 * 5] = {1.5f, -2.25f, 0.125f, 3, 1e9f,
                            4, 5.5f, -6, 7.75f, -1e9f,
                            0.5f, 0, 9, -0.375f, 2e9f};
    for (int cols = 1; cols <= 6; cols++) {
        int c = cols < 5 ? cols : 5;
        float part[15];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < c; j++) part[i * c + j] = x[i * 5 + j];
        char *want, *got;
        size_t wlen, glen;
        FILE *w = open_memstream(&want, &wlen), *g = open_memstream(&got, &glen);
        const int shape[] = {3, c};
        print_tensor(w, part, 2, shape);
        print_tensor_columns(g, x, 3, 5, cols);
        fclose(w);
        fclose(g);
        ck_assert_str_eq(got, want);
        if (cols < 5) ck_assert_ptr_null(strstr(got, "e+"));
        free(want);
        free(got);
    }
}
END_TEST

START_TEST(grouped_thousands) {
    const struct { long long n; const char *want; } cases[] = {
        {0, "0"}, {999, "999"}, {1000, "1,000"}, {640000, "640,000"},
        {2560000, "2,560,000"}, {1000001, "1,000,001"}, {-1234567, "-1,234,567"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *buf;
        size_t len;
        FILE *f = open_memstream(&buf, &len);
        print_grouped(f, cases[i].n);
        fclose(f);
        ck_assert_str_eq(buf, cases[i].want);
        free(buf);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("print");
    TCase *tc = tcase_create("pytorch");
    // one test per case in print_cases.txt (15 of them)
    tcase_add_loop_test(tc, prints_like_pytorch, 0, 15);
    tcase_add_test(tc, sizes_bools_and_lists);
    tcase_add_test(tc, grouped_thousands);
    tcase_add_test(tc, columns_print_as_their_slice);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
