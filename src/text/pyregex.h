// pyregex.h: PCRE2 patterns with Python's view of Unicode, as the tokenizers
// use them.
#ifndef ATTN_PYREGEX_H
#define ATTN_PYREGEX_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

// Compiles pat in UTF mode with Unicode properties (\w, \d and \b as
// Python 3 means them), plus flags, and JIT-compiles it when the JIT is
// available. On failure returns NULL and writes the pattern, the offset and
// PCRE2's message into err.
pcre2_code *regex_compile(const char *pat, uint32_t flags, char *err, size_t errlen);

#endif
