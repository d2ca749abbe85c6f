// adam.c: Adam as optax computes it. Legend in adam.h.
#include "layers/adam.h"

#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "kernels/simd.h"

// n zeros, written now: calloc leaves a large block's pages unmapped until
// they are first written, and a lazy table's rows are first written one by
// one, by whichever training step first uses each word (a page fault
// there); here they are all mapped before training starts.
static real *zeros(size_t n) {
    real *x = malloc((n ? n : 1) * sizeof *x);
    if (x) memset(x, 0, (n ? n : 1) * sizeof *x);
    return x;
}

int adam_init(adam_state *s, size_t n, double lr) {
    *s = (adam_state){.lr = lr, .b1 = 0.9, .b2 = 0.999, .eps = 1e-8, .n = n, .from = n};
    s->m = zeros(n);
    s->v = zeros(n);
    if (!s->m || !s->v) {
        adam_free(s);
        return -1;
    }
    return 0;
}

void adam_free(adam_state *s) {
    free(s->m);
    free(s->v);
    free(s->row_last_step);
    free(s->grad_waiting);
    free(s->step_at);
    free(s->inv_root_c2_at);
    s->m = s->v = s->step_at = s->inv_root_c2_at = NULL;
    s->row_last_step = NULL;
    s->grad_waiting = NULL;
}

//> adam
void adam_step(adam_state *s, real *restrict params, const real *restrict grads) {
    s->t++;
    real b1 = (real)s->b1, b2 = (real)s->b2, eps = (real)s->eps;
    // The moments start at zero, and so are too small in the first steps;
    // dividing them by c1 = 1 - b1^t and c2 = 1 - b2^t removes that bias.
    // Both divisions are folded into per-step constants:
    // mhat / (sqrt(vhat) + eps) = (m / c1) / (sqrt(v) (1 / sqrt(c2)) + eps).
    real step = (real)(s->lr / (1 - pow(s->b1, (double)s->t)));
    real inv_root_c2 = (real)(1 / sqrt(1 - pow(s->b2, (double)s->t)));
    real *restrict m = s->m, *restrict v = s->v;
    for (size_t i = 0; i < s->n; i++) {
        real g = grads[i];
        m[i] = b1 * m[i] + (1 - b1) * g;      // running mean of g
        v[i] = b2 * v[i] + (1 - b2) * g * g;  // running mean of g^2
        params[i] -= step * m[i] / (sqrt(v[i]) * inv_root_c2 + eps);
    }
}
//< adam

int adam_lazy_rows(adam_state *s, int rows, int width) {
    size_t size = (size_t)rows * width;
    if (rows <= 0 || width <= 0 || size > s->n || s->t != 0) return -1;
    s->row_last_step = calloc((size_t)rows, sizeof *s->row_last_step);
    s->grad_waiting = calloc((size_t)rows, sizeof *s->grad_waiting);
    s->step_at = calloc(ADAM_LAZY_STEPS + 1, sizeof *s->step_at);
    s->inv_root_c2_at = calloc(ADAM_LAZY_STEPS + 1, sizeof *s->inv_root_c2_at);
    if (!s->row_last_step || !s->grad_waiting || !s->step_at || !s->inv_root_c2_at) return -1;
    s->from = s->n - size;
    s->rows = rows;
    s->width = width;
    return 0;
}

// One step with a gradient for n parameters, given the step's constants:
// the loop below is adam_step's, the readable one; the adam_dense kernel
// (simd_kernels.h) is the fast one, with the same bits.
static void gradient_step(simd_level level, real *p, const real *g, real *m, real *v, size_t n,
                          real b1, real b2, real eps, real step, real inv_root_c2) {
#ifdef ATTN_REAL_IS_FLOAT
    if (SIMD_RUN(level, adam_dense, p, g, m, v, (long)n, b1, b2, eps, step, inv_root_c2)) return;
#endif
    (void)level;
    for (size_t i = 0; i < n; i++) {
        m[i] = b1 * m[i] + (1 - b1) * g[i];
        v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
        p[i] -= step * m[i] / (sqrt(v[i]) * inv_root_c2 + eps);
    }
}

//> adam-catch-up
// Steps t0 + 1 .. t1 of adam_step for n parameters whose gradient was zero
// in all of them: m = b1 m + (1 - b1) 0 is b1 m, and so on, with step t's
// own constants. The steps of one parameter must be taken in order, but
// they need nothing from memory but the parameter and its moments.
// The loops below are the readable reference, the adam_missed_steps
// kernel (simd_kernels.h) the fast one.
static void missed_steps(simd_level level, const adam_state *s, real *p, real *m, real *v,
                         size_t n, long t0, long t1) {
    real b1 = (real)s->b1, b2 = (real)s->b2, eps = (real)s->eps;
    // the table holds step settled_step + j's constants at [j]: steps[t] and
    // inv_roots[t] are step t's
    const real *steps = s->step_at - s->settled_step;
    const real *inv_roots = s->inv_root_c2_at - s->settled_step;
#ifdef ATTN_REAL_IS_FLOAT
    if (SIMD_RUN(level, adam_missed_steps, p, m, v, (long)n, steps, inv_roots, t0, t1, b1, b2,
                 eps))
        return;
#endif
    (void)level;
    for (size_t i = 0; i < n; i++)
        for (long t = t0 + 1; t <= t1; t++) {
            m[i] = b1 * m[i];
            v[i] = b2 * v[i];
            p[i] -= steps[t] * m[i] / (sqrt(v[i]) * inv_roots[t] + eps);
        }
}

// Row r of the table brought up to step t: first the step whose gradient
// the table holds for it, if any (then the gradient row is cleared), then
// the steps it sat out.
static void catch_up_row(simd_level level, adam_state *s, real *params, real *grads, int r,
                         long t) {
    size_t at = s->from + (size_t)r * s->width, w = (size_t)s->width;
    if (s->grad_waiting[r]) {
        long u = ++s->row_last_step[r] - s->settled_step;  // the step of that gradient
        gradient_step(level, params + at, grads + at, s->m + at, s->v + at, w, (real)s->b1,
                      (real)s->b2, (real)s->eps, s->step_at[u], s->inv_root_c2_at[u]);
        memset(grads + at, 0, w * sizeof *grads);
        s->grad_waiting[r] = 0;
    }
    if (s->row_last_step[r] < t)
        missed_steps(level, s, params + at, s->m + at, s->v + at, w, s->row_last_step[r], t);
    s->row_last_step[r] = t;
}
//< adam-catch-up

// Asks the cache for row r of params, grads, m and v ahead of its use: the
// rows of a batch are scattered over the table, so the processor cannot
// guess them, and each would otherwise cost a wait for memory.
static void prefetch_row(const adam_state *s, const real *params, const real *grads, int r) {
#ifdef __GNUC__
    size_t at = s->from + (size_t)r * s->width, bytes = (size_t)s->width * sizeof(real);
    const real *arrays[] = {params + at, grads + at, s->m + at, s->v + at};
    for (int a = 0; a < 4; a++)
        for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch((const char *)arrays[a] + b);
#else
    (void)s, (void)params, (void)grads, (void)r;
#endif
}

// Rows a loop asks for ahead of the one it works on.
#define PREFETCH_AHEAD 4

// Rows listed (all when rows is NULL) up to step t.
static void catch_up_rows(adam_state *s, real *params, real *grads, const int32_t *rows, int nrows, long t) {
    if (s->width == 0) return;
    simd_level level = simd_best();
    int n = rows ? nrows : s->rows;
    for (int i = 0; i < n; i++) {
        if (rows && i + PREFETCH_AHEAD < n) prefetch_row(s, params, grads, rows[i + PREFETCH_AHEAD]);
        catch_up_row(level, s, params, grads, rows ? rows[i] : i, t);
    }
}

void adam_catch_up(adam_state *s, real *params, real *grads, const int32_t *rows, int nrows) {
    catch_up_rows(s, params, grads, rows, nrows, s->t);
}

void adam_step_rows(adam_state *s, real *params, real *grads, const int32_t *rows, int nrows) {
    s->t++;
    if (s->width && s->t - s->settled_step > ADAM_LAZY_STEPS) {
        // no room for this step's constants: settle what every row owes,
        // then the constants of the steps before are no longer needed
        catch_up_rows(s, params, grads, NULL, 0, s->t - 1);
        s->settled_step = s->t - 1;
    }
    real b1 = (real)s->b1, b2 = (real)s->b2, eps = (real)s->eps;
    real step = (real)(s->lr / (1 - pow(s->b1, (double)s->t)));  // as adam_step computes them
    real inv_root_c2 = (real)(1 / sqrt(1 - pow(s->b2, (double)s->t)));
    gradient_step(simd_best(), params, grads, s->m, s->v, s->from, b1, b2, eps, step, inv_root_c2);
    if (s->width == 0) return;
    s->step_at[s->t - s->settled_step] = step;
    s->inv_root_c2_at[s->t - s->settled_step] = inv_root_c2;
    // the rows listed: their gradient stays in grads until they are next
    // caught up, so that their parameters and moments are read and written
    // once, not twice, each time a batch uses them
    for (int i = 0; i < nrows; i++) s->grad_waiting[rows[i]] = 1;
}
