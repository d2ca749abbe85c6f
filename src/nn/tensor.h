// tensor.h: the few matrix operations attention is made of.
//
// Dimension legend, used by every file of nn/ and by chapters 1-6: each
// header lists the letters it uses, these with their meaning here, and
// names any others it adds (V, B, d_ff, ...):
//   n    tokens in the sequence
//   d    model width (the embedding dimension)
//   d_k  width of queries and keys
//   d_v  width of values
//   h    attention heads
// Every matrix is a row-major array of float: element (i, j) of an (r, c)
// matrix m is m[i * c + j]. Functions write to their first argument and take
// sizes last.
#ifndef ATTN_TENSOR_H
#define ATTN_TENSOR_H

#include <stdbool.h>

// Dot product of two vectors of length d.
float dot(const float *a, const float *b, int d);

// out = a @ b. a is (n, m), b is (m, p), out is (n, p).
void matmul(float *out, const float *a, const float *b, int n, int m, int p);

// out = a @ b^T. a is (n, m), b is (p, m), out is (n, p): entry (i, j) is the
// dot product of row i of a with row j of b, which is exactly what
// attention scores are.
void matmul_transposed(float *out, const float *a, const float *b, int n, int m, int p);

// out = a^T. a is (n, m), out is (m, n).
void transpose(float *out, const float *a, int n, int m);

// x *= s, for the n elements of x.
void scale(float *x, float s, int n);

// Replace each row of x, (rows, cols), by its softmax.
void softmax_rows(float *x, int rows, int cols);

// Sum of each row: out[i] = sum_j x[i, j]. x is (rows, cols), out is (rows).
void row_sums(float *out, const float *x, int rows, int cols);

// out = sum_j w[j] * x[j], a weighted sum of the n rows of x, (n, d).
// out is (d). The sum runs over j = 0 .. n-1 in order.
void weighted_sum(float *out, const float *w, const float *x, int n, int d);

// torch.allclose(a, b, rtol, atol): |a - b| <= atol + rtol * |b| for every
// element, and NaN equals nothing.
bool allclose(const float *a, const float *b, int n, float rtol, float atol);

// The largest |a[i] - b[i]|.
float max_abs_diff(const float *a, const float *b, int n);

// Do the n floats of a and b have the same bits (what "the same numbers"
// means when the arithmetic was the same)?
bool same_bits(const float *a, const float *b, int n);

#endif
