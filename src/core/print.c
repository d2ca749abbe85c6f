// print.c: PyTorch's tensor printing, reproduced for the shapes the book uses.
#include "core/print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LINE_WIDTH = 80, CELL_MAX = 32 };

// How every element of one tensor is formatted: chosen once from all values.
typedef enum { FMT_WHOLE, FMT_FIXED, FMT_SCI } number_format;

typedef struct {
    number_format format;
    int width;  // characters of the widest element
} formatter;

static void format_float(char *buf, float v, number_format fmt) {
    if (isnan(v)) { strcpy(buf, "nan"); return; }
    if (isinf(v)) { strcpy(buf, v > 0 ? "inf" : "-inf"); return; }
    switch (fmt) {
    case FMT_WHOLE: snprintf(buf, CELL_MAX, "%.0f.", (double)v); break;
    case FMT_FIXED: snprintf(buf, CELL_MAX, "%.4f", (double)v); break;
    case FMT_SCI:   snprintf(buf, CELL_MAX, "%.4e", (double)v); break;
    }
}

static formatter float_formatter(const float *x, int n) {
    bool whole = true;
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i])) continue;
        if (x[i] != floorf(x[i])) whole = false;
        double a = fabs((double)x[i]);
        if (a != 0.0) { lo = fmin(lo, a); hi = fmax(hi, a); }
    }
    formatter f = { FMT_FIXED, 1 };
    if (whole) {
        f.format = hi > 1e8 || hi / lo > 1000.0 ? FMT_SCI : FMT_WHOLE;
    } else if (hi > 0.0 && (hi / lo > 1000.0 || hi > 1e8 || lo < 1e-4)) {
        f.format = FMT_SCI;
    }
    char buf[CELL_MAX];
    for (int i = 0; i < n; i++) {
        format_float(buf, x[i], f.format);
        int len = (int)strlen(buf);
        if (len > f.width) f.width = len;
    }
    return f;
}

// The elements of one tensor, already formatted, printed with PyTorch's
// brackets, separators, wrapping and indentation.
typedef struct {
    char (*cells)[CELL_MAX];
    int width;
} formatted;

static void print_vector(FILE *f, const formatted *t, int start, int len, int indent) {
    int per_line = (LINE_WIDTH - indent) / (t->width + 2);
    if (per_line < 1) per_line = 1;
    fputc('[', f);
    for (int i = 0; i < len; i++) {
        if (i > 0) {
            fputc(',', f);
            if (i % per_line == 0) fprintf(f, "\n%*s", indent + 1, "");
            else fputc(' ', f);
        }
        fprintf(f, "%*s", t->width, t->cells[start + i]);
    }
    fputc(']', f);
}

static void print_nested(FILE *f, const formatted *t, int ndim, const int *shape,
                         int start, int indent) {
    if (ndim == 1) { print_vector(f, t, start, shape[0], indent); return; }
    int inner = 1;
    for (int k = 1; k < ndim; k++) inner *= shape[k];
    fputc('[', f);
    for (int i = 0; i < shape[0]; i++) {
        if (i > 0) {
            fputc(',', f);
            for (int k = 1; k < ndim; k++) fputc('\n', f);
            fprintf(f, "%*s", indent + 1, "");
        }
        print_nested(f, t, ndim - 1, shape + 1, start + i * inner, indent + 1);
    }
    fputc(']', f);
}

static int numel(int ndim, const int *shape) {
    int n = 1;
    for (int k = 0; k < ndim; k++) n *= shape[k];
    return n;
}

// Room for n formatted elements (at least one, so that an empty tensor is
// not an allocation of zero bytes); NULL when out of memory.
static char (*alloc_cells(int n))[CELL_MAX] {
    size_t count = n > 0 ? (size_t)n : 1;
    return calloc(count, CELL_MAX);
}

static void print_formatted(FILE *f, formatted *t, int ndim, const int *shape) {
    fputs("tensor(", f);
    print_nested(f, t, ndim, shape, 0, (int)strlen("tensor("));
    fputs(")\n", f);
}

// sci_mode false: never scientific notation, as after
// torch.set_printoptions(sci_mode=False). PyTorch then still pads every
// element to the width the scientific form would have needed.
static void print_float_tensor(FILE *f, const float *x, int ndim, const int *shape,
                               bool sci_mode) {
    int n = numel(ndim, shape);
    formatter fm = float_formatter(x, n);
    if (!sci_mode && fm.format == FMT_SCI) {
        fm.format = FMT_WHOLE;
        for (int i = 0; i < n; i++)
            if (isfinite(x[i]) && x[i] != floorf(x[i])) fm.format = FMT_FIXED;
    }
    formatted t = { alloc_cells(n), fm.width };
    if (!t.cells) { fputs("tensor(<out of memory>)\n", f); return; }
    for (int i = 0; i < n; i++) format_float(t.cells[i], x[i], fm.format);
    print_formatted(f, &t, ndim, shape);
    free(t.cells);
}

void print_tensor(FILE *f, const float *x, int ndim, const int *shape) {
    print_float_tensor(f, x, ndim, shape, true);
}

void print_tensor_fixed(FILE *f, const float *x, int ndim, const int *shape) {
    print_float_tensor(f, x, ndim, shape, false);
}

void print_int_tensor(FILE *f, const int64_t *x, int ndim, const int *shape) {
    int n = numel(ndim, shape);
    formatted t = { alloc_cells(n), 1 };
    if (!t.cells) { fputs("tensor(<out of memory>)\n", f); return; }
    for (int i = 0; i < n; i++) {
        int len = snprintf(t.cells[i], CELL_MAX, "%lld", (long long)x[i]);
        if (len > t.width) t.width = len;
    }
    print_formatted(f, &t, ndim, shape);
    free(t.cells);
}

void print_bool_tensor(FILE *f, const bool *x, int ndim, const int *shape) {
    int n = numel(ndim, shape);
    formatted t = { alloc_cells(n), 4 };
    if (!t.cells) { fputs("tensor(<out of memory>)\n", f); return; }
    for (int i = 0; i < n; i++) {
        strcpy(t.cells[i], x[i] ? "True" : "False");
        if (!x[i]) t.width = 5;
    }
    print_formatted(f, &t, ndim, shape);
    free(t.cells);
}

void print_size(FILE *f, int ndim, const int *shape) {
    fputs("torch.Size([", f);
    for (int k = 0; k < ndim; k++) fprintf(f, k ? ", %d" : "%d", shape[k]);
    fputs("])\n", f);
}

void print_bool(FILE *f, bool b) {
    fputs(b ? "True\n" : "False\n", f);
}

void print_grouped(FILE *f, long long n) {
    if (n < 0) {
        fputc('-', f);
        n = -n;  // |n| of any count printed here fits
    }
    if (n >= 1000) {
        print_grouped(f, n / 1000);
        fprintf(f, ",%03lld", n % 1000);
    } else {
        fprintf(f, "%lld", n);
    }
}

void print_list(FILE *f, const float *x, int n, int decimals) {
    fputc('[', f);
    for (int i = 0; i < n; i++) fprintf(f, i ? ", %.*f" : "%.*f", decimals, (double)x[i]);
    fputs("]\n", f);
}

void print_cell(FILE *f, int cell, const char *title) {
    fprintf(f, "\n[%d] %s\n", cell, title);
}

// Prints words as a Python list of strings: ['the', ',', '.'].
void print_words(FILE *out, const strmap *m, size_t from, size_t to) {
    fputc('[', out);
    for (size_t i = from; i < to; i++) fprintf(out, "%s'%s'", i > from ? ", " : "", strmap_key(m, i));
    fputs("]\n", out);
}

// Prints s wrapped at width columns, each line indented by indent spaces.
void print_wrapped(FILE *out, const char *s, int width, int indent) {
    int col = 0;
    while (*s) {
        size_t w = strcspn(s, " ");
        if (col > indent && col + 1 + (int)w > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col == 0) {
            fprintf(out, "%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fwrite(s, 1, w, out);
        col += (int)w;
        s += w;
        while (*s == ' ') s++;
    }
    fputc('\n', out);
}
