// buffer.h: a byte buffer that grows on demand.
#ifndef ATTN_BUFFER_H
#define ATTN_BUFFER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/grow.h"

// Makes *buf (of *cap bytes) hold at least need bytes, doubling from 256;
// the contents are kept and the new bytes are zero. (PCRE2's JIT reads a
// subject a machine word at a time, past its end; zeroed bytes keep valgrind
// from reporting those reads as uninitialised.) False when out of memory
// (then *buf is unchanged).
static inline bool grow_buffer(char **buf, size_t *cap, size_t need) {
    char *b = grow_array_zeroed(*buf, cap, need, 1, 256);
    if (!b) return false;
    *buf = b;
    return true;
}

#endif
