// austen_compress.h: what general-purpose compressors make of the held-out
// novel, in bits per character: the line a language model's held-out loss
// is drawn against (a model that assigns probability p to the next
// character can code it in -log2 p bits, so its loss in bits per character
// is a compressed size).
//
// Three figures, each per character of the held-out novel (characters,
// not bytes; Persuasion is ASCII, where the two are the same):
//
//   gzip      gzip -9 of the held-out novel alone
//   xz        xz -9 of the held-out novel alone
//   xz fair   xz -9 of the training text followed by the held-out novel,
//             less xz -9 of the training text alone: what the held-out
//             novel costs xz once xz has read the training novels, as the
//             model has. (xz -9's dictionary, 64 MiB, holds all of them.)
//
// The compressors are the programs gzip and xz (Debian's gzip and xz-utils),
// run with popen on a temporary file; a missing one is an error that names
// it and its package.
#ifndef ATTN_AUSTEN_COMPRESS_H
#define ATTN_AUSTEN_COMPRESS_H

#include <stddef.h>

#include "tasks/austen.h"

typedef struct {
    long long gzip_val, xz_val;  // bytes: gzip -9 and xz -9 of the held-out novel
    long long xz_train, xz_both; // bytes: xz -9 of the training text, and of it then the held-out novel
    double gzip_bits, xz_bits, xz_fair_bits;  // per held-out character
} austen_compression;

// The size in bytes of what `program -9 -c` writes for text (len bytes).
// Returns it, or -1 with the reason in err (the program missing, failing,
// no temporary file).
long long compressed_size(const char *program, const char *text, size_t len, char *err,
                          size_t errlen);

// The three figures for the corpus (it runs xz -9 on the whole training
// text twice: some seconds). Returns 0, or -1 with the reason in err.
int austen_compression_bits(austen_compression *out, const austen_corpus *c, char *err,
                            size_t errlen);

#endif
