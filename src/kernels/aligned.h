// aligned.h: memory for the arrays that the vector kernels sweep, starting
// on a cache line.
//
// A cache line is 64 bytes, and so is an AVX-512 vector. glibc's malloc
// returns a large block 16 bytes past a page boundary (its bookkeeping sits
// in front), so every vector loaded from such a block, at any multiple of 64
// bytes from its start, straddles two lines and costs two reads of the
// cache. The products read every number of their operands many times, and
// chapter 9's training step, with its arrays on 64-byte boundaries, took
// 9% less time (the same bits: only the addresses change).
//
// ALIGNED_MALLOC(count, size) is malloc(count * size) from a 64-byte
// boundary, ALIGNED_CALLOC(count, size) the same zeroed, as calloc; NULL
// when out of memory or when count * size is larger than any object can be.
// Both are freed with free(). They are macros, so that each is a call of
// aligned_alloc where it is written: make oom fails each call by its line.
// Their arguments are evaluated more than once.
#ifndef ATTN_ALIGNED_H
#define ATTN_ALIGNED_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN_BYTES 64

// aligned_alloc's size for count things of size bytes: rounded up to a
// multiple of the alignment, as C11 asks; at least one line; when count *
// size is larger than any object can be, the largest multiple there is,
// which no allocation gets.
static inline size_t aligned_size(size_t count, size_t size) {
    const size_t most = PTRDIFF_MAX / ALIGN_BYTES * ALIGN_BYTES;
    if (size && count > most / size) return most;
    size_t n = count * size;
    return n ? (n + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES : ALIGN_BYTES;
}

// count things of size bytes (a divisor of the line), rounded up to whole
// lines: where the next array starts, for arrays carved from one block.
static inline size_t aligned_count(size_t count, size_t size) {
    const size_t per_line = ALIGN_BYTES / size;
    return (count + per_line - 1) / per_line * per_line;
}

// p with its first n bytes set to 0, or NULL when p is NULL.
static inline void *zeroed(void *p, size_t n) { return p ? memset(p, 0, n) : NULL; }

#define ALIGNED_MALLOC(count, size) aligned_alloc(ALIGN_BYTES, aligned_size((count), (size)))
#define ALIGNED_CALLOC(count, size)                                    \
    zeroed(aligned_alloc(ALIGN_BYTES, aligned_size((count), (size))), \
           aligned_size((count), (size)))

#endif
