// readfile.h: reading a whole file into memory.
#ifndef ATTN_READFILE_H
#define ATTN_READFILE_H

#include <stddef.h>

// Reads a whole file into a new NUL-terminated buffer (its length in *len,
// not counting the NUL). NULL with errno set on failure.
char *read_whole_file(const char *path, size_t *len);

#endif
