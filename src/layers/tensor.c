// tensor.c: matrix products and the comparisons the tests use.
// Dimension legend in tensor.h.
#include "layers/tensor.h"

#include <string.h>
#include <tgmath.h>

real dot(const real *a, const real *b, int d) {
    real sum = 0;
    for (int i = 0; i < d; i++) sum += a[i] * b[i];
    return sum;
}

// a is (n, m), b is (m, p), out is (n, p)
void matmul(real *out, const real *a, const real *b, int n, int m, int p) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < p; j++) {
            real sum = 0;
            for (int k = 0; k < m; k++) sum += a[i * m + k] * b[k * p + j];
            out[i * p + j] = sum;
        }
    }
}

//> matmul-transposed
// a is (n, m), b is (p, m), out is (n, p)
void matmul_transposed(real *out, const real *a, const real *b, int n, int m, int p) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < p; j++)
            out[i * p + j] = dot(a + i * m, b + j * m, m);
}
//< matmul-transposed

// a is (n, m), out is (m, n); a tile of 16 x 16 at a time, so that the
// lines of a that a tile reads stay in the cache from one of its rows of
// out to the next (a few times faster on large matrices than row by row)
void transpose(real *out, const real *a, int n, int m) {
    enum { TILE = 16 };
    for (int i0 = 0; i0 < n; i0 += TILE)
        for (int j0 = 0; j0 < m; j0 += TILE)
            for (int j = j0; j < m && j < j0 + TILE; j++)
                for (int i = i0; i < n && i < i0 + TILE; i++)
                    out[(long)j * n + i] = a[(long)i * m + j];
}

void scale(real *x, real s, int n) {
    for (int i = 0; i < n; i++) x[i] *= s;
}

// x is (rows, cols), out is (rows)
void row_sums(real *out, const real *x, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        real sum = 0;
        for (int j = 0; j < cols; j++) sum += x[i * cols + j];
        out[i] = sum;
    }
}

// w is (n), x is (n, d), out is (d)
void weighted_sum(real *out, const real *w, const real *x, int n, int d) {
    for (int k = 0; k < d; k++) out[k] = 0;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < d; k++) out[k] += w[j] * x[j * d + k];
}

bool allclose(const real *a, const real *b, int n, real rtol, real atol) {
    for (int i = 0; i < n; i++) {
        real diff = fabs(a[i] - b[i]);
        if (!(diff <= atol + rtol * fabs(b[i]))) return false;  // NaN fails
    }
    return true;
}

real max_abs_diff(const real *a, const real *b, int n) {
    real m = 0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

bool same_bits(const real *a, const real *b, int n) {
    return memcmp(a, b, (size_t)n * sizeof(real)) == 0;
}
