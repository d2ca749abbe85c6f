// attention_tiles.h: the vector kernels of tiled attention
// (layers/tiled_attention.c), one block of queries against the keys
// forward, one block of queries against one block of keys backward.
// Written once in simd_attention.h and compiled for AVX-512 and AVX2 as
// the kernels of simd.h are; the readable loops they replace are in
// tiled_attention.c, held to them by tests/test_tiled_attention.c.
//
//   n        queries, keys and values: (n, d) arrays, rows d apart
//   i0, R    the query block: rows i0 .. i0 + R - 1, R <= ATTN_TILE
//   j0, C    the key block: rows j0 .. j0 + C - 1, C <= ATTN_TILE
#ifndef ATTN_ATTENTION_TILES_H
#define ATTN_ATTENTION_TILES_H

#include "kernels/simd.h"

enum {
    ATTN_TILE = 64,        // queries and keys in a block: a 64 x 64 tile of scores, 16 KB of float
    ATTN_TILE_MAX_D = 256  // the widest head the kernels take (their copies of a block live on the stack)
};

#define ATTENTION_TILE_KERNELS(isa)                                                                \
    void attention_rows_forward_##isa(float *o, float *lse, const float *q, const float *k,        \
                                      const float *v, int n, int d, float scale, int causal,       \
                                      int i0, int R);                                              \
    void attention_tile_backward_##isa(float *dq, float *dk, float *dv, const float *dout,         \
                                       const float *q, const float *k, const float *v,             \
                                       const float *o, const float *lse, int d, float scale,       \
                                       int causal, int i0, int R, int j0, int C);
ATTENTION_TILE_KERNELS(avx512)
ATTENTION_TILE_KERNELS(avx2)

#endif
