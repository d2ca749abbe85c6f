// gemm.h: the matrix product that training spends its time in.
//
// Every product of chapter 7's forward and backward passes goes through this
// one function, in one of three layouts. gemm_reference is the readable
// version; gemm_fast_rows (gemm_fast.c) computes the same product with
// vector instructions. The tests hold the fast product to the reference
// (tests/test_kernels.c).
//
//   n, k, m   c is (n, m); the product sums over k
#ifndef ATTN_GEMM_H
#define ATTN_GEMM_H

#include "train/real.h"
#include "train/simd.h"

typedef enum {
    GEMM_AB,   // c += a b,   a is (n, k), b is (k, m)
    GEMM_ABT,  // c += a b^T, a is (n, k), b is (m, k)
    GEMM_ATB,  // c += a^T b, a is (k, n), b is (k, m)
} gemm_layout;

// c += the product of a and b in the given layout. c is (n, m) and must not
// overlap a or b. c is added to, never overwritten: clear it first for a
// plain product. The fast product when real is float (real.h), the
// reference otherwise.
void gemm(real *c, const real *a, const real *b, int n, int k, int m, gemm_layout layout);

// The same, written for the reader: loops in cache order, one thread.
void gemm_reference(real *c, const real *a, const real *b, int n, int k, int m, gemm_layout layout);

// Rows [i0, i1) of c += the product, with the vector instructions of level
// (SIMD_NONE: the reference). Each entry of c is the same sum in the same
// order whatever i0, i1 and level (but NONE): a fused multiply-add per
// term, p = 0 .. k - 1.
void gemm_fast_rows(simd_level level, float *c, const float *a, const float *b,
                    int n, int k, int m, gemm_layout layout, int i0, int i1);

#endif
