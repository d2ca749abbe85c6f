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

#include "command_line.h"

// Runs parser `which` on argv with stdout and stderr caught; checks what it
// printed against the status it returned. Returns that status (-1: run).
static int parse_caught(int which, int argc, char **argv, ch7_options *o, common_options *c) {
    caught out;
    catch_output(&out);
    int status;
    if (which == 0) {
        status = parse_args(argc, argv, o);
    } else {
        *c = (common_options){.seed = 7};
        status = cli_exit_status(parse_chapter_options(argc, argv, "chapter2", "About.", "the seed", c));
    }
    check_caught(&out, status, argc, argv, "");
    return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *data_dir = fuzz_data_folder("/tmp/fuzz-options-XXXXXX");
    if (size < 1 || size > 4096 || memchr(data + 1, 0, size - 1)) return 0;
    int which = data[0] % 2;
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = fuzz_argv(text, false, "chapter7", argv);
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
            const char *lr = value_of(argc, argv, "--lr");
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
