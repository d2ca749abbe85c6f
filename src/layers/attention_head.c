// attention_head.c: one head of scaled dot-product self-attention over each
// chunk of a batch, with or without the softmax, forward and backward.
// Dimension legend in attention_head.h.
//
// The softmax is softmax.c's, the one of chapter 1, in `real`, so that the
// gradient tests can run it in double. The plain loops below and softmax.c
// are the readable reference; softmax_rows and scale in simd_kernels.h the
// fast ones.
#include "layers/attention_head.h"

#include <string.h>
#include <tgmath.h>

#include "kernels/gemm.h"
#include "kernels/simd.h"
#include "layers/softmax.h"

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
        if (!FAST_KERNEL(scale, wb, (long)L * L, scale))
            for (int i = 0; i < L * L; i++) wb[i] *= scale;
        if (softmax && !FAST_KERNEL(softmax_rows, wb, L, L))  // vectors (simd.h), or:
            softmax_rows(wb, L, L);  // over the keys j of each query i
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
        if (softmax && !FAST_KERNEL(softmax_backward_rows, ds, wb, L, L))
            softmax_backward_rows(ds, wb, L, L);
        if (!FAST_KERNEL(scale, ds, (long)L * L, scale))
            for (int i = 0; i < L * L; i++) ds[i] *= scale;
        // s = q k^T: dq += ds k, dk += ds^T q
        gemm(dq + off, ds, k + off, L, L, d_k, GEMM_AB);
        gemm(dk + off, ds, q + off, L, L, d_k, GEMM_ATB);
    }
}
//< attention-backward
