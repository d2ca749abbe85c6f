// readfile.h: reading a whole file into memory.
#ifndef ATTN_READFILE_H
#define ATTN_READFILE_H

#include <stdbool.h>
#include <stddef.h>

// Reads a whole file into a new NUL-terminated buffer (its length in *len,
// not counting the NUL). NULL with errno set on failure.
char *read_whole_file(const char *path, size_t *len);

// Whether path opens for reading and is not a directory: what a program
// checks of its input files before any work. False with errno set if not.
bool file_readable(const char *path);

#endif
