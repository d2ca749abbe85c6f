// json.c: see json.h.
#include "text/json.h"

#include <stdio.h>

size_t line_of(const char *buf, size_t at) {
    size_t line = 1;
    for (size_t i = 0; i < at; i++) line += buf[i] == '\n';
    return line;
}

cJSON *json_parse(const char *buf, size_t len, const char *path, char *err, size_t errlen) {
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
    if (!root) {
        size_t at = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : len;
        snprintf(err, errlen, "%s:%zu: malformed JSON (byte %zu)", path, line_of(buf, at), at);
    }
    return root;
}
