// rng.c: PyTorch 1.13's CPU random number generator in C.
//
// Legend:
//   g      the generator (caller-owned state, see rng.h)
//   draw   one tempered 32-bit MT19937 output
//   u      a float uniform (draw & 0xFFFFFF) * 2^-24 in [0, 1)
//   n      number of values written
//
// Everything here was worked out by experiment against torch 1.13 on this
// machine (tests/reference/rng_golden.py writes the evidence) and from the
// documented formulas of torch.nn.init. Facts found:
//   - manual_seed(s) seeds MT19937 with the standard init_genrand using the
//     low 32 bits of s only: seeds s and s & 0xFFFFFFFF give the same stream
//     (checked for 67280421310721, 2^32 + 5, 2^63 + 7, 2^64 - 1), and even
//     torch.initial_seed() then reports the truncated value.
//   - The default seed of a fresh process is NOT 67280421310721 in 1.13:
//     torch.initial_seed() differs in every fresh process (it comes from the
//     operating system's entropy), so a notebook run without manual_seed
//     cannot be replayed by seeding with that constant. Searching all 2^32
//     effective seeds finds the one each notebook ran with: 3570563066
//     for "Attention and Transformers" and 74104689 for "Studying the
//     mechanism of self-attention" (see tests/test_rng.c, "notebooks").
//   - manual_seed also forgets the cached normal (see rng_randn).
#include "core/rng.h"

#include <math.h>

#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UPPER_MASK 0x80000000u
#define MT_LOWER_MASK 0x7fffffffu

static const double PI = 3.14159265358979323846;

//> mt19937
// torch.manual_seed(seed): MT19937 init_genrand with the low 32 bits of the
// seed, mt[i] = 1812433253 * (mt[i-1] ^ (mt[i-1] >> 30)) + i (mod 2^32);
// the first draw twists the whole state. The cached normal is dropped.
void rng_seed(torch_rng *g, uint64_t seed) {
    g->mt[0] = (uint32_t)(seed & 0xFFFFFFFFu);
    for (uint32_t i = 1; i < RNG_MT_N; i++) {
        uint32_t prev = g->mt[i - 1];
        g->mt[i] = 1812433253u * (prev ^ (prev >> 30)) + i;
    }
    g->index = RNG_MT_N;
    g->has_normal = 0;
    g->next_normal = 0.0;
}

// Regenerate all 624 state words (the MT19937 "twist").
static void mt_twist(torch_rng *g) {
    uint32_t *mt = g->mt;
    for (int i = 0; i < RNG_MT_N; i++) {
        uint32_t y = (mt[i] & MT_UPPER_MASK) | (mt[(i + 1) % RNG_MT_N] & MT_LOWER_MASK);
        mt[i] = mt[(i + MT_M) % RNG_MT_N] ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX_A : 0u);
    }
    g->index = 0;
}

// One 32-bit draw: the next state word, tempered (standard MT19937; the
// first draw after seed 5489 is 3499211612).
uint32_t rng_next_u32(torch_rng *g) {
    if (g->index >= RNG_MT_N) mt_twist(g);
    uint32_t y = g->mt[g->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}
//< mt19937

// Two draws a then b as one 64-bit number (a << 32) | b. torch.randint uses
// it when hi - lo >= 2^32 (randint(0, 2^32) gives the 2nd, 4th, ... draws).
uint64_t rng_next_u64(torch_rng *g) {
    uint64_t hi = rng_next_u32(g);
    uint64_t lo = rng_next_u32(g);
    return (hi << 32) | lo;
}

//> rand
// A float uniform in [0, 1) from one draw: its low 24 bits times 2^-24.
static float next_float01(torch_rng *g) {
    return (float)(rng_next_u32(g) & 0xFFFFFFu) * (1.0f / 16777216.0f);
}

// A double uniform in [0, 1) from two draws: the low 53 bits of
// rng_next_u64 times 2^-53.
static double next_double01(torch_rng *g) {
    return (double)(rng_next_u64(g) & ((UINT64_C(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

// torch.rand(n): one draw per element, u = (draw & 0xFFFFFF) * 2^-24, in
// element order.
void rng_rand(torch_rng *g, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = next_float01(g);
}
//< rand

// Tensor.uniform_(a, b): one draw per element, u as in rng_rand, then
// u * (b - a) + a computed in double (a and b already floats) and rounded
// to float once. Doing it in float instead is off by an ulp about half
// the time. (A compiler fusing this into an FMA changes nothing: u has 24
// bits and b - a of two nearby floats fits in 29, so the product is exact.)
void rng_uniform(torch_rng *g, float *out, size_t n, float a, float b) {
    double from = a, to = b;
    for (size_t i = 0; i < n; i++) {
        double u = next_float01(g);
        out[i] = (float)(u * (to - from) + from);
    }
}

// torch.randint(lo, hi, (n,)): with range = hi - lo, each value is
// lo + draw % range when range < 2^32, and lo + rng_next_u64 % range (two
// draws) when range >= 2^32 (checked for 2^32, 2^32 + 1, 2^40, 2^62 and
// [-2^40, 2^40)). The modulo bias is PyTorch's too.
void rng_randint(torch_rng *g, int64_t *out, size_t n, int64_t lo, int64_t hi) {
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    for (size_t i = 0; i < n; i++) {
        uint64_t r;
        if (range >= (UINT64_C(1) << 32))
            r = rng_next_u64(g) % range;
        else
            r = rng_next_u32(g) % range;
        out[i] = (int64_t)((uint64_t)lo + r);
    }
}

//> randn
// Box-Muller on one block of 16 floats already holding uniforms: for
// j < 8, u1 = 1 - x[j], u2 = x[j + 8], r = sqrt(-2 log u1), t = 2 pi u2,
// x[j] = r cos t, x[j + 8] = r sin t, all in float.
static void box_muller_16(float *x) {
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - x[j];
        float u2 = x[j + 8];
        float r = sqrtf(-2.0f * logf(u1));
        float t = 2.0f * (float)PI * u2;
        x[j] = r * cosf(t);
        x[j + 8] = r * sinf(t);
    }
}

// torch.randn(n) / Tensor.normal_() on n contiguous floats. Two paths:
//
// n >= 16: fill all n elements with rng_rand uniforms first; then turn each
// whole block of 16 into normals with box_muller_16. If n is not a multiple
// of 16, draw 16 fresh uniforms into the last 16 elements (overwriting the
// tail of the previous block) and transform those. This path neither uses
// nor sets the cached normal.
//
// n < 16: per element, a standard normal in double: if a normal is cached,
// use it; otherwise draw two doubles u1, u2 (next_double01, four draws),
// r = sqrt(-2 log(1 - u2)), t = 2 pi u1, use r cos t and cache r sin t.
// The cache lives in the generator: it survives from one call to the next
// (torch.randn(1) twice after a seed gives the cos and then the sin of the
// same pair, using four draws in all), is untouched by the n >= 16 path,
// and is dropped by manual_seed. Each value is rounded to float.
void rng_randn(torch_rng *g, float *out, size_t n) {
    if (n >= 16) {
        rng_rand(g, out, n);
        for (size_t i = 0; i + 16 <= n; i += 16) box_muller_16(out + i);
        if (n % 16 != 0) {
            float *tail = out + (n - 16);
            rng_rand(g, tail, 16);
            box_muller_16(tail);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double z;
        if (g->has_normal) {
            z = g->next_normal;
            g->has_normal = 0;
        } else {
            double u1 = next_double01(g);
            double u2 = next_double01(g);
            double r = sqrt(-2.0 * log1p(-u2));
            double t = 2.0 * PI * u1;
            g->next_normal = r * sin(t);
            g->has_normal = 1;
            z = r * cos(t);
        }
        out[i] = (float)z;
    }
}
//< randn

// torch.randperm(n): start from 0 .. n-1 and shuffle forward (Fisher-Yates):
// for i = 0 .. n-2, swap positions i and i + draw % (n - i). One draw per
// swap, none for n <= 1 (checked for n = 10, 1000 and 214588; n is assumed
// below 2^32).
void rng_randperm(torch_rng *g, int64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = (int64_t)i;
    for (size_t i = 0; i + 1 < n; i++) {
        size_t z = (size_t)(rng_next_u32(g) % (uint64_t)(n - i));
        int64_t tmp = out[i];
        out[i] = out[i + z];
        out[i + z] = tmp;
    }
}

// nn.Linear(in, out) default init, in construction order: the weight
// (out, in) is kaiming_uniform_ with a = sqrt(5): gain = sqrt(2 / (1 + a^2)),
// bound = sqrt(3) * gain / sqrt(in), i.e. 1/sqrt(in) up to rounding, then
// uniform_(-bound, bound); then the bias (out) is uniform_(-1/sqrt(in),
// 1/sqrt(in)). The bounds are computed in double exactly as torch.nn.init
// does in Python and rounded to float by uniform_.
void rng_linear_init(torch_rng *g, float *weight, float *bias,
                     int in_features, int out_features) {
    size_t nw = (size_t)out_features * (size_t)in_features;
    double a = sqrt(5.0);
    double gain = sqrt(2.0 / (1.0 + a * a));
    double std = gain / sqrt((double)in_features);
    double bound = sqrt(3.0) * std;
    rng_uniform(g, weight, nw, (float)-bound, (float)bound);
    if (bias) {
        double bb = in_features > 0 ? 1.0 / sqrt((double)in_features) : 0.0;
        rng_uniform(g, bias, (size_t)out_features, (float)-bb, (float)bb);
    }
}

// nn.Embedding(num, dim) default init: normal_(0, 1) on the (num, dim)
// weight, i.e. rng_randn of num * dim elements.
void rng_embedding_init(torch_rng *g, float *weight, int num, int dim) {
    rng_randn(g, weight, (size_t)num * (size_t)dim);
}

// nn.init.xavier_uniform_(w) with gain 1 on (fan_out, fan_in):
// std = sqrt(2 / (fan_in + fan_out)), bound = sqrt(3) * std (in double, as
// torch.nn.init computes it), then uniform_(-bound, bound).
void rng_xavier_uniform(torch_rng *g, float *w, int fan_out, int fan_in) {
    double std = 1.0 * sqrt(2.0 / (double)(fan_in + fan_out));
    double bound = sqrt(3.0) * std;
    rng_uniform(g, w, (size_t)fan_out * (size_t)fan_in, (float)-bound, (float)bound);
}
