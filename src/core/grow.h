// grow.h: an array that grows, the one loop every growing list uses.
#ifndef ATTN_GROW_H
#define ATTN_GROW_H

#include <stddef.h>

// Like realloc, for an array that grows: returns items (room for *cap items
// of size bytes each) reallocated to hold at least n items, and at least one,
// the capacity doubling from *cap, or from first for an empty array; *cap
// becomes the new capacity. Returns items itself when it already holds n.
// NULL when out of memory or when the bytes would not fit in a size_t; then
// items is untouched (still the caller's to free) and *cap unchanged.
void *grow_array(void *items, size_t *cap, size_t n, size_t size, size_t first);

// The same, with the new items' bytes set to zero.
void *grow_array_zeroed(void *items, size_t *cap, size_t n, size_t size, size_t first);

#endif
