// fuzz_options.c: libFuzzer target for the programs' command lines:
// chapter 7's parse_args (its own options, --tokenize and --convert-glove)
// and parse_chapter_options, which chapters 2 to 5 share. The input is the
// arguments, one a line; its first byte chooses the parser.
//
// Every command line must be taken or refused, never half-taken:
//   - refused (exit status 1 or 2): something was said on stderr, and a
//     usage error (2) ends with the usage line;
//   - 0 only for --help or -h, which prints the usage to stdout;
//   - taken: no option given twice; each number holds what its option
//     wrote, in decimal digits only (no sign, space or hexadecimal: core/
//     cli.h's rule), read here with strtod or strtoll, inside the range
//     the option states; --tokenize and --convert-glove alone on their
//     line.
// A --data value is replaced by a folder of the target's own, so that
// fuzzing never creates folders elsewhere.
#define TESTING
#include "../../src/programs/chapter7.c"
#include "../../src/programs/chapter7_main.c"
#include "../../src/programs/chapter7_figures.c"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 32

static char data_dir[64];

// The last value given to option `name` in argv (NULL if none), as the
// parser reads it: the argument after the option's last occurrence that
// is not itself the value of another option.
static const char *last_value(int argc, char **argv, const char *name) {
    const char *v = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) v = argv[++i];
    return v;
}

static bool has(int argc, char **argv, const char *name) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return true;
    return false;
}

// Checks an integer option the parser took: equal to the text's value and
// inside [lo, hi].
static void check_integer(int argc, char **argv, const char *name, long long got, long long dflt,
                          long long lo, long long hi) {
    const char *v = last_value(argc, argv, name);
    if (!v) {
        if (got != dflt) abort();
        return;
    }
    char *end;
    long long want = strtoll(v, &end, 10);
    if (*end || want != got || got < lo || got > hi) abort();
    if (strspn(v, "0123456789") != strlen(v)) abort();  // digits only
}

// Whether a taken command line gave an option twice (after --convert-glove
// IN OUT, whose two values are files, any text).
static bool repeats_an_option(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        for (int j = i + 1; strncmp(argv[i], "--", 2) == 0 && j < argc; j++)
            if (strcmp(argv[i], argv[j]) == 0) return true;
    return false;
}

// Runs parser `which` on argv with stdout and stderr caught; checks what it
// printed against the status it returned. Returns that status (-1: run).
static int parse_caught(int which, int argc, char **argv, ch7_options *o, common_options *c) {
    char *out_text = NULL, *err_text = NULL;
    size_t out_len = 0, err_len = 0;
    FILE *saved_out = stdout, *saved_err = stderr;
    stdout = open_memstream(&out_text, &out_len);
    stderr = open_memstream(&err_text, &err_len);
    if (!stdout || !stderr) abort();
    int status;
    if (which == 0) {
        status = parse_args(argc, argv, o);
    } else {
        *c = (common_options){.seed = 7};
        status = cli_exit_status(parse_chapter_options(argc, argv, "chapter2", "About.", "the seed", c));
    }
    fclose(stdout);
    fclose(stderr);
    stdout = saved_out;
    stderr = saved_err;
    bool help = has(argc, argv, "--help") || has(argc, argv, "-h");
    if (status == 0 && (!help || !strstr(out_text, "usage: "))) abort();
    if (status > 0 && err_len == 0) abort();                         // refused in silence
    if (status == 2 && !strstr(err_text, "\nusage: ")) abort();      // a usage error shows the usage
    free(out_text);
    free(err_text);
    return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!data_dir[0]) {
        snprintf(data_dir, sizeof data_dir, "/tmp/fuzz-options-XXXXXX");
        if (!mkdtemp(data_dir)) abort();
    }
    if (size < 1 || size > 4096 || memchr(data + 1, 0, size - 1)) return 0;
    int which = data[0] % 2;
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *argv[MAX_ARGS + 1] = {"chapter7"};
    int argc = 1;
    for (char *line = text, *next; line && argc < MAX_ARGS; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        argv[argc++] = line;
    }
    argv[argc] = NULL;
    for (int i = 1; i + 1 < argc; i++)  // --data DIR: always the target's own folder
        if (strcmp(argv[i], "--data") == 0 && strncmp(argv[i + 1], "--", 2) != 0 && argv[i + 1][0])
            argv[++i] = data_dir;
    ch7_options o;
    common_options c;
    int status = parse_caught(which, argc, argv, &o, &c);
    if (status == -1 && which == 0) {
        if (o.convert_in) {  // --convert-glove IN OUT, alone
            if (argc != 4 || strcmp(argv[1], "--convert-glove") != 0 || o.convert_in != argv[2] ||
                o.convert_out != argv[3])
                abort();
        } else {
            if (repeats_an_option(argc, argv)) abort();
            for (int i = 1; o.tokenize && i < argc; i++)  // --tokenize and nothing else
                if (strcmp(argv[i], "--tokenize") != 0) abort();
            check_integer(argc, argv, "--epochs", o.epochs, NUM_EPOCHS, 0, 1000000);
            check_integer(argc, argv, "--limit", o.limit, 0, 10 * BATCH_SIZE, (long long)1e12);
            check_integer(argc, argv, "--test-limit", o.test_limit, 0, 1, IMDB_REVIEWS / 2);
            check_integer(argc, argv, "--seed", (long long)o.seed, DEFAULT_SEED, 0, INT64_MAX);
            const char *lr = last_value(argc, argv, "--lr");
            if (lr) {
                double want = strtod(lr, NULL);
                if (o.nruns != 1 || o.runs[0].lr != want || !(want >= 1e-9 && want <= 10)) abort();
                if (strspn(lr, "0123456789.eE+-") != strlen(lr) || strchr("+-", lr[0])) abort();
            }
            if (o.nruns < 1 || o.nruns > MAX_RUNS) abort();
            if (o.data_dir && strcmp(o.data_dir, data_dir) != 0) abort();
        }
    } else if (status == -1) {
        if (repeats_an_option(argc, argv)) abort();
        check_integer(argc, argv, "--seed", (long long)c.seed, 7, 0, INT64_MAX);
        if (c.data_dir && strcmp(c.data_dir, data_dir) != 0) abort();
    } else if (status != 0 && status != 1 && status != 2) {
        abort();
    }
    free(text);
    return 0;
}
