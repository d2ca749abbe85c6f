// json.h: JSON read as Python's json.load reads it, through cJSON, and
// where in the file it went wrong.
#ifndef ATTN_JSON_H
#define ATTN_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

// The line (1-based) of byte offset at in buf: where to look for an error.
size_t line_of(const char *buf, size_t at);

// The deepest nesting of arrays and objects json_parse takes (Python's
// json.loads stops near 1000, at its recursion limit; cJSON at 1000).
#define JSON_MAX_DEPTH 512

// buf (len bytes, from the file path) parsed by cJSON and held to what
// Python's json.load(open(path, encoding='utf-8')) accepts: UTF-8 without a
// byte order mark; whitespace only space, tab, line feed and carriage
// return; no control character unescaped in a string; numbers as RFC 8259
// writes them (no leading zero, no "1."); nothing after the document.
// Where a file is valid for Python but its values cannot be kept, it is
// refused too: NaN, Infinity, -Infinity and numbers beyond a double's range
// (Python reads them as nan and inf), \u0000 (cJSON's strings end at a NUL)
// and an unpaired surrogate escape such as \ud800 (not a character: UTF-8
// cannot hold it), and nesting deeper than JSON_MAX_DEPTH. A key repeated in
// an object keeps its last value at its first place, as a Python dict does
// (cJSON alone would keep both, and its lookups find the first).
//
// Returns NULL with the reason in err: "path:line: malformed JSON (byte n):
// what" for what Python refuses too, "path:line: byte n: what" for what
// Python accepts but these readers refuse, "out of memory reading path" when
// an allocation failed (cJSON's own included: json_parse installs
// cJSON_InitHooks wrappers that note a failure for the parsing thread). The tree is the caller's to cJSON_Delete.
cJSON *json_parse(const char *buf, size_t len, const char *path, char *err, size_t errlen);

// The byte offset in buf of item i (0-based) of the array buf holds, buf
// being text json_parse has read; len if the array has no item i. With
// line_of, it names the line of an item that is valid JSON but not what the
// reader wants.
size_t json_item_offset(const char *buf, size_t len, size_t i);

// True if item is a number written as a whole number, without a fraction or
// an exponent ("1", "-0"; not "1.0" or "1e0"), as Python reads into an int.
// Only for trees from json_parse.
bool json_is_integer(const cJSON *item);

#endif
