// attention_weights.c: the scaled softmax. Dimension legend in
// attention_weights.h.
#include "nn/attention_weights.h"

#include <math.h>
#include <string.h>

#include "nn/tensor.h"

//> scaled-softmax
// weights = softmax(scores / sqrt(d)) along each row.
// scores and weights are (n, n).
void attention_weights(float *weights, const float *scores, int n, int d) {
    memmove(weights, scores, (size_t)n * n * sizeof(float));
    scale(weights, 1.0f / sqrtf((float)d), n * n);
    softmax_rows(weights, n, n);
}
//< scaled-softmax
