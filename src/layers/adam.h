// adam.h: the Adam optimiser with optax's defaults.
//
//   n      parameters, one flat array (a model keeps all of its parameters in
//          one block, so one loop updates them all)
//   rows, width   the lazy table: the last rows * width parameters, a row at a
//          time (an embedding)
//
// optax.adam(lr) is scale_by_adam(b1 = 0.9, b2 = 0.999, eps = 1e-8) then
// a step of -lr. It updates every parameter at every step, including the
// embedding rows that the batch did not use (their gradient is zero, but
// their moments still decay and keep moving them).
//
// adam_step is that update, written to be read. adam_step_rows computes
// the same numbers faster: the dense parameters with vector instructions,
// and the rows of a lazy table only when they are used. A row that no batch
// uses owes the steps with a zero gradient it has missed; adam_catch_up
// applies them, one step after the other with each step's own constants, so
// that the row ends up with the very bits adam_step would have given it.
// A row that a batch did use is updated with its gradient when it is next
// caught up, too: until then the table keeps that gradient in its row of
// grads, and clears the row when it applies it.
#ifndef ATTN_ADAM_H
#define ATTN_ADAM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/real.h"

// The steps whose constants a lazy table keeps: every row is brought up to
// date at least this often.
#define ADAM_LAZY_STEPS 4096

typedef struct {
    double lr, b1, b2, eps;
    long t;       // steps taken
    size_t n;
    real *m, *v;  // (n) first and second moments, zero at the start
    // the lazy table (adam_lazy_rows), width 0 when there is none
    size_t from;                 // where it starts in the n parameters
    int rows, width;
    long *row_last_step;         // (rows) the last step each row has taken
    unsigned char *grad_waiting; // (rows) 1: the gradient of the row's step row_last_step + 1
                                 // waits in its row of grads
    long settled_step;           // every row has taken the steps up to this one at least
    real *step_at, *inv_root_c2_at;  // (ADAM_LAZY_STEPS + 1) lr / (1 - b1^t) and 1 / sqrt(1 - b2^t)
                                 // of steps t = settled_step + 1 .. t at [t - settled_step]
} adam_state;

// Defaults b1 0.9, b2 0.999, eps 1e-8, moments zero. Returns 0, or -1 when
// out of memory.
int adam_init(adam_state *s, size_t n, double lr);
void adam_free(adam_state *s);

// One step: params (n) -= lr * mhat / (sqrt(vhat) + eps), from grads (n).
void adam_step(adam_state *s, real *restrict params, const real *restrict grads);

// Makes the last rows * width of the n parameters a lazy table, before the
// first step. Returns 0, or -1 when out of memory or they do not fit.
int adam_lazy_rows(adam_state *s, int rows, int width);

// One step, the same numbers as adam_step: the parameters before the table
// densely; the rows listed (each once; rows (nrows) of the table) carry a
// gradient in grads, which the table keeps and applies when it next catches
// them up; every other row of the table is left behind, its gradient taken
// to be zero. The rows listed must be up to date (adam_catch_up) before
// their gradient was written. Without a table: all n densely, as adam_step.
void adam_step_rows(adam_state *s, real *params, real *grads, const int32_t *rows, int nrows);

// Brings the rows listed up to date (all rows of the table when rows is
// NULL): afterwards they hold what adam_step would have made of them, and
// their rows of grads are zero.
void adam_catch_up(adam_state *s, real *params, real *grads, const int32_t *rows, int nrows);

#endif
