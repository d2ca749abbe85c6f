// simd.h: which vector instructions this CPU has, and how a fast kernel
// asks for them.
//
// The vector kernels are written once, in simd_kernels.h, over a handful of
// vector operations, and compiled twice: for AVX-512 by simd_avx512.c and
// for AVX2 with FMA by simd_avx2.c. Each replaces readable code that runs
// instead when the CPU has neither set, off x86-64, with ATTN_SIMD=none or
// when real is double: gemm_reference.c for the product, and the loops
// beside each call in attention_head.c, multihead_attention.c, layernorm.c,
// embedding.c, linear.c, mean.c, gelu.c, cross_entropy.c, adam.c and adamw.c
// (and softmax.c for the softmax) for the others. The program is built
// without -march flags, so it runs on any x86-64 (and on other processors,
// through that readable code); each compiled version carries its
// instruction set in a function attribute, and simd_best() picks one at run
// time from what the CPU reports. Valgrind, for one, reports no AVX-512, so under valgrind the
// AVX2 code runs.
#ifndef ATTN_SIMD_H
#define ATTN_SIMD_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/real.h"

typedef enum {
    SIMD_NONE,    // the portable reference code
    SIMD_AVX2,    // 8 floats a vector, with fused multiply-add
    SIMD_AVX512,  // 16 floats a vector
} simd_level;

#if defined(__x86_64__) && defined(__GNUC__)
#define SIMD_X86 1
#endif

// The best level this CPU runs, capped by the environment variable
// ATTN_SIMD (none, avx2 or avx512) when it is set, so that a reader can
// time or test the slower versions on a fast machine. Found at the first
// call and kept (see simd_reread).
simd_level simd_best(void);

// Makes the next simd_best() read ATTN_SIMD again: simd_best reads it once
// and keeps the level for the rest of the process, so a program that
// changes the variable while it runs (a test trying each level) calls this
// after each change.
void simd_reread(void);

// Whether this CPU runs that level.
int simd_supported(simd_level level);

// "none", "avx2", "avx512"
const char *simd_name(simd_level level);

// The vector kernels (simd_kernels.h), once for each instruction set: call
// the _avx512 ones only when simd_supported(SIMD_AVX512), the _avx2 ones
// when simd_supported(SIMD_AVX2). What each computes, and the reference
// code it replaces, is said where it is written.
#define SIMD_KERNELS(isa)                                                                          \
    void gemm_panel_##isa(float *c, long ldc, const float *start, const float *a, long a_i,       \
                          long a_p, const float *b, long ldb, int n, int k, int w);                \
    void gemm_row_##isa(float *c, const float *a, long a_p, const float *b, long ldb, int k);      \
    void pack_transposed_##isa(float *bt, const float *b, long ldb, int k, int w);                 \
    void scale_##isa(float *x, long n, float s);                                                   \
    void softmax_rows_##isa(float *x, int rows, int L);                                            \
    void softmax_backward_rows_##isa(float *g, const float *w, int rows, int L);                   \
    void scatter_add_rows_##isa(float *table, const float *src, const int32_t *ids, int n, int d); \
    void mean_rows_##isa(float *out, const float *inp, int B, int L, int d);                       \
    void mean_backward_rows_##isa(float *dinp, const float *dout, int B, int L, int d);            \
    void add_column_sums_##isa(float *out, const float *x, int rows, int d);                       \
    void adam_dense_##isa(float *p, const float *g, float *m, float *v, long n, float b1, float b2, \
                          float eps, float step, float inv_root_c2);                               \
    void adamw_dense_##isa(float *p, const float *g, float *m, float *v, long n, float shrink,     \
                           float b1, float b2, float a1, float a2, float eps, float step,          \
                           float root_c2);                                                         \
    void adam_missed_steps_##isa(float *p, float *m, float *v, long n, const float *step_at,       \
                                 const float *inv_root_c2_at, long t0, long t1, float b1,          \
                                 float b2, float eps);                                          \
    void attention_head_forward_##isa(float *w, float *z, const float *q, const float *k,          \
                                      const float *v, long ld, const bool *pad, int causal,        \
                                      int nq, int nk, int dk, float *scratch);                     \
    void attention_query_forward_##isa(float *w, float *z, const float *q, const float *kt,        \
                                       long ld_kt, const float *v, int nk, int dk);                \
    void attention_head_backward_##isa(float *dq, float *dk, float *dv, float *dw,                 \
                                       const float *dz, const float *q, const float *k,            \
                                       const float *v, const float *w, long ld, int causal,        \
                                       int nq, int nk, int d_k, float *scratch);                   \
    void layer_norm_rows_##isa(float *out, float *mean, float *rstd, const float *inp,             \
                               const float *gain, const float *bias, int n, int d, float eps); \
    void layer_norm_backward_rows_##isa(float *dinp, float *dgain, float *dbias,                   \
                                        const float *dout, const float *inp, const float *mean,    \
                                        const float *rstd, const float *gain, int n, int d);     \
    void add_arrays_##isa(float *y, const float *a, const float *b, long n);                       \
    void gelu_forward_##isa(float *out, float *slope, const float *inp, long n);                   \
    void gelu_backward_##isa(float *dinp, const float *dout, const float *inp, long n, int add);  \
    void gelu_backward_slope_##isa(float *dinp, const float *dout, const float *slope, long n);  \
    void cross_entropy_rows_##isa(double *loss, double *lse, const float *z, const int32_t *y,     \
                                  int rows, int V);                                                \
    void cross_entropy_rows_backward_##isa(float *dz, const float *z, const int32_t *y,            \
                                           const double *lse, int rows, int V, int C);
SIMD_KERNELS(avx512)
SIMD_KERNELS(avx2)

// Runs kernel_avx512(...) or kernel_avx2(...) as level allows; true when
// it ran, false for SIMD_NONE (or off x86-64), when the caller runs its
// reference code instead.
#ifdef SIMD_X86
#define SIMD_RUN(level, kernel, ...)                                              \
    ((level) == SIMD_AVX512 ? (kernel##_avx512(__VA_ARGS__), true)                \
     : (level) == SIMD_AVX2 ? (kernel##_avx2(__VA_ARGS__), true) : false)
#else
#define SIMD_RUN(level, kernel, ...) false
#endif

// The same on arrays of real, at simd_best(): the kernels are float, so
// when real is double (real.h) this is false and the reference code runs.
#ifdef ATTN_REAL_IS_FLOAT
#define FAST_KERNEL(kernel, ...) SIMD_RUN(simd_best(), kernel, __VA_ARGS__)
#else
#define FAST_KERNEL(kernel, ...) false
#endif

// y = a + b, the n numbers one by one (y may be a or b): the add_arrays
// kernel, a vector at a time, or the loop; the same bits.
static inline void sum_arrays(real *y, const real *a, const real *b, long n) {
    if (!FAST_KERNEL(add_arrays, y, a, b, n))
        for (long e = 0; e < n; e++) y[e] = a[e] + b[e];
}

// Columns of c that gemm_panel computes at once: two vectors.
static inline int simd_panel_width(simd_level level) { return level == SIMD_AVX512 ? 32 : 16; }

#endif
