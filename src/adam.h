// adam.h: the Adam optimiser with optax's defaults.
//
//   n   parameters, one flat array (a model keeps all of its parameters in
//       one block, so one loop updates them all)
//
// optax.adam(lr) is scale_by_adam(b1 = 0.9, b2 = 0.999, eps = 1e-8) then
// a step of -lr. It updates every parameter at every step, including the
// embedding rows that the batch did not use (their gradient is zero, but
// their moments still decay and keep moving them).
#ifndef ATTN_ADAM_H
#define ATTN_ADAM_H

#include <stddef.h>

#include "real.h"

typedef struct {
    double lr, b1, b2, eps;
    long t;       // steps taken
    size_t n;
    real *m, *v;  // (n) first and second moments, zero at the start
} adam_state;

// Defaults b1 0.9, b2 0.999, eps 1e-8, moments zero. Returns 0, or -1 when
// out of memory.
int adam_init(adam_state *s, size_t n, double lr);
void adam_free(adam_state *s);

// One step: params (n) -= lr * mhat / (sqrt(vhat) + eps), from grads (n).
void adam_step(adam_state *s, real *restrict params, const real *restrict grads);

#endif
