// tensor.h: the few matrix operations attention is made of, one sequence at
// a time, as chapters 1-6 write them (the row softmax is softmax.h's; the
// batched product of training is kernels/gemm.h).
//
// Dimension legend, used by the lessons' files (these, mask.h,
// attention_weights.h, notebooks/) and by chapters 1-6: each
// header lists the letters it uses, these with their meaning here, and
// names any others it adds (V, B, d_ff, ...):
//   n    tokens in the sequence
//   d    model width (the embedding dimension)
//   d_k  width of queries and keys
//   d_v  width of values
//   h    attention heads
// Every matrix is a row-major array of `real` (kernels/real.h, float but in
// the gradient tests): element (i, j) of an (r, c)
// matrix m is m[i * c + j]. Functions write to their first argument and take
// sizes last.
#ifndef ATTN_TENSOR_H
#define ATTN_TENSOR_H

#include <stdbool.h>

#include "kernels/real.h"

// Dot product of two vectors of length d.
real dot(const real *a, const real *b, int d);

// out = a @ b. a is (n, m), b is (m, p), out is (n, p).
void matmul(real *out, const real *a, const real *b, int n, int m, int p);

// out = a @ b^T. a is (n, m), b is (p, m), out is (n, p): entry (i, j) is the
// dot product of row i of a with row j of b, which is exactly what
// attention scores are.
void matmul_transposed(real *out, const real *a, const real *b, int n, int m, int p);

// out = a^T. a is (n, m), out is (m, n).
void transpose(real *out, const real *a, int n, int m);

// x *= s, for the n elements of x.
void scale(real *x, real s, int n);

// Sum of each row: out[i] = sum_j x[i, j]. x is (rows, cols), out is (rows).
void row_sums(real *out, const real *x, int rows, int cols);

// out = sum_j w[j] * x[j], a weighted sum of the n rows of x, (n, d).
// out is (d). The sum runs over j = 0 .. n-1 in order.
void weighted_sum(real *out, const real *w, const real *x, int n, int d);

// torch.allclose(a, b, rtol, atol): |a - b| <= atol + rtol * |b| for every
// element, and NaN equals nothing.
bool allclose(const real *a, const real *b, int n, real rtol, real atol);

// The largest |a[i] - b[i]|.
real max_abs_diff(const real *a, const real *b, int n);

// Do the n numbers of a and b have the same bits (what "the same numbers"
// means when the arithmetic was the same)?
bool same_bits(const real *a, const real *b, int n);

#endif
