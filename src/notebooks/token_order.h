// token_order.h: reversing the order of a sequence's tokens, and asking
// whether a layer's outputs just follow them (chapters 3 and 4: attention
// without positions treats the tokens as a set).
//
// Dimension legend (as in layers/tensor.h):
//   n  tokens, the rows
//   d  width of each row
#ifndef ATTN_TOKEN_ORDER_H
#define ATTN_TOKEN_ORDER_H

#include <stdbool.h>

// Rows of x, (n, d), in reverse order. out must not overlap x.
void reverse_rows(float *out, const float *x, int n, int d);

// Is z_reversed, (n, d), z with its rows reversed, to within float rounding
// (allclose with rtol = atol = 1e-5)? That is what attention that treats the
// tokens alike gives for the reversed sentence.
bool rows_follow_tokens(const float *z_reversed, const float *z, int n, int d);

#endif
