// grad_clip.c: clipping the gradients' L2 norm. See grad_clip.h.
#include "layers/grad_clip.h"

#include <math.h>

#include "kernels/parallel.h"

double grad_norm(const real *grads, size_t n) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += (double)grads[i] * (double)grads[i];
    return sqrt(sum);
}

double grad_clip(real *grads, size_t n, double max_norm) {
    double norm = grad_norm(grads, n);
    double coeff = max_norm / (norm + 1e-6);
    enum { SLICES = 16 };  // the threads share slices of the scaling
    PARALLEL_FOR(coeff < 1 && n >= 65536)
    for (int k = 0; k < SLICES; k++)
        for (size_t i = n * k / SLICES; coeff < 1 && i < n * (k + 1) / SLICES; i++)
            grads[i] *= (real)coeff;
    return norm;
}
