// cross_entropy.c: the softmax cross-entropy over a vocabulary with padding
// left out, and its gradient. See cross_entropy.h.
#include "layers/cross_entropy.h"

#include <math.h>
#include <tgmath.h>

#include "kernels/simd.h"
#include "layers/softmax.h"

// The positions counted: those whose target is not ignore.
static int counted(const int32_t *y, int N, int32_t ignore) {
    int c = 0;
    for (int r = 0; r < N; r++) c += y[r] != ignore;
    return c;
}

// One position's loss, with its log-sum-exp in *lse; its gradient added.
static double row_loss(const real *z, int32_t y, int V, double *lse) {
    *lse = log_sum_exp(z, V);
    return *lse - z[y];
}

static void row_backward(real *dz, const real *z, int32_t y, int V, double lse, int C) {
    for (int v = 0; v < V; v++) dz[v] += (real)((exp(z[v] - lse) - (v == y)) / C);
}

void cross_entropy_rows(double *loss, double *lse, const real *z, const int32_t *y, int rows,
                        int V) {
    if (FAST_KERNEL(cross_entropy_rows, loss, lse, z, y, rows, V)) return;
    for (int r = 0; r < rows; r++) loss[r] = row_loss(z + (long)r * V, y[r], V, &lse[r]);
}

void cross_entropy_rows_backward(real *dz, const real *z, const int32_t *y, const double *lse,
                                 int rows, int V, int C) {
    if (FAST_KERNEL(cross_entropy_rows_backward, dz, z, y, lse, rows, V, C)) return;
    for (int r = 0; r < rows; r++) {
        real *row = dz + (long)r * V;
        for (int v = 0; v < V; v++) row[v] = 0;
        row_backward(row, z + (long)r * V, y[r], V, lse[r], C);  // as into a cleared row
    }
}

real cross_entropy_forward(const real *z, const int32_t *y, int N, int V, int32_t ignore) {
    double sum = 0, lse;
    for (int r = 0; r < N; r++)
        if (y[r] != ignore) sum += row_loss(z + (long)r * V, y[r], V, &lse);
    return (real)(sum / counted(y, N, ignore));
}

void cross_entropy_backward(real *dz, const real *z, const int32_t *y, int N, int V,
                            int32_t ignore) {
    int C = counted(y, N, ignore);
    for (int r = 0; r < N; r++) {
        if (y[r] == ignore) continue;
        const real *zr = z + (long)r * V;
        row_backward(dz + (long)r * V, zr, y[r], V, log_sum_exp(zr, V), C);
    }
}
