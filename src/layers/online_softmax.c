// online_softmax.c: the softmax with a running maximum and a rescaled
// running sum. See online_softmax.h.
#include "layers/online_softmax.h"

#include <tgmath.h>

softmax_state softmax_start(void) { return (softmax_state){-INFINITY, 0}; }

//> softmax-add-block
real softmax_add_block(softmax_state *s, real *p, const real *x, int n) {
    real top = s->max;
    for (int j = 0; j < n; j++) top = fmax(top, x[j]);
    if (top == -INFINITY) {  // nothing seen yet but masked scores
        for (int j = 0; j < n; j++) p[j] = 0;
        return 1;
    }
    real rescale = exp(s->max - top);  // e^(-inf) = 0 for the first block
    real sum = 0;
    for (int j = 0; j < n; j++) sum += p[j] = exp(x[j] - top);
    s->sum = s->sum * rescale + sum;
    s->max = top;
    return rescale;
}
//< softmax-add-block

real softmax_log_sum_exp(softmax_state s) { return s.sum > 0 ? s.max + log(s.sum) : -INFINITY; }

//> softmax-online
void softmax_online(real *y, const real *x, int n) {
    softmax_state s = softmax_start();
    for (int j = 0; j < n; j++) {  // one pass: the maximum and the sum together
        real top = fmax(s.max, x[j]);
        if (top == -INFINITY) continue;  // only masked scores so far
        s.sum = s.sum * exp(s.max - top) + exp(x[j] - top);
        s.max = top;
    }
    for (int j = 0; j < n; j++) y[j] = s.sum > 0 ? exp(x[j] - s.max) / s.sum : 0;
}
//< softmax-online

void softmax_two_pass(real *y, const real *x, int n) {
    real top = -INFINITY, sum = 0;
    for (int j = 0; j < n; j++) top = fmax(top, x[j]);  // pass 1: the maximum
    if (top == -INFINITY) {  // every score masked: no weight anywhere
        for (int j = 0; j < n; j++) y[j] = 0;
        return;
    }
    for (int j = 0; j < n; j++) sum += y[j] = exp(x[j] - top);  // pass 2: the sum
    for (int j = 0; j < n; j++) y[j] /= sum;  // pass 3
}
