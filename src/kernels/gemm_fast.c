// gemm_fast.c: the matrix product of gemm_reference.c with vector
// instructions. This is the fast product, gemm_reference.c the readable one.
//
//   n, k, m   c is (n, m); the product sums over k
//   W         columns of c computed at once: two vectors, 32 floats with
//             AVX-512, 16 with AVX2
//
// gemm_reference (gemm_reference.c) walks memory in order and lets the
// compiler vectorise; here the vectors are spelled out (gemm_panel in
// simd_kernels.h). A block of a few rows and W columns of c stays in
// registers while p runs over the k terms: each step loads one row of b (two
// vectors) and a number of a per row, broadcast to a whole vector, and does
// two fused multiply-adds per row. Every number loaded is used several
// times, and the processor's multiply-add units are kept busy instead of
// waiting for memory. Columns that do not fill a vector go through a mask.
//
// Every entry of c is computed the same way whatever block it falls in:
// start from c[i, j], add a[i, p] b[p, j] for p = 0, 1, ..., k - 1, each
// with one rounding (a fused multiply-add), store. So the result does not
// depend on how the rows are split into blocks or calls (gemm_fast_rows
// takes any range of them), nor on the vector width: AVX2 and AVX-512 give
// the same bits. A single row (chapter 9's generation, a position at a
// time) has a kernel of its own, gemm_row, which keeps eight vectors of
// sums in flight instead of two; each entry is still summed in that order.
#include "kernels/gemm_fast.h"

#include <string.h>

#include "kernels/aligned.h"

// The k-slice of the transposed b that GEMM_ABT copies out at a time (32 KB
// of float for a panel of 32 columns).
#define PACK_K 256

// The rows of c that GEMM_ATB computes across all its panels at a time,
// when a is the larger: 16 floats of a row of a, 64 bytes, a cache line.
#define ATB_ROWS 16

#ifdef SIMD_X86
// Rows [0, n) and columns [0, w) of c, c(i, j) = c[i ldc + j], += the
// product of a(i, p) = a[i a_i + p a_p] and b(p, j) = b[p ldb + j].
static void panel(simd_level level, float *c, long ldc, const float *start, const float *a,
                  long a_i, long a_p, const float *b, long ldb, int n, int k, int w) {
    if (level == SIMD_AVX512) gemm_panel_avx512(c, ldc, start, a, a_i, a_p, b, ldb, n, k, w);
    else gemm_panel_avx2(c, ldc, start, a, a_i, a_p, b, ldb, n, k, w);
}

// Where a panel from column j starts its sums: from c (NULL), zeros, or
// column j of the row from.
static const float *from_column(const float *from, const float *zeros, int j) {
    return from == NULL || from == zeros ? from : from + j;
}
#endif

// Rows [i0, i1) of c set to start (m numbers), or to 0 when start is NULL.
static void set_rows(float *c, const float *start, int m, int i0, int i1) {
    for (long i = i0; i < i1; i++)
        if (start) memcpy(c + i * m, start, (size_t)m * sizeof *c);
        else memset(c + i * m, 0, (size_t)m * sizeof *c);
}

void gemm_fast_rows(simd_level level, float *c, const float *a, const float *b,
                    int n, int k, int m, gemm_layout layout, int i0, int i1) {
    gemm_fast_rows_from(level, c, c, a, b, n, k, m, layout, i0, i1);
}

//> gemm-fast
void gemm_fast_rows_from(simd_level level, float *c, const float *start, const float *a,
                         const float *b, int n, int k, int m, gemm_layout layout, int i0,
                         int i1) {
    if (i1 <= i0 || m <= 0) return;
#ifdef SIMD_X86
    bool panels = level != SIMD_NONE;
#else
    bool panels = false;
#endif
    if (start != c && (k <= 0 || !panels || (i1 - i0 == 1 && layout != GEMM_ABT))) {
        set_rows(c, start, m, i0, i1);  // where no panel starts the sums: the rows first
        start = c;
    }
    if (k <= 0) return;
#ifdef SIMD_X86
    if (panels) {
        int W = simd_panel_width(level);
        static const float zeros[32];
        // each panel's rows start from c's numbers (NULL), start's or zeros
        const float *from = start == c ? NULL : start ? start : zeros;
        c += (long)i0 * m;
        // a(i, p): a[i k + p] for GEMM_AB and GEMM_ABT, a[p n + i] for GEMM_ATB
        const float *ai = layout == GEMM_ATB ? a + i0 : a + (long)i0 * k;
        long a_i = layout == GEMM_ATB ? 1 : k, a_p = layout == GEMM_ATB ? n : 1;
        int j = 0;
        if (layout == GEMM_ATB && i1 - i0 > m) {
            // a^T b with a the larger (a weight's gradient, dout^T inp, with more
            // outputs than inputs): row i of c is column i of a, a number from
            // each row of a, and a panel's way through all of c's rows would
            // read all of a again for every panel. So ATB_ROWS rows of c at a
            // time across every panel instead: their numbers of a (a whole cache
            // line a row of a) stay in the cache from one panel to the next.
            for (int i = 0; i < i1 - i0; i += ATB_ROWS) {
                int rows = i1 - i0 - i < ATB_ROWS ? i1 - i0 - i : ATB_ROWS;
                for (j = 0; j < m; j += W)
                    panel(level, c + (long)i * m + j, m, from_column(from, zeros, j),
                          ai + i * a_i, a_i, a_p, b + j, m, rows, k, m - j < W ? m - j : W);
            }
            return;
        }
        if (i1 - i0 == 1 && layout != GEMM_ABT)  // one row: four panels at a time
            for (; j + 4 * W <= m; j += 4 * W)
                SIMD_RUN(level, gemm_row, c + j, ai, a_p, b + j, m, k);
        for (; j < m; j += W) {  // a panel of W columns of c
            int w = m - j < W ? m - j : W;
            const float *from_j = from_column(from, zeros, j);
            if (layout != GEMM_ABT) {
                panel(level, c + j, m, from_j, ai, a_i, a_p, b + j, m, i1 - i0, k, w);
                continue;
            }
            // b is (m, k): copy the panel's columns of b^T out, PACK_K rows
            // at a time; c holds the partial sums in between, so the terms
            // are added in the same order as without the copy
            _Alignas(ALIGN_BYTES) float bt[PACK_K * 32];  // no vector of it across two lines
            for (int p0 = 0; p0 < k; p0 += PACK_K) {
                int kk = k - p0 < PACK_K ? k - p0 : PACK_K;
                // bt(p, jj) = b(j + jj, p0 + p)
                SIMD_RUN(level, pack_transposed, bt, b + (long)j * k + p0, k, kk, w);
                panel(level, c + j, m, p0 == 0 ? from_j : NULL, ai + p0, a_i, a_p, bt, W,
                      i1 - i0, kk, w);
            }
        }
        return;
    }
#endif
    (void)level;
    // The portable code: the reference on the rows asked for (set above).
    if (layout != GEMM_ATB) {
        gemm_reference(c + (long)i0 * m, a + (long)i0 * k, b, i1 - i0, k, m, layout);
    } else if (i0 == 0 && i1 == n) {
        gemm_reference(c, a, b, n, k, m, layout);
    } else {  // rows of c are columns of a: a slice of them, term by term
        for (int i = i0; i < i1; i++)
            for (int p = 0; p < k; p++)
                for (int j = 0; j < m; j++)
                    c[(long)i * m + j] += a[(long)p * n + i] * b[(long)p * m + j];
    }
}
//< gemm-fast
