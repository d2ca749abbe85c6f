// simd_levels.h: the suites that hold fast kernels to readable ones run
// them at each vector level this CPU has (kernels/simd.h).
#ifndef ATTN_TEST_SIMD_LEVELS_H
#define ATTN_TEST_SIMD_LEVELS_H

#include <check.h>
#include <stdlib.h>

#include "kernels/simd.h"

// The levels this CPU runs, the portable one first.
static int levels(simd_level *out) {
    int n = 0;
    for (simd_level l = SIMD_NONE; l <= SIMD_AVX512; l++)
        if (simd_supported(l)) out[n++] = l;
    return n;
}

// Makes simd_best() return level, for the kernels that ask it.
static void use_level(simd_level level) {
    ck_assert_int_eq(setenv("ATTN_SIMD", simd_name(level), 1), 0);
    simd_reread();
}

// Back to the best level: ATTN_SIMD unset, and read again.
static void use_best_level(void) {
    unsetenv("ATTN_SIMD");
    simd_reread();
}

#endif
