// layernorm.h: layer normalisation, torch.nn.LayerNorm and
// torch.nn.functional.layer_norm.
//
// Dimension legend (as in tensor.h):
//   rows  vectors normalised one by one (tokens)
//   d     the width each is normalised over (the model width)
#ifndef ATTN_LAYERNORM_H
#define ATTN_LAYERNORM_H

// PyTorch's default eps, added to the variance before the square root.
#define LAYERNORM_EPS 1e-5f

// Each row of x, (rows, d), becomes (x - mean) / sqrt(var + eps) * gain +
// bias, mean and var being the row's own (the variance divides by d, not
// d - 1). gain and bias are (d), or NULL for none (F.layer_norm without
// weight and bias). out is (rows, d) and may be x. A row of equal values has
// zero variance and becomes bias (or zeros).
void layernorm_forward(float *out, const float *x, const float *gain,
                       const float *bias, int rows, int d, float eps);

#endif
