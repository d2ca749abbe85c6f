// clean.h: the clean_paragraph of the notebook
// "How and Why does Self Attention Work?", the text cleaning before
// tokenization.
#ifndef ATTN_CLEAN_H
#define ATTN_CLEAN_H

#include <stddef.h>

// The notebook's clean_paragraph on text (len bytes, UTF-8): lower-case,
// `<br />` to a space, `-` to a space, `.` to `. `, then drop every character
// but a-z, 0-9, whitespace and . , ! ? ; : -. Returns a new NUL-terminated
// string (its length in *out_len), or NULL when out of memory.
char *clean_paragraph(const char *text, size_t len, size_t *out_len);

#endif
