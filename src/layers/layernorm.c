// layernorm.c: layer normalisation, forward and backward. Dimension legend
// in layernorm.h.
#include "layers/layernorm.h"

#include <math.h>
#include <tgmath.h>

#include "kernels/simd.h"

// The sum of the d numbers of x, in 16 interleaved partial sums: additions
// that do not wait for each other (and that the compiler makes vectors of),
// where a single running sum would make each wait for the one before.
static real row_sum(const real *x, int d) {
    real part[16] = {0}, sum = 0;
    int j = 0;
    for (; j + 16 <= d; j += 16)
        for (int k = 0; k < 16; k++) part[k] += x[j + k];
    for (; j < d; j++) sum += x[j];
    for (int k = 0; k < 16; k++) sum += part[k];
    return sum;
}

// The same for the squares of x - mu.
static real row_squares(const real *x, real mu, int d) {
    real part[16] = {0}, sum = 0;
    int j = 0;
    for (; j + 16 <= d; j += 16)
        for (int k = 0; k < 16; k++) part[k] += (x[j + k] - mu) * (x[j + k] - mu);
    for (; j < d; j++) sum += (x[j] - mu) * (x[j] - mu);
    for (int k = 0; k < 16; k++) sum += part[k];
    return sum;
}

//> layernorm
// x and out are (N, d); gain and bias are (d) or NULL; mean and rstd (N)
// or NULL. The loops are the readable code; the layer_norm_rows kernel
// (simd_kernels.h) the fast one, with the same bits.
void layernorm_forward(real *out, real *mean, real *rstd, const real *inp, const real *gain,
                       const real *bias, int n, int d) {
    if (gain && bias && mean && rstd &&
        FAST_KERNEL(layer_norm_rows, out, mean, rstd, inp, gain, bias, n, d,
                    (real)LAYERNORM_EPS))
        return;
    for (int r = 0; r < n; r++) {
        const real *x = inp + (long)r * d;
        real *y = out + (long)r * d;
        // the row's mean, then the mean square distance from it
        real mu = row_sum(x, d) / d, var = row_squares(x, mu, d) / d;
        // centre, scale to unit variance, then the learned gain and bias
        real s = 1 / sqrt(var + (real)LAYERNORM_EPS);
        for (int j = 0; j < d; j++)
            y[j] = gain ? (x[j] - mu) * s * gain[j] + bias[j] : (x[j] - mu) * s;
        if (mean) mean[r] = mu;
        if (rstd) rstd[r] = s;
    }
}
//< layernorm

//> layernorm-backward
// With xhat = (x - mean) rstd and g = dout * gain, the gradient of the
// loss with respect to x is rstd (g - mean(g) - xhat mean(g xhat)): the
// first term moves x directly, the other two remove what moving x does to
// the row's mean and to its spread.
void layernorm_backward(real *dinp, real *dgain, real *dbias, const real *dout,
                        const real *inp, const real *mean, const real *rstd, const real *gain,
                        int n, int d) {
    // the kernel (simd_kernels.h) with the same bits, or these loops
    if (FAST_KERNEL(layer_norm_backward_rows, dinp, dgain, dbias, dout, inp, mean, rstd, gain,
                    n, d))
        return;
    for (int r = 0; r < n; r++) {
        const real *x = inp + (long)r * d, *dy = dout + (long)r * d;
        real g_mean = 0, gx_mean = 0;  // mean(g), mean(g xhat)
        for (int j = 0; j < d; j++) {
            real xhat = (x[j] - mean[r]) * rstd[r], g = dy[j] * gain[j];
            g_mean += g;
            gx_mean += g * xhat;
            if (dgain) dgain[j] += dy[j] * xhat;
            if (dbias) dbias[j] += dy[j];
        }
        g_mean /= d;
        gx_mean /= d;
        if (!dinp) continue;
        real *dx = dinp + (long)r * d;
        for (int j = 0; j < d; j++) {
            real xhat = (x[j] - mean[r]) * rstd[r];
            dx[j] += rstd[r] * (dy[j] * gain[j] - g_mean - xhat * gx_mean);
        }
    }
}
//< layernorm-backward

void layernorm_init(real *gain, real *bias, int d) {
    for (int j = 0; j < d; j++) {
        gain[j] = 1;
        bias[j] = 0;
    }
}
