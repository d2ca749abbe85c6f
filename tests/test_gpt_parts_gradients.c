// test_gpt_parts_gradients.c: GELU's backward pass (src/layers/gelu.c)
// against finite differences of its forward pass, in double: the same
// source compiled with real = double, as test_gradients.c does for the
// other layers (a central difference of a float function is mostly
// rounding noise). test_gpt_parts.c holds the float code to PyTorch.
#define ATTN_REAL double
#include "../src/layers/gelu.c"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/rng.h"
#include "finite_diff.h"
#include "suite.h"

enum { N = 200 };

typedef struct {
    double *x, *r;
} gelu_case;

static double gelu_loss(void *ctx) {
    gelu_case *c = ctx;
    double y[N];
    gelu_forward(y, c->x, N);
    return weighted_sum(y, c->r, N);
}

START_TEST(gelu_backward_is_its_derivative) {
    torch_rng g;
    rng_seed(&g, 9);
    gelu_case c = {new_random(&g, N, -6, 6), new_random(&g, N, -1, 1)};
    c.x[0] = 0;  // and a few points where the curve bends most
    c.x[1] = -0.75;
    c.x[2] = 1e-3;
    double *dx = new_zeros(N);
    gelu_backward(dx, c.r, c.x, N);
    double worst = check_gradient("gelu dx", c.x, dx, N, gelu_loss, &c);
    printf("gelu: largest error against central differences %.2g\n", worst);
    // gelu'(0) = 1/2, and gelu tends to x for large x, to 0 for large -x
    double zero = 0, one = 1, d0 = 0, big[2] = {30, -30}, out[2];
    gelu_backward(&d0, &one, &zero, 1);
    ck_assert_double_eq_tol(d0, 0.5, 1e-15);
    gelu_forward(out, big, 2);
    ck_assert_double_eq_tol(out[0], 30, 1e-12);
    ck_assert_double_eq_tol(out[1], 0, 1e-12);
    free(c.x);
    free(c.r);
    free(dx);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpt_parts_gradients");
    TCase *tc = tcase_create("gelu");
    tcase_add_test(tc, gelu_backward_is_its_derivative);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
