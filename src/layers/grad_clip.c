// grad_clip.c: clipping the gradients' L2 norm. See grad_clip.h.
#include "layers/grad_clip.h"

#include <math.h>

double grad_norm(const real *grads, size_t n) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += (double)grads[i] * (double)grads[i];
    return sqrt(sum);
}

double grad_clip(real *grads, size_t n, double max_norm) {
    double norm = grad_norm(grads, n);
    double coeff = max_norm / (norm + 1e-6);
    if (coeff < 1)
        for (size_t i = 0; i < n; i++) grads[i] *= (real)coeff;
    return norm;
}
