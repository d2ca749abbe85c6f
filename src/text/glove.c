// glove.c: see glove.h.
#define _POSIX_C_SOURCE 200809L
#include "text/glove.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/readfile.h"
#include "text/json.h"
#include "text/utf8.h"

int format_shortest(char *buf, size_t n, double x) {
    int len = 0;
    for (int p = 6; p <= 17; p++) {
        len = snprintf(buf, n, "%.*g", p, x);
        if (strtod(buf, NULL) == x) break;
    }
    return len;
}

long glove_convert_wink(const char *json_path, const char *out_path, FILE *progress,
                        char *err, size_t errlen) {
    size_t len;
    struct stat st;
    if (stat(out_path, &st) == 0 && S_ISDIR(st.st_mode)) {  // before the work, not at the rename
        snprintf(err, errlen, "cannot write %s: %s", out_path, strerror(EISDIR));
        return -1;
    }
    if (progress) fprintf(progress, "glove: reading %s\n", json_path);
    char *buf = read_whole_file(json_path, &len);
    if (!buf) {
        snprintf(err, errlen, "cannot read %s: %s", json_path, strerror(errno));
        return -1;
    }
    cJSON *root = json_parse(buf, len, json_path, err, errlen);
    free(buf);
    if (!root) return -1;
    long written = -1;
    char tmp[4096];
    FILE *f = NULL;
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(root, "dimensions");
    const cJSON *vectors = cJSON_GetObjectItemCaseSensitive(root, "vectors");
    if (!cJSON_IsNumber(dims) || dims->valuedouble < 1 || dims->valuedouble > 100000 ||
        !cJSON_IsObject(vectors)) {
        snprintf(err, errlen, "%s: expected \"dimensions\" and an object \"vectors\"", json_path);
        goto done;
    }
    int d = (int)dims->valuedouble;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", out_path) >= (int)sizeof tmp) {
        snprintf(err, errlen, "path too long: %s", out_path);
        goto done;
    }
    f = fopen(tmp, "w");
    if (!f) {  // named as the user gave it: the temporary name is ours
        snprintf(err, errlen, "cannot write %s: %s", out_path, strerror(errno));
        goto done;
    }
    long n = 0, skipped = 0, total = cJSON_GetArraySize(vectors);
    const cJSON *w;
    cJSON_ArrayForEach(w, vectors) {
        // each entry: d numbers, then the vector's norm and the word's index
        if (!cJSON_IsArray(w) || cJSON_GetArraySize(w) < d) {
            snprintf(err, errlen, "%s: the vector of \"%s\" has fewer than %d number%s", json_path,
                     w->string, d, d == 1 ? "" : "s");
            goto done;
        }
        // the text format holds a word that str.split() keeps whole: not
        // empty, no whitespace
        size_t wlen = strlen(w->string), i = 0, start, flen;
        if (!py_split_next(w->string, wlen, PY_SPACE, &i, &start, &flen) || flen != wlen) {
            skipped++;
            continue;
        }
        fputs(w->string, f);
        const cJSON *x = w->child;
        for (int k = 0; k < d; k++, x = x->next) {
            if (!cJSON_IsNumber(x)) {
                snprintf(err, errlen, "%s: the vector of \"%s\" holds a non-number", json_path, w->string);
                goto done;
            }
            char num[64];
            format_shortest(num, sizeof num, x->valuedouble);
            fputc(' ', f);
            fputs(num, f);
        }
        fputc('\n', f);
        if (++n % 50000 == 0 && progress) fprintf(progress, "glove: %ld of %ld words\n", n, total);
    }
    if (fclose(f) != 0) {
        f = NULL;
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    f = NULL;
    if (rename(tmp, out_path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, out_path, strerror(errno));
        goto done;
    }
    if (progress) fprintf(progress, "glove: wrote %ld words to %s (%ld skipped: whitespace in the word)\n", n, out_path, skipped);
    written = n;
done:
    if (f) fclose(f);
    if (written < 0) remove(tmp);
    cJSON_Delete(root);
    return written;
}

//> glove-lookup
int glove_lookup_stream(float *vecs, bool *found, size_t *nwords, FILE *f, const char *path,
                        size_t d, const strmap *wanted, char *err, size_t errlen) {
    memset(found, 0, wanted->n * sizeof *found);
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t got;
    int rc = 0;
    while ((got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        size_t len = (size_t)got, i = 0, start, flen;
        if (line[len - 1] != '\n') {
            // only the last line can lack its newline: a file cut short,
            // perhaps in the middle of a number that still reads as one
            snprintf(err, errlen,
                     "%s:%zu: the last line has no newline (is the file cut short?)",
                     path, lineno);
            rc = -1;
            goto done;
        }
        if (!py_split_next(line, len, PY_SPACE, &i, &start, &flen)) continue;  // a blank line
        long id = strmap_find(wanted, line + start, flen);
        size_t k = 0;
        while (py_split_next(line, len, PY_SPACE, &i, &start, &flen)) {
            if (k < d && id >= 0) {
                // like np.asarray(values, dtype='float32'): read, then round to float
                char num[64], *end;
                if (flen >= sizeof num) flen = sizeof num - 1;
                memcpy(num, line + start, flen);
                num[flen] = '\0';
                double x = strtod(num, &end);
                if (*end || end == num) {
                    snprintf(err, errlen, "%s:%zu: \"%s\" is not a number",
                             path, lineno, num);
                    rc = -1;
                    goto done;
                }
                vecs[(size_t)id * d + k] = (float)x;
            }
            k++;
        }
        if (k != d) {
            snprintf(err, errlen, "%s:%zu: expected %zu number%s after the word, found %zu",
                     path, lineno, d, d == 1 ? "" : "s", k);
            rc = -1;
            goto done;
        }
        if (id >= 0) found[id] = true;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        rc = -1;
    }
done:
    *nwords = lineno;
    free(line);
    return rc;
}
//< glove-lookup

int glove_lookup(float *vecs, bool *found, size_t *nwords, const char *path, size_t d,
                 const strmap *wanted, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = glove_lookup_stream(vecs, found, nwords, f, path, d, wanted, err, errlen);
    fclose(f);
    return rc;
}

int glove_dimension(size_t *d, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = glove_dimension_stream(d, f, path, err, errlen);
    fclose(f);
    return rc;
}

int glove_dimension_stream(size_t *d, FILE *f, const char *path, char *err, size_t errlen) {
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t got;
    int rc = -1;
    while ((got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        size_t len = (size_t)got, i = 0, start, flen, k = 0;
        if (!py_split_next(line, len, PY_SPACE, &i, &start, &flen)) continue;  // a blank line
        while (py_split_next(line, len, PY_SPACE, &i, &start, &flen)) k++;
        if (k == 0)
            snprintf(err, errlen, "%s:%zu: a word and no numbers", path, lineno);
        else {
            *d = k;
            rc = 0;
        }
        break;
    }
    if (rc != 0 && got < 0) {
        if (ferror(f))
            snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        else
            snprintf(err, errlen, "%s: no vectors (%s)", path,
                     lineno ? "only blank lines" : "an empty file");
    }
    free(line);
    return rc;
}

//> cosine
float cosine_similarity(const float *a, const float *b, size_t d) {
    double dot = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < d; i++) {
        dot += (double)a[i] * b[i];
        aa += (double)a[i] * a[i];
        bb += (double)b[i] * b[i];
    }
    if (aa == 0 || bb == 0) return 0.0f;  // as the notebook does for a zero vector
    return (float)(dot / (sqrt(aa) * sqrt(bb)));
}
//< cosine
