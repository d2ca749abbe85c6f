// grad_clip.c: clipping the gradients' L2 norm. See grad_clip.h.
#include "layers/grad_clip.h"

#include <math.h>

// The squares are added into LANES sums, gradient i into sum i % LANES, and
// those sums then in order: the same number on every machine and with any
// threads, and LANES chains of additions in flight instead of one (a single
// running sum waits for each addition before the next can start).
enum { LANES = 8 };

double grad_norm(const real *grads, size_t n) {
    double sums[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int k = 0; k < LANES; k++) sums[k] += (double)grads[i + k] * (double)grads[i + k];
    for (int k = 0; i < n; i++, k++) sums[k] += (double)grads[i] * (double)grads[i];
    double sum = 0;
    for (int k = 0; k < LANES; k++) sum += sums[k];
    return sqrt(sum);
}

double grad_clip(real *grads, size_t n, double max_norm) {
    double norm = grad_norm(grads, n);
    double coeff = max_norm / (norm + 1e-6);
    if (coeff < 1)
        for (size_t i = 0; i < n; i++) grads[i] *= (real)coeff;
    return norm;
}
