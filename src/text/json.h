// json.h: JSON read with cJSON, and where in the file it went wrong.
#ifndef ATTN_JSON_H
#define ATTN_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

// The line (1-based) of byte offset at in buf: where to look for an error.
size_t line_of(const char *buf, size_t at);

// buf (len bytes, from the file path) parsed by cJSON; NULL if it is not
// JSON, with "path:line: malformed JSON (byte n)" in err, n being where
// cJSON stopped. The tree is the caller's to cJSON_Delete.
cJSON *json_parse(const char *buf, size_t len, const char *path, char *err, size_t errlen);

#endif
