// gelu.c: GELU with the tanh approximation, forward and backward. The
// formulas are in gelu.h.
#include "layers/gelu.h"

#include <math.h>
#include <tgmath.h>

// sqrt(2 / pi), and the cubic term's weight.
#define GELU_SCALE 0.7978845608028654
#define GELU_CUBIC 0.044715

//> gelu
void gelu_forward(real *out, const real *inp, size_t n) {
    const real scale = (real)GELU_SCALE, cubic = (real)GELU_CUBIC;
    for (size_t i = 0; i < n; i++) {
        real x = inp[i];
        real u = scale * (x + cubic * x * x * x);
        out[i] = (real)0.5 * x * (1 + tanh(u));
    }
}

void gelu_backward(real *dinp, const real *dout, const real *inp, size_t n) {
    const real scale = (real)GELU_SCALE, cubic = (real)GELU_CUBIC;
    for (size_t i = 0; i < n; i++) {
        real x = inp[i];
        real t = tanh(scale * (x + cubic * x * x * x));
        // d/dx of 0.5 x: 0.5 (1 + t); of 1 + t: (1 - t^2) du/dx
        real du_dx = scale * (1 + 3 * cubic * x * x);
        real grad = (real)0.5 * (1 + t) + (real)0.5 * x * (1 - t * t) * du_dx;
        dinp[i] += dout[i] * grad;
    }
}
//< gelu
