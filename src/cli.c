// cli.c: shared option parsing and figure data files.
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool parse_integer(const char *s, long long lo, long long hi, long long *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static void usage_to(FILE *f, const char *program, const char *usage) {
    fprintf(f, "usage: %s %s\n", program, usage);
}

cli_status parse_options(int argc, char **argv, const char *program,
                         const char *usage, common_options *opts) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_to(stdout, program, usage);
            return CLI_EXIT_OK;
        } else if (strcmp(a, "--seed") == 0) {
            long long v;
            if (i + 1 >= argc || !parse_integer(argv[i + 1], 0, INT64_MAX, &v)) {
                fprintf(stderr, "%s: error: --seed needs a whole number >= 0\n", program);
                usage_to(stderr, program, usage);
                return CLI_USAGE;
            }
            opts->seed = (uint64_t)v;
            i++;
        } else if (strcmp(a, "--data") == 0) {
            if (i + 1 >= argc || !*argv[i + 1]) {
                fprintf(stderr, "%s: error: --data needs a directory\n", program);
                usage_to(stderr, program, usage);
                return CLI_USAGE;
            }
            opts->data_dir = argv[++i];
        } else {
            fprintf(stderr, "%s: error: unknown option '%s'\n", program, a);
            usage_to(stderr, program, usage);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

FILE *open_data_file(const char *program, const char *dir, const char *name) {
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    if (!path) {
        fprintf(stderr, "%s: error: out of memory\n", program);
        return NULL;
    }
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "%s: error: cannot write %s: %s\n", program, path, strerror(errno));
    free(path);
    return f;
}

// A label in double quotes, for gnuplot; a double quote inside becomes '.
static void write_label(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) fputc(*s == '"' ? '\'' : *s, f);
    fputc('"', f);
}

bool write_heatmap(const char *program, const char *dir, const char *name,
                   const float *m, int rows, int cols,
                   const char *const *row_labels, const char *const *col_labels) {
    FILE *f = open_data_file(program, dir, name);
    if (!f) return false;
    fputs("\"\"", f);
    for (int j = 0; j < cols; j++) {
        fputc(' ', f);
        write_label(f, col_labels[j]);
    }
    fputc('\n', f);
    for (int i = 0; i < rows; i++) {
        write_label(f, row_labels[i]);
        for (int j = 0; j < cols; j++) fprintf(f, " %.9g", (double)m[i * cols + j]);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "%s: error: cannot write %s/%s\n", program, dir, name);
        return false;
    }
    return true;
}
