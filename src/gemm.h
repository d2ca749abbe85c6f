// gemm.h: the matrix product that training spends its time in.
//
// Every product of chapter 7's forward and backward passes goes through this
// one function, in one of three layouts, so that a faster kernel (SIMD,
// blocking, threads) can replace it in one place and be tested against it.
//
//   n, k, m   c is (n, m); the product sums over k
#ifndef ATTN_GEMM_H
#define ATTN_GEMM_H

#include "real.h"

typedef enum {
    GEMM_AB,   // c += a b,   a is (n, k), b is (k, m)
    GEMM_ABT,  // c += a b^T, a is (n, k), b is (m, k)
    GEMM_ATB,  // c += a^T b, a is (k, n), b is (k, m)
} gemm_layout;

// c += the product of a and b in the given layout. c is (n, m) and must not
// overlap a or b. c is added to, never overwritten: clear it first for a
// plain product.
void gemm(real *c, const real *a, const real *b, int n, int k, int m, gemm_layout layout);

#endif
