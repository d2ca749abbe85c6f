// mask.h: causal masks, and a softmax that honours a mask.
//
// Dimension legend (as in tensor.h):
//   n     tokens in the sequence; a causal mask is (n, n)
//   rows, cols  the shape of a general score matrix and its mask
// A mask is a row-major array of bool of the same shape as the scores it
// masks: true means "this query may not look at this key", as in PyTorch's
// masked_fill and in the notebook.
#ifndef ATTN_MASK_H
#define ATTN_MASK_H

#include <stdbool.h>

#include "kernels/real.h"

// The causal mask: mask[i, j] is true exactly when j > i, key j coming
// after query i. torch.triu(torch.full((n, n), True), diagonal=1).
// mask is (n, n).
void causal_mask(bool *mask, int n);

// out = x.masked_fill(mask, value): value where mask is true, x elsewhere.
// x, mask and out have count elements; out may be x.
void masked_fill(real *out, const real *x, const bool *mask, real value,
                 int count);

// The library's masked softmax. Each row of x, (rows, cols), is replaced by
// the softmax of its unmasked entries; every masked entry becomes exactly 0
// and its value is never read (it may be anything, NaN and inf included).
// A row whose entries are all masked has nothing to attend to: it becomes all
// zeros (not NaN, as a fill with -INFINITY gives, and not uniform, as a fill
// with -1e10 gives). Returns the number of such fully masked rows, so that a
// caller who considers them an error can say so.
// For a row with at least one unmasked entry the result is bit for bit what
// softmax_rows gives after masked_fill with -INFINITY, or with -1e10 when
// the row's largest unmasked entry is more than 104 above -1e10 (so that
// exp(-1e10 - max) underflows to exactly 0 in float).
int masked_softmax_rows(real *x, const bool *mask, int rows, int cols);

#endif
