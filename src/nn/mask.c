// mask.c: the causal mask and the masked softmax. Dimension legend in mask.h.
#include "nn/mask.h"

#include <math.h>

//> causal-mask
// mask[i, j] = (j > i): query i may look at keys 0 .. i and no further.
// mask is (n, n).
void causal_mask(bool *mask, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            mask[i * n + j] = j > i;
}
//< causal-mask

//> masked-fill
// out = x with value written wherever mask is true; all three have count
// elements, and out may be x.
void masked_fill(float *out, const float *x, const bool *mask, float value,
                 int count) {
    for (int k = 0; k < count; k++)
        out[k] = mask[k] ? value : x[k];
}
//< masked-fill

//> masked-softmax
// x and mask are (rows, cols). Each row becomes the softmax of its unmasked
// entries; masked entries become exactly 0, and a fully masked row becomes
// all zeros. Returns the number of fully masked rows.
int masked_softmax_rows(float *x, const bool *mask, int rows, int cols) {
    int fully_masked = 0;
    for (int i = 0; i < rows; i++) {
        float *row = x + i * cols;
        const bool *m = mask + i * cols;
        // pass 1: the largest unmasked entry; masked ones are never read.
        float max = -INFINITY;
        bool any = false;
        for (int j = 0; j < cols; j++)
            if (!m[j]) { max = fmaxf(max, row[j]); any = true; }
        // a row with nothing to attend to: zeros, where a fill with -inf
        // would compute (-inf) - (-inf) = NaN and one with -1e10 a uniform
        // row that attends to exactly the keys it must not see.
        if (!any) {
            for (int j = 0; j < cols; j++) row[j] = 0.0f;
            fully_masked++;
            continue;
        }
        // pass 2: exponentiate the unmasked entries and sum them in order;
        // a masked entry is exactly 0, as exp(-inf) would be.
        float sum = 0.0f;
        for (int j = 0; j < cols; j++) {
            row[j] = m[j] ? 0.0f : expf(row[j] - max);
            sum += row[j];
        }
        // pass 3: normalise, so the row sums to one.
        for (int j = 0; j < cols; j++) row[j] /= sum;
    }
    return fully_masked;
}
//< masked-softmax
