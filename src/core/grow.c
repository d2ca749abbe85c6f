// grow.c: see grow.h.
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *grow_array(void *items, size_t *cap, size_t n, size_t size, size_t first) {
    if (n == 0) n = 1;  // so that NULL always means failure
    if (n <= *cap) return items;
    const size_t most = SIZE_MAX / size;  // items whose bytes fit in a size_t
    if (n > most) return NULL;
    size_t c = *cap ? *cap : first ? first : 1;
    if (c > most) c = most;
    while (c < n) c = c > most / 2 ? most : 2 * c;
    void *p = realloc(items, c * size);
    if (!p) return NULL;
    *cap = c;
    return p;
}

void *grow_array_zeroed(void *items, size_t *cap, size_t n, size_t size, size_t first) {
    size_t old = *cap;
    char *p = grow_array(items, cap, n, size, first);
    if (p) memset(p + old * size, 0, (*cap - old) * size);
    return p;
}
