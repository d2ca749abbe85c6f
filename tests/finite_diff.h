// finite_diff.h: the gradient suites' common ground (test_gradients.c,
// test_transformer_gradients.c), compiled with real = double: random and
// zero arrays, a layer's output weighed into a scalar, and an analytic
// gradient held to central differences.
// Include it after the library sources the suite compiles.
#ifndef ATTN_TESTS_FINITE_DIFF_H
#define ATTN_TESTS_FINITE_DIFF_H

#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

// Central differences use step H; a gradient passes when it is within
// ATOL + RTOL |fd| of the difference fd. A central difference of a double
// loss is accurate to about 1e-9 at this step.
#define H 1e-6
#define RTOL 1e-6
#define ATOL 1e-8

// x[i] uniform in [a, b), from PyTorch's generator g.
static void fill_uniform(torch_rng *g, double *x, size_t n, double a, double b) {
    for (size_t i = 0; i < n; i++) x[i] = a + (b - a) * (rng_next_u32(g) / 4294967296.0);
}

static double *new_random(torch_rng *g, size_t n, double a, double b) {
    double *x = malloc((n ? n : 1) * sizeof *x);
    ck_assert_ptr_nonnull(x);
    fill_uniform(g, x, n, a, b);
    return x;
}

static double *new_zeros(size_t n) {
    double *x = calloc(n ? n : 1, sizeof *x);
    ck_assert_ptr_nonnull(x);
    return x;
}

// sum_i out[i] r[i]: a layer's output turned into a scalar loss by a fixed
// random r, whose gradient with respect to out is r, so that backward(dout
// = r) must give the derivatives of this sum.
static double weighted_sum(const double *out, const double *r, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += out[i] * r[i];
    return s;
}

// Compares the analytic gradient grad (n) of f at x with central
// differences; f reads x through ctx. Fails the test at the first element
// out of tolerance; returns the largest error seen.
typedef double (*loss_fn)(void *ctx);
static double check_gradient(const char *what, double *x, const double *grad, size_t n, loss_fn f,
                             void *ctx) {
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double keep = x[i];
        x[i] = keep + H;
        double up = f(ctx);
        x[i] = keep - H;
        double down = f(ctx);
        x[i] = keep;
        double fd = (up - down) / (2 * H), err = fabs(fd - grad[i]);
        ck_assert_msg(err <= ATOL + RTOL * fabs(fd),
                      "%s[%zu]: backward %.12g, finite difference %.12g", what, i, grad[i], fd);
        if (err > worst) worst = err;
    }
    return worst;
}

#endif
