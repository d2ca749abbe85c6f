// simd.c: the CPU's vector instructions, asked for at run time. See simd.h.
#include "kernels/simd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int simd_supported(simd_level level) {
    if (level == SIMD_NONE) return 1;
#ifdef SIMD_X86
    __builtin_cpu_init();
    if (level == SIMD_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (level == SIMD_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("fma");
#endif
    return 0;
}

const char *simd_name(simd_level level) {
    switch (level) {
    case SIMD_NONE: return "none";
    case SIMD_AVX2: return "avx2";
    case SIMD_AVX512: return "avx512";
    }
    return "?";
}

// What simd_best found, or -1 before its first call: the environment and
// the CPU are asked once per process, not at every product (gemm calls
// simd_best each time, and getenv walks the whole environment).
static _Atomic int best_found = -1;

static simd_level find_best(void) {
    simd_level cap = SIMD_AVX512;
    const char *env = getenv("ATTN_SIMD");
    if (env && strcmp(env, "none") == 0) cap = SIMD_NONE;
    if (env && strcmp(env, "avx2") == 0) cap = SIMD_AVX2;
    for (simd_level l = cap; l > SIMD_NONE; l--)
        if (simd_supported(l)) return l;
    return SIMD_NONE;
}

simd_level simd_best(void) {
    int l = atomic_load_explicit(&best_found, memory_order_relaxed);
    if (l < 0) {
        l = (int)find_best();
        atomic_store_explicit(&best_found, l, memory_order_relaxed);
    }
    return (simd_level)l;
}

void simd_reread(void) { atomic_store_explicit(&best_found, -1, memory_order_relaxed); }
