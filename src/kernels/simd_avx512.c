// simd_avx512.c: the vector kernels (simd_kernels.h) compiled for AVX-512,
// 16 floats a vector. The kernels are written once, over the few vector
// operations defined here; simd_avx2.c defines the same operations for AVX2.
#include "kernels/simd.h"

#ifdef SIMD_X86
#include <immintrin.h>

#define KERNEL(name) name##_avx512
#define TARGET __attribute__((target("avx512f,avx2,fma")))
#define VEC_OP TARGET static inline __attribute__((always_inline))

typedef __m512 vec;
enum { VEC = 16,       // floats in a vector
       GEMM_ROWS = 8   // rows of c a product block keeps in registers: 16 of the 32 vector registers
};

// The first w of VEC lanes (0 <= w < VEC) as a mask.
VEC_OP __mmask16 lanes(int w) { return (__mmask16)((1u << w) - 1); }

VEC_OP vec vec_set(float x) { return _mm512_set1_ps(x); }
VEC_OP vec vec_load(const float *p) { return _mm512_loadu_ps(p); }
VEC_OP void vec_store(float *p, vec x) { _mm512_storeu_ps(p, x); }
// The first w lanes from p, zero in the others; nothing beyond p + w is read.
VEC_OP vec vec_load_first(const float *p, int w) { return _mm512_maskz_loadu_ps(lanes(w), p); }
VEC_OP void vec_store_first(float *p, vec x, int w) { _mm512_mask_storeu_ps(p, lanes(w), x); }
// The first w lanes from p (all of them when w >= VEC), fill in the others.
VEC_OP vec vec_load_first_or(const float *p, int w, float fill) {
    return w >= VEC ? vec_load(p) : _mm512_mask_loadu_ps(_mm512_set1_ps(fill), lanes(w), p);
}
// x in the first w lanes, zero in the others
VEC_OP vec vec_keep_first(vec x, int w) { return w >= VEC ? x : _mm512_maskz_mov_ps(lanes(w), x); }
// p[0], p[stride], ... p[(w - 1) stride] (w <= VEC lanes), zero beyond.
VEC_OP vec vec_gather(const float *p, int stride, int w) {
    __m512i at = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                    _mm512_set1_epi32(stride));
    __mmask16 on = w >= VEC ? 0xFFFF : lanes(w);
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), on, at, p, 4);
}
// The VEC x VEC block of rows r[0 .. VEC) transposed in place: r[i][j]
// and r[j][i] trade places (pairs of rows interleaved, then pairs of pairs,
// then quarters of the vector).
VEC_OP void vec_transpose(vec r[VEC]) {
    __m512 t[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
        r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
        r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
        t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xDD);
        t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
        t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xDD);
    }
    for (int i = 0; i < 8; i++) {
        r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
        r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
    }
}
VEC_OP vec vec_add(vec a, vec b) { return _mm512_add_ps(a, b); }
VEC_OP vec vec_sub(vec a, vec b) { return _mm512_sub_ps(a, b); }
VEC_OP vec vec_mul(vec a, vec b) { return _mm512_mul_ps(a, b); }
VEC_OP vec vec_div(vec a, vec b) { return _mm512_div_ps(a, b); }
VEC_OP vec vec_max(vec a, vec b) { return _mm512_max_ps(a, b); }
VEC_OP vec vec_sqrt(vec a) { return _mm512_sqrt_ps(a); }
// a b + c with one rounding
VEC_OP vec vec_fma(vec a, vec b, vec c) { return _mm512_fmadd_ps(a, b, c); }
// The nearest whole number, as a float.
VEC_OP vec vec_round(vec a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
// 2^n for whole numbers n in [-126, 127]: n + 127 in a float's exponent bits
VEC_OP vec vec_pow2(vec n) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
}
VEC_OP float vec_sum(vec a) {  // in a fixed order: halves, then quarters, ...
    __m256 high = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1));
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(a), high);
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
}
VEC_OP float vec_max_all(vec a) { return _mm512_reduce_max_ps(a); }

#include "kernels/simd_kernels.h"
#include "kernels/simd_attention.h"
#endif
