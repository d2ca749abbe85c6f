// gelu.c: GELU with the tanh approximation, written with the sigmoid it
// equals, forward and backward. The formulas are in gelu.h.
#include "layers/gelu.h"

#include "kernels/simd.h"

#include <math.h>
#include <tgmath.h>

// sqrt(2 / pi), and the cubic term's weight.
#define GELU_SCALE 0.7978845608028654
#define GELU_CUBIC 0.044715

// s = 0.5 (1 + tanh(u)) = 1 / (1 + exp(-2u)), u = sqrt(2 / pi) (x + 0.044715 x^3),
// and 1 - s = 1 / (1 + exp(2u)) into *rest, both without cancellation: with
// e = exp(-2|u|), at most 1 (so that it cannot overflow), the larger of the
// two is 1 / (1 + e) and the smaller e / (1 + e).
static inline real gelu_sigmoid(real x, real *rest) {
    real u = (real)GELU_SCALE * (x + (real)GELU_CUBIC * x * x * x);
    real e = exp(-2 * fabs(u)), larger = 1 / (1 + e), smaller = e * larger;
    *rest = u >= 0 ? smaller : larger;
    return u >= 0 ? larger : smaller;
}

void gelu_forward(real *out, const real *inp, size_t n) {
    if (FAST_KERNEL(gelu_forward, out, NULL, inp, (long)n)) return;  // the same, a vector at a time
    for (size_t i = 0; i < n; i++) {
        real rest;
        out[i] = inp[i] * gelu_sigmoid(inp[i], &rest);
    }
}

// gelu'(x) = s + 2 x s (1 - s) du/dx.
static inline real gelu_slope(real x) {
    real rest, s = gelu_sigmoid(x, &rest);  // rest = 1 - s
    real du_dx = (real)GELU_SCALE * (1 + 3 * (real)GELU_CUBIC * x * x);
    return s + 2 * x * s * rest * du_dx;
}

void gelu_forward_slope(real *out, real *slope, const real *inp, size_t n) {
    if (FAST_KERNEL(gelu_forward, out, slope, inp, (long)n)) return;
    for (size_t i = 0; i < n; i++) {
        real x = inp[i], rest;
        out[i] = x * gelu_sigmoid(x, &rest);
        slope[i] = gelu_slope(x);
    }
}

void gelu_backward(real *dinp, const real *dout, const real *inp, size_t n) {
    if (FAST_KERNEL(gelu_backward, dinp, dout, inp, (long)n, 1)) return;
    for (size_t i = 0; i < n; i++) dinp[i] += dout[i] * gelu_slope(inp[i]);
}

void gelu_backward_write(real *dinp, const real *dout, const real *inp, size_t n) {
    if (FAST_KERNEL(gelu_backward, dinp, dout, inp, (long)n, 0)) return;  // dinp not read
    for (size_t i = 0; i < n; i++) dinp[i] = 0 + dout[i] * gelu_slope(inp[i]);  // as from 0
}

void gelu_backward_slope(real *dinp, const real *dout, const real *slope, size_t n) {
    if (FAST_KERNEL(gelu_backward_slope, dinp, dout, slope, (long)n)) return;
    for (size_t i = 0; i < n; i++) dinp[i] = 0 + dout[i] * slope[i];  // as from 0
}
