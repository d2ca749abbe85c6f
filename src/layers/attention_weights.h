// attention_weights.h: scaled dot-product attention's weights, the softmax
// of the scores divided by sqrt(d), as chapter 1 computes them.
//
// Dimension legend (as in tensor.h):
//   n  tokens
//   d  the width of the vectors whose dot products the scores are
#ifndef ATTN_ATTENTION_WEIGHTS_H
#define ATTN_ATTENTION_WEIGHTS_H

#include "kernels/real.h"

// weights = softmax(scores / sqrt(d)) along each row. scores and weights
// are (n, n) and may be the same array.
void attention_weights(real *weights, const real *scores, int n, int d);

#endif
