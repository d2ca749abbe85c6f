// positions.h: telling attention where each token stands, forward and
// backward.
//
// Attention treats its input as a set: permute the tokens and the outputs
// permute with them (chapters 3 and 4). A model of sequences adds to each
// token's vector a vector that depends on its position only, so that the
// same word at two places enters the layers as two different vectors.
//
// Dimension legend:
//   B      sequences, each of n tokens at positions 0 .. n-1 (or of len[b])
//   d      model width
//   n_pos  the rows of a position table, at least n
//
// Two kinds of position table, both (n_pos, d), row pos for the token at pos:
//   - sinusoidal (Vaswani et al. 2017, section 3.5), fixed, for any n:
//       PE(pos, 2i)     = sin(pos / 10000^(2i/d))
//       PE(pos, 2i + 1) = cos(pos / 10000^(2i/d))
//     Column pair i turns at angular frequency w_i = 10000^(-2i/d), from one
//     turn per 2 pi positions (i = 0) to one per about 2 pi 10000 (i near
//     d/2). Moving k positions on rotates each pair by the angle k w_i, the
//     same for every pos: PE(pos + k) is a fixed linear map of PE(pos).
//   - learned: a table of parameters, nn.Embedding(n_pos, d) looked up at
//     positions 0 .. n-1, trained with the rest of the model, as BERT and
//     GPT-2 do (it cannot place a token beyond n_pos).
// Either is added to the embedded tokens by positions_forward; a learned
// table gets its gradient from positions_backward.
#ifndef ATTN_POSITIONS_H
#define ATTN_POSITIONS_H

#include "kernels/real.h"

// The angular frequency of column pair i for width d, 10000^(-2i/d).
double positions_frequency(int i, int d);

// The sinusoidal table of positions 0 .. n-1: pe is (n, d). Each value is
// computed in double and rounded once to real. An odd d ends with a sine
// column whose cosine partner is cut off.
void positions_sinusoidal(real *pe, int n, int d);

// x[b, i] += table[i], the token at position i of sequence b; table is
// (n_pos, d). len (B) or NULL: sequence b holds its first len[b] rows, the
// sequences one after the other in x, or with len NULL all n rows each,
// x (B, n, d). One sequence is B = 1.
void positions_forward(real *x, const real *table, const int *len, int B, int n, int d);

// dtable[i] += dx[b, i], summed over the sequences: the gradient of a
// learned table. dtable is (n_pos, d); dx and len as x and len above.
void positions_backward(real *dtable, const real *dx, const int *len, int B, int n, int d);

#endif
