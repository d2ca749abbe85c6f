// adamw.c: AdamW as torch.optim.AdamW computes it. Legend in adamw.h.
#include "layers/adamw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "kernels/aligned.h"
#include "kernels/simd.h"

int adamw_init(adamw_state *s, size_t n, double weight_decay) {
    *s = (adamw_state){.b1 = 0.9, .b2 = 0.999, .eps = 1e-8, .weight_decay = weight_decay, .n = n};
    size_t k = n ? n : 1;
    s->m = ALIGNED_CALLOC(k, sizeof *s->m);
    s->v = ALIGNED_CALLOC(k, sizeof *s->v);
    s->decay = calloc(k, sizeof *s->decay);
    if (!s->m || !s->v || !s->decay) {
        adamw_free(s);
        return -1;
    }
    return 0;
}

void adamw_free(adamw_state *s) {
    free(s->m);
    free(s->v);
    free(s->decay);
    s->m = s->v = NULL;
    s->decay = NULL;
}

int adamw_decay(adamw_state *s, size_t from, size_t count) {
    if (from > s->n || count > s->n - from) return -1;
    for (size_t i = from; i < from + count; i++) s->decay[i] = 1;
    return 0;
}

void adamw_step(adamw_state *s, real *restrict params, const real *restrict grads, double lr) {
    s->t++;
    adamw_update(s, params, grads, lr, 0, s->n);
}

void adamw_update(const adamw_state *s, real *restrict params, const real *restrict grads,
                  double lr, size_t first, size_t last) {
    // The step's constants, in double as PyTorch's Python computes them,
    // then rounded to real: b1, b2, 1 - b1, 1 - b2, eps, the decay factor,
    // the step size lr / c1 with c1 = 1 - b1^t, and sqrt(c2) with
    // c2 = 1 - b2^t (the moments start at zero, and dividing by c1 and c2
    // undoes that bias of the first steps).
    const real b1 = (real)s->b1, b2 = (real)s->b2, eps = (real)s->eps;
    const real a1 = (real)(1 - s->b1), a2 = (real)(1 - s->b2);
    const real shrink = (real)(1 - lr * s->weight_decay);
    const real step = (real)(lr / (1 - pow(s->b1, (double)s->t)));
    const real root_c2 = (real)sqrt(1 - pow(s->b2, (double)s->t));
    real *restrict m = s->m, *restrict v = s->v;
    // a run of parameters all decayed or all not at a time (a tensor, or
    // several side by side): the vector kernel (simd_kernels.h, the same
    // bits), or the loop, the readable code
    for (size_t i = first, end; i < last; i = end) {
        const unsigned char *next = memchr(s->decay + i, !s->decay[i], last - i);
        end = next ? (size_t)(next - s->decay) : last;
        if (FAST_KERNEL(adamw_dense, params + i, grads + i, m + i, v + i, (long)(end - i),
                        s->decay[i] ? shrink : 1, b1, b2, a1, a2, eps, step, root_c2))
            continue;
        for (size_t j = i; j < end; j++) {
            real g = grads[j];
            if (s->decay[j]) params[j] *= shrink;  // decoupled weight decay
            m[j] = b1 * m[j] + a1 * g;              // running mean of g
            v[j] = b2 * v[j] + a2 * g * g;          // running mean of g^2
            params[j] -= step * m[j] / (sqrt(v[j]) / root_c2 + eps);
        }
    }
}
