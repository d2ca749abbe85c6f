// utf8.c: UTF-8 decoding and encoding, and the pieces of Python's str
// (isspace, lower, rstrip, split) that the text preprocessing reproduces.
#include "text/utf8.h"

//> py-isspace
// Python's str.isspace(), which is also what \s matches in a str pattern and
// where str.split() splits: more than C's isspace() knows about.
bool py_isspace(uint32_t cp) {
    if (cp < 0x80)
        return cp == ' ' || (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f);
    return cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202f || cp == 0x205f || cp == 0x3000;
}
//< py-isspace

int utf8_decode(const char *str, size_t len, uint32_t *cp) {
    const unsigned char *s = (const unsigned char *)str;
    if (len == 0) { *cp = 0xfffd; return 1; }
    unsigned c = s[0];
    if (c < 0x80) { *cp = c; return 1; }
    int n;
    uint32_t v, min;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; v = c & 0x1f; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; v = c & 0x0f; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; v = c & 0x07; min = 0x10000; }
    else { *cp = 0xfffd; return 1; }
    if ((size_t)n > len) { *cp = 0xfffd; return 1; }
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) { *cp = 0xfffd; return 1; }
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) { *cp = 0xfffd; return 1; }
    *cp = v;
    return n;
}

size_t utf8_encode(char *out, uint32_t cp) {
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xc0 | (cp >> 6)); o[1] = (unsigned char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | (cp >> 12)); o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f)); return 3;
    }
    o[0] = (unsigned char)(0xf0 | (cp >> 18)); o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

size_t utf8_valid_prefix(const char *s, size_t len) {
    for (size_t i = 0; i < len;) {
        if ((unsigned char)s[i] < 0x80) { i++; continue; }
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        if (cp == 0xfffd && !(k == 3 && (unsigned char)s[i] == 0xef)) return i;
        i += (size_t)k;
    }
    return len;
}

// What PCRE2 needs before it may skip its own check.
bool utf8_valid(const char *s, size_t len) { return utf8_valid_prefix(s, len) == len; }

// Python's str.lower() for the scripts Punkt's type lookups can meet in
// practice (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic, the Kelvin
// and Angstrom signs); other code points are left alone. On clean_paragraph's
// output, which is ASCII apart from whitespace, this is exact. (clean_paragraph's own lower-casing is exact: it
// only has to know which characters become a-z.)
uint32_t py_lower(uint32_t c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c < 0xc0) return c;
    if (c <= 0xde) return c == 0xd7 ? c : c + 32;
    if (c >= 0x100 && c <= 0x17f) {
        if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e)) return (c & 1) ? c + 1 : c;
        if (c == 0x178) return 0xff;
        if (c == 0x138 || c == 0x149 || c == 0x17f) return c;
        return (c & 1) ? c : c + 1;
    }
    if (c == 0x212a) return 'k';   // KELVIN SIGN
    if (c == 0x212b) return 0xe5;  // ANGSTROM SIGN
    if (c >= 0x391 && c <= 0x3ab && c != 0x3a2) return c + 32;
    if (c >= 0x410 && c <= 0x42f) return c + 32;
    if (c >= 0x400 && c <= 0x40f) return c + 80;
    return c;
}

// See utf8.h.
size_t py_lower_into(char *out, const char *s, size_t len) {
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t c;
        int k = utf8_decode(s + i, len - i, &c);
        if (c == 0x130) {  // U+0130 lower-cases to two code points: i, U+0307
            out[o++] = 'i';
            c = 0x307;
        } else {
            c = py_lower(c);
        }
        o += utf8_encode(out + o, c);
        i += (size_t)k;
    }
    return o;
}

size_t py_rstrip_len(const char *s, size_t len) {
    size_t end = 0, i = 0;
    while (i < len) {
        uint32_t c;
        int k = utf8_decode(s + i, len - i, &c);
        i += (size_t)k;
        if (!py_isspace(c)) end = i;
    }
    return end;
}

static bool is_space(uint32_t c, space_kind space) {
    if (space == C_SPACE) return c == ' ' || (c >= '\t' && c <= '\r');
    return py_isspace(c);
}

bool py_split_next(const char *s, size_t len, space_kind space, size_t *i,
                   size_t *start, size_t *flen) {
    uint32_t c;
    int k = 0;
    while (*i < len && (k = utf8_decode(s + *i, len - *i, &c), is_space(c, space))) *i += (size_t)k;
    if (*i >= len) return false;
    *start = *i;
    while (*i < len && (k = utf8_decode(s + *i, len - *i, &c), !is_space(c, space))) *i += (size_t)k;
    *flen = *i - *start;
    if (*i < len) *i += (size_t)k;  // the whitespace that ended the field
    return true;
}
