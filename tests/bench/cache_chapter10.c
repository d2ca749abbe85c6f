// cache_chapter10.c: one forward pass of naive or of tiled attention (one
// head, d = 64, one thread), for valgrind's cachegrind to count the cache
// misses of (src/programs/chapter10_bench.mk, make cachegrind-chapter10).
//
// Usage: cache_chapter10 naive|tiled N
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "kernels/parallel.h"
#include "layers/naive_attention.h"
#include "layers/tiled_attention.h"

enum { D = 64 };

int main(int argc, char **argv) {
    int n = argc == 3 ? atoi(argv[2]) : 0;
    bool naive = argc == 3 && strcmp(argv[1], "naive") == 0;
    if (n < 1 || n > 65536 || (!naive && strcmp(argv[1], "tiled") != 0)) {
        fprintf(stderr, "usage: cache_chapter10 naive|tiled N (1 to 65536)\n");
        return 2;
    }
    parallel_set_threads(1);
    size_t nd = (size_t)n * D;
    float *q = malloc(nd * sizeof *q), *k = malloc(nd * sizeof *k), *v = malloc(nd * sizeof *v);
    float *out = malloc(nd * sizeof *out), *lse = malloc((size_t)n * sizeof *lse);
    float *w = naive ? malloc((size_t)n * n * sizeof *w) : NULL;
    if (!q || !k || !v || !out || !lse || (naive && !w)) {
        fprintf(stderr, "cache_chapter10: out of memory\n");
        return 1;
    }
    torch_rng g;
    rng_seed(&g, 1);
    rng_randn(&g, q, nd);
    rng_randn(&g, k, nd);
    rng_randn(&g, v, nd);
    float scale = 1.0f / sqrtf((float)D);
    if (naive) naive_attention_forward(out, w, q, k, v, n, D, scale, false);
    else tiled_attention_forward(out, lse, q, k, v, n, D, scale, false);
    printf("%s n = %d: out[0] = %g\n", argv[1], n, out[0]);
    free(q), free(k), free(v), free(out), free(lse), free(w);
    return 0;
}
