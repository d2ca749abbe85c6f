// linear.c: the fully connected layer, forward and backward, and flax's
// lecun_normal for its kernel. Dimension legend in linear.h. The bias loop
// of add_column_sums_to is the readable code; the kernel FAST_KERNEL names
// (simd_kernels.h) the fast one, same bits.
#include "layers/linear.h"

#include <math.h>
#include <stdlib.h>
#include <tgmath.h>

#include "kernels/gemm.h"
#include "kernels/simd.h"

// out is (N, out), inp is (N, in); weight is (out, in) or (in, out) as
// layout says; bias is (out) or NULL.
void linear_forward(real *out, const real *inp, const real *weight, const real *bias, int n,
                    int in, int out_width, weight_layout layout) {
    // every row starts as the bias (or 0), plus inp weight^T, or inp weight
    gemm_from(out, bias, inp, weight, n, in, out_width,
              layout == WEIGHT_OUT_IN ? GEMM_ABT : GEMM_AB);
}

// dbias[j] += the sum over the n rows of dout[t][j]: the add_column_sums
// kernel (simd_kernels.h), a vector at a time, or the loop; the same bits.
static void add_column_sums_to(real *dbias, const real *dout, int n, int out_width) {
    if (!FAST_KERNEL(add_column_sums, dbias, dout, n, out_width))
        for (int t = 0; t < n; t++)
            for (int j = 0; j < out_width; j++) dbias[j] += dout[(long)t * out_width + j];
}

//> linear-backward
void linear_backward(real *dinp, real *dweight, real *dbias, const real *dout, const real *inp,
                     const real *weight, int n, int in, int out_width, weight_layout layout) {
    if (layout == WEIGHT_OUT_IN) {
        if (dinp) gemm(dinp, dout, weight, n, out_width, in, GEMM_AB);         // (N, in)
        if (dweight) gemm(dweight, dout, inp, out_width, n, in, GEMM_ATB);     // (out, in)
    } else {
        if (dinp) gemm(dinp, dout, weight, n, out_width, in, GEMM_ABT);        // (N, in)
        if (dweight) gemm(dweight, inp, dout, in, n, out_width, GEMM_ATB);     // (in, out)
    }
    if (dbias) add_column_sums_to(dbias, dout, n, out_width);  // (out): dout summed over rows
}
//< linear-backward

void linear_backward_write(real *dinp, real *dweight, real *dbias, const real *dout,
                           const real *inp, const real *weight, int n, int in, int out_width,
                           weight_layout layout) {
    gemm_from(dinp, NULL, dout, weight, n, out_width, in,
              layout == WEIGHT_OUT_IN ? GEMM_AB : GEMM_ABT);
    linear_backward(NULL, dweight, dbias, dout, inp, weight, n, in, out_width, layout);
}
int linear_init(torch_rng *g, real *weight, real *bias, int in, int out_width) {
#ifdef ATTN_REAL_IS_FLOAT
    rng_linear_init(g, weight, bias, in, out_width);
#else  // the generator gives floats
    size_t nw = (size_t)out_width * in, nb = bias ? (size_t)out_width : 0;
    float *tmp = malloc((nw + nb) * sizeof *tmp);
    if (!tmp) return -1;
    rng_linear_init(g, tmp, bias ? tmp + nw : NULL, in, out_width);
    for (size_t e = 0; e < nw; e++) weight[e] = tmp[e];
    for (size_t e = 0; e < nb; e++) bias[e] = tmp[nw + e];
    free(tmp);
#endif
    return 0;
}

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
void linear_init_lecun_normal(torch_rng *g, real *kernel, int in, int out_width) {
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
