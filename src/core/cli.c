// cli.c: shared option parsing and figure data files.
#define _POSIX_C_SOURCE 200809L
#include "core/cli.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/readfile.h"

// The one rule every program's numbers follow (said in --help by
// NUMBER_RULE): decimal digits, and for a number that may have a fraction,
// a '.' and an exponent; a '-' only where the range goes below zero. No
// '+', no spaces, no hexadecimal, no inf or nan, which strtoll and strtod
// would take.
static bool all_digits(const char *s, const char **end) {
    const char *p = s;
    while (*p >= '0' && *p <= '9') p++;
    *end = p;
    return p > s;
}

static bool integer_text(const char *s, bool signed_range) {
    const char *end;
    if (*s == '-' && signed_range) s++;
    return all_digits(s, &end) && !*end;
}

// [-]digits[.[digits]] or [-].digits, then [e|E[+|-]digits]; the '-' only
// for a signed range.
static bool number_text(const char *s, bool signed_range) {
    const char *p = s, *end;
    if (*p == '-' && signed_range) p++;
    bool whole = all_digits(p, &end);
    p = end;
    if (*p == '.') {
        bool fraction = all_digits(p + 1, &end);
        if (!whole && !fraction) return false;
        p = end;
    } else if (!whole) {
        return false;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!all_digits(p, &end)) return false;
        p = end;
    }
    return !*p;
}

bool parse_integer(const char *s, long long lo, long long hi, long long *out) {
    if (!s || !integer_text(s, lo < 0)) return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool parse_number(const char *s, double lo, double hi, double *out) {
    if (!s || !number_text(s, lo < 0)) return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool parse_name_list(const char *list, const char *const *names, int n, bool *chosen) {
    for (int k = 0; k < n; k++) chosen[k] = false;
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        int which = -1;
        for (int k = 0; k < n && which < 0; k++)
            if (len == strlen(names[k]) && strncmp(p, names[k], len) == 0) which = k;
        if (which < 0 || chosen[which]) return false;  // empty, unknown or twice
        chosen[which] = true;
        if (!p[len]) return true;
        p += len + 1;  // past the comma: an item must follow
    }
}

static void usage_to(FILE *f, const char *program, const char *usage) {
    fprintf(f, "usage: %s %s\n", program, usage);
}

// Reads the value of option o from s; false if s is not one.
static bool read_extra(const extra_option *o, const char *s) {
    switch (o->kind) {
    case OPT_FLAG:
        *(bool *)o->value = true;
        return true;
    case OPT_STRING:
        if (!*s) return false;
        *(const char **)o->value = s;
        return true;
    case OPT_INTEGER:
        return parse_integer(s, (long long)o->lo, (long long)o->hi, (long long *)o->value);
    case OPT_NUMBER:
        return parse_number(s, o->lo, o->hi, (double *)o->value);
    }
    return false;
}

// Complains about option `name`, then prints the usage: CLI_USAGE.
static cli_status usage_error(const char *program, const char *usage,
                              const char *name, const char *what) {
    fprintf(stderr, "%s: error: %s needs %s\n", program, name, what);
    usage_to(stderr, program, usage);
    return CLI_USAGE;
}

// x as the shortest text that reads back as x: 1e-09, 0.05, 10.
static void format_bound(char *buf, size_t len, double x) {
    if (x == floor(x) && fabs(x) < 1e15) {  // 10, not 1e+01
        snprintf(buf, len, "%.0f", x);
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, x);
        if (strtod(buf, NULL) == x) return;
    }
}

// What a numeric option needs, from the bounds the parser enforces, so that
// the two cannot disagree: "a whole number from 0 to 1000000 (epochs)".
static cli_status range_error(const char *program, const char *usage, const char *name,
                              bool whole, double lo, double hi, const char *what) {
    char need[256], a[32], b[32];
    if (whole) {
        snprintf(a, sizeof a, "%lld", (long long)lo);
        snprintf(b, sizeof b, "%lld", (long long)hi);
    } else {
        format_bound(a, sizeof a, lo);
        format_bound(b, sizeof b, hi);
    }
    snprintf(need, sizeof need, "a %s from %s to %s%s%s%s", whole ? "whole number" : "number", a, b,
             what && *what ? " (" : "", what && *what ? what : "", what && *what ? ")" : "");
    return usage_error(program, usage, name, need);
}

// A value that is itself an option (--query --key): the option before it
// was given none. A value may begin with one '-' (-1), never with two.
static bool is_option(const char *s) { return s && strncmp(s, "--", 2) == 0; }

static cli_status value_is_option(const char *program, const char *usage, const char *name,
                                  const char *next) {
    fprintf(stderr, "%s: error: %s needs a value, not the option '%s'\n", program, name, next);
    usage_to(stderr, program, usage);
    return CLI_USAGE;
}

// --data DIR: a directory the program can write into, created if missing.
static bool data_dir_usable(const char *program, const char *dir) {
    struct stat st;
    if (stat(dir, &st) != 0 && (errno != ENOENT || mkdir(dir, 0777) != 0)) {
        fprintf(stderr, "%s: error: --data %s: %s\n", program, dir, file_error(errno));
        return false;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: error: --data %s: %s\n", program, dir, file_error(ENOTDIR));
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "%s: error: --data %s: cannot write there: %s\n", program, dir,
                file_error(errno));
        return false;
    }
    return true;
}

cli_status parse_options(int argc, char **argv, const char *program,
                         const char *usage, common_options *opts) {
    return parse_options_with(argc, argv, program, usage, opts, NULL, 0);
}

// Said after every program's --help: the rule parse_integer,
// parse_number, parse_name_list and the repeated-option check enforce.
static const char NUMBER_RULE[] =
    "Numbers are decimal: N is whole (42), X may have a fraction and an exponent\n"
    "(0.001, 1e-3); no sign, spaces or hexadecimal (+5, ' 5', 0x10). Each option is\n"
    "given once at most.";
static const char LIST_RULE[] =
    " A list M[,M...] is names joined by commas, each named once,\n"
    "none empty (not 'a,' or 'a,,b').";

static void help_to_stdout(const char *program, const char *usage) {
    usage_to(stdout, program, usage);
    printf("\n%s%s\n", NUMBER_RULE, strstr(usage, "[,") ? LIST_RULE : "");
}

// Whether option k of the command line (0 for --seed, 1 for --data, 2 + j
// for extra[j]) was seen before; marks it seen. More options than a mask
// holds are not checked.
static bool seen_before(uint64_t *seen, int k) {
    if (k >= 64) return false;
    bool was = *seen >> k & 1;
    *seen |= UINT64_C(1) << k;
    return was;
}

cli_status parse_options_with(int argc, char **argv, const char *program,
                              const char *usage, common_options *opts,
                              const extra_option *extra, int n_extra) {
    uint64_t seen = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help_to_stdout(program, usage);
            return finish_output(program) ? CLI_EXIT_OK : CLI_ERROR;
        }
        int k = strcmp(a, "--seed") == 0 ? 0 : strcmp(a, "--data") == 0 ? 1 : -1;
        for (int j = 0; j < n_extra && k < 0; j++)
            if (strcmp(a, extra[j].name) == 0) k = 2 + j;
        if (k < 0) {
            fprintf(stderr, "%s: error: unknown option '%s'\n", program, a);
            usage_to(stderr, program, usage);
            return CLI_USAGE;
        }
        if (seen_before(&seen, k)) {
            fprintf(stderr, "%s: error: %s is given twice; give it once\n", program, a);
            usage_to(stderr, program, usage);
            return CLI_USAGE;
        }
        const extra_option *o = k >= 2 ? &extra[k - 2] : NULL;
        if ((!o || o->kind != OPT_FLAG) && is_option(next))
            return value_is_option(program, usage, a, next);
        if (k == 0) {
            long long v;
            if (!next || !parse_integer(next, 0, INT64_MAX, &v)) {
                fprintf(stderr, "%s: error: %s needs a whole number from 0 to %lld\n", program, a,
                        (long long)INT64_MAX);
                usage_to(stderr, program, usage);
                return CLI_USAGE;
            }
            opts->seed = (uint64_t)v;
            if (opts->seed > UINT32_MAX)
                fprintf(stderr, "%s: note: --seed %llu draws what --seed %llu draws: "
                        "torch.manual_seed keeps only the low 32 bits\n", program,
                        (unsigned long long)opts->seed, (unsigned long long)(opts->seed & UINT32_MAX));
            i++;
        } else if (k == 1) {
            if (!next || !*next) return usage_error(program, usage, a, "a directory");
            opts->data_dir = next;
            i++;
        } else if (o->kind == OPT_FLAG) {
            read_extra(o, NULL);
        } else {
            if (!next || !read_extra(o, next)) {
                if (o->kind == OPT_STRING) return usage_error(program, usage, a, o->what);
                return range_error(program, usage, a, o->kind == OPT_INTEGER, o->lo, o->hi, o->what);
            }
            i++;
        }
    }
    if (opts->data_dir && !data_dir_usable(program, opts->data_dir)) return CLI_ERROR;
    return CLI_OK;
}

bool option_given(int argc, char **argv, const char *name) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return true;
    return false;
}

cli_status refuse_together(int argc, char **argv, const char *program, const char *usage,
                           const char *option, const char *other) {
    if (!option_given(argc, argv, option) || !option_given(argc, argv, other)) return CLI_OK;
    fprintf(stderr, "%s: error: %s has no effect with %s; leave one out\n", program, option, other);
    usage_to(stderr, program, usage);
    return CLI_USAGE;
}

cli_status parse_chapter_options(int argc, char **argv, const char *program,
                                 const char *about, const char *seed_help,
                                 common_options *opts) {
    char usage[4096];
    int len = snprintf(usage, sizeof usage, "[--seed N] [--data DIR]\n\n%s\n"
                       "  --seed N    %s\n"
                       "  --data DIR  also write the figure data (%s-*.dat) into DIR\n"
                       "  --help      this message", about, seed_help, program);
    if (len < 0 || (size_t)len >= sizeof usage) {
        fprintf(stderr, "%s: error: the usage text is too long\n", program);
        return CLI_ERROR;
    }
    return parse_options(argc, argv, program, usage, opts);
}

void advise_make_data(const char *program, const char *path, const char *default_path, int err) {
    if (err == ENOENT && strcmp(path, default_path) == 0)
        fprintf(stderr, "%s: the data is fetched by `make data`\n", program);
}

int cli_exit_status(cli_status st) {
    switch (st) {
    case CLI_EXIT_OK: return 0;
    case CLI_USAGE: return 2;
    case CLI_ERROR: return 1;
    case CLI_OK: break;
    }
    return -1;
}

bool finish_output(const char *program) {
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: error: cannot write standard output: %s\n", program,
                errno ? file_error(errno) : "write error");
        return false;
    }
    return true;
}

// DIR/NAME followed by suffix, into path (PATH_MAX bytes: no allocation,
// so that writing a file cannot fail for memory halfway through). False
// when it does not fit.
static bool data_path(char *path, const char *dir, const char *name, const char *suffix) {
    int len = snprintf(path, PATH_MAX, "%s/%s%s", dir, name, suffix);
    return len >= 0 && len < PATH_MAX;
}

// The temporary name this process writes DIR/NAME under: DIR/NAME.tmp.PID.
// Two programs writing one folder at once never share it; the final name
// comes only with the rename.
static bool temp_path(char *path, const char *dir, const char *name) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
    return data_path(path, dir, name, suffix);
}

// Removes what a killed run left of DIR/NAME: NAME.tmp.PID for a process
// that no longer runs (and NAME.tmp, the name older versions used). A file
// of a process still running is its own business. Tidying only: if the
// folder cannot be listed, the next run tidies.
static void remove_leftovers(const char *dir, const char *name) {
    DIR *d = opendir(dir);
    if (!d) return;
    size_t n = strlen(name);
    for (struct dirent *e; (e = readdir(d));) {
        const char *s = e->d_name;
        if (strncmp(s, name, n) != 0 || strncmp(s + n, ".tmp", 4) != 0) continue;
        s += n + 4;
        bool stale = *s == '\0';
        if (*s == '.' && isdigit((unsigned char)s[1])) {
            char *end;
            errno = 0;
            long pid = strtol(s + 1, &end, 10);
            stale = !*end && !errno && pid > 0 && pid != (long)getpid() &&
                    kill((pid_t)pid, 0) != 0 && errno == ESRCH;
        }
        char path[PATH_MAX];
        if (stale && data_path(path, dir, e->d_name, "")) unlink(path);
    }
    closedir(d);
}

FILE *open_data_file(const char *program, const char *dir, const char *name) {
    remove_leftovers(dir, name);
    char tmp[PATH_MAX];
    if (!temp_path(tmp, dir, name)) {
        fprintf(stderr, "%s: error: cannot write %s/%s: %s\n", program, dir, name, file_error(ENAMETOOLONG));
        return NULL;
    }
    remove_on_signal(tmp);  // before it exists: a run ended by a signal leaves no NAME.tmp.PID
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int why = errno;
        keep_on_signal(tmp);
        fprintf(stderr, "%s: error: cannot write %s/%s: %s\n", program, dir, name,
                file_error(why));
    }
    return f;
}

// Why writes to f failed, when ferror(f) says one did: the stream keeps
// the fact, not the errno. One more byte written and flushed fails the same
// way while the disk is still full (ENOSPC) or the file still at its size
// limit (EFBIG); 0 when it does not fail (the reason is gone). The file
// is removed after this, so the byte is never seen.
static int write_error_reason(FILE *f) {
    clearerr(f);
    errno = 0;
    if (fputc('\n', f) != EOF && fflush(f) == 0) return 0;
    return errno;
}

bool close_data_file(const char *program, FILE *f, const char *dir, const char *name) {
    char tmp[PATH_MAX], path[PATH_MAX];
    temp_path(tmp, dir, name);  // fits: open_data_file made it
    bool wrote = !ferror(f);
    int why = wrote ? 0 : write_error_reason(f);
    errno = 0;
    if (fclose(f) != 0 && wrote) {
        wrote = false;
        why = errno;
    }
    bool named = data_path(path, dir, name, "");
    bool ok = wrote && named && rename(tmp, path) == 0;
    if (!ok) {
        if (!named) why = ENAMETOOLONG;
        else if (wrote) why = errno;
        remove(tmp);
        fprintf(stderr, "%s: error: cannot write %s/%s: %s\n", program, dir, name,
                why ? file_error(why) : "a write failed");
    }
    keep_on_signal(tmp);
    return ok;
}

void discard_data_file(FILE *f, const char *dir, const char *name) {
    char tmp[PATH_MAX];
    fclose(f);
    if (temp_path(tmp, dir, name)) {
        remove(tmp);
        keep_on_signal(tmp);
    }
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
    return close_data_file(program, f, dir, name);
}

char *command_line(const char *program, int argc, char **argv) {
    size_t len = strlen(program) + 3;
    for (int i = 1; i < argc; i++) len += strlen(argv[i]) + 1;
    char *s = malloc(len);
    if (!s) return NULL;
    strcat(strcpy(s, "./"), program);
    for (int i = 1; i < argc; i++) strcat(strcat(s, " "), argv[i]);
    return s;
}
