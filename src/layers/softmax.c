// softmax.c: the softmax, forward and backward, and its log form. See
// softmax.h.
#include "layers/softmax.h"

#include <math.h>
#include <stddef.h>
#include <tgmath.h>

//> softmax
// row (n): the softmax of the entries j < seen that hidden (NULL, or (n))
// does not hide; the others become exactly 0 without being read. Returns
// false for a row with nothing visible, which becomes all zeros.
bool softmax_row(real *row, const bool *hidden, int seen, int n) {
    // pass 1: the largest visible entry. exp(x - max) <= 1 never overflows,
    // and the shift cancels in the ratio below.
    real max = -INFINITY;
    bool any = false;
    for (int j = 0; j < seen; j++)
        if (!(hidden && hidden[j])) { max = fmax(max, row[j]); any = true; }
    if (!any) {
        for (int j = 0; j < n; j++) row[j] = 0;
        return false;
    }
    // pass 2: exponentiate the visible entries and sum them in order; a
    // hidden one is exactly 0, as exp(-inf) would be.
    real sum = 0;
    for (int j = 0; j < n; j++) {
        row[j] = j >= seen || (hidden && hidden[j]) ? 0 : exp(row[j] - max);
        sum += row[j];
    }
    // pass 3: normalise, so the row sums to one.
    for (int j = 0; j < n; j++) row[j] /= sum;
    return true;
}

// x is (rows, n); each row becomes softmax(row), in place.
void softmax_rows(real *x, int rows, int n) {
    for (int i = 0; i < rows; i++) softmax_row(x + (long)i * n, NULL, n, n);
}
//< softmax

// w = softmax(s) row by row: ds_j = w_j (dw_j - sum_l dw_l w_l). g holds
// dw (rows, n) and becomes ds.
void softmax_backward_rows(real *g, const real *w, int rows, int n) {
    for (int i = 0; i < rows; i++) {
        real *gi = g + (long)i * n, dot = 0;
        const real *wi = w + (long)i * n;
        for (int j = 0; j < n; j++) dot += gi[j] * wi[j];
        for (int j = 0; j < n; j++) gi[j] = wi[j] * (gi[j] - dot);
    }
}

// The largest entry taken out first, so that exp never overflows:
// log sum exp z = m + log sum exp(z - m).
double log_sum_exp(const real *z, int n) {
    double m = z[0], sum = 0;
    for (int j = 1; j < n; j++)
        if (z[j] > m) m = z[j];
    for (int j = 0; j < n; j++) sum += exp(z[j] - m);
    return m + log(sum);
}
