// cli.h: the options every chapter program shares, and writing the data
// files its figures are drawn from.
#ifndef ATTN_CLI_H
#define ATTN_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t seed;         // --seed N: torch.manual_seed(N)
    const char *data_dir;  // --data DIR: write figure data there (NULL: don't)
} common_options;

// What parse_options found. CLI_OK: run. CLI_EXIT_OK: --help was printed,
// exit 0. CLI_USAGE: a bad option, usage went to stderr, exit 2. CLI_ERROR:
// the options are fine but cannot be carried out (a --data directory that
// cannot be written, the help text that cannot be written), the reason went
// to stderr, exit 1.
typedef enum { CLI_OK, CLI_EXIT_OK, CLI_USAGE, CLI_ERROR } cli_status;

// Parses --help, --seed N and --data DIR. opts holds the defaults on entry.
// usage is printed after "usage: <program> ". A seed of 2^32 or more draws
// what its low 32 bits draw, as torch.manual_seed does; a note on stderr
// says so. --data DIR is checked before any work: a missing DIR is created
// (its parent must exist), one that cannot be written is refused.
cli_status parse_options(int argc, char **argv, const char *program,
                         const char *usage, common_options *opts);

// After "cannot read PATH: <reason>": when PATH is default_path, the data
// `make data` fetches, and it is missing (err, the errno, is ENOENT), says
// on stderr that `make data` fetches it. A path the user typed gets no such
// advice: `make data` cannot mend a typing error.
void advise_make_data(const char *program, const char *path, const char *default_path, int err);

// The exit status a parse result ends the program with: 0 after --help, 2
// for a usage error, 1 for an error; -1 when the program should go on.
int cli_exit_status(cli_status st);

// A program's own option, beyond --help, --seed and --data. The parser
// stores what it reads through value, whose type the kind names:
//   OPT_FLAG     bool *         --tokenize
//   OPT_STRING   const char **  --query TEXT (an empty value is refused)
//   OPT_INTEGER  long long *    --epochs N, a whole number in [lo, hi]
//   OPT_NUMBER   double *       --lr X, a finite number in [lo, hi]
typedef enum { OPT_FLAG, OPT_STRING, OPT_INTEGER, OPT_NUMBER } option_kind;

typedef struct {
    const char *name;   // "--epochs"
    option_kind kind;
    void *value;
    double lo, hi;      // the accepted range of OPT_INTEGER and OPT_NUMBER
    // What the value is, for errors. OPT_STRING: the whole of it, "a file".
    // OPT_INTEGER and OPT_NUMBER: a note after the range the parser states
    // from lo and hi, "epochs" in "--epochs needs a whole number from 0 to
    // 1000000 (epochs)"; may be empty.
    const char *what;
} extra_option;

// parse_options, plus the n_extra options in extra. A bad value names the
// option and what it wanted, then prints the usage: CLI_USAGE. So does a
// value that begins with "--" (--query --key): it is an option, and the one
// before it was given no value; a value may begin with a single '-'. So
// does an option given twice (--epochs 1 --epochs 2), which would
// otherwise keep one value silently. Numbers follow parse_integer's rule;
// --help prints the usage, then that rule.
cli_status parse_options_with(int argc, char **argv, const char *program,
                              const char *usage, common_options *opts,
                              const extra_option *extra, int n_extra);

// parse_options for a chapter program whose only options are --seed N,
// --data DIR and --help, with the usage every such program has:
//   [--seed N] [--data DIR]
//
//   <about>
//     --seed N    <seed_help>
//     --data DIR  also write the figure data (<program>-*.dat) into DIR
//     --help      this message
// about says what the program does; seed_help what --seed does, its lines
// after the first indented to match.
cli_status parse_chapter_options(int argc, char **argv, const char *program,
                                 const char *about, const char *seed_help,
                                 common_options *opts);

// The rule for numbers, the same in every program (and said after each
// program's --help): decimal digits only; a '-' only as the sign of a
// range that goes below zero (no option's does); no '+', no spaces, no
// hexadecimal, no inf or nan. parse_integer reads a whole number in
// [lo, hi] ("42"); false if s is not one.
bool parse_integer(const char *s, long long lo, long long hi, long long *out);

// A number in [lo, hi] under the same rule, with an optional fraction and
// exponent: "0.001", ".5", "1.", "1e-3", "2E+1". False if s is not one.
bool parse_number(const char *s, double lo, double hi, double *out);

// A list of names joined by commas ("baseline,transformer"), each one of
// names[0..n): chosen[k] is set for each name listed. False for an empty
// list or item ("a,", ",a", "a,,b"), a name not in names, or a name listed
// twice.
bool parse_name_list(const char *list, const char *const *names, int n, bool *chosen);

// Whether the option name ("--imdb-epochs") is on the command line. A value
// never begins with "--" (parse_options_with refuses one), so any argument
// equal to name is the option.
bool option_given(int argc, char **argv, const char *name);

// Options that contradict: when both option and other are on the command
// line, prints "<program>: error: <option> has no effect with <other>;
// leave one out" and the usage, and returns CLI_USAGE; else CLI_OK.
cli_status refuse_together(int argc, char **argv, const char *program, const char *usage,
                           const char *option, const char *other);

// Flushes standard output and checks that everything written to it arrived
// (a full disk, a closed pipe); if not, prints "<program>: error: cannot
// write standard output: <reason>" and returns false. Call it last in main.
bool finish_output(const char *program);

// Opens DIR/NAME.tmp.PID (PID this process's) for writing; on failure
// prints "<program>: error: ..." to stderr and returns NULL.
// close_data_file closes it and, only if every write arrived, renames it to
// DIR/NAME, so that a failed or interrupted run never leaves a half-written
// data file under the final name, and two programs writing one folder at
// once never write into one file. A run ended by a signal removes its
// temporary file (core/cleanup.h); what a run killed otherwise (SIGKILL, a
// crash) left of DIR/NAME is removed here, before the new file is opened.
FILE *open_data_file(const char *program, const char *dir, const char *name);

// Closes f from open_data_file(program, dir, name) and renames it into
// place; on a failed write removes it, says why on stderr (the write's own
// reason: "No space left on device", "File too large"), returns false.
bool close_data_file(const char *program, FILE *f, const char *dir, const char *name);

// Closes f from open_data_file(program, dir, name) and removes it: what a
// run that failed before it finished the file does, so that no part of a
// file is ever left under any name.
void discard_data_file(FILE *f, const char *dir, const char *name);

// Writes an (rows, cols) matrix for gnuplot's `matrix rowheaders
// columnheaders`: a header line of column labels, then one line per row, its
// label first. Returns false (and says why on stderr) on failure.
bool write_heatmap(const char *program, const char *dir, const char *name,
                   const float *m, int rows, int cols,
                   const char *const *row_labels, const char *const *col_labels);

// The command line as one string, "./program arg1 arg2 ...", for a
// program's output to say what produced it (a new string; NULL when out of
// memory).
char *command_line(const char *program, int argc, char **argv);

#endif
