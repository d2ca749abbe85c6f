// simd_avx2.c: the vector kernels (simd_kernels.h) compiled for AVX2 with
// fused multiply-add, 8 floats a vector: the operations of simd_avx512.c
// on half as many lanes.
#include "kernels/simd.h"

#ifdef SIMD_X86
#include <immintrin.h>

#define KERNEL(name) name##_avx2
#define TARGET __attribute__((target("avx2,fma")))
#define VEC_OP TARGET static inline __attribute__((always_inline))

typedef __m256 vec;
enum { VEC = 8,        // floats in a vector
       GEMM_ROWS = 6   // rows of c a product block keeps in registers: 12 of the 16 vector registers
};

// The first w of VEC lanes (0 <= w < VEC) as a mask: lane i is on when i < w.
VEC_OP __m256i lanes(int w) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(w), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

VEC_OP vec vec_set(float x) { return _mm256_set1_ps(x); }
VEC_OP vec vec_load(const float *p) { return _mm256_loadu_ps(p); }
VEC_OP void vec_store(float *p, vec x) { _mm256_storeu_ps(p, x); }
VEC_OP vec vec_load_first(const float *p, int w) { return _mm256_maskload_ps(p, lanes(w)); }
VEC_OP void vec_store_first(float *p, vec x, int w) { _mm256_maskstore_ps(p, lanes(w), x); }
VEC_OP vec vec_load_first_or(const float *p, int w, float fill) {
    return w >= VEC ? vec_load(p) : _mm256_blendv_ps(_mm256_set1_ps(fill), vec_load_first(p, w), _mm256_castsi256_ps(lanes(w)));
}
VEC_OP vec vec_keep_first(vec x, int w) { return w >= VEC ? x : _mm256_and_ps(x, _mm256_castsi256_ps(lanes(w))); }
VEC_OP vec vec_gather(const float *p, int stride, int w) {
    __m256i at = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(stride));
    __m256i on = w >= VEC ? _mm256_set1_epi32(-1) : lanes(w);
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), p, at, _mm256_castsi256_ps(on), 4);
}
VEC_OP void vec_transpose(vec r[VEC]) {
    __m256 t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
        u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int i = 0; i < 4; i++) {
        r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
        r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
}
VEC_OP vec vec_add(vec a, vec b) { return _mm256_add_ps(a, b); }
VEC_OP vec vec_sub(vec a, vec b) { return _mm256_sub_ps(a, b); }
VEC_OP vec vec_mul(vec a, vec b) { return _mm256_mul_ps(a, b); }
VEC_OP vec vec_div(vec a, vec b) { return _mm256_div_ps(a, b); }
VEC_OP vec vec_max(vec a, vec b) { return _mm256_max_ps(a, b); }
VEC_OP vec vec_sqrt(vec a) { return _mm256_sqrt_ps(a); }
VEC_OP vec vec_fma(vec a, vec b, vec c) { return _mm256_fmadd_ps(a, b, c); }
VEC_OP vec vec_round(vec a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
VEC_OP vec vec_pow2(vec n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}
VEC_OP float vec_sum(vec a) {
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
}
VEC_OP float vec_max_all(vec a) {
    __m128 q = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    q = _mm_max_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_max_ss(q, _mm_movehdup_ps(q)));
}

#include "kernels/simd_kernels.h"
#include "kernels/simd_attention.h"
#endif
