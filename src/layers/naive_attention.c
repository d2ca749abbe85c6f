// naive_attention.c: attention with the n x n weights in memory. See
// naive_attention.h.
#include "layers/naive_attention.h"

#include <string.h>

#include "kernels/gemm.h"
#include "kernels/gemm_fast.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"
#include "layers/online_softmax.h"

enum { ROW_BLOCK = 64 };  // rows of a product a thread takes at a time

// c (n, m) += the product of a and b (gemm.h's layouts), blocks of rows of
// c shared among the threads; each entry summed as gemm sums it.
static void product(real *c, const real *a, const real *b, int n, int k, int m, gemm_layout layout) {
#ifdef ATTN_REAL_IS_FLOAT
    simd_level level = simd_best();
    int blocks = (n + ROW_BLOCK - 1) / ROW_BLOCK;
    PARALLEL_FOR(blocks > 1)
    for (int r = 0; r < blocks; r++) {
        int i1 = (r + 1) * ROW_BLOCK < n ? (r + 1) * ROW_BLOCK : n;
        gemm_fast_rows(level, c, a, b, n, k, m, layout, r * ROW_BLOCK, i1);
    }
#else
    gemm(c, a, b, n, k, m, layout);
#endif
}

// Keys query i sees.
static int visible_keys(bool causal, int i, int n) { return causal && i + 1 < n ? i + 1 : n; }

void naive_attention_forward(real *out, real *w, const real *q, const real *k, const real *v,
                             int n, int d, real scale, bool causal) {
    memset(w, 0, (size_t)n * n * sizeof *w);
    product(w, q, k, n, d, n, GEMM_ABT);  // s = q k^T, all n^2 of them
    PARALLEL_FOR(n >= ROW_BLOCK)
    for (int i = 0; i < n; i++) {
        real *row = w + (long)i * n;
        int seen = visible_keys(causal, i, n);
        for (int j = seen; j < n; j++) row[j] = 0;  // hidden keys
        if (!FAST_KERNEL(scale, row, seen, scale))
            for (int j = 0; j < seen; j++) row[j] *= scale;
        if (!FAST_KERNEL(softmax_rows, row, 1, seen)) softmax_two_pass(row, row, seen);
    }
    memset(out, 0, (size_t)n * d * sizeof *out);
    product(out, w, v, n, n, d, GEMM_AB);  // out = w v
}

void naive_attention_backward(real *dq, real *dk, real *dv, real *dw, const real *dout,
                              const real *w, const real *q, const real *k, const real *v, int n,
                              int d, real scale, bool causal) {
    (void)causal;  // the hidden keys have w = 0, and so ds = 0
    product(dv, w, dout, n, n, d, GEMM_ATB);  // dv += w^T dout
    memset(dw, 0, (size_t)n * n * sizeof *dw);
    product(dw, dout, v, n, d, n, GEMM_ABT);  // dw = dout v^T
    PARALLEL_FOR(n >= ROW_BLOCK)
    for (int i = 0; i < n; i++) {  // ds = scale w (dw - w . dw), row by row
        real *g = dw + (long)i * n;
        const real *wi = w + (long)i * n;
        if (!FAST_KERNEL(softmax_backward_rows, g, wi, 1, n)) {
            real dot = 0;
            for (int j = 0; j < n; j++) dot += g[j] * wi[j];
            for (int j = 0; j < n; j++) g[j] = wi[j] * (g[j] - dot);
        }
        if (!FAST_KERNEL(scale, g, n, scale))
            for (int j = 0; j < n; j++) g[j] *= scale;
    }
    product(dq, dw, k, n, n, d, GEMM_AB);   // dq += ds k
    product(dk, dw, q, n, n, d, GEMM_ATB);  // dk += ds^T q
}
