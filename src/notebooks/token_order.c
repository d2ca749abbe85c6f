// token_order.c: reversing the tokens. Dimension legend in token_order.h.
#include "notebooks/token_order.h"

#include <string.h>

#include "layers/tensor.h"

// out and x are (n, d)
void reverse_rows(float *out, const float *x, int n, int d) {
    for (int i = 0; i < n; i++)
        memcpy(out + (n - 1 - i) * d, x + i * d, (size_t)d * sizeof(float));
}

// Row i of z_reversed against row n - 1 - i of z, element by element.
bool rows_follow_tokens(const float *z_reversed, const float *z, int n, int d) {
    for (int i = 0; i < n; i++)
        if (!allclose(z_reversed + i * d, z + (n - 1 - i) * d, d, 1e-5f, 1e-5f))
            return false;
    return true;
}
