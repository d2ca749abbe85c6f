// imdb.c: see imdb.h.
#define _POSIX_C_SOURCE 200809L
#include "text/imdb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/readfile.h"
#include "text/json.h"

void imdb_free(imdb_reviews *r) {
    free(r->arena);
    free(r->off);
    free(r->len);
    free(r->label);
    memset(r, 0, sizeof *r);
}

int imdb_load(const char *path, imdb_reviews *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    size_t len;
    char *buf = read_whole_file(path, &len);
    if (!buf) {
        snprintf(err, errlen, "cannot read %s: %s", path, file_error(errno));
        return -1;
    }
    int rc = imdb_parse(out, buf, len, path, err, errlen);
    free(buf);
    return rc;
}

int imdb_parse(imdb_reviews *out, const char *buf, size_t len, const char *path,
               char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    cJSON *root = json_parse(buf, len, path, err, errlen);
    // json_parse refuses a NUL in a string (\u0000 or a raw zero byte),
    // which would cut a review short
    if (!root) return -1;
    int rc = -1;
    if (!cJSON_IsArray(root)) {
        snprintf(err, errlen, "%s: expected a JSON array of reviews", path);
        goto done;
    }
    size_t n = (size_t)cJSON_GetArraySize(root), total = 0, i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, root) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(item, "t");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(item, "s");
        // the label as Python would read it, an int: 1.0, 1e0 and true are
        // not labels
        if (!cJSON_IsObject(item) || !cJSON_IsString(t) || !json_is_integer(s) ||
            (s->valuedouble != 0 && s->valuedouble != 1)) {
            snprintf(err, errlen, "%s:%zu: review %zu: expected {\"t\": text, \"s\": the integer 0 or 1}",
                     path, line_of(buf, json_item_offset(buf, len, i)), i);
            goto done;
        }
        total += strlen(t->valuestring) + 1;
        i++;
    }
    out->arena = malloc(total ? total : 1);
    out->off = malloc((n ? n : 1) * sizeof *out->off);
    out->len = malloc((n ? n : 1) * sizeof *out->len);
    out->label = malloc((n ? n : 1) * sizeof *out->label);
    if (!out->arena || !out->off || !out->len || !out->label) {
        snprintf(err, errlen, "out of memory reading %s", path);
        goto done;
    }
    size_t o = 0;
    i = 0;
    cJSON_ArrayForEach(item, root) {
        const char *t = cJSON_GetObjectItemCaseSensitive(item, "t")->valuestring;
        size_t l = strlen(t);
        memcpy(out->arena + o, t, l + 1);
        out->off[i] = o;
        out->len[i] = l;
        out->label[i] = (int)cJSON_GetObjectItemCaseSensitive(item, "s")->valuedouble;
        o += l + 1;
        i++;
    }
    out->n = n;
    rc = 0;
done:
    cJSON_Delete(root);
    if (rc) imdb_free(out);
    return rc;
}

//> imdb-split
int imdb_split(const imdb_reviews *r, size_t *train, size_t *test,
               char *err, size_t errlen) {
    if (r->n != IMDB_REVIEWS) {
        snprintf(err, errlen, "expected %d reviews, found %zu", IMDB_REVIEWS, r->n);
        return -1;
    }
    // block b of the file: test/neg, train/neg, test/pos, train/pos
    static const int is_train[4] = {0, 1, 0, 1}, label[4] = {0, 0, 1, 1};
    size_t ntrain = 0, ntest = 0;
    for (size_t i = 0; i < r->n; i++) {
        size_t b = i / IMDB_BLOCK;
        if (r->label[i] != label[b]) {
            snprintf(err, errlen, "review %zu has label %d, but its block holds label %d",
                     i, r->label[i], label[b]);
            return -1;
        }
        if (is_train[b]) train[ntrain++] = i;
        else test[ntest++] = i;
    }
    return 0;
}
//< imdb-split
