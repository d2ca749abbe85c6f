// gemm.h: the matrix product that training calls.
//
// Every product of chapter 7's forward and backward passes goes through
// gemm(), in one of the three layouts of gemm_reference.h: the readable
// product (gemm_reference.c) or the same product with vector instructions
// (gemm_fast.c), whichever real allows.
//
//   n, k, m   c is (n, m); the product sums over k
#ifndef ATTN_GEMM_H
#define ATTN_GEMM_H

#include "kernels/gemm_reference.h"
#include "kernels/real.h"

// c += the product of a and b in the given layout. c is (n, m) and must not
// overlap a or b. c is added to, never overwritten: clear it first for a
// plain product. The fast product when real is float (real.h), the
// reference otherwise.
void gemm(real *c, const real *a, const real *b, int n, int k, int m, gemm_layout layout);

// c = start + the product: every row of c starts from the row start (m
// numbers), or from 0 when start is NULL, and adds the product as gemm
// does; c's numbers are never read. The same bits as setting each row of c
// and calling gemm, without the pass that sets them.
void gemm_from(real *c, const real *start, const real *a, const real *b, int n, int k, int m,
               gemm_layout layout);

#endif
