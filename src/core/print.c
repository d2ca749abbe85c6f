// print.c: PyTorch's tensor printing, reproduced for the shapes the book uses.
#include "core/print.h"

#include <math.h>
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

// Element i of the n elements read row by row from rows of row_len
// elements that start stride elements apart: a whole tensor when row_len
// and stride are equal, x[:, :row_len] of a wider matrix otherwise.
static float float_at(const float *x, int i, int row_len, int stride) {
    return x[(size_t)(i / row_len) * (size_t)stride + (size_t)(i % row_len)];
}

static formatter float_formatter(const float *xs, int n, int row_len, int stride) {
    bool whole = true;
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < n; i++) {
        float x = float_at(xs, i, row_len, stride);
        if (!isfinite(x)) continue;
        if (x != floorf(x)) whole = false;
        double a = fabs((double)x);
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
        format_float(buf, float_at(xs, i, row_len, stride), f.format);
        int len = (int)strlen(buf);
        if (len > f.width) f.width = len;
    }
    return f;
}

// The elements of one tensor and how each is formatted, printed with
// PyTorch's brackets, separators, wrapping and indentation. Each element is
// formatted as it is printed, into a buffer on the stack: printing never
// allocates, so it cannot run out of memory halfway through a tensor.
typedef enum { CELLS_FLOAT, CELLS_INT, CELLS_BOOL } cell_kind;

typedef struct {
    cell_kind kind;
    const void *x;          // float, int64_t or bool elements
    number_format format;   // of floats
    int width;              // characters of the widest element
    int row_len, stride;    // of floats: see float_at
} tensor_cells;

static void format_cell(char *buf, const tensor_cells *t, int i) {
    switch (t->kind) {
    case CELLS_FLOAT: format_float(buf, float_at(t->x, i, t->row_len, t->stride), t->format); break;
    case CELLS_INT: snprintf(buf, CELL_MAX, "%lld", (long long)((const int64_t *)t->x)[i]); break;
    case CELLS_BOOL: strcpy(buf, ((const bool *)t->x)[i] ? "True" : "False"); break;
    }
}

static void print_vector(FILE *f, const tensor_cells *t, int start, int len, int indent) {
    int per_line = (LINE_WIDTH - indent) / (t->width + 2);
    if (per_line < 1) per_line = 1;
    char buf[CELL_MAX];
    fputc('[', f);
    for (int i = 0; i < len; i++) {
        if (i > 0) {
            fputc(',', f);
            if (i % per_line == 0) fprintf(f, "\n%*s", indent + 1, "");
            else fputc(' ', f);
        }
        format_cell(buf, t, start + i);
        fprintf(f, "%*s", t->width, buf);
    }
    fputc(']', f);
}

static void print_nested(FILE *f, const tensor_cells *t, int ndim, const int *shape,
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

static void print_cells(FILE *f, const tensor_cells *t, int ndim, const int *shape) {
    fputs("tensor(", f);
    print_nested(f, t, ndim, shape, 0, (int)strlen("tensor("));
    fputs(")\n", f);
}

// sci_mode false: never scientific notation, as after
// torch.set_printoptions(sci_mode=False). PyTorch then still pads every
// element to the width the scientific form would have needed. row_len and
// stride: see float_at.
static void print_float_tensor(FILE *f, const float *x, int ndim, const int *shape,
                               bool sci_mode, int row_len, int stride) {
    int n = numel(ndim, shape);
    formatter fm = float_formatter(x, n, row_len, stride);
    if (!sci_mode && fm.format == FMT_SCI) {
        fm.format = FMT_WHOLE;
        for (int i = 0; i < n; i++) {
            float v = float_at(x, i, row_len, stride);
            if (isfinite(v) && v != floorf(v)) fm.format = FMT_FIXED;
        }
    }
    tensor_cells t = {CELLS_FLOAT, x, fm.format, fm.width, row_len, stride};
    print_cells(f, &t, ndim, shape);
}

// A whole tensor: one row as long as the tensor (n >= 1 for the stride).
void print_tensor(FILE *f, const float *x, int ndim, const int *shape) {
    int n = numel(ndim, shape);
    print_float_tensor(f, x, ndim, shape, true, n > 0 ? n : 1, n > 0 ? n : 1);
}

void print_tensor_fixed(FILE *f, const float *x, int ndim, const int *shape) {
    int n = numel(ndim, shape);
    print_float_tensor(f, x, ndim, shape, false, n > 0 ? n : 1, n > 0 ? n : 1);
}

void print_tensor_columns(FILE *f, const float *x, int rows, int d, int cols) {
    if (cols > d) cols = d;
    const int shape[] = {rows, cols};
    print_float_tensor(f, x, 2, shape, true, cols > 0 ? cols : 1, d);
}

void print_int_tensor(FILE *f, const int64_t *x, int ndim, const int *shape) {
    int n = numel(ndim, shape);
    tensor_cells t = {CELLS_INT, x, FMT_WHOLE, 1, 1, 1};
    char buf[CELL_MAX];
    for (int i = 0; i < n; i++) {
        format_cell(buf, &t, i);
        int len = (int)strlen(buf);
        if (len > t.width) t.width = len;
    }
    print_cells(f, &t, ndim, shape);
}

void print_bool_tensor(FILE *f, const bool *x, int ndim, const int *shape) {
    int n = numel(ndim, shape);
    tensor_cells t = {CELLS_BOOL, x, FMT_WHOLE, 4, 1, 1};
    for (int i = 0; i < n; i++)
        if (!x[i]) t.width = 5;
    print_cells(f, &t, ndim, shape);
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

void print_cell(FILE *f, const char *label, const char *title) {
    fprintf(f, "\n[%s] %s\n", label, title);
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
