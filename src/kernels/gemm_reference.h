// gemm_reference.h: the matrix product that training spends its time in,
// written for the reader, and the three layouts it comes in.
//
// This is the readable product; gemm_fast.h has the same product with vector
// instructions, held to this one by tests/test_kernels.c, and gemm.h the
// gemm() that training calls, which picks between them. (layers/tensor.c's
// matmul is the lessons' product, chapters 1-6, as the page writes it, one
// entry at a time; this one is written for the cache, and takes three
// layouts, so that a backward pass never copies a transpose out.)
//
//   n, k, m   c is (n, m); the product sums over k
#ifndef ATTN_GEMM_REFERENCE_H
#define ATTN_GEMM_REFERENCE_H

#include "kernels/real.h"

typedef enum {
    GEMM_AB,   // c += a b,   a is (n, k), b is (k, m)
    GEMM_ABT,  // c += a b^T, a is (n, k), b is (m, k)
    GEMM_ATB,  // c += a^T b, a is (k, n), b is (k, m)
} gemm_layout;

// c += the product of a and b in the given layout, loops in cache order, one
// thread. c is (n, m) and must not overlap a or b; it is added to, never
// overwritten.
void gemm_reference(real *c, const real *a, const real *b, int n, int k, int m, gemm_layout layout);

#endif
