// position_table.h: adding a position table to the embedded tokens of a
// batch, forward and backward (for a learned table: nn.Embedding(n_pos, d)
// looked up at positions 0 .. n-1).
//
//   B      sequences, n tokens each
//   d      the model width
//   n_pos  the table's rows, at least n
#ifndef ATTN_POSITION_TABLE_H
#define ATTN_POSITION_TABLE_H

#include <stdint.h>

#include "kernels/real.h"

// x (B, n, d) += table[i] at position i of every sequence; table (n_pos, d).
void positions_add_forward(real *x, const real *table, int B, int n, int d);

// x (B, n, d) = words[ids[b, i]] + table[i]: embedding_forward
// (embedding_table.h) and then positions_add_forward in one pass over x,
// the same numbers. ids is (B, n), words (rows, d).
void positions_embed_forward(real *x, const int32_t *ids, const real *words, const real *table,
                             int B, int n, int d);

// dtable[i] += dx at position i, summed over the sequences: dtable is
// (n_pos, d), dx (B, n, d).
void positions_add_backward(real *dtable, const real *dx, int B, int n, int d);

// The same when sequence b keeps only its first len[b] rows, x and dx
// holding them one sequence after the other.
void positions_add_rows_forward(real *x, const real *table, const int *len, int B, int d);
void positions_add_rows_backward(real *dtable, const real *dx, const int *len, int B, int d);

#endif
