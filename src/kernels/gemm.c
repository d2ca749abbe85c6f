// gemm.c: the product training calls, handed to the fast product or the
// readable one. See gemm.h.
#include "kernels/gemm.h"

#include "kernels/gemm_fast.h"

#include <string.h>

void gemm(real *c, const real *a, const real *b, int n, int k, int m, gemm_layout layout) {
#ifdef ATTN_REAL_IS_FLOAT
    gemm_fast_rows(simd_best(), c, a, b, n, k, m, layout, 0, n);
#else
    gemm_reference(c, a, b, n, k, m, layout);
#endif
}

void gemm_from(real *c, const real *start, const real *a, const real *b, int n, int k, int m,
               gemm_layout layout) {
#ifdef ATTN_REAL_IS_FLOAT
    gemm_fast_rows_from(simd_best(), c, start, a, b, n, k, m, layout, 0, n);
#else
    for (long i = 0; i < n; i++)  // the rows set, then the product added
        if (start) memcpy(c + i * m, start, (size_t)m * sizeof *c);
        else memset(c + i * m, 0, (size_t)m * sizeof *c);
    gemm_reference(c, a, b, n, k, m, layout);
#endif
}
