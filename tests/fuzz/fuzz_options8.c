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

#include "command_line.h"

static void check_string(int argc, char **argv, const char *name, const char *got,
                         const char *dflt) {
    const char *v = value_of(argc, argv, name);
    if (v ? got != v || !v[0] : strcmp(got, dflt) != 0) abort();
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
    caught out;
    catch_output(&out);
    int status = parse_chapter8(argc, argv, s);
    check_caught(&out, status, argc, argv, "chapter8 ");
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
    if (s->opts.data_dir && strcmp(s->opts.data_dir, fuzz_data_dir) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_data_folder("/tmp/fuzz-options8-XXXXXX");
    if (size > 4096 || memchr(data, 0, size)) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = fuzz_argv(text, size == 0, "chapter8", argv);
    mark_alone(argc, argv, imdb_only);
    ch8_settings s;
    if (parse_caught(argc, argv, &s) == -1) check_taken(argc, argv, &s);
    free(text);
    return 0;
}
