// tensor.c: matrix products, softmax and the comparisons the tests use.
// Dimension legend in tensor.h. (Training has its own, in `real`: kernels/gemm_reference.h.)
#include "nn/tensor.h"

#include <math.h>
#include <string.h>

float dot(const float *a, const float *b, int d) {
    float sum = 0.0f;
    for (int i = 0; i < d; i++) sum += a[i] * b[i];
    return sum;
}

// a is (n, m), b is (m, p), out is (n, p)
void matmul(float *out, const float *a, const float *b, int n, int m, int p) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < p; j++) {
            float sum = 0.0f;
            for (int k = 0; k < m; k++) sum += a[i * m + k] * b[k * p + j];
            out[i * p + j] = sum;
        }
    }
}

// a is (n, m), b is (p, m), out is (n, p)
void matmul_transposed(float *out, const float *a, const float *b, int n, int m, int p) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < p; j++)
            out[i * p + j] = dot(a + i * m, b + j * m, m);
}

// a is (n, m), out is (m, n)
void transpose(float *out, const float *a, int n, int m) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            out[j * n + i] = a[i * m + j];
}

void scale(float *x, float s, int n) {
    for (int i = 0; i < n; i++) x[i] *= s;
}

//> softmax
// x is (rows, cols); each row becomes softmax(row), in place.
void softmax_rows(float *x, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        float *row = x + i * cols;
        // pass 1: the largest entry. exp(x - max) <= 1 never overflows,
        // and the shift cancels in the ratio below.
        float max = -INFINITY;
        for (int j = 0; j < cols; j++) max = fmaxf(max, row[j]);
        // pass 2: exponentiate and sum.
        float sum = 0.0f;
        for (int j = 0; j < cols; j++) {
            row[j] = expf(row[j] - max);
            sum += row[j];
        }
        // pass 3: normalise, so the row sums to one.
        for (int j = 0; j < cols; j++) row[j] /= sum;
    }
}
//< softmax

// x is (rows, cols), out is (rows)
void row_sums(float *out, const float *x, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        float sum = 0.0f;
        for (int j = 0; j < cols; j++) sum += x[i * cols + j];
        out[i] = sum;
    }
}

// w is (n), x is (n, d), out is (d)
void weighted_sum(float *out, const float *w, const float *x, int n, int d) {
    for (int k = 0; k < d; k++) out[k] = 0.0f;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < d; k++) out[k] += w[j] * x[j * d + k];
}

bool allclose(const float *a, const float *b, int n, float rtol, float atol) {
    for (int i = 0; i < n; i++) {
        float diff = fabsf(a[i] - b[i]);
        if (!(diff <= atol + rtol * fabsf(b[i]))) return false;  // NaN fails
    }
    return true;
}

float max_abs_diff(const float *a, const float *b, int n) {
    float m = 0.0f;
    for (int i = 0; i < n; i++) m = fmaxf(m, fabsf(a[i] - b[i]));
    return m;
}

bool same_bits(const float *a, const float *b, int n) {
    return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}
