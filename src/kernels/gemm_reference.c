// gemm_reference.c: the readable matrix product (gemm_fast.c is the fast
// one, which must agree with it), written for the cache rather than for the
// page: each inner loop walks memory in order, so that the compiler
// can keep rows in registers and the hardware can prefetch. The innermost
// loops work on blocks of 8 numbers whose count the compiler can see, which
// it turns into vector instructions even at -O2; a plain loop finishes off
// whatever is left.
#include "kernels/gemm_reference.h"

// c[i, j .. j + 8) += sum_p a[i, p] b[p, j .. j + 8): eight entries of a
// row of c stay in registers while p runs over a row of a.
static inline void row_block(real *restrict c, const real *restrict ai, const real *restrict b,
                             int j, int k, int m) {
    real acc[8];
    for (int l = 0; l < 8; l++) acc[l] = c[j + l];
    for (int p = 0; p < k; p++)
        for (int l = 0; l < 8; l++) acc[l] += ai[p] * b[(long)p * m + j + l];
    for (int l = 0; l < 8; l++) c[j + l] = acc[l];
}

// The most numbers GEMM_ABT and GEMM_ATB copy out at a time (16 KB of float).
#define GEMM_BT_MAX 4096

//> gemm-reference
void gemm_reference(real *restrict c, const real *restrict a, const real *restrict b,
                    int n, int k, int m, gemm_layout layout) {
    switch (layout) {
    case GEMM_AB:  // i-j-k in blocks of 8 columns of c, then the columns left over
        for (int i = 0; i < n; i++) {
            real *ci = c + (long)i * m;
            const real *ai = a + (long)i * k;
            int j = 0;
            for (; j + 8 <= m; j += 8) row_block(ci, ai, b, j, k, m);
            for (; j < m; j++)
                for (int p = 0; p < k; p++) ci[j] += ai[p] * b[(long)p * m + j];
        }
        break;
    case GEMM_ABT:  // c += a (b^T): copy b^T out once, then as GEMM_AB
        if ((long)m * k <= GEMM_BT_MAX) {
            real bt[GEMM_BT_MAX];
            for (int j = 0; j < m; j++)
                for (int p = 0; p < k; p++) bt[(long)p * m + j] = b[(long)j * k + p];
            gemm_reference(c, a, bt, n, k, m, GEMM_AB);
        } else {  // too large to copy: c[i, j] is the dot product of two rows
            for (int i = 0; i < n; i++)
                for (int j = 0; j < m; j++)
                    for (int p = 0; p < k; p++)
                        c[(long)i * m + j] += a[(long)i * k + p] * b[(long)j * k + p];
        }
        break;
    case GEMM_ATB:  // c += (a^T) b: copy a^T out a slice of rows of a at a time
        if (n <= GEMM_BT_MAX) {
            real at[GEMM_BT_MAX];
            int rows = GEMM_BT_MAX / n;
            for (int p0 = 0; p0 < k; p0 += rows) {
                int kk = k - p0 < rows ? k - p0 : rows;
                for (int i = 0; i < n; i++)
                    for (int p = 0; p < kk; p++)
                        at[(long)i * kk + p] = a[(long)(p0 + p) * n + i];
                gemm_reference(c, at, b + (long)p0 * m, n, kk, m, GEMM_AB);
            }
        } else {  // k-i-j: row p of a and row p of b make a rank-1 update
            for (int p = 0; p < k; p++)
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < m; j++)
                        c[(long)i * m + j] += a[(long)p * n + i] * b[(long)p * m + j];
        }
        break;
    }
}
//< gemm-reference
