// test_tiled_gradients.c: tiled attention's backward pass against finite
// differences, in double: the sources of online_softmax.c,
// tiled_attention.c and naive_attention.c compiled once more with real =
// double (real.h says why), where the readable loops run. Also naive
// attention's backward, and the two held to each other to 1e-12.
#define ATTN_REAL double
#include "../src/kernels/gemm_reference.c"
#include "../src/kernels/gemm.c"
#include "../src/layers/online_softmax.c"
#include "../src/layers/tiled_attention.c"
#include "../src/layers/naive_attention.c"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/rng.h"
#include "kernels/parallel.h"
#include "finite_diff.h"
#include "suite.h"

// The loss sum(out * g) for fixed g, so that dout = g.
typedef struct {
    int n, d;
    bool causal, tiled;
    double scale;
    double *q, *k, *v, *g, *out, *lse, *w;
} problem;

static double loss(void *ctx) {
    problem *p = ctx;
    if (p->tiled) tiled_attention_forward(p->out, p->lse, p->q, p->k, p->v, p->n, p->d, p->scale, p->causal);
    else naive_attention_forward(p->out, p->w, p->q, p->k, p->v, p->n, p->d, p->scale, p->causal);
    double sum = 0;
    for (long i = 0; i < (long)p->n * p->d; i++) sum += p->out[i] * p->g[i];
    return sum;
}

static void check_shape(torch_rng *gen, int n, int d, bool causal) {
    long nd = (long)n * d;
    problem p = {n, d, causal, true, 1 / sqrt((double)d), new_random(gen, nd, -2, 2), new_random(gen, nd, -2, 2),
                 new_random(gen, nd, -1, 1), new_random(gen, nd, -1, 1), new_zeros(nd), new_zeros(n),
                 new_zeros((long)n * n)};
    double *grad[2][3];  // [tiled, naive][q, k, v]
    for (int t = 0; t < 2; t++) {
        p.tiled = t == 0;
        for (int a = 0; a < 3; a++) grad[t][a] = new_zeros(nd);
        loss(&p);
        if (p.tiled)
            tiled_attention_backward(grad[t][0], grad[t][1], grad[t][2], p.g, p.q, p.k, p.v, p.out, p.lse, n, d,
                                     p.scale, causal);
        else {
            double *dw = new_zeros((long)n * n);
            naive_attention_backward(grad[t][0], grad[t][1], grad[t][2], dw, p.g, p.w, p.q, p.k, p.v, n, d, p.scale,
                                     causal);
            free(dw);
        }
        double *inputs[3] = {p.q, p.k, p.v};
        const char *names[2][3] = {{"tiled dq", "tiled dk", "tiled dv"}, {"naive dq", "naive dk", "naive dv"}};
        for (int a = 0; a < 3; a++) check_gradient(names[t][a], inputs[a], grad[t][a], nd, loss, &p);
    }
    for (int a = 0; a < 3; a++) {
        for (long i = 0; i < nd; i++)
            ck_assert_msg(fabs(grad[0][a][i] - grad[1][a][i]) <= 1e-12, "n %d d %d: gradient %d [%ld] %.17g vs %.17g",
                          n, d, a, i, grad[0][a][i], grad[1][a][i]);
        free(grad[0][a]);
        free(grad[1][a]);
    }
    free(p.q);
    free(p.k);
    free(p.v);
    free(p.g);
    free(p.out);
    free(p.lse);
    free(p.w);
}

// Within a block, across a block's edge (64), a single query, odd widths.
START_TEST(tiled_backward_is_the_gradient) {
    torch_rng g;
    rng_seed(&g, 1);
    // One thread: the results are the same bits with any number
    // (test_tiled_attention.c), and these sizes are too small to share.
    parallel_set_threads(1);
    int shapes[][2] = {{1, 1}, {1, 4}, {5, 3}, {66, 2}, {130, 1}};
    for (int t = 0; t < 5; t++)
        for (int causal = 0; causal <= 1; causal++) check_shape(&g, shapes[t][0], shapes[t][1], causal);
}
END_TEST

int main(void) {
    Suite *s = suite_create("tiled attention gradients");
    TCase *tc = tcase_create("gradients");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tiled_backward_is_the_gradient);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
