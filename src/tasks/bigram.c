// bigram.c: the counted bigram model with add-one smoothing. See bigram.h.
#include "tasks/bigram.h"

#include <math.h>
#include <stdlib.h>

//> bigram
int bigram_fit(bigram_model *m, const int32_t *ids, size_t n, int V) {
    size_t cells = (size_t)V * (size_t)V;
    m->V = V;
    m->bits = malloc(cells * sizeof *m->bits);
    double *row_total = calloc((size_t)V, sizeof *row_total);
    if (!m->bits || !row_total) {
        free(row_total);
        bigram_free(m);
        return -1;
    }
    for (size_t k = 0; k < cells; k++) m->bits[k] = 1;  // add-one: every pair seen once more
    for (int a = 0; a < V; a++) row_total[a] = V;
    for (size_t i = 0; i + 1 < n; i++) {
        m->bits[(size_t)ids[i] * V + ids[i + 1]] += 1;
        row_total[ids[i]] += 1;
    }
    for (int a = 0; a < V; a++)  // counts to -log2 of their share of the row
        for (int b = 0; b < V; b++)
            m->bits[(size_t)a * V + b] = -log2(m->bits[(size_t)a * V + b] / row_total[a]);
    free(row_total);
    return 0;
}
//< bigram

void bigram_free(bigram_model *m) {
    free(m->bits);
    m->bits = NULL;
}

double bigram_bits(const bigram_model *m, int32_t prev, const int32_t *ids, size_t n) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += m->bits[(size_t)prev * m->V + ids[i]];
        prev = ids[i];
    }
    return n ? sum / (double)n : 0;
}
