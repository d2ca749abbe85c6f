// utf8.h: UTF-8 and Python's view of Unicode, as the text preprocessing of the
// notebook "How and Why does Self Attention Work?" needs it. Where Python
// works on characters (lower(), \s, str.split()), these functions follow
// Python's rules: "whitespace" is what str.isspace() says (29 code points: \t
// \n \v \f \r, \x1c-\x1f, space, \x85, \xa0, \u1680, \u2000-\u200a, \u2028,
// \u2029, \u202f, \u205f, \u3000), not C's isspace.
//
// Text is UTF-8 throughout; offsets and lengths are in bytes.
#ifndef ATTN_UTF8_H
#define ATTN_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Python's whitespace as a regular-expression class body, for PCRE2 in UTF
// mode: "[" PYSPACE "]" is Python's \s.
#define PYSPACE "\\t\\n\\x{0b}\\x{0c}\\r\\x{1c}-\\x{1f} \\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"

// Python's str.isspace() for one code point.
bool py_isspace(uint32_t cp);

// Decodes the code point at s[0..len) into *cp; returns how many bytes it
// took (1..4). A malformed or truncated sequence decodes as U+FFFD, 1 byte.
int utf8_decode(const char *s, size_t len, uint32_t *cp);

// Writes cp as UTF-8 into out (room for 4 bytes); returns the byte count.
size_t utf8_encode(char *out, uint32_t cp);

// True if s[0..len) is valid UTF-8.
bool utf8_valid(const char *s, size_t len);

// The length of the longest valid UTF-8 start of s[0..len): len when all
// of it is valid, else the offset of the first byte Python's strict UTF-8
// decoder refuses (a stray or cut sequence, an overlong form, a surrogate,
// a code point past U+10FFFF).
size_t utf8_valid_prefix(const char *s, size_t len);

// Python's str.lower() of one code point, for the scripts Punkt's type
// lookups can meet in practice (see utf8.c); other code points stay.
uint32_t py_lower(uint32_t c);

// Python's str.lower() of s[0..len) into out, which has room for
// 3 * len / 2 + 4 bytes; returns the length written.
size_t py_lower_into(char *out, const char *s, size_t len);

// Python's str.rstrip(): the length of s[0..len) without trailing whitespace.
size_t py_rstrip_len(const char *s, size_t len);

// The whitespace a split splits at.
typedef enum {
    PY_SPACE,  // Python's (py_isspace): what str.split() splits at
    C_SPACE,   // C's isspace() in the "C" locale: \t \n \v \f \r and space
} space_kind;

// Python's str.split(), one field at a time: finds the next run of
// characters that are not whitespace (of the kind given) in s[*i .. len),
// sets *start and *flen to its offset and length, and moves *i past it and
// past the whitespace character that ends it, which the caller may then
// overwrite (with a NUL, say). False when only whitespace is left. Start
// with *i = 0.
bool py_split_next(const char *s, size_t len, space_kind space, size_t *i,
                   size_t *start, size_t *flen);

#endif
