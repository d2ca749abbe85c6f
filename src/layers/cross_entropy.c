// cross_entropy.c: the softmax cross-entropy over a vocabulary with padding
// left out, and its gradient. See cross_entropy.h.
#include "layers/cross_entropy.h"

#include <math.h>
#include <tgmath.h>

#include "layers/softmax.h"

// The positions counted: those whose target is not ignore.
static int counted(const int32_t *y, int N, int32_t ignore) {
    int c = 0;
    for (int r = 0; r < N; r++) c += y[r] != ignore;
    return c;
}

double cross_entropy_row(const real *z, int32_t y, int V, double *lse) {
    *lse = log_sum_exp(z, V);
    return *lse - z[y];
}

void cross_entropy_row_backward(real *dz, const real *z, int32_t y, int V, double lse, int C) {
    for (int v = 0; v < V; v++) dz[v] += (real)((exp(z[v] - lse) - (v == y)) / C);
}

real cross_entropy_forward(const real *z, const int32_t *y, int N, int V, int32_t ignore) {
    double sum = 0, lse;
    for (int r = 0; r < N; r++)
        if (y[r] != ignore) sum += cross_entropy_row(z + (long)r * V, y[r], V, &lse);
    return (real)(sum / counted(y, N, ignore));
}

void cross_entropy_backward(real *dz, const real *z, const int32_t *y, int N, int V,
                            int32_t ignore) {
    int C = counted(y, N, ignore);
    for (int r = 0; r < N; r++) {
        if (y[r] == ignore) continue;
        const real *zr = z + (long)r * V;
        cross_entropy_row_backward(dz + (long)r * V, zr, y[r], V, log_sum_exp(zr, V), C);
    }
}
