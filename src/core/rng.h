// rng.h: a random number generator that reproduces PyTorch 1.13's CPU
// generator, so that `torch.manual_seed(N)` followed by a notebook cell and
// `rng_seed(g, N)` followed by the C translation give the same numbers.
//
// Legend:
//   g      the generator; the caller owns it (no global state)
//   draw   one 32-bit output of MT19937, rng_next_u32(g)
//   n      number of values written to out
//   u      a float uniform in [0, 1): (draw & 0xFFFFFF) * 2^-24
//   (o, i) a weight matrix with o rows (out_features) and i columns
//          (in_features), row-major, as nn.Linear stores it
//
// Every function writes its outputs first and takes sizes last. The values
// are bit-identical to PyTorch's except the normals (rng_randn and the
// functions built on it), which agree to a few 1e-7 because PyTorch computes
// log/sin/cos with its own vectorised routines.
#ifndef RNG_H
#define RNG_H

#include <stddef.h>
#include <stdint.h>

#define RNG_MT_N 624

typedef struct torch_rng {
    uint32_t mt[RNG_MT_N]; // MT19937 state words
    int index;             // next word of mt to temper; RNG_MT_N = twist first
    int has_normal;        // 1 if next_normal holds a cached normal
    double next_normal;    // the second normal of the last Box-Muller pair of
                           // the fewer-than-16 path, kept for the next value
} torch_rng;

// torch.manual_seed(seed). Only the low 32 bits of the random seed matter.
void rng_seed(torch_rng *g, uint64_t seed);

// One 32-bit MT19937 draw (a "random()" of PyTorch's generator).
uint32_t rng_next_u32(torch_rng *g);

// Two draws a, b combined as (a << 32) | b (PyTorch's "random64()").
uint64_t rng_next_u64(torch_rng *g);

// torch.rand(n): out is (n)
void rng_rand(torch_rng *g, float *out, size_t n);

// Tensor.uniform_(a, b) on a float tensor of n elements: out is (n)
void rng_uniform(torch_rng *g, float *out, size_t n, float a, float b);

// torch.randint(lo, hi, (n,)): out is (n), values in [lo, hi); needs lo < hi
void rng_randint(torch_rng *g, int64_t *out, size_t n, int64_t lo, int64_t hi);

// torch.randn(n), or Tensor.normal_() on a contiguous float tensor of n
// elements: out is (n)
void rng_randn(torch_rng *g, float *out, size_t n);

// torch.randperm(n): out is (n), a permutation of 0 .. n-1
void rng_randperm(torch_rng *g, int64_t *out, size_t n);

// nn.Linear(in_features, out_features) default initialisation:
// weight is (out_features, in_features), bias is (out_features) or NULL
// for bias=False
void rng_linear_init(torch_rng *g, float *weight, float *bias,
                     int in_features, int out_features);

// nn.Embedding(num, dim) default initialisation: weight is (num, dim)
void rng_embedding_init(torch_rng *g, float *weight, int num, int dim);

// nn.init.xavier_uniform_ (gain 1) on a tensor w of shape (fan_out, fan_in)
void rng_xavier_uniform(torch_rng *g, float *w, int fan_out, int fan_in);

#endif // RNG_H
