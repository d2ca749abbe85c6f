// adamw.h: AdamW, Adam with decoupled weight decay, as PyTorch 1.13's
// torch.optim.AdamW computes it (its single-tensor loop, amsgrad off), on
// the parameters of a model kept in one flat array.
//
//   n      parameters, one flat array, and their gradients beside them
//   lr     the step's learning rate, given at each step (a schedule,
//          lr_schedule.h, sets it)
//
// Step t (from 1), for each parameter p with gradient g:
//
//   p = p (1 - lr wd)                 only where weight decay is asked for
//   m = b1 m + (1 - b1) g
//   v = b2 v + (1 - b2) g^2
//   p = p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
//
// The decay is decoupled: it shrinks the parameter itself, before and
// apart from the Adam update, instead of adding wd p to the gradient (which
// Adam's division by sqrt(v) would then scale differently for every
// parameter). eps is added outside the square root, to sqrt(v_hat). GPT-2
// (and nanoGPT) decay the matrices (the linear maps' weights, the
// embeddings) and not the biases and the LayerNorms' gains, which are
// vectors: a caller marks the tensors to decay with adamw_decay; nothing is
// decayed unless marked. PyTorch gets the same with two parameter groups,
// one with weight_decay = wd and one with 0.
//
// Beside layers/adam.h: adam_step is optax's Adam (chapter 7), with no
// weight decay, a learning rate fixed at adam_init, and the same bias
// corrections, folded into (lr / c1) m / (sqrt(v) (1 / sqrt(c2)) + eps);
// it adds a lazy embedding table. AdamW with nothing marked for decay and a
// constant lr is that same update, PyTorch's defaults b1 0.9, b2 0.999,
// eps 1e-8 being optax's: the two differ only in rounding (adam_step
// multiplies by 1 / sqrt(c2) where PyTorch divides by sqrt(c2), and takes
// 1 - b1 in real where PyTorch rounds it from double); test_gpt_parts.c
// holds them to 1e-6 of each other over ten steps.
#ifndef ATTN_ADAMW_H
#define ATTN_ADAMW_H

#include <stddef.h>

#include "kernels/real.h"

typedef struct {
    double b1, b2, eps, weight_decay;
    long t;               // steps taken
    size_t n;
    real *m, *v;          // (n) first and second moments, zero at the start
    unsigned char *decay; // (n) 1 where the weight decay applies
} adamw_state;

// PyTorch's defaults b1 0.9, b2 0.999, eps 1e-8 (a caller may change them
// before the first step), the weight decay given (torch's default is
// 0.01, nanoGPT's 0.1), applied to nothing yet. Returns 0, or -1 when out
// of memory (then nothing stays allocated).
int adamw_init(adamw_state *s, size_t n, double weight_decay);
void adamw_free(adamw_state *s);

// Marks parameters from .. from + count - 1 (one tensor, say) for weight
// decay. Returns 0, or -1 when they are not all among the n.
int adamw_decay(adamw_state *s, size_t from, size_t count);

// One step at learning rate lr: params (n) updated from grads (n) as above.
void adamw_step(adamw_state *s, real *restrict params, const real *restrict grads, double lr);

// The same step in parts, for threads that share a large model: the
// caller counts the step (s->t++) once, then updates each part [first,
// last) of the parameters once, in any order and on any thread. Each
// number's update is its own, so the bits are adamw_step's (which is the
// count and the one part [0, n)).
void adamw_update(const adamw_state *s, real *restrict params, const real *restrict grads,
                  double lr, size_t first, size_t last);

#endif
