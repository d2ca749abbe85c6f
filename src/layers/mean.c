// mean.c: the mean over each chunk's positions, forward and backward.
// Dimension legend in mean.h. The loops are the readable code; the kernels
// FAST_KERNEL names (simd_kernels.h) the fast ones, same bits.
#include "layers/mean.h"

#include "kernels/simd.h"

//> mean
// The readable loops: mean_forward and mean_backward below run them, or the
// mean_rows kernels (simd_kernels.h), which give the same bits.
static void mean_forward_loops(real *out, const real *inp, int B, int L, int d) {
    for (int b = 0; b < B; b++) {
        real *o = out + (long)b * d;
        for (int i = 0; i < d; i++) o[i] = 0;
        for (int t = 0; t < L; t++)
            for (int i = 0; i < d; i++) o[i] += inp[((long)b * L + t) * d + i];
        for (int i = 0; i < d; i++) o[i] /= L;
    }
}

static void mean_backward_loops(real *dinp, const real *dout, int B, int L, int d) {
    for (int b = 0; b < B; b++)
        for (int t = 0; t < L; t++)
            for (int i = 0; i < d; i++)
                dinp[((long)b * L + t) * d + i] += dout[(long)b * d + i] / L;
}
//< mean

void mean_forward(real *out, const real *inp, int B, int L, int d) {
    if (!FAST_KERNEL(mean_rows, out, inp, B, L, d)) mean_forward_loops(out, inp, B, L, d);
}

void mean_backward(real *dinp, const real *dout, int B, int L, int d) {
    if (!FAST_KERNEL(mean_backward_rows, dinp, dout, B, L, d))
        mean_backward_loops(dinp, dout, B, L, d);
}
