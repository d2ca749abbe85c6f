// dense.c: the dense layer, forward and backward, and flax's lecun_normal
// for its kernel. Dimension legend in dense.h. The bias loop is the readable
// code; the kernel FAST_KERNEL names (simd_kernels.h) the fast one, same bits.
#include "layers/dense.h"

#include <math.h>
#include <string.h>
#include <tgmath.h>

#include "kernels/gemm.h"
#include "kernels/simd.h"

//> dense
void dense_forward(real *out, const real *inp, const real *kernel, const real *bias,
                   int n, int in, int out_width) {
    for (int t = 0; t < n; t++)  // every row starts as the bias ...
        memcpy(out + (long)t * out_width, bias, (size_t)out_width * sizeof *out);
    gemm(out, inp, kernel, n, in, out_width, GEMM_AB);  // ... plus inp kernel
}

void dense_backward(real *dinp, real *dkernel, real *dbias, const real *dout,
                    const real *inp, const real *kernel, int n, int in, int out_width) {
    if (dinp) gemm(dinp, dout, kernel, n, out_width, in, GEMM_ABT);      // (N, in)
    if (dkernel) gemm(dkernel, inp, dout, in, n, out_width, GEMM_ATB);   // (in, out)
    if (dbias && !FAST_KERNEL(add_column_sums, dbias, dout, n, out_width))  // vectors, or:
        for (int t = 0; t < n; t++)
            for (int j = 0; j < out_width; j++) dbias[j] += dout[(long)t * out_width + j];
}
//< dense

// The inverse of erf on (-1, 1): a first guess from the logarithm of
// 1 - y^2 (accurate near 0 and in the tails to a few per cent), then Newton's
// method on erf(x) = y, each step doubling the correct digits.
static double erfinv(double y) {
    double w = -log((1.0 - y) * (1.0 + y));
    double x = w < 5.0 ? y * (0.886226925 + 0.2 * w) : copysign(sqrt(w - log(w)), y);
    for (int step = 0; step < 6; step++)
        x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));  // erf'(x) = 2/sqrt(pi) e^-x^2
    return x;
}

//> lecun-normal
void dense_init_lecun_normal(torch_rng *g, real *kernel, int in, int out_width) {
    // flax: variance_scaling(1.0, "fan_in", "truncated_normal"). A normal
    // cut at +-2 standard deviations keeps only 0.774 of its variance, so
    // the standard deviation is raised by 1/0.8796 = 1/sqrt(0.774) to keep
    // the variance of the result at 1/in.
    double std = sqrt(1.0 / in) / 0.87962566103423978;
    // PyTorch's trunc_normal_(std, -2 std, 2 std): uniform on
    // (2 Phi(-2) - 1, 2 Phi(2) - 1), then x -> sqrt(2) std erfinv(x).
    double lo = 0.5 * (1.0 + erf(-2.0 / sqrt(2.0))), hi = 0.5 * (1.0 + erf(2.0 / sqrt(2.0)));
    float scale = (float)(std * sqrt(2.0)), bound = (float)(2.0 * std);
    for (int i = 0; i < in * out_width; i++) {
        float u;
        rng_uniform(g, &u, 1, (float)(2.0 * lo - 1.0), (float)(2.0 * hi - 1.0));
        float x = (float)erfinv(u) * scale;
        kernel[i] = fmin(fmax(x, -bound), bound);
    }
}
//< lecun-normal
