// torch_linear.c: nn.Linear, forward and backward. Dimension legend in
// torch_linear.h. The bias loop is the readable code; the kernel
// FAST_KERNEL names (simd_kernels.h) the fast one, same bits.
#include "layers/torch_linear.h"

#include <string.h>

#include "kernels/gemm.h"
#include "kernels/simd.h"

void torch_linear_forward(real *out, const real *inp, const real *weight, const real *bias,
                          int n, int in, int out_width) {
    for (int t = 0; t < n; t++) {  // every row starts as the bias (or 0) ...
        real *row = out + (long)t * out_width;
        if (bias) memcpy(row, bias, (size_t)out_width * sizeof *out);
        else memset(row, 0, (size_t)out_width * sizeof *out);
    }
    gemm(out, inp, weight, n, in, out_width, GEMM_ABT);  // ... plus inp weight^T
}

void torch_linear_backward(real *dinp, real *dweight, real *dbias, const real *dout,
                           const real *inp, const real *weight, int n, int in, int out_width) {
    if (dinp) gemm(dinp, dout, weight, n, out_width, in, GEMM_AB);        // (N, in)
    if (dweight) gemm(dweight, dout, inp, out_width, n, in, GEMM_ATB);    // (out, in)
    if (dbias && !FAST_KERNEL(add_column_sums, dbias, dout, n, out_width))  // vectors, or:
        for (int t = 0; t < n; t++)
            for (int j = 0; j < out_width; j++) dbias[j] += dout[(long)t * out_width + j];
}
