// gemm_fast.h: the matrix product of gemm_reference.h with vector
// instructions. This is the fast product; gemm_reference.h the readable one
// it must agree with (tests/test_kernels.c).
//
//   n, k, m   c is (n, m); the product sums over k
#ifndef ATTN_GEMM_FAST_H
#define ATTN_GEMM_FAST_H

#include "kernels/gemm_reference.h"
#include "kernels/simd.h"

// Rows [i0, i1) of c += the product, with the vector instructions of level
// (SIMD_NONE: the reference). Each entry of c is the same sum in the same
// order whatever i0, i1 and level (but NONE): a fused multiply-add per
// term, p = 0 .. k - 1.
void gemm_fast_rows(simd_level level, float *c, const float *a, const float *b,
                    int n, int k, int m, gemm_layout layout, int i0, int i1);

// The same with each row of c starting from the row start (m numbers), or
// from 0 when start is NULL, in place of c's numbers (start == c: c's own,
// gemm_fast_rows): the bits of setting the rows first and adding the
// product, without reading c.
void gemm_fast_rows_from(simd_level level, float *c, const float *start, const float *a,
                         const float *b, int n, int k, int m, gemm_layout layout, int i0,
                         int i1);

#endif
