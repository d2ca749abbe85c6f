// pyfloat.h: Python's float() of a string, for the GloVe readers, which
// read each number as the notebook does (np.asarray(values,
// dtype='float32'), which calls float() on each string).
#ifndef ATTN_PYFLOAT_H
#define ATTN_PYFLOAT_H

#include <stdbool.h>
#include <stddef.h>

// What float(s[0..len)) gives, for UTF-8 text without whitespace (a field
// of str.split()): 0 with the number in *x, -1 where float() raises
// ValueError, -2 when out of memory (a field over 255 bytes needs a
// buffer). Python's float() takes, and so this:
//   [+|-] digits [. [digits]] [e|E [+|-] digits]   or  [+|-] . digits ...
//   [+|-] inf, infinity or nan in any case
// where "digits" are decimal digits of any script (Unicode's Nd: "٣" is 3,
// "１" is 1) with single underscores between two of them ("1_000"). Not
// hexadecimal ("0x1p-3"), which C's strtod takes and float() refuses, nor
// C's "nan(...)". The value is rounded correctly, as Python's is.
int py_float(const char *s, size_t len, double *x);

#endif
