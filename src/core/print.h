// print.h: print tensors the way PyTorch prints them, so that a program's
// output can be read side by side with its notebook.
//
// PyTorch's rules, as observed on version 1.13 (default print options):
// - a float tensor whose finite values are all whole numbers prints as `2.`;
// - otherwise it prints with 4 decimals, `0.4557`, unless the largest
//   non-zero magnitude is over 1000 times the smallest, or over 1e8, or the
//   smallest is under 1e-4: then every element prints as `6.0337e-06`;
// - every element is padded to the widest one; a row wraps at 80 columns;
// - nested rows are indented under the opening bracket.
// PyTorch also prints `grad_fn=<...>` for tensors that carry autograd
// history; C has no autograd, so these functions never do.
#ifndef ATTN_PRINT_H
#define ATTN_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/strmap.h"

// tensor([...]) of a float tensor with ndim dimensions of the given shape
// (ndim is 1, 2 or 3).
void print_tensor(FILE *f, const float *x, int ndim, const int *shape);

// The same, never in scientific notation: what PyTorch prints after
// torch.set_printoptions(sci_mode=False), e.g. 0.0001 for 1.2345e-04.
void print_tensor_fixed(FILE *f, const float *x, int ndim, const int *shape);

// x[:, :cols] of an (rows, d) matrix (all of it when cols >= d), printed
// as PyTorch prints that slice, read in place.
void print_tensor_columns(FILE *f, const float *x, int rows, int d, int cols);

// tensor([...]) of an integer tensor.
void print_int_tensor(FILE *f, const int64_t *x, int ndim, const int *shape);

// tensor([...]) of a boolean tensor: True and False.
void print_bool_tensor(FILE *f, const bool *x, int ndim, const int *shape);

// torch.Size([8, 32])
void print_size(FILE *f, int ndim, const int *shape);

// Python's bool: True or False.
void print_bool(FILE *f, bool b);

// A whole number with its thousands grouped, as Python's f"{n:,}": 640,000.
void print_grouped(FILE *f, long long n);

// A vector as a Python list with fixed decimals: [2.0, 7.0, 1.5].
void print_list(FILE *f, const float *x, int n, int decimals);

// The header line that starts each block of a chapter program's output,
// after a blank line: `[T23] title`. The label is a source's letter and the
// number of the notebook cell the block reproduces (T23: cell 23 of
// "Attention and Transformers"), or, for a block of the program's own, P
// (for the program), the chapter, a dot and the block's place among that
// chapter's own blocks (P4.2): a form no section, figure or table takes.
void print_cell(FILE *f, const char *label, const char *title);

// The keys from .. to-1 of m as a Python list of strings, and a newline:
// ['the', ',', '.'].
void print_words(FILE *out, const strmap *m, size_t from, size_t to);

// s wrapped at width columns at its spaces (a run of spaces printed as
// one), each line indented by indent spaces, and a newline.
void print_wrapped(FILE *out, const char *s, int width, int indent);

#endif
