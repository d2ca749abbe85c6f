// adam.c: Adam as optax computes it. Legend in adam.h.
#include "adam.h"

#include <stdlib.h>
#include <tgmath.h>

int adam_init(adam_state *s, size_t n, double lr) {
    *s = (adam_state){.lr = lr, .b1 = 0.9, .b2 = 0.999, .eps = 1e-8, .n = n};
    s->m = calloc(n ? n : 1, sizeof *s->m);
    s->v = calloc(n ? n : 1, sizeof *s->v);
    if (!s->m || !s->v) {
        adam_free(s);
        return -1;
    }
    return 0;
}

void adam_free(adam_state *s) {
    free(s->m);
    free(s->v);
    s->m = s->v = NULL;
}

//> adam
void adam_step(adam_state *s, real *restrict params, const real *restrict grads) {
    s->t++;
    real b1 = (real)s->b1, b2 = (real)s->b2, eps = (real)s->eps;
    // The moments start at zero, and so are too small in the first steps;
    // dividing them by 1 - b^t removes that bias. Both divisions are folded
    // into the constants: mhat / (sqrt(vhat) + eps) = (m / c1) / (sqrt(v) / sqrt(c2) + eps).
    real step = (real)(s->lr / (1 - pow(s->b1, (double)s->t)));
    real root_c2 = (real)sqrt(1 - pow(s->b2, (double)s->t));
    real *restrict m = s->m, *restrict v = s->v;
    for (size_t i = 0; i < s->n; i++) {
        real g = grads[i];
        m[i] = b1 * m[i] + (1 - b1) * g;      // running mean of g
        v[i] = b2 * v[i] + (1 - b2) * g * g;  // running mean of g^2
        params[i] -= step * m[i] / (sqrt(v[i]) / root_c2 + eps);
    }
}
//< adam
