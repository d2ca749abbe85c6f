// position_table.c: a position table added to a batch's embedded tokens,
// and the gradient it gets back. Dimension legend in position_table.h.
#include "layers/position_table.h"

void positions_add_forward(real *x, const real *table, int B, int n, int d) {
    for (int b = 0; b < B; b++)
        for (int i = 0; i < n; i++) {
            real *row = x + ((long)b * n + i) * d;
            for (int j = 0; j < d; j++) row[j] += table[(long)i * d + j];
        }
}

void positions_embed_forward(real *x, const int32_t *ids, const real *words, const real *table,
                             int B, int n, int d) {
    for (int b = 0; b < B; b++)
        for (int i = 0; i < n; i++) {
            real *restrict row = x + ((long)b * n + i) * d;
            const real *restrict word = words + (long)ids[(long)b * n + i] * d;
            const real *restrict at = table + (long)i * d;
            for (int j = 0; j < d; j++) row[j] = word[j] + at[j];
        }
}

void positions_add_backward(real *dtable, const real *dx, int B, int n, int d) {
    for (int b = 0; b < B; b++)
        for (int i = 0; i < n; i++) {
            const real *row = dx + ((long)b * n + i) * d;
            for (int j = 0; j < d; j++) dtable[(long)i * d + j] += row[j];
        }
}

void positions_add_rows_forward(real *x, const real *table, const int *len, int B, int d) {
    for (int b = 0; b < B; b++)
        for (int i = 0; i < len[b]; i++, x += d)
            for (int j = 0; j < d; j++) x[j] += table[(long)i * d + j];
}

void positions_add_rows_backward(real *dtable, const real *dx, const int *len, int B, int d) {
    for (int b = 0; b < B; b++)
        for (int i = 0; i < len[b]; i++, dx += d)
            for (int j = 0; j < d; j++) dtable[(long)i * d + j] += dx[j];
}
