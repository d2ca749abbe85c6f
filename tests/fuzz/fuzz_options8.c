// fuzz_options8.c: libFuzzer target for chapter 8's command line,
// parse_chapter8 (src/programs/chapter8.c) with imdb_refuse_with_no_imdb
// (chapter8_imdb.c). The input is the arguments, one a line.
//
// Every command line must be taken or refused, never half-taken:
//   - refused (exit status 1 or 2): something was said on stderr, and a
//     usage error (2) shows the usage;
//   - 0 only for --help or -h, which prints the usage to stdout;
//   - taken: no option given twice; each number holds what its option
//     wrote, in decimal digits only (core/cli.h's rule), inside the range
//     chapter 8's option table gives it, and reaches the IMDb cell's
//     settings where it belongs there; --imdb and --glove hold their
//     argument; --no-imdb never beside --imdb, --glove, --imdb-epochs,
//     --imdb-limit or --imdb-test-limit, which only the IMDb block reads.
// A --data value is replaced by a folder of the target's own, so that
// fuzzing never creates folders elsewhere.
#define TESTING
#include "../../src/programs/chapter8.c"
#include "../../src/programs/chapter8_imdb.c"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 32

static char data_dir[64];

// The value given to option `name` in argv (NULL if none): the argument
// after it. A taken line gives each option once, and no value begins with
// "--", so the first occurrence is the only one.
static const char *value_of(int argc, char **argv, const char *name) {
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return NULL;
}

static bool has(int argc, char **argv, const char *name) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return true;
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

static void check_string(int argc, char **argv, const char *name, const char *got,
                         const char *dflt) {
    const char *v = value_of(argc, argv, name);
    if (v ? got != v || !v[0] : strcmp(got, dflt) != 0) abort();
}

static bool repeats_an_option(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        for (int j = i + 1; strncmp(argv[i], "--", 2) == 0 && j < argc; j++)
            if (strcmp(argv[i], argv[j]) == 0) return true;
    return false;
}

// A line that gives --no-imdb beside an IMDb option takes the parser's
// path any other such line takes: nothing new for the fuzzer's coverage,
// which would keep one of them only, often one with several IMDb options,
// where leaving one out of the refusal would go unseen. A branch here for
// each option given alone beside --no-imdb lets the corpus keep a line of
// each, from which the fuzzer's mutations try values. (Volatile stores,
// which the compiler cannot merge into one branchless sum.)
static volatile int alone_seen[5];

static void mark_alone(int argc, char **argv, const char *const *names) {
    int given = 0;
    for (int i = 0; i < 5; i++) given += has(argc, argv, names[i]);
    if (given != 1 || !has(argc, argv, "--no-imdb")) return;
    if (has(argc, argv, names[0])) alone_seen[0] = 1;
    if (has(argc, argv, names[1])) alone_seen[1] = 1;
    if (has(argc, argv, names[2])) alone_seen[2] = 1;
    if (has(argc, argv, names[3])) alone_seen[3] = 1;
    if (has(argc, argv, names[4])) alone_seen[4] = 1;
}

// Runs parse_chapter8 with stdout and stderr caught; checks what it printed
// against the status it returned, which it returns (-1: run).
static int parse_caught(int argc, char **argv, ch8_settings *s) {
    char *out_text = NULL, *err_text = NULL;
    size_t out_len = 0, err_len = 0;
    FILE *saved_out = stdout, *saved_err = stderr;
    stdout = open_memstream(&out_text, &out_len);
    stderr = open_memstream(&err_text, &err_len);
    if (!stdout || !stderr) abort();
    int status = parse_chapter8(argc, argv, s);
    fclose(stdout);
    fclose(stderr);
    stdout = saved_out;
    stderr = saved_err;
    bool help = has(argc, argv, "--help") || has(argc, argv, "-h");
    if (status == 0 && (!help || !strstr(out_text, "usage: chapter8 "))) abort();
    if (status > 0 && err_len == 0) abort();                     // refused in silence
    if (status == 2 && !strstr(err_text, "\nusage: chapter8 ")) abort();
    if (status < -1 || status > 2) abort();
    free(out_text);
    free(err_text);
    return status;
}

// The options only the IMDb block reads.
static const char *const imdb_only[] = {"--imdb", "--glove", "--imdb-epochs", "--imdb-limit",
                                        "--imdb-test-limit"};

// A taken line against chapter 8's rules and option table.
static void check_taken(int argc, char **argv, const ch8_settings *s) {
    if (repeats_an_option(argc, argv)) abort();
    if (s->no_imdb != has(argc, argv, "--no-imdb")) abort();
    for (size_t i = 0; s->no_imdb && i < sizeof imdb_only / sizeof *imdb_only; i++)
        if (has(argc, argv, imdb_only[i])) abort();
    check_integer(argc, argv, "--steps", s->steps, DEFAULT_STEPS, 1, 1000000);
    check_integer(argc, argv, "--test-size", s->test_size, DEFAULT_TEST, 1, 1000000);
    check_integer(argc, argv, "--imdb-epochs", s->io.epochs, 1, 1, 100);
    check_integer(argc, argv, "--imdb-limit", s->io.limit, 0, 64, 214588);
    check_integer(argc, argv, "--imdb-test-limit", s->io.test_limit, 0, 1, 25000);
    check_integer(argc, argv, "--seed", (long long)s->opts.seed, DEFAULT_SEED, 0, INT64_MAX);
    check_string(argc, argv, "--imdb", s->io.imdb_path, IMDB_CELL_IMDB);
    check_string(argc, argv, "--glove", s->io.glove_path, IMDB_CELL_GLOVE);
    if (s->io.seed != s->opts.seed || s->io.data_dir != s->opts.data_dir) abort();
    if (!s->opts.data_dir != !has(argc, argv, "--data")) abort();
    if (s->opts.data_dir && strcmp(s->opts.data_dir, data_dir) != 0) abort();
}

static void remove_data_dir(void) {
    rmdir(data_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!data_dir[0]) {
        snprintf(data_dir, sizeof data_dir, "/tmp/fuzz-options8-XXXXXX");
        if (!mkdtemp(data_dir)) abort();
        atexit(remove_data_dir);
    }
    if (size > 4096 || memchr(data, 0, size)) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 1] = {"chapter8"};
    int argc = 1;
    for (char *line = text, *next; size && line && argc < MAX_ARGS; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        argv[argc++] = line;
    }
    argv[argc] = NULL;
    for (int i = 1; i + 1 < argc; i++)  // --data DIR: always the target's own folder
        if (strcmp(argv[i], "--data") == 0 && strncmp(argv[i + 1], "--", 2) != 0 && argv[i + 1][0])
            argv[++i] = data_dir;
    mark_alone(argc, argv, imdb_only);
    ch8_settings s;
    if (parse_caught(argc, argv, &s) == -1) check_taken(argc, argv, &s);
    free(text);
    return 0;
}
