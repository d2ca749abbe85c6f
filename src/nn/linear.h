// linear.h: the fully connected layer, nn.Linear.
//
// Dimension legend (as in tensor.h):
//   n      rows of the input (tokens)
//   d_in   input width (in_features)
//   d_out  output width (out_features)
// A weight is stored the way nn.Linear stores it: (d_out, d_in), one row per
// output feature. So y = x A^T + b, and q = x W_q with W_q = A^T of shape
// (d_in, d_out).
#ifndef ATTN_LINEAR_H
#define ATTN_LINEAR_H

// y = x A^T + b, nn.Linear's forward. x is (n, d_in), weight A is
// (d_out, d_in), bias b is (d_out) or NULL for bias=False, y is (n, d_out).
// y must not overlap x.
void linear_forward(float *y, const float *x, const float *weight,
                    const float *bias, int n, int d_in, int d_out);

#endif
