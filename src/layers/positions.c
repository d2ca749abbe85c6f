// positions.c: the sinusoidal position table, and a position table added
// to the embedded tokens and the gradient it gets back (positions.h).
#include "layers/positions.h"

#include <math.h>

double positions_frequency(int i, int d) {
    return pow(10000.0, -2.0 * i / d);
}

//> sinusoids
void positions_sinusoidal(real *pe, int n, int d) {
    for (int pos = 0; pos < n; pos++)
        for (int c = 0; c < d; c++) {
            double angle = pos * positions_frequency(c / 2, d);
            pe[pos * d + c] = (real)(c % 2 == 0 ? sin(angle) : cos(angle));
        }
}
//< sinusoids

void positions_forward(real *x, const real *table, const int *len, int B, int n, int d) {
    for (int b = 0; b < B; b++)
        for (int i = 0; i < (len ? len[b] : n); i++, x += d)
            for (int j = 0; j < d; j++) x[j] += table[(long)i * d + j];
}

void positions_backward(real *dtable, const real *dx, const int *len, int B, int n, int d) {
    for (int b = 0; b < B; b++)
        for (int i = 0; i < (len ? len[b] : n); i++, dx += d)
            for (int j = 0; j < d; j++) dtable[(long)i * d + j] += dx[j];
}
