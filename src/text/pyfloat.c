// pyfloat.c: see pyfloat.h.
#define _POSIX_C_SOURCE 200809L  // strcasecmp
#include "text/pyfloat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text/utf8.h"

// The first code point (digit zero) of each run of ten decimal digits
// outside ASCII: Unicode 14.0's Nd, as Python 3.11's unicodedata.decimal()
// and float() know them (every Nd character is in such a run of 0 to 9).
static const uint32_t ZEROS[] = {
    0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6,
    0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50,
    0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
};

// The ASCII character Python reads cp as: itself if ASCII, '0' to '9' for
// a decimal digit of another script, else '?' (which no number holds).
static char as_ascii(uint32_t cp) {
    if (cp == 0) return '?';  // a NUL in the text ends no number
    if (cp < 0x80) return (char)cp;
    for (size_t k = 0; k < sizeof ZEROS / sizeof *ZEROS; k++)
        if (cp >= ZEROS[k] && cp < ZEROS[k] + 10) return (char)('0' + (cp - ZEROS[k]));
    return '?';
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits from *p on; false if there are none.
static bool digits(const char **p) {
    const char *s = *p;
    while (is_digit(**p)) (*p)++;
    return *p > s;
}

// The grammar of float() on ASCII text without underscores: a decimal
// number, or inf, infinity or nan, each with an optional sign.
static bool float_text(const char *s) {
    if (*s == '+' || *s == '-') s++;
    if (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0 || strcasecmp(s, "nan") == 0)
        return true;
    bool whole = digits(&s);
    if (*s == '.') {
        s++;
        if (!digits(&s) && !whole) return false;
    } else if (!whole) {
        return false;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!digits(&s)) return false;
    }
    return !*s;
}

// s[0..len) as the ASCII float() reads, its underscores taken out, into
// out (room for len + 1 bytes). False if an underscore is not between two
// digits.
static bool to_ascii(char *out, const char *s, size_t len) {
    size_t n = 0;
    char prev = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += (size_t)utf8_decode(s + i, len - i, &cp);
        char c = as_ascii(cp);
        if (c == '_') {
            uint32_t next = 0;
            if (i < len) utf8_decode(s + i, len - i, &next);
            if (!is_digit(prev) || !is_digit(as_ascii(next))) return false;
        } else {
            out[n++] = c;
        }
        prev = c;
    }
    out[n] = '\0';
    return true;
}

int py_float(const char *s, size_t len, double *x) {
    char small[256], *text = len < sizeof small ? small : malloc(len + 1);
    if (!text) return -2;
    int rc = -1;
    if (to_ascii(text, s, len) && float_text(text)) {
        *x = strtod(text, NULL);  // correctly rounded, as Python's dtoa
        rc = 0;
    }
    if (text != small) free(text);
    return rc;
}
