// mask.c: the causal mask and the masked softmax. Dimension legend in mask.h.
#include "layers/mask.h"

#include "layers/softmax.h"

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
void masked_fill(real *out, const real *x, const bool *mask, real value,
                 int count) {
    for (int k = 0; k < count; k++)
        out[k] = mask[k] ? value : x[k];
}
//< masked-fill

//> masked-softmax
// x and mask are (rows, cols). Each row becomes the softmax of its unmasked
// entries (softmax_row, softmax.c); masked entries become exactly 0, and a
// fully masked row becomes all zeros. Returns the number of fully masked
// rows.
int masked_softmax_rows(real *x, const bool *mask, int rows, int cols) {
    int fully_masked = 0;
    for (int i = 0; i < rows; i++)
        if (!softmax_row(x + (long)i * cols, mask + (long)i * cols, cols, cols))
            fully_masked++;
    return fully_masked;
}
//< masked-softmax
