// grad_clip.h: gradient-norm clipping, as torch.nn.utils.clip_grad_norm_
// does it (the L2 norm), on a model's gradients kept in one flat array.
//
//   n      gradients, one flat array: all of the model's parameters
//
// The norm is the L2 norm of all n gradients together, as if they were one
// vector (PyTorch takes each tensor's norm, then the norm of those norms:
// the same number). When it is too large, every gradient is scaled by the
// same factor max_norm / (norm + 1e-6), which brings the norm down to just
// under max_norm and keeps the direction of the step; when the factor is 1
// or more, nothing changes. One unlucky batch then cannot throw the
// parameters far.
#ifndef ATTN_GRAD_CLIP_H
#define ATTN_GRAD_CLIP_H

#include <stddef.h>

#include "kernels/real.h"

// The norm in GRAD_PARTS fixed parts of the array, which threads may
// share: part j from grad_part_start(n, j) to grad_part_start(n, j + 1)
// (each a whole number of eight), its squares summed in double in eight
// interleaved sums and those then in order (grad_part_squares); the
// parts' sums then added in order. The same number on any machine and
// with any threads.
enum { GRAD_PARTS = 16 };
size_t grad_part_start(size_t n, int j);
double grad_part_squares(const real *grads, size_t n, int j);

// The L2 norm of grads (n): the parts' sums of squares, added in order,
// and the root.
double grad_norm(const real *grads, size_t n);

// The factor clipping scales the gradients by, max_norm / (norm + 1e-6),
// when it is below 1.
double grad_clip_factor(double norm, double max_norm);

// Scales grads (n) by grad_clip_factor when that is below 1. Returns the
// norm before clipping (what clip_grad_norm_ returns).
double grad_clip(real *grads, size_t n, double max_norm);

#endif
