// tiled_attention.c: attention a tile at a time, forward and backward. See
// tiled_attention.h; the readable loops are here, the vector kernels that
// replace them in kernels/simd_attention.h.
#include "layers/tiled_attention.h"

#include <stddef.h>
#include <tgmath.h>

#include "kernels/attention_tiles.h"
#include "kernels/parallel.h"
#include "layers/online_softmax.h"

static int min_int(int a, int b) { return a < b ? a : b; }

static real dot(const real *a, const real *b, int d) {
    real s = 0;
    for (int c = 0; c < d; c++) s += a[c] * b[c];
    return s;
}

// Keys of the block from j0 (C of them) that query i may see: all, or
// under the causal mask those up to i.
static int seen_keys(bool causal, int i, int j0, int C) { return causal ? min_int(C, i - j0 + 1) : C; }

// Queries i0 .. i0 + R - 1 against every key block they may see: a tile of
// scores at a time, each row folded in by the online softmax.
//> tiled-forward
static void forward_rows(real *out, real *lse, const real *q, const real *k, const real *v,
                         int n, int d, real scale, bool causal, int i0, int R) {
    softmax_state state[ATTN_TILE];
    real s[ATTN_TILE];  // a row of the tile: scores, then weights
    for (int r = 0; r < R; r++) {
        state[r] = softmax_start();
        for (int c = 0; c < d; c++) out[(long)(i0 + r) * d + c] = 0;
    }
    int end = causal ? i0 + R : n;  // the tiles above the diagonal skipped
    for (int j0 = 0; j0 < end; j0 += ATTN_TILE) {
        int C = min_int(ATTN_TILE, end - j0);
        for (int r = 0; r < R; r++) {
            int i = i0 + r, seen = seen_keys(causal, i, j0, C);
            real *o = out + (long)i * d;
            for (int j = 0; j < seen; j++)
                s[j] = scale * dot(q + (long)i * d, k + (long)(j0 + j) * d, d);
            real rescale = softmax_add_block(&state[r], s, s, seen);
            for (int c = 0; c < d; c++) o[c] *= rescale;  // the old terms, to the new maximum
            for (int j = 0; j < seen; j++)
                for (int c = 0; c < d; c++) o[c] += s[j] * v[(long)(j0 + j) * d + c];
        }
    }
    for (int r = 0; r < R; r++) {  // the sum, known at last: divide
        for (int c = 0; c < d; c++) out[(long)(i0 + r) * d + c] /= state[r].sum;
        lse[i0 + r] = softmax_log_sum_exp(state[r]);
    }
}
//< tiled-forward

// Query block i0 (R rows) against key block j0 (C rows): the weights
// recomputed from lse, their gradients added into the query block's rows
// of dq, and into the key block's rows of dk and dv; NULL for those not
// wanted.
//> tiled-backward-tile
static void backward_tile(real *dq, real *dk, real *dv, const real *dout, const real *q,
                          const real *k, const real *v, const real *out, const real *lse, int d,
                          real scale, bool causal, int i0, int R, int j0, int C) {
    for (int i = i0; i < i0 + R; i++) {
        const real *qi = q + (long)i * d, *doi = dout + (long)i * d;
        real D = dot(doi, out + (long)i * d, d);  // = sum_j w_ij (dout_i . v_j)
        for (int j = j0; j < j0 + seen_keys(causal, i, j0, C); j++) {
            const real *kj = k + (long)j * d, *vj = v + (long)j * d;
            real p = exp(scale * dot(qi, kj, d) - lse[i]);  // the weight w_ij, recomputed
            real ds = scale * p * (dot(doi, vj, d) - D);  // the softmax's gradient, times scale
            for (int c = 0; c < d; c++) {
                if (dv) dv[(long)j * d + c] += p * doi[c];
                if (dk) dk[(long)j * d + c] += ds * qi[c];
                if (dq) dq[(long)i * d + c] += ds * kj[c];
            }
        }
    }
}
//< tiled-backward-tile

static bool kernels_take(int d) { return d <= ATTN_TILE_MAX_D; }

void tiled_attention_forward(real *out, real *lse, const real *q, const real *k, const real *v,
                             int n, int d, real scale, bool causal) {
    int blocks = (n + ATTN_TILE - 1) / ATTN_TILE;
    PARALLEL_FOR(blocks > 1)
    for (int b = 0; b < blocks; b++) {
        int i0 = b * ATTN_TILE, R = min_int(ATTN_TILE, n - i0);
        if (!kernels_take(d) || !FAST_KERNEL(attention_rows_forward, out, lse, q, k, v, n, d, scale, causal, i0, R))
            forward_rows(out, lse, q, k, v, n, d, scale, causal, i0, R);
    }
}

// The tile of query block i against key block j, as its (i, j) numbers
// say: gradients into dq, or into dk and dv.
static void backward_block(real *dq, real *dk, real *dv, const real *dout, const real *q,
                           const real *k, const real *v, const real *out, const real *lse, int n,
                           int d, real scale, bool causal, int i, int j) {
    if (causal && i < j) return;  // a tile above the diagonal: every weight 0
    int i0 = i * ATTN_TILE, R = min_int(ATTN_TILE, n - i0);
    int j0 = j * ATTN_TILE, C = min_int(ATTN_TILE, n - j0);
    if (!kernels_take(d) || !FAST_KERNEL(attention_tile_backward, dq, dk, dv, dout, q, k, v, out, lse, d, scale, causal, i0, R, j0, C))
        backward_tile(dq, dk, dv, dout, q, k, v, out, lse, d, scale, causal, i0, R, j0, C);
}

//> tiled-backward
void tiled_attention_backward(real *dq, real *dk, real *dv, const real *dout, const real *q,
                              const real *k, const real *v, const real *out, const real *lse,
                              int n, int d, real scale, bool causal) {
    int blocks = (n + ATTN_TILE - 1) / ATTN_TILE;
    PARALLEL_FOR(blocks > 1)
    for (int j = 0; j < blocks; j++)  // pass 1: a key block's dk, dv, from every query block
        for (int i = 0; i < blocks; i++)
            backward_block(NULL, dk, dv, dout, q, k, v, out, lse, n, d, scale, causal, i, j);
    PARALLEL_FOR(blocks > 1)
    for (int i = 0; i < blocks; i++)  // pass 2: a query block's dq, from every key block
        for (int j = 0; j < blocks; j++)
            backward_block(dq, NULL, NULL, dout, q, k, v, out, lse, n, d, scale, causal, i, j);
}
//< tiled-backward

double attention_flops(int n, int d, bool causal, bool backward) {
    double full = (backward ? 10.0 : 4.0) * n * (double)n * d;
    return causal ? full / 2 : full;
}
