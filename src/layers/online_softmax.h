// online_softmax.h: the softmax of a row read once, a block at a time,
// with a running maximum and a running sum that is rescaled whenever the
// maximum grows (Milakov and Gimelshein 2018, "Online normalizer
// calculation for softmax"); the step that tiled attention takes over each
// block of keys (tiled_attention.c).
//
// The two-pass softmax reads the row twice before it can write anything:
// once for the maximum m, once for the sum l = sum_j e^(x_j - m). Online,
// the state (m, l) after the first t numbers is m_t = max(x_1 .. x_t),
// l_t = sum_{j <= t} e^(x_j - m_t). A new block with maximum b gives
// m' = max(m, b) and l' = l e^(m - m') + sum_{j in block} e^(x_j - m'):
// every term of l was e^(x_j - m), and e^(x_j - m) e^(m - m') = e^(x_j - m').
// Each e^ is of a number <= 0, so nothing overflows, however large the
// scores (1e30, or the largest float): the same guarantee as subtracting
// the maximum in the two-pass form.
//
// Masked entries are -infinity: e^(-inf) = 0, and they never raise the
// maximum. A row whose entries are all -infinity (a query that may see no
// key) has m = -inf and l = 0; then e^(x - m) would be e^(-inf + inf), not
// a number, so a block whose maximum stays -inf adds nothing and leaves the
// state as it was. Such a row's softmax is defined here as all zeros (no
// weight on any key: an attention output of 0), and its log-sum-exp,
// m + log l, is -infinity. (PyTorch's softmax gives NaN there.) +infinity
// and NaN among the scores are not handled.
#ifndef ATTN_ONLINE_SOFTMAX_H
#define ATTN_ONLINE_SOFTMAX_H

#include "kernels/real.h"

// The running state of one row: the largest score so far and the sum of
// e^(score - max) over the scores so far.
typedef struct {
    real max;  // -inf before any score
    real sum;  // 0 before any score
} softmax_state;

// The state of a row before any score.
softmax_state softmax_start(void);

// Takes in the n scores x of the next block: p[j] = e^(x[j] - m') with m'
// the new maximum, and the state becomes (m', l'). Returns e^(m - m'), the
// factor by which everything summed with the old maximum is to be scaled
// (tiled attention's output rows); 1 when the maximum did not grow, 0 when
// it was -inf. A block that leaves the maximum at -inf writes p = 0 and
// returns 1. p may be x.
real softmax_add_block(softmax_state *s, real *p, const real *x, int n);

// The log-sum-exp of the scores taken in: m + log l; -inf when every score
// was -inf (or none was taken).
real softmax_log_sum_exp(softmax_state s);

// y = softmax(x) over n numbers, the online way: one pass for m and l,
// number by number, then one pass to write y = e^(x - m) / l. All zeros
// when every x is -inf. y may be x.
void softmax_online(real *y, const real *x, int n);

// The same, the usual way: a pass for the maximum, a pass for the sum,
// a pass to divide. The reference that the online form is held to.
void softmax_two_pass(real *y, const real *x, int n);

#endif
