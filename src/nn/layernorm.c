// layernorm.c: layer normalisation. Dimension legend in layernorm.h.
#include "nn/layernorm.h"

#include <math.h>
#include <stddef.h>

//> layernorm
// x and out are (rows, d); gain and bias are (d) or NULL.
void layernorm_forward(float *out, const float *x, const float *gain,
                       const float *bias, int rows, int d, float eps) {
    for (int i = 0; i < rows; i++) {
        const float *row = x + (size_t)i * d;
        float *o = out + (size_t)i * d;
        // pass 1: the mean. Summed in double, a row of d equal floats
        // gives exactly that float, and so a variance of exactly zero.
        double sum = 0.0;
        for (int j = 0; j < d; j++) sum += row[j];
        double mean = sum / d;
        // pass 2: the variance, the mean square distance from the mean.
        double sq = 0.0;
        for (int j = 0; j < d; j++) sq += (row[j] - mean) * (row[j] - mean);
        double var = sq / d;
        // pass 3: centre, scale to unit variance, then the learned gain and
        // bias. eps keeps a row of equal values from dividing by zero.
        double inv_std = 1.0 / sqrt(var + (double)eps);
        for (int j = 0; j < d; j++) {
            float y = (float)((row[j] - mean) * inv_std);
            if (gain) y *= gain[j];
            if (bias) y += bias[j];
            o[j] = y;
        }
    }
}
//< layernorm
