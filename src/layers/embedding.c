// embedding.c: nn.Embedding, looking rows of the table up, and adding their
// gradients back. Dimension legend in embedding.h. The loops are the readable code;
// the kernel FAST_KERNEL names (simd_kernels.h) the fast one, same bits.
#include "layers/embedding.h"

#include <string.h>

#include "kernels/simd.h"

//> embedding
//> embedding-forward
// Looking up a token is copying its row of the table.
void embedding_forward(real *out, const int32_t *ids, const real *table, int n, int d) {
    for (int t = 0; t < n; t++)
        memcpy(out + (long)t * d, table + (long)ids[t] * d, (size_t)d * sizeof *out);
}
//< embedding-forward

// The gradient of a lookup: each position's gradient is added into its
// token's row, so that a token used twice collects both. embedding_backward
// runs this loop, or the scatter_add_rows kernel (simd_kernels.h), which
// gives the same bits.
static void embedding_backward_loops(real *dtable, const real *dout, const int32_t *ids, int n,
                                     int d) {
    for (int t = 0; t < n; t++) {
        real *row = dtable + (long)ids[t] * d;
        const real *g = dout + (long)t * d;
        for (int i = 0; i < d; i++) row[i] += g[i];
    }
}
//< embedding

void embedding_backward(real *dtable, const real *dout, const int32_t *ids, int n, int d) {
    if (!FAST_KERNEL(scatter_add_rows, dtable, dout, ids, n, d))
        embedding_backward_loops(dtable, dout, ids, n, d);
}
