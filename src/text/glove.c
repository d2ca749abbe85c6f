// glove.c: see glove.h.
#define _XOPEN_SOURCE 700  // POSIX 2008 with realpath
#include "text/glove.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/readfile.h"
#include "text/json.h"
#include "text/pyfloat.h"
#include "text/utf8.h"

int format_shortest(char *buf, size_t n, double x) {
    int len = 0;
    for (int p = 6; p <= 17; p++) {
        len = snprintf(buf, n, "%.*g", p, x);
        if (strtod(buf, NULL) == x) break;
    }
    return len;
}

// Whether x is a number a GloVe vector may hold: finite, and finite still
// when rounded to float, as the readers keep it (1e39 is not: from the
// midpoint between FLT_MAX and 2^128 up, float rounding gives inf). The
// readers and the converter share this check.
static bool glove_number_ok(double x) {
    return isfinite(x) && fabs(x) < 0x1.ffffffp+127;
}

// Where glove_convert_wink writes out_path: into target (n bytes), the
// regular file to replace, with the mode the new file gets in *mode. That
// is out_path itself, or the file a symbolic link there leads to (replaced,
// the link kept), or out_path when nothing is there yet. A rename puts a
// regular file in place of whatever the target was, so anything else is
// refused: a directory, a device (as root, /dev/null would be gone), a FIFO
// or a socket, a link that leads nowhere, and the input file itself.
// Returns 0, or -1 with the reason in err.
static int output_target(char *target, size_t n, mode_t *mode, const char *out_path,
                         const char *json_path, char *err, size_t errlen) {
    struct stat st, in;
    if (lstat(out_path, &st) != 0) {
        if (errno != ENOENT) {
            snprintf(err, errlen, "cannot write %s: %s", out_path, file_error(errno));
            return -1;
        }
        mode_t mask = umask(0);  // a new file: the mode fopen would give it
        umask(mask);
        *mode = 0666 & ~mask;
        if (snprintf(target, n, "%s", out_path) >= (int)n) {
            snprintf(err, errlen, "path too long: %s", out_path);
            return -1;
        }
        return 0;
    }
    if (S_ISLNK(st.st_mode)) {
        char *real = realpath(out_path, NULL);
        if (!real && errno == ENOMEM) {
            snprintf(err, errlen, "cannot write %s: out of memory", out_path);
            return -1;
        }
        if (!real || stat(real, &st) != 0) {  // a dangling link: refused, not created
            snprintf(err, errlen, "cannot write %s: a symbolic link that leads nowhere (%s)",
                     out_path, file_error(errno));
            free(real);
            return -1;
        }
        int len = snprintf(target, n, "%s", real);
        free(real);
        if (len >= (int)n) {
            snprintf(err, errlen, "path too long: %s", out_path);
            return -1;
        }
    } else if (snprintf(target, n, "%s", out_path) >= (int)n) {
        snprintf(err, errlen, "path too long: %s", out_path);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: %s", out_path, file_error(EISDIR));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: not a regular file (a FIFO, a socket or a "
                 "device), which the converter does not replace", out_path);
        return -1;
    }
    if (stat(json_path, &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
        snprintf(err, errlen, "cannot write %s: it is the input file %s", out_path, json_path);
        return -1;
    }
    // a write-protected file is not replaced, as cp without -f would not
    // (the rename needs only the folder's permission; root's too)
    if (!(st.st_mode & 0222) || access(target, W_OK) != 0) {
        snprintf(err, errlen, "cannot write %s: the file is write-protected (mode %04o); make it "
                 "writable or remove it first", out_path, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    *mode = st.st_mode & 07777;
    return 0;
}

// A new file beside target, named tmp (tmpsize bytes) with a name of its
// own from mkstemp, with the given mode: a temporary file left by a run
// that was killed is never taken for the output, which appears only by the
// rename. NULL with the reason in err (naming out_path as the user gave it).
static FILE *open_beside(char *tmp, size_t tmpsize, const char *target, mode_t mode,
                         const char *out_path, char *err, size_t errlen) {
    const char *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target + 1) : 0;
    snprintf(tmp, tmpsize, "%.*s.%s.XXXXXX", dirlen, target, target + dirlen);
    int fd = mkstemp_removed_on_signal(tmp);  // a run ended by a signal leaves no .NAME.XXXXXX
    FILE *f = fd >= 0 && fchmod(fd, mode) == 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", out_path, file_error(errno));
        if (fd >= 0) {
            close(fd);
            remove(tmp);
            keep_on_signal(tmp);
        }
    }
    return f;
}

// The vectors of the wink JSON (an object: word -> d numbers, then the
// norm and the index) written to f in GloVe's text format, a word and its
// d numbers a line. A word that str.split() would not keep whole (empty,
// or holding whitespace) is skipped and counted in *skipped. Returns the
// words written, or -1 with the reason in err (a failed write names
// out_path, the file the user asked for, not the temporary one).
static long write_wink_vectors(FILE *f, const cJSON *vectors, int d, const char *json_path,
                               const char *out_path, long *skipped, FILE *progress, char *err,
                               size_t errlen) {
    long n = 0, total = cJSON_GetArraySize(vectors);
    const cJSON *w;
    cJSON_ArrayForEach(w, vectors) {
        if (!cJSON_IsArray(w) || cJSON_GetArraySize(w) < d) {
            snprintf(err, errlen, "%s: the vector of \"%s\" has fewer than %d number%s", json_path,
                     w->string, d, d == 1 ? "" : "s");
            return -1;
        }
        size_t wlen = strlen(w->string), i = 0, start, flen;
        if (!py_split_next(w->string, wlen, PY_SPACE, &i, &start, &flen) || flen != wlen) {
            (*skipped)++;
            continue;
        }
        fputs(w->string, f);
        const cJSON *x = w->child;
        for (int k = 0; k < d; k++, x = x->next) {
            if (!cJSON_IsNumber(x)) {
                snprintf(err, errlen, "%s: the vector of \"%s\" holds a non-number", json_path, w->string);
                return -1;
            }
            if (!glove_number_ok(x->valuedouble)) {  // 1e39 overflows a float
                snprintf(err, errlen, "%s: number %d of the vector of \"%s\" is not a finite "
                         "float (it reads as %g)", json_path, k + 1, w->string, x->valuedouble);
                return -1;
            }
            char num[64];
            format_shortest(num, sizeof num, x->valuedouble);
            fputc(' ', f);
            fputs(num, f);
        }
        // a full disk or `ulimit -f` (with SIGXFSZ ignored): stop at the
        // line, with the errno of the write that failed
        if (fputc('\n', f) == EOF || ferror(f)) {
            snprintf(err, errlen, "cannot write %s: %s", out_path, file_error(errno));
            return -1;
        }
        if (++n % 50000 == 0 && progress) fprintf(progress, "glove: %ld of %ld words\n", n, total);
    }
    return n;
}

long glove_convert_wink(const char *json_path, const char *out_path, FILE *progress,
                        char *err, size_t errlen) {
    // the output first, before the work: the file it replaces, then a new
    // file beside it
    char target[4096], tmp[4200];
    mode_t mode;
    if (output_target(target, sizeof target, &mode, out_path, json_path, err, errlen) != 0)
        return -1;
    FILE *f = open_beside(tmp, sizeof tmp, target, mode, out_path, err, errlen);
    if (!f) return -1;
    long written = -1;
    size_t len;
    cJSON *root = NULL;
    if (progress) fprintf(progress, "glove: reading %s\n", json_path);
    char *buf = read_whole_file(json_path, &len);
    if (!buf) {
        snprintf(err, errlen, "cannot read %s: %s", json_path, file_error(errno));
        goto done;
    }
    root = json_parse(buf, len, json_path, err, errlen);
    free(buf);
    if (!root) goto done;
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(root, "dimensions");
    const cJSON *vectors = cJSON_GetObjectItemCaseSensitive(root, "vectors");
    // "dimensions" is a width: 2.0, 2e0 or "2" is refused, not truncated
    if (!json_is_integer(dims) || dims->valuedouble < 1 || dims->valuedouble > 100000 ||
        !cJSON_IsObject(vectors)) {
        snprintf(err, errlen, "%s: expected \"dimensions\", a whole number from 1 to 100000, and "
                 "an object \"vectors\"", json_path);
        goto done;
    }
    int d = (int)dims->valuedouble;
    long skipped = 0, n = write_wink_vectors(f, vectors, d, json_path, out_path, &skipped, progress,
                                             err, errlen);
    if (n < 0) goto done;
    if (n == 0) {  // a GloVe file of no words would only fail its reader later
        snprintf(err, errlen, "%s: no word vectors to convert (\"vectors\" holds %ld, %ld of them "
                 "skipped for whitespace in the word); nothing is written to %s", json_path,
                 (long)cJSON_GetArraySize(vectors), skipped, out_path);
        goto done;
    }
    // on the disk before the rename, so that the name never holds a part;
    // the errors name out_path, not the hidden temporary file
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", out_path, file_error(errno));
        goto done;
    }
    int closed = fclose(f);
    f = NULL;
    if (closed != 0) {
        snprintf(err, errlen, "cannot write %s: %s", out_path, file_error(errno));
        goto done;
    }
    if (rename(tmp, target) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", out_path, file_error(errno));
        goto done;
    }
    if (progress) fprintf(progress, "glove: wrote %ld words to %s (%ld skipped: whitespace in the word)\n", n, out_path, skipped);
    written = n;
done:
    if (f) fclose(f);
    if (written < 0) remove(tmp);
    keep_on_signal(tmp);
    cJSON_Delete(root);
    return written;
}

int glove_lookup_stream(float *vecs, bool *found, size_t *nwords, FILE *f, const char *path,
                        size_t d, const strmap *wanted, char *err, size_t errlen) {
    memset(found, 0, wanted->n * sizeof *found);
    text_reader lines = {.f = f};  // lines end as Python's open() ends them
    char *line;
    size_t lineno = 0, vectors = 0;
    ssize_t got;
    int rc = 0;
    while ((got = read_text_line(&lines, &line)) >= 0) {
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
                // like np.asarray(values, dtype='float32'): the whole field
                // read by Python's float() (no hexadecimal, "1_0" is 10),
                // then rounded to float
                char *num = line + start;
                num[flen] = '\0';  // over the space after it, already read past
                double x = 0;
                int read = py_float(num, flen, &x);
                const char *why = read == -2 ? "cannot be read: out of memory"
                                  : read < 0 ? "is not a number (as Python's float() reads one)"
                                  : !glove_number_ok(x) ? "is not a finite float" : NULL;
                if (why) {
                    snprintf(err, errlen, "%s:%zu: \"%s\" %s", path, lineno, num, why);
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
        vectors++;
    }
    if (got == -2) {
        snprintf(err, errlen, "cannot read %s: %s", path, file_error(errno));
        rc = -1;
    } else if (vectors == 0) {  // else every word would read as one without a vector
        snprintf(err, errlen, "%s: no vectors (%s)", path,
                 lineno ? "only blank lines" : "an empty file");
        rc = -1;
    }
done:
    *nwords = lineno;
    text_reader_free(&lines);
    return rc;
}

int glove_lookup(float *vecs, bool *found, size_t *nwords, const char *path, size_t d,
                 const strmap *wanted, char *err, size_t errlen) {
    FILE *f = open_input_file(path);
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, file_error(errno));
        return -1;
    }
    int rc = glove_lookup_stream(vecs, found, nwords, f, path, d, wanted, err, errlen);
    fclose(f);
    return rc;
}

int glove_dimension(size_t *d, const char *path, char *err, size_t errlen) {
    FILE *f = open_input_file(path);
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, file_error(errno));
        return -1;
    }
    int rc = glove_dimension_stream(d, f, path, err, errlen);
    fclose(f);
    return rc;
}

int glove_dimension_stream(size_t *d, FILE *f, const char *path, char *err, size_t errlen) {
    text_reader lines = {.f = f};
    char *line;
    size_t lineno = 0;
    ssize_t got;
    int rc = -1;
    while ((got = read_text_line(&lines, &line)) >= 0) {
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
        if (got == -2)
            snprintf(err, errlen, "cannot read %s: %s", path, file_error(errno));
        else
            snprintf(err, errlen, "%s: no vectors (%s)", path,
                     lineno ? "only blank lines" : "an empty file");
    }
    text_reader_free(&lines);
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
