// linear.c: nn.Linear. Dimension legend in linear.h.
#include "nn/linear.h"

#include "layers/tensor.h"

//> linear
// y = x A^T + b. x is (n, d_in), weight A is (d_out, d_in), bias b is
// (d_out) or NULL, y is (n, d_out).
void linear_forward(float *y, const float *x, const float *weight,
                    const float *bias, int n, int d_in, int d_out) {
    matmul_transposed(y, x, weight, n, d_in, d_out);
    if (!bias) return;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d_out; j++) y[i * d_out + j] += bias[j];
}
//< linear
