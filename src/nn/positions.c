// positions.c: the sinusoidal position encoding and its addition to the
// token embeddings (positions.h).
#include "nn/positions.h"

#include <math.h>

double sinusoid_frequency(int i, int d) {
    return pow(10000.0, -2.0 * i / d);
}

//> sinusoids
void sinusoidal_positions(float *pe, int n, int d) {
    for (int pos = 0; pos < n; pos++)
        for (int c = 0; c < d; c++) {
            double angle = pos * sinusoid_frequency(c / 2, d);
            pe[pos * d + c] = (float)(c % 2 == 0 ? sin(angle) : cos(angle));
        }
}
//< sinusoids

void add_positions(float *x, const float *positions, int n, int d) {
    for (int k = 0; k < n * d; k++) x[k] += positions[k];
}
