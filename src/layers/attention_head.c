// attention_head.c: one head of scaled dot-product self-attention over each
// chunk of a batch, with or without the softmax, forward and backward.
// Dimension legend in attention_head.h.
//
// The softmax here is written in `real` beside the products of gemm.h, so
// that the gradient tests can run it in double; nn/tensor.c's softmax_rows is
// the float one of the lessons, chapters 1-6. The plain loops below are the
// readable reference; softmax_rows and scale in simd_kernels.h the fast ones.
#include "layers/attention_head.h"

#include <string.h>
#include <tgmath.h>

#include "kernels/gemm.h"
#include "kernels/simd.h"

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
        if (softmax && !FAST_KERNEL(softmax_rows, wb, L, L)) {  // vectors (simd.h), or:
            for (int i = 0; i < L; i++) {  // over the keys j of query i
                real *row = wb + (long)i * L, max = row[0], sum = 0;
                for (int j = 1; j < L; j++) max = fmax(max, row[j]);  // pass 1
                for (int j = 0; j < L; j++) sum += row[j] = exp(row[j] - max);  // pass 2
                for (int j = 0; j < L; j++) row[j] /= sum;  // pass 3
            }
        }
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
        if (softmax && !FAST_KERNEL(softmax_backward_rows, ds, wb, L, L)) {
            // w_i = softmax(s_i): ds_ij = w_ij (dw_ij - sum_l dw_il w_il)
            for (int i = 0; i < L; i++) {
                real *g = ds + (long)i * L, dot = 0;
                const real *wi = wb + (long)i * L;
                for (int j = 0; j < L; j++) dot += g[j] * wi[j];
                for (int j = 0; j < L; j++) g[j] = wi[j] * (g[j] - dot);
            }
        }
        if (!FAST_KERNEL(scale, ds, (long)L * L, scale))
            for (int i = 0; i < L * L; i++) ds[i] *= scale;
        // s = q k^T: dq += ds k, dk += ds^T q
        gemm(dq + off, ds, k + off, L, L, d_k, GEMM_AB);
        gemm(dk + off, ds, q + off, L, L, d_k, GEMM_ATB);
    }
}
//< attention-backward
