// feedforward.c: the position-wise feed-forward network. Dimension legend in
// feedforward.h.
#include "nn/feedforward.h"

#include <stdlib.h>
#include <string.h>

#include "nn/linear.h"

int feedforward_alloc(feedforward *f, int d, int d_ff) {
    memset(f, 0, sizeof *f);
    if (d < 1 || d_ff < 1) return -1;
    f->d = d;
    f->d_ff = d_ff;
    size_t w = (size_t)d * d_ff;
    f->w1 = malloc(w * sizeof(float));
    f->b1 = malloc((size_t)d_ff * sizeof(float));
    f->w2 = malloc(w * sizeof(float));
    f->b2 = malloc((size_t)d * sizeof(float));
    if (!f->w1 || !f->b1 || !f->w2 || !f->b2) {
        feedforward_free(f);
        return -1;
    }
    return 0;
}

void feedforward_free(feedforward *f) {
    free(f->w1); free(f->b1); free(f->w2); free(f->b2);
    memset(f, 0, sizeof *f);
}

void feedforward_init(feedforward *f, torch_rng *g) {
    rng_linear_init(g, f->w1, f->b1, f->d, f->d_ff);  // linear1
    rng_linear_init(g, f->w2, f->b2, f->d_ff, f->d);  // linear2
}

//> feedforward
// x and out are (n, d): each token through d -> d_ff -> d on its own.
int feedforward_forward(float *out, const feedforward *f, const float *x,
                        int n) {
    float *hidden = malloc((size_t)n * f->d_ff * sizeof(float));  // (n, d_ff)
    if (!hidden) return -1;
    linear_forward(hidden, x, f->w1, f->b1, n, f->d, f->d_ff);
    for (size_t e = 0; e < (size_t)n * f->d_ff; e++)
        if (hidden[e] < 0.0f) hidden[e] = 0.0f;  // ReLU, between the two
    linear_forward(out, hidden, f->w2, f->b2, n, f->d_ff, f->d);
    free(hidden);
    return 0;
}
//< feedforward
