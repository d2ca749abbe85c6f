// attention_head.c: one head of scaled dot-product self-attention over each
// chunk of a batch, with or without the softmax, forward and backward.
// Dimension legend in attention_head.h.
//
// The softmax is softmax.c's, the one of chapter 1, in `real`, so that the
// gradient tests can run it in double. The loops of scale_all and softmax.c
// are the readable reference; softmax_rows and scale in simd_kernels.h the
// fast ones, which the helpers below run where the processor has them.
#include "layers/attention_head.h"

#include <string.h>
#include <tgmath.h>

#include "kernels/gemm.h"
#include "kernels/simd.h"
#include "layers/softmax.h"

// x *= s, n numbers: the scale kernel (simd_kernels.h), a vector at a
// time, or the loop; the same bits.
static void scale_all(real *x, long n, real s) {
    if (!FAST_KERNEL(scale, x, n, s))
        for (long i = 0; i < n; i++) x[i] *= s;
}

// softmax.c's softmax_rows and its backward over rows x rows numbers, or
// the kernels of the same names, which agree with them to rounding.
static void softmax_each_row(real *x, int rows, int cols) {
    if (!FAST_KERNEL(softmax_rows, x, rows, cols)) softmax_rows(x, rows, cols);
}

static void softmax_backward_each_row(real *dx, const real *w, int rows, int cols) {
    if (!FAST_KERNEL(softmax_backward_rows, dx, w, rows, cols))
        softmax_backward_rows(dx, w, rows, cols);
}

//> attention-forward
void attention_head_forward(real *out, real *w, const real *q, const real *k, const real *v,
                            int B, int L, int d_k, bool softmax) {
    real scale = 1 / sqrt((real)d_k);
    for (int b = 0; b < B; b++) {
        const real *qb = q + (long)b * L * d_k, *kb = k + (long)b * L * d_k;
        const real *vb = v + (long)b * L * d_k;
        real *wb = w + (long)b * L * L, *ob = out + (long)b * L * d_k;
        memset(wb, 0, (size_t)L * L * sizeof *wb);
        gemm(wb, qb, kb, L, d_k, L, GEMM_ABT);  // s = q k^T
        scale_all(wb, (long)L * L, scale);       // s / sqrt(d_k)
        if (softmax) softmax_each_row(wb, L, L);  // over the keys j of each query i
        memset(ob, 0, (size_t)L * d_k * sizeof *ob);
        gemm(ob, wb, vb, L, L, d_k, GEMM_AB);  // out = w v
    }
}
//< attention-forward

//> attention-backward
void attention_head_backward(real *dq, real *dk, real *dv, real *scratch, const real *dout,
                             const real *w, const real *q, const real *k, const real *v,
                             int B, int L, int d_k, bool softmax) {
    real scale = 1 / sqrt((real)d_k);
    real *ds = scratch;  // (L, L): first dL/dw, then dL/ds
    for (int b = 0; b < B; b++) {
        long off = (long)b * L * d_k;
        const real *wb = w + (long)b * L * L, *db = dout + off;
        // out = w v: dw = dout v^T, dv += w^T dout
        memset(ds, 0, (size_t)L * L * sizeof *ds);
        gemm(ds, db, v + off, L, d_k, L, GEMM_ABT);
        gemm(dv + off, wb, db, L, L, d_k, GEMM_ATB);
        // w_i = softmax(s_i): ds_ij = w_ij (dw_ij - sum_l dw_il w_il)
        if (softmax) softmax_backward_each_row(ds, wb, L, L);
        scale_all(ds, (long)L * L, scale);
        // s = q k^T: dq += ds k, dk += ds^T q
        gemm(dq + off, ds, k + off, L, L, d_k, GEMM_AB);
        gemm(dk + off, ds, q + off, L, L, d_k, GEMM_ATB);
    }
}
//< attention-backward
