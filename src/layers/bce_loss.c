// bce_loss.c: the sigmoid binary cross-entropy and its gradient. See
// bce_loss.h.
#include "layers/bce_loss.h"

#include <math.h>
#include <tgmath.h>

//> bce
real bce_forward(const real *z, const int32_t *y, int B) {
    // log(1 + e^z) - z y, written so that exp never sees a large positive
    // number: for z > 0, log(1 + e^z) = z + log(1 + e^-z).
    double sum = 0;
    for (int b = 0; b < B; b++)
        sum += fmax(z[b], 0) - z[b] * y[b] + log1p(exp(-fabs(z[b])));
    return (real)(sum / B);
}

void bce_backward(real *dz, const real *z, const int32_t *y, int B) {
    for (int b = 0; b < B; b++) {
        real p = 1 / (1 + exp(-z[b]));  // sigmoid(z): the predicted P(y = 1)
        dz[b] += (p - y[b]) / B;
    }
}
//< bce
