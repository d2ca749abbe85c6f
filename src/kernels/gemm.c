// gemm.c: the product training calls, handed to the fast product or the
// readable one. See gemm.h.
#include "kernels/gemm.h"

#include "kernels/gemm_fast.h"

void gemm(real *c, const real *a, const real *b, int n, int k, int m, gemm_layout layout) {
#ifdef ATTN_REAL_IS_FLOAT
    gemm_fast_rows(simd_best(), c, a, b, n, k, m, layout, 0, n);
#else
    gemm_reference(c, a, b, n, k, m, layout);
#endif
}
