// positions.h: telling attention where each token stands.
//
// Attention treats its input as a set: permute the tokens and the outputs
// permute with them (chapters 3 and 4). A model of sequences adds to each
// token's vector a vector that depends on its position only, so that the
// same word at two places enters the layers as two different vectors.
//
// Dimension legend (as in tensor.h):
//   n    tokens, the rows, at positions 0 .. n-1
//   d    model width
//
// Two kinds of position vector:
//   - sinusoidal (Vaswani et al. 2017, section 3.5), fixed, for any n:
//       PE(pos, 2i)     = sin(pos / 10000^(2i/d))
//       PE(pos, 2i + 1) = cos(pos / 10000^(2i/d))
//     Column pair i turns at angular frequency w_i = 10000^(-2i/d), from one
//     turn per 2 pi positions (i = 0) to one per about 2 pi 10000 (i near
//     d/2). Moving k positions on rotates each pair by the angle k w_i, the
//     same for every pos: PE(pos + k) is a fixed linear map of PE(pos).
//   - learned: a table of n_max rows of parameters, row pos for the token at
//     pos, trained with the rest of the model, as BERT and GPT-2 do (it
//     cannot place a token beyond n_max).
// Both are added to the token embeddings, x[pos] += P[pos], by add_positions.
#ifndef ATTN_POSITIONS_H
#define ATTN_POSITIONS_H

// The angular frequency of column pair i for width d, 10000^(-2i/d).
double sinusoid_frequency(int i, int d);

// The sinusoidal encoding of positions 0 .. n-1: pe is (n, d). Each value is
// computed in double and rounded once to float. An odd d ends with a sine
// column whose cosine partner is cut off.
void sinusoidal_positions(float *pe, int n, int d);

// x[pos] += positions[pos] for pos = 0 .. n-1: x is (n, d), positions is
// (n, d), the first n rows of a sinusoidal or learned table.
void add_positions(float *x, const float *positions, int n, int d);

#endif
