// grad_clip.c: clipping the gradients' L2 norm. See grad_clip.h.
#include "layers/grad_clip.h"

#include <math.h>

// A part's squares are added into LANES sums, gradient i into sum i %
// LANES, and those sums then in order: LANES chains of additions in flight
// instead of one (a single running sum waits for each addition before the
// next can start).
enum { LANES = 8 };

size_t grad_part_start(size_t n, int j) {
    return j >= GRAD_PARTS ? n : n / LANES * (size_t)j / GRAD_PARTS * LANES;
}

double grad_part_squares(const real *grads, size_t n, int j) {
    double sums[LANES] = {0};
    size_t i = grad_part_start(n, j), end = grad_part_start(n, j + 1);
    for (; i + LANES <= end; i += LANES)
        for (int k = 0; k < LANES; k++) sums[k] += (double)grads[i + k] * (double)grads[i + k];
    for (int k = 0; i < end; i++, k++) sums[k] += (double)grads[i] * (double)grads[i];
    double sum = 0;
    for (int k = 0; k < LANES; k++) sum += sums[k];
    return sum;
}

double grad_norm(const real *grads, size_t n) {
    double sum = 0;
    for (int j = 0; j < GRAD_PARTS; j++) sum += grad_part_squares(grads, n, j);
    return sqrt(sum);
}

double grad_clip_factor(double norm, double max_norm) { return max_norm / (norm + 1e-6); }

double grad_clip(real *grads, size_t n, double max_norm) {
    double norm = grad_norm(grads, n);
    double coeff = grad_clip_factor(norm, max_norm);
    if (coeff < 1)
        for (size_t i = 0; i < n; i++) grads[i] *= (real)coeff;
    return norm;
}
