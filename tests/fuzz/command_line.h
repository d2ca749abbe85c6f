// command_line.h: what the fuzz targets of the programs' command lines
// (fuzz_options.c, fuzz_options8.c) share: the fuzz input made into argv,
// one argument a line, with --data always a folder of the target's own;
// a parser run with stdout and stderr caught, and what it printed held to
// the status it returned; and the rules of core/cli.h that every taken
// command line keeps (no option twice, numbers in decimal digits inside
// their option's range).
#ifndef ATTN_FUZZ_COMMAND_LINE_H
#define ATTN_FUZZ_COMMAND_LINE_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 32

// The folder every --data value is replaced by, made once (mkdtemp from
// the template, e.g. "/tmp/fuzz-options-XXXXXX") and removed at exit.
static char fuzz_data_dir[64];

static void remove_fuzz_data_dir(void) { rmdir(fuzz_data_dir); }

static const char *fuzz_data_folder(const char *tmpl) {
    if (!fuzz_data_dir[0]) {
        snprintf(fuzz_data_dir, sizeof fuzz_data_dir, "%s", tmpl);
        if (!mkdtemp(fuzz_data_dir)) abort();
        atexit(remove_fuzz_data_dir);
    }
    return fuzz_data_dir;
}

// text (NUL-terminated, changed in place) as argv after argv[0] = program:
// one argument a line, at most MAX_ARGS; the value after each --data the
// data folder. Returns argc; argv[argc] is NULL.
static int fuzz_argv(char *text, bool empty, const char *program, char **argv) {
    int argc = 0;
    argv[argc++] = (char *)program;
    for (char *line = text, *next; !empty && line && argc < MAX_ARGS; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        argv[argc++] = line;
    }
    argv[argc] = NULL;
    for (int i = 1; i + 1 < argc; i++)  // --data DIR: always the target's own folder
        if (strcmp(argv[i], "--data") == 0 && strncmp(argv[i + 1], "--", 2) != 0 && argv[i + 1][0])
            argv[++i] = fuzz_data_dir;
    return argc;
}

static bool has(int argc, char **argv, const char *name) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return true;
    return false;
}

// The value given to option `name` (NULL if none): the argument after its
// last occurrence. (A taken line gives each option once.)
static const char *value_of(int argc, char **argv, const char *name) {
    const char *v = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) v = argv[++i];
    return v;
}

// Whether a line gave an option twice.
static bool repeats_an_option(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        for (int j = i + 1; strncmp(argv[i], "--", 2) == 0 && j < argc; j++)
            if (strcmp(argv[i], argv[j]) == 0) return true;
    return false;
}

// An integer option of a taken line: what the text says, in digits only,
// inside [lo, hi]; the default when the option is not given.
static void check_integer(int argc, char **argv, const char *name, long long got, long long dflt,
                          long long lo, long long hi) {
    const char *v = value_of(argc, argv, name);
    if (!v) {
        if (got != dflt) abort();
        return;
    }
    if (!v[0] || strspn(v, "0123456789") != strlen(v)) abort();
    char *end;
    errno = 0;
    long long want = strtoll(v, &end, 10);
    if (errno || *end || want != got || got < lo || got > hi) abort();
}

// stdout and stderr caught while a parser runs.
typedef struct {
    FILE *saved_out, *saved_err;
    char *out, *err;
    size_t out_len, err_len;
} caught;

static void catch_output(caught *c) {
    c->out = c->err = NULL;
    c->out_len = c->err_len = 0;
    c->saved_out = stdout;
    c->saved_err = stderr;
    stdout = open_memstream(&c->out, &c->out_len);
    stderr = open_memstream(&c->err, &c->err_len);
    if (!stdout || !stderr) abort();
}

// Ends the catch and holds what was printed to the parser's status (-1:
// run; 0: --help printed the usage; 1, 2: refused, saying why, a usage
// error (2) with the usage line "usage: <usage_start>").
static void check_caught(caught *c, int status, int argc, char **argv, const char *usage_start) {
    fclose(stdout);
    fclose(stderr);
    stdout = c->saved_out;
    stderr = c->saved_err;
    char usage[64];  // on a line of its own
    snprintf(usage, sizeof usage, "\nusage: %s", usage_start);
    bool help = has(argc, argv, "--help") || has(argc, argv, "-h");
    if (status < -1 || status > 2) abort();
    if (status == 0 && (!help || !strstr(c->out, usage + 1))) abort();
    if (status > 0 && c->err_len == 0) abort();  // refused in silence
    if (status == 2 && !strstr(c->err, usage)) abort();
    free(c->out);
    free(c->err);
}

#endif
