// readfile.h: reading a whole file into memory, and opening input files.
#ifndef ATTN_READFILE_H
#define ATTN_READFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

// The errno of an input path that names a FIFO, a socket or a device: such
// a file could block (a FIFO with no writer), never end (/dev/zero) or be
// read only once, so every reader here refuses it. file_error names it.
#define ENOTREGULAR EINVAL

// strerror(err), but "not a regular file (a FIFO, a socket or a device)"
// for ENOTREGULAR and "out of memory" for ENOMEM. Every message about a
// file that failed says it with this.
const char *file_error(int err);

// fopen(path, "rb") for an input file: refuses, at once and without
// blocking, anything but a regular file (a directory with EISDIR, a FIFO,
// socket or device with ENOTREGULAR). NULL with errno set on failure.
FILE *open_input_file(const char *path);

// Reads a whole file into a new NUL-terminated buffer (its length in *len,
// not counting the NUL). NULL with errno set on failure; refuses what
// open_input_file refuses.
char *read_whole_file(const char *path, size_t *len);

// Whether path opens for reading as open_input_file opens it: what a
// program checks of its input files before any work. False with errno set
// if not.
bool file_readable(const char *path);

// getline(line, cap, f), telling the end of the file from a failure:
// returns the line's length, -1 at the end, or -2 when reading failed or
// memory ran out (errno says which; getline alone returns -1 for all three,
// and a failed allocation need not set the stream's error flag).
ssize_t read_line(char **line, size_t *cap, FILE *f);

// The lines of a text file as Python's open() in text mode reads them
// (universal newlines): \n, \r\n and a lone \r each end a line. Zero it
// to start; text_reader_free frees its buffer.
typedef struct {
    FILE *f;
    char *buf;
    size_t cap, at;   // the buffer getline filled, and where the next line starts
    ssize_t got;      // bytes in buf
} text_reader;

// The next line: *line points to it inside the reader's buffer, its end of
// line turned into one '\n' (a last line without one has none). Returns
// its length with that '\n', -1 at the end, -2 when reading failed or
// memory ran out (errno says which).
ssize_t read_text_line(text_reader *r, char **line);
void text_reader_free(text_reader *r);

#endif
