// attention_weights.c: the scaled softmax. Dimension legend in
// attention_weights.h.
#include "layers/attention_weights.h"

#include <string.h>
#include <tgmath.h>

#include "layers/softmax.h"
#include "layers/tensor.h"

//> scaled-softmax
// weights = softmax(scores / sqrt(d)) along each row.
// scores and weights are (n, n).
void attention_weights(real *weights, const real *scores, int n, int d) {
    memmove(weights, scores, (size_t)n * n * sizeof(real));
    scale(weights, 1 / sqrt((real)d), n * n);
    softmax_rows(weights, n, n);
}
//< scaled-softmax
