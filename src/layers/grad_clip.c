// grad_clip.c: clipping the gradients' L2 norm. See grad_clip.h.
#include "layers/grad_clip.h"

#include <math.h>

#include "kernels/parallel.h"

// The squares are added into LANES sums, gradient i into sum i % LANES, a
// slice of the array at a time: SLICES slices, each a whole number of
// LANES, their sums then added slice after slice, and the LANES totals in
// order. The slices are fixed, so the number is the same on every machine
// and with any threads (which share the slices of a large array); and
// LANES chains of additions are in flight instead of one (a single running
// sum waits for each addition before the next can start).
enum { LANES = 8, SLICES = 16 };

// Arrays this long or longer are shared among the threads.
#define SHARED_FROM 65536

// Where slice j of the n numbers starts (j = SLICES: n).
static size_t slice_start(size_t n, int j) {
    return j == SLICES ? n : n / LANES * j / SLICES * LANES;
}

double grad_norm(const real *grads, size_t n) {
    double sums[SLICES][LANES] = {{0}};
    PARALLEL_FOR(n >= SHARED_FROM)
    for (int j = 0; j < SLICES; j++) {
        double part[LANES] = {0};
        size_t i = slice_start(n, j), end = slice_start(n, j + 1);
        for (; i + LANES <= end; i += LANES)
            for (int k = 0; k < LANES; k++) part[k] += (double)grads[i + k] * (double)grads[i + k];
        for (int k = 0; i < end; i++, k++) part[k] += (double)grads[i] * (double)grads[i];
        for (int k = 0; k < LANES; k++) sums[j][k] = part[k];
    }
    double lanes[LANES] = {0}, sum = 0;
    for (int j = 0; j < SLICES; j++)
        for (int k = 0; k < LANES; k++) lanes[k] += sums[j][k];
    for (int k = 0; k < LANES; k++) sum += lanes[k];
    return sqrt(sum);
}

double grad_clip(real *grads, size_t n, double max_norm) {
    double norm = grad_norm(grads, n);
    double coeff = max_norm / (norm + 1e-6);
    if (coeff < 1) {
        PARALLEL_FOR(n >= SHARED_FROM)
        for (int j = 0; j < SLICES; j++)
            for (size_t i = slice_start(n, j); i < slice_start(n, j + 1); i++)
                grads[i] *= (real)coeff;
    }
    return norm;
}
