// real.h: the number type of the training code.
//
// The training code (gemm_reference.c, gemm.c, embedding_table.c, linear.c, mean.c,
// bce_loss.c, attention_head.c, adam.c, sentiment.c, and the transformer's
// layers and seq2seq.c) computes in `real`,
// which is float, as PyTorch and JAX train. The gradient tests compile the
// same source files once more with ATTN_REAL defined as double: a finite
// difference of a float loss is mostly rounding noise, of a double loss it
// is accurate to about 1e-10, so only in double can a test hold a backward
// pass to the derivative it claims to be.
#ifndef ATTN_REAL_H
#define ATTN_REAL_H

#ifndef ATTN_REAL
#define ATTN_REAL float
// The fast code (gemm_fast.c and the kernels of simd.h, float only) is
// used when real is the default float; a build that picks its own real
// computes with the readable code.
#define ATTN_REAL_IS_FLOAT 1
#endif
typedef ATTN_REAL real;

#endif
