// simd_attention.h: the kernels of tiled attention (attention_tiles.h),
// written once. Not a header to include anywhere else: simd_avx512.c and
// simd_avx2.c include it after simd_kernels.h, whose product blocks
// (gemm_columns), vec_exp and partial loads it uses.
//
// The products of a tile are gemm_panel's blocks: a few rows of the result
// and two vectors of its columns in registers while the sum runs. The
// block of keys (or values) is copied out transposed, two vectors of keys
// at a time (pack_transposed), so that a row of scores is a row of the
// product. Everything a tile touches, 64 rows of queries, keys, values and
// the 64 x 64 scores, stays in the cache of one core.
#include "kernels/attention_tiles.h"

// kt = the C rows of x from row 0 transposed, in panels of W = 2 VEC keys:
// panel c holds kt[c d + p W + jj] = x[(c + jj) d + p].
INLINE void pack_block(float *kt, const float *x, int d, int C) {
    for (int c = 0; c < C; c += 2 * VEC)
        KERNEL(pack_transposed)(kt + (long)c * d, x + (long)c * d, d, d, C - c < 2 * VEC ? C - c : 2 * VEC);
}

// s (R, C), rows ATTN_TILE apart, = a (R, d) times the block packed in kt.
INLINE void tile_scores(float *s, const float *a, const float *kt, int d, int R, int C) {
    for (int c = 0; c < C; c += 2 * VEC)
        gemm_columns(s + c, ATTN_TILE, a, d, 1, kt + (long)c * d, 2 * VEC, R, d,
                     C - c < 2 * VEC ? C - c : 2 * VEC, 1);
}

// y (n rows, ldy apart, d columns) += x b, x(i, p) = x[i x_i + p x_p] for
// p < m, b (m, d) rows d apart.
INLINE void tile_product(float *y, long ldy, const float *x, long x_i, long x_p, const float *b,
                         int n, int m, int d) {
    for (int c = 0; c < d; c += 2 * VEC)
        gemm_columns(y + c, ldy, x, x_i, x_p, b + c, d, n, m, d - c < 2 * VEC ? d - c : 2 * VEC, 0);
}

// Keys of the block that query i may see: all C, or under the causal mask
// those up to i (at least one, as a block is only visited when j0 <= i).
INLINE int seen_keys(int causal, int i, int j0, int C) { return causal && i - j0 + 1 < C ? i - j0 + 1 : C; }

// Replaces forward_rows (tiled_attention.c): the online softmax over the
// key blocks for queries i0 .. i0 + R - 1, o (their rows) and lse written.
TARGET void KERNEL(attention_rows_forward)(float *o, float *lse, const float *q, const float *k,
                                           const float *v, int n, int d, float scale, int causal,
                                           int i0, int R) {
    float s[ATTN_TILE * ATTN_TILE], kt[ATTN_TILE * ATTN_TILE_MAX_D], top[ATTN_TILE], sum[ATTN_TILE];
    const float *qi = q + (long)i0 * d;
    float *oi = o + (long)i0 * d;
    for (int r = 0; r < R; r++) {
        top[r] = -INFINITY;
        sum[r] = 0;
        for (int c = 0; c < d; c++) oi[(long)r * d + c] = 0;
    }
    int end = causal ? i0 + R : n;  // under the mask, no key beyond the block's last query
    for (int j0 = 0; j0 < end; j0 += ATTN_TILE) {
        int C = end - j0 < ATTN_TILE ? end - j0 : ATTN_TILE;
        pack_block(kt, k + (long)j0 * d, d, C);
        tile_scores(s, qi, kt, d, R, C);
        for (int r = 0; r < R; r++) {  // the online softmax step on each row of scores
            float *row = s + r * ATTN_TILE, *orow = oi + (long)r * d;
            int seen = seen_keys(causal, i0 + r, j0, C);
            vec mx = vec_set(-INFINITY);
            for (int j = 0; j < seen; j += VEC) mx = vec_max(mx, vec_load_first_or(row + j, seen - j, -INFINITY));
            float new_top = fmaxf(top[r], vec_max_all(mx) * scale), rescale = expf(top[r] - new_top);
            vec total = vec_set(0);
            for (int j = 0; j < C; j += VEC) {  // p = e^(scale s - top), 0 where masked
                int keep = seen - j < 0 ? 0 : seen - j;
                // scale s rounded before top is subtracted, as top was: for the
                // largest score exactly 0, however large the scores (no fma)
                vec x = vec_sub(vec_mul(load_part(row + j, C - j), vec_set(scale)), vec_set(new_top));
                vec p = vec_keep_first(vec_exp(x), keep);
                total = vec_add(total, p);
                store_part(row + j, p, C - j);
            }
            sum[r] = sum[r] * rescale + vec_sum(total);
            top[r] = new_top;
            if (rescale != 1)
                for (int c = 0; c < d; c += VEC) store_part(orow + c, vec_mul(load_part(orow + c, d - c), vec_set(rescale)), d - c);
        }
        tile_product(oi, d, s, ATTN_TILE, 1, v + (long)j0 * d, R, C, d);  // o += p v
    }
    for (int r = 0; r < R; r++) {
        float *orow = oi + (long)r * d;
        for (int c = 0; c < d; c += VEC) store_part(orow + c, vec_div(load_part(orow + c, d - c), vec_set(sum[r])), d - c);
        lse[i0 + r] = top[r] + logf(sum[r]);
    }
}

// Replaces backward_tile (tiled_attention.c): the scores of query block i0
// against key block j0 recomputed, p = e^(scale s - lse), and their
// gradients added into dq (the query block's rows) unless it is NULL, and
// into dk and dv (the key block's) unless they are NULL.
TARGET void KERNEL(attention_tile_backward)(float *dq, float *dk, float *dv, const float *dout,
                                            const float *q, const float *k, const float *v,
                                            const float *o, const float *lse, int d, float scale,
                                            int causal, int i0, int R, int j0, int C) {
    float p[ATTN_TILE * ATTN_TILE], ds[ATTN_TILE * ATTN_TILE], kt[ATTN_TILE * ATTN_TILE_MAX_D];
    const float *qi = q + (long)i0 * d, *doi = dout + (long)i0 * d, *kj = k + (long)j0 * d;
    pack_block(kt, kj, d, C);
    tile_scores(p, qi, kt, d, R, C);              // s = q k^T
    pack_block(kt, v + (long)j0 * d, d, C);
    tile_scores(ds, doi, kt, d, R, C);            // dp = dout v^T
    for (int r = 0; r < R; r++) {
        float *prow = p + r * ATTN_TILE, *drow = ds + r * ATTN_TILE;
        int i = i0 + r, seen = seen_keys(causal, i, j0, C);
        const float *orow = o + (long)i * d, *dorow = dout + (long)i * d;
        vec dot = vec_set(0);  // D_i = dout_i . o_i
        for (int c = 0; c < d; c += VEC) dot = vec_fma(load_part(dorow + c, d - c), load_part(orow + c, d - c), dot);
        vec D = vec_set(vec_sum(dot)), L = vec_set(lse[i]), S = vec_set(scale);
        for (int j = 0; j < C; j += VEC) {
            int keep = seen - j < 0 ? 0 : seen - j;
            vec pj = vec_keep_first(vec_exp(vec_sub(vec_mul(load_part(prow + j, C - j), S), L)), keep);
            store_part(prow + j, pj, C - j);  // ds = scale p (dp - D)
            store_part(drow + j, vec_mul(S, vec_mul(pj, vec_sub(load_part(drow + j, C - j), D))), C - j);
        }
    }
    if (dv) tile_product(dv + (long)j0 * d, d, p, 1, ATTN_TILE, doi, C, R, d);  // dv += p^T dout
    if (dk) tile_product(dk + (long)j0 * d, d, ds, 1, ATTN_TILE, qi, C, R, d);  // dk += ds^T q
    if (dq) tile_product(dq + (long)i0 * d, d, ds, ATTN_TILE, 1, kj, R, C, d);  // dq += ds k
}
