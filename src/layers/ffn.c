// ffn.c: the feed-forward network, linear1, ReLU, linear2, forward and
// backward. Dimension legend in ffn.h.
#include "layers/ffn.h"

#include <stdlib.h>
#include <string.h>

#include "layers/linear.h"

int ffn_cache_alloc(ffn_cache *c, int n, int d_ff) {
    size_t size = (size_t)n * d_ff * sizeof(real);
    c->hidden = malloc(size);
    c->dhidden = malloc(size);
    if (c->hidden && c->dhidden) return 0;
    ffn_cache_free(c);
    return -1;
}

void ffn_cache_free(ffn_cache *c) {
    free(c->hidden);
    free(c->dhidden);
    c->hidden = c->dhidden = NULL;
}

// ReLU in place on x (count), and its gradient: dx[e] stays where ReLU's
// output y[e] is positive, else 0. In blocks of 16 so that the compiler
// makes vector compares and selects of them: about half the units are cut,
// at random, and a branch for each would be mispredicted half the time
// (50 times slower, measured).
static void relu(real *x, long count) {
    long e = 0;
    for (; e + 16 <= count; e += 16)
        for (int j = 0; j < 16; j++) x[e + j] = x[e + j] > 0 ? x[e + j] : 0;
    for (; e < count; e++) x[e] = x[e] > 0 ? x[e] : 0;
}

static void relu_backward(real *restrict dx, const real *restrict y, long count) {
    long e = 0;
    for (; e + 16 <= count; e += 16)
        for (int j = 0; j < 16; j++) dx[e + j] = y[e + j] > 0 ? dx[e + j] : 0;
    for (; e < count; e++) dx[e] = y[e] > 0 ? dx[e] : 0;
}

int ffn_init(torch_rng *g, const ffn_params *p, int d, int d_ff) {
    if (linear_init(g, p->w1, p->b1, d, d_ff) != 0) return -1;  // linear1
    return linear_init(g, p->w2, p->b2, d_ff, d);               // linear2
}

//> ffn
// inp and out are (N, d): each token through d -> d_ff -> d on its own.
void ffn_forward(real *out, ffn_cache *c, const ffn_params *p, const real *inp, int n, int d,
                 int d_ff) {
    linear_forward(c->hidden, inp, p->w1, p->b1, n, d, d_ff, WEIGHT_OUT_IN);
    relu(c->hidden, (long)n * d_ff);  // ReLU, between the two
    linear_forward(out, c->hidden, p->w2, p->b2, n, d_ff, d, WEIGHT_OUT_IN);
}
//< ffn

void ffn_backward(real *dinp, const ffn_params *g, ffn_cache *c, const real *dout,
                  const real *inp, const ffn_params *p, int n, int d, int d_ff) {
    memset(c->dhidden, 0, (size_t)n * d_ff * sizeof(real));
    linear_backward(c->dhidden, g->w2, g->b2, dout, c->hidden, p->w2, n, d_ff, d, WEIGHT_OUT_IN);
    // ReLU passes the gradient where its output is positive, and only there.
    relu_backward(c->dhidden, c->hidden, (long)n * d_ff);
    linear_backward(dinp, g->w1, g->b1, c->dhidden, inp, p->w1, n, d, d_ff, WEIGHT_OUT_IN);
}
