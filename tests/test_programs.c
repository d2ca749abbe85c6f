// test_programs.c: every chapter program run as a reader runs it, from the
// outside: its exit status, what it says on stderr, and that the same seed
// prints the same output twice.
//
// PROGRAMS lists the programs and the arguments to run them with,
// "chapter1=ARGS;chapter2=ARGS;..." (the Makefile passes each chapter's
// CHECK_ARGS_chapterN, by default the arguments the book runs it with);
// PROGRAM_DIR is where they are (the project root, or the sanitizer build).
#define _POSIX_C_SOURCE 200809L
#include <check.h>

#include "suite.h"
#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/readfile.h"

#ifndef PROGRAMS
#define PROGRAMS "chapter1=;chapter2=;chapter3="
#endif
#ifndef PROGRAM_DIR
#define PROGRAM_DIR "."
#endif

enum { MAX_PROGRAMS = 32, MAX_ARGS = 32 };

typedef struct {
    char name[64];
    char *args[MAX_ARGS];  // the arguments, split at spaces
    int nargs;
} program;

static program programs[MAX_PROGRAMS];
static int n_programs;
static char scratch[64];  // a temporary directory for outputs

static void read_program_list(void) {
    static char list[] = PROGRAMS;
    for (char *item = strtok(list, ";"); item && n_programs < MAX_PROGRAMS; item = strtok(NULL, ";")) {
        while (*item == ' ') item++;
        char *eq = strchr(item, '=');
        if (!eq) continue;
        *eq = '\0';
        program *p = &programs[n_programs++];
        snprintf(p->name, sizeof p->name, "%s", item);
        for (char *a = eq + 1, *end; *a && p->nargs < MAX_ARGS; a = end) {
            while (*a == ' ') a++;
            if (!*a) break;
            end = a + strcspn(a, " ");
            p->args[p->nargs++] = strndup(a, (size_t)(end - a));
        }
    }
}

static void setup(void) {
    if (n_programs == 0) read_program_list();
    snprintf(scratch, sizeof scratch, "/tmp/test_programs.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void teardown(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    ck_assert_int_eq(system(cmd), 0);
}

// Seconds a program run by run() may take before SIGALRM ends it; 0 for
// no limit.
static unsigned run_limit;

// Runs PROGRAM_DIR/p with p's own arguments (if own) and then extra (NULL
// ended), stdout into out_path and stderr into scratch/err. Returns the
// exit status, or -1 if it died of a signal.
static int run(const program *p, bool own, const char *const *extra, const char *out_path) {
    char path[512], err_path[128];
    snprintf(path, sizeof path, "%s/%s", PROGRAM_DIR, p->name);
    snprintf(err_path, sizeof err_path, "%s/err", scratch);
    const char *argv[2 * MAX_ARGS + 2];
    int n = 0;
    argv[n++] = path;
    for (int i = 0; own && i < p->nargs; i++) argv[n++] = p->args[i];
    for (int i = 0; extra && extra[i]; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    fflush(stdout);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int er = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || er < 0) _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(er, 2);
        if (run_limit) alarm(run_limit);  // kept across execv
        execv(path, (char *const *)argv);
        _exit(127);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// What the last run printed on stderr (the caller frees it).
static char *said(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/err", scratch);
    size_t len;
    char *s = read_whole_file(path, &len);
    ck_assert_ptr_nonnull(s);
    return s;
}

static char *out_file(const char *name) {
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    return path;
}

#define EXPECT_SAID(p, text)                                                        \
    do {                                                                            \
        char *s_ = said();                                                          \
        ck_assert_msg(strstr(s_, text) != NULL, "%s: stderr lacks \"%s\":\n%s",   \
                      (p)->name, text, s_);                                         \
        free(s_);                                                                   \
    } while (0)

// What p --help prints on stdout, having exited 0 (the caller frees it).
static char *help_text(const program *p) {
    const char *help[] = {"--help", NULL};
    ck_assert_int_eq(run(p, false, help, out_file("help")), 0);
    size_t len;
    char *text = read_whole_file(out_file("help"), &len);
    ck_assert_ptr_nonnull(text);
    return text;
}

START_TEST(help_goes_to_stdout_and_exits_zero) {
    for (int i = 0; i < n_programs; i++) {
        const program *p = &programs[i];
        char *text = help_text(p);
        char want[96];
        snprintf(want, sizeof want, "usage: %.63s ", p->name);
        ck_assert_msg(strncmp(text, want, strlen(want)) == 0, "%s --help printed: %s", p->name, text);
        ck_assert_msg(strstr(text, "--seed") && strstr(text, "--data"), "%s --help: %s", p->name, text);
        free(text);
    }
}
END_TEST

START_TEST(bad_options_exit_2_with_usage) {
    for (int i = 0; i < n_programs; i++) {
        const program *p = &programs[i];
        const char *unknown[] = {"--bogus", NULL};
        ck_assert_int_eq(run(p, false, unknown, out_file("out")), 2);
        EXPECT_SAID(p, "error: unknown option '--bogus'");
        EXPECT_SAID(p, "usage: ");
        const char *seed[] = {"--seed", "x1", NULL};
        ck_assert_int_eq(run(p, false, seed, out_file("out")), 2);
        EXPECT_SAID(p, "error: --seed needs a whole number");
        const char *data[] = {"--data", NULL};
        ck_assert_int_eq(run(p, false, data, out_file("out")), 2);
        EXPECT_SAID(p, "error: --data needs a directory");
        const char *empty[] = {"--data", "", NULL};
        ck_assert_int_eq(run(p, false, empty, out_file("out")), 2);
    }
}
END_TEST

// A --data that cannot be written is refused before any work: nothing on
// stdout, exit 1, the path and the reason on stderr.
START_TEST(unwritable_data_dir_fails_first) {
    for (int i = 0; i < n_programs; i++) {
        const program *p = &programs[i];
        const char *data[] = {"--data", "/etc/passwd", NULL};
        ck_assert_int_eq(run(p, true, data, out_file("out")), 1);
        EXPECT_SAID(p, "--data /etc/passwd: Not a directory");
        struct stat st;
        ck_assert_int_eq(stat(out_file("out"), &st), 0);
        ck_assert_msg(st.st_size == 0, "%s printed before checking --data", p->name);
    }
}
END_TEST

// Each option that takes an input file (FILE in --help: --glove, --imdb) is
// tried with a missing file, a directory, a dangling symbolic link, a FIFO
// with no writer (whose open() would wait for one forever) and a device:
// exit 1 at once before any output, the file named on stderr with the
// reason.
// Whether p's own arguments hold arg.
static bool has_arg(const program *p, const char *arg) {
    for (int i = 0; i < p->nargs; i++)
        if (strcmp(p->args[i], arg) == 0) return true;
    return false;
}

// The options of p's --help followed by " FILE" (--imdb, --glove, ...),
// each into flags[] (at most max); returns how many.
static int file_options(const program *p, char flags[][32], int max) {
    char *text = help_text(p);
    int n = 0;
    for (char *at = text; n < max && (at = strstr(at, " FILE")) != NULL; at++) {
        char *start = at;
        while (start > text && start[-1] != ' ' && start[-1] != '[') start--;
        if (start == at || strncmp(start, "--", 2) != 0) continue;
        snprintf(flags[n], sizeof flags[n], "%.*s", (int)(at - start), start);
        bool seen = false;
        for (int k = 0; k < n; k++) seen |= strcmp(flags[k], flags[n]) == 0;
        n += !seen;
    }
    free(text);
    return n;
}

// No output replaces an input of the same run (defect 2): every program's
// input files given as a file of --data DIR its figure data could take
// (DIR/<program>-input.dat: by that path, through a link, and through a
// link when the entry is itself a link to a file elsewhere) are refused
// before any work, the file left as it was.
START_TEST(data_never_replaces_an_input) {
    run_limit = 60;
    for (int i = 0; i < n_programs; i++) {
        const program *p = &programs[i];
        char flags[8][32], dir[128], entry[256], link[128], real[128];
        int n = file_options(p, flags, 8);
        snprintf(dir, sizeof dir, "%s", out_file("d"));
        mkdir(dir, 0700);
        snprintf(entry, sizeof entry, "%s/%.64s-input.dat", dir, p->name);
        snprintf(link, sizeof link, "%s", out_file("link"));
        snprintf(real, sizeof real, "%s", out_file("real"));
        for (int k = 0; k < n; k++)
            // the input given as: the entry --data would replace; a link to
            // it; a link to it where it is itself a link to a file elsewhere
            for (int how = 0; how < 3; how++) {
                remove(link);
                remove(entry);
                const char *kept_in = how == 2 ? real : entry;
                FILE *f = fopen(kept_in, "w");
                ck_assert_ptr_nonnull(f);
                fputs("keep\n", f);
                ck_assert_int_eq(fclose(f), 0);
                if (how == 2) ck_assert_int_eq(symlink(real, entry), 0);
                if (how > 0) ck_assert_int_eq(symlink(entry, link), 0);
                const char *path = how ? link : entry;
                const char *args[] = {flags[k], path, "--data", dir, NULL};
                ck_assert_int_eq(run(p, false, args, out_file("out")), 1);
                char want[1024];
                snprintf(want, sizeof want, "error: --data %s would replace the input %s (it is %s)",
                         dir, path, entry);
                EXPECT_SAID(p, want);
                size_t len;
                char *kept = read_whole_file(kept_in, &len);
                ck_assert_ptr_nonnull(kept);
                ck_assert_str_eq(kept, "keep\n");
                free(kept);
                struct stat st;
                ck_assert_int_eq(stat(out_file("out"), &st), 0);
                ck_assert_int_eq(st.st_size, 0);
            }
        remove(link);
        remove(entry);
        remove(real);
    }
    run_limit = 0;
}
END_TEST

// The IMDb options beside --no-imdb, which leaves out the block they set,
// are refused with a message naming both (defect 6).
START_TEST(imdb_options_refused_beside_no_imdb) {
    for (int i = 0; i < n_programs; i++) {
        const program *p = &programs[i];
        char *text = help_text(p);
        bool has = strstr(text, "--no-imdb") != NULL;
        free(text);
        if (!has) continue;
        const char *opts[][2] = {{"--imdb", "/nonexistent/reviews.json"}, {"--glove", "x.txt"},
                                 {"--imdb-epochs", "5"}, {"--imdb-limit", "640"},
                                 {"--imdb-test-limit", "5"}};
        for (int k = 0; k < 5; k++) {
            const char *args[] = {"--no-imdb", opts[k][0], opts[k][1], NULL};
            ck_assert_int_eq(run(p, false, args, out_file("out")), 2);
            char want[128];
            snprintf(want, sizeof want, "error: %s has no effect with --no-imdb", opts[k][0]);
            EXPECT_SAID(p, want);
        }
    }
}
END_TEST

// A reviews file that is not the data set ("[]", no review) fails before
// any other work (defect 5: chapter 8 once trained its reversal models
// first), the message naming the file.
START_TEST(malformed_reviews_fail_first) {
    char path[128];
    snprintf(path, sizeof path, "%s", out_file("reviews.json"));
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("[]\n", f);
    ck_assert_int_eq(fclose(f), 0);
    run_limit = 60;
    for (int i = 0; i < n_programs; i++) {
        const program *p = &programs[i];
        char flags[8][32];
        int n = file_options(p, flags, 8);
        for (int k = 0; k < n; k++) {
            if (strcmp(flags[k], "--imdb") != 0) continue;
            const char *args[] = {"--imdb", path, NULL};
            ck_assert_int_eq(run(p, false, args, out_file("out")), 1);
            char want[256];
            snprintf(want, sizeof want, "error: %s: expected 50000 reviews, found 0", path);
            EXPECT_SAID(p, want);
            // no cell before it: at most the program's preamble (chapter 7
            // says what its cells' labels mean), no line opening a cell
            size_t len;
            char *printed = read_whole_file(out_file("out"), &len);
            ck_assert_ptr_nonnull(printed);
            bool cell = false;  // a line "[N] ..." opens a cell; "[A]-[B]: ..." is the preamble's
            for (const char *l = printed; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                cell |= l[0] == '[' && !strstr(l, "]-[");
            ck_assert_msg(!cell && !strstr(printed, "Epoch"),
                          "%s printed before its input was checked:\n%s", p->name, printed);
            free(printed);
        }
    }
    run_limit = 0;
}
END_TEST

START_TEST(missing_inputs_fail_first) {
    char fifo[128], dangling[128];
    snprintf(fifo, sizeof fifo, "%s", out_file("fifo"));
    snprintf(dangling, sizeof dangling, "%s", out_file("dangling"));
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(symlink("missing", dangling), 0);
    run_limit = 20;
    for (int i = 0; i < n_programs; i++) {
        const program *p = &programs[i];
        char *text = help_text(p);
        for (char *at = text; (at = strstr(at, " FILE")) != NULL; at++) {
            char *start = at;
            while (start > text && start[-1] != ' ' && start[-1] != '[') start--;
            if (start == at || strncmp(start, "--", 2) != 0) continue;
            char flag[32];
            snprintf(flag, sizeof flag, "%.*s", (int)(at - start), start);
            const char *cases[][2] = {{"/nonexistent/input", "No such file or directory"},
                                      {"/tmp", "Is a directory"},
                                      {dangling, "No such file or directory"},
                                      {fifo, "not a regular file"},
                                      {"/dev/zero", "not a regular file"}};
            for (int k = 0; k < 5; k++) {
                const char *args[] = {flag, cases[k][0], NULL};
                // without its own arguments where they leave the file out
                // (--no-imdb, which refuses --imdb beside it)
                ck_assert_int_eq(run(p, !has_arg(p, "--no-imdb"), args, out_file("out")), 1);
                char want[128];
                snprintf(want, sizeof want, "error: cannot read %s: %s", cases[k][0], cases[k][1]);
                EXPECT_SAID(p, want);
                struct stat st;
                ck_assert_int_eq(stat(out_file("out"), &st), 0);
                ck_assert_msg(st.st_size == 0, "%s %s %s printed before failing", p->name, flag,
                              cases[k][0]);
            }
        }
        free(text);
    }
    run_limit = 0;
}
END_TEST

START_TEST(full_disk_is_an_error) {
    for (int i = 0; i < n_programs; i++) {
        const program *p = &programs[i];
        const char *help[] = {"--help", NULL};
        ck_assert_int_eq(run(p, false, help, "/dev/full"), 1);
        EXPECT_SAID(p, "error: cannot write standard output: No space left on device");
        ck_assert_int_eq(run(p, true, NULL, "/dev/full"), 1);
        EXPECT_SAID(p, "error: cannot write standard output: No space left on device");
    }
}
END_TEST

// How long something took, how much memory it peaked at and how many
// threads it ran on differ between runs; every other number must not. So
// only a number followed by a unit of time or memory ("9 s", "1106
// steps/s", "272 MB", "264 tokens/s"), a measured rate or its share ("80.1 GFLOP/s",
// "6.3 GB/s", "25.6 FLOP/B", "68% of peak": chapter 10), and the count in
// "threads: N", is blanked out to one
// '#' (a run may take 9 s and the next 10 s), and the spaces before such a
// number to one (a table pads it to its width); a loss or an accuracy on
// the same line is compared as printed. Which side of the ridge chapter
// 10's [P10.1] finds naive attention on follows from the measured peak
// and bandwidth too: its "right" line is rewritten as its "left" one.
static void blank_timings(char *text) {
    const char *right = "right of the ridge: the roofline bounds it by the peak, not the bandwidth",
               *left = "left of the ridge: the roofline bounds it by the bandwidth";
    for (char *at = strstr(text, right); at; at = strstr(at, right)) {
        memcpy(at, left, strlen(left));
        memmove(at + strlen(left), at + strlen(right), strlen(at + strlen(right)) + 1);
    }
    regex_t re;
    ck_assert_int_eq(regcomp(&re, " *[0-9][0-9.,]* ?(s|ms|us|min|steps/s|it/s|tokens/s|MB|GFLOP/s|GB/s|FLOP/B|% of peak)([^a-zA-Z]|$)|threads: [0-9]+",
                             REG_EXTENDED), 0);
    char *to = text, *from = text;  // the text is rewritten in place, never longer
    regmatch_t m;
    int flags = 0;
    while (*from && regexec(&re, from, 1, &m, flags) == 0) {
        const char *match = from + m.rm_so, *match_end = from + m.rm_eo;
        while (from < match) *to++ = *from++;
        bool in_number = false;  // a run of digits, with '.' or ',' inside it, becomes one '#'
        for (; from < match_end; from++) {
            bool digit = isdigit((unsigned char)*from);
            bool inside = in_number && (*from == '.' || *from == ',') && isdigit((unsigned char)from[1]);
            if (digit || inside) {
                if (!in_number) *to++ = '#';
                in_number = true;
            } else {
                in_number = false;
                if (*from != ' ' || to == text || to[-1] != ' ') *to++ = *from;  // spaces: one
            }
        }
        flags = REG_NOTBOL;
    }
    while (*from) *to++ = *from++;
    *to = '\0';
    regfree(&re);
}

// The first header line of a program's output, "[LABEL] title", whose label
// is not a source's letter and a cell's number (T23) nor, for a block of
// the program's own, P, the program's chapter, a dot and the block's place
// (P4.2 in chapter4's output); NULL if there is none. A chapter and a place
// alone (4.2) read as a section or a figure of the book.
static const char *bad_label(const char *name, const char *text) {
    regex_t bare, own;
    ck_assert_int_eq(regcomp(&bare, "^\\[[0-9]+\\.[0-9]+\\] ", REG_EXTENDED | REG_NEWLINE), 0);
    ck_assert_int_eq(regcomp(&own, "^\\[P([0-9]+)\\.[0-9]+\\] ", REG_EXTENDED | REG_NEWLINE), 0);
    regmatch_t m[2];
    const char *bad = regexec(&bare, text, 1, m, 0) == 0 ? text + m[0].rm_so : NULL;
    const char *chapter = name + strcspn(name, "0123456789");
    for (const char *at = text; regexec(&own, at, 2, m, 0) == 0; at += m[0].rm_eo) {
        size_t len = (size_t)(m[1].rm_eo - m[1].rm_so);
        bool ours = len == strlen(chapter) && strncmp(at + m[1].rm_so, chapter, len) == 0;
        if (!ours && (!bad || at + m[0].rm_so < bad)) bad = at + m[0].rm_so;
    }
    regfree(&bare);
    regfree(&own);
    return bad;
}

START_TEST(labels_name_their_program) {
    const char *good = "[T3] a cell\n[P4.1] its own\n[P4.10] its tenth\nx [4.2] inside a line\n"
                       "[Negative] a review\n[0.5, 1.0] a list\n";
    ck_assert_ptr_null(bad_label("chapter4", good));
    const char *bare = "[T3] a cell\n[4.2] its own\n";
    ck_assert_ptr_eq(bad_label("chapter4", bare), strchr(bare, '\n') + 1);
    ck_assert_ptr_nonnull(bad_label("chapter5", good));
    ck_assert_ptr_nonnull(bad_label("chapter1", "[P10.1] the machine\n"));
    ck_assert_ptr_nonnull(bad_label("chapter10", "[P1.1] why\n"));
}
END_TEST

// The same seed prints the same output twice, and a program with threads
// (chapter 7 trains its models side by side, chapter 9 shares its batch's
// shards) prints the same with one thread as with two: three runs with one
// seed, two on all the threads (two here) and one on one. Programs without
// threads pass the second half trivially.
static char *seeded_run(const program *p, const char *threads, const char *name) {
    const char *seed[] = {"--seed", "20261122", NULL};
    if (threads) ck_assert_int_eq(setenv("OMP_NUM_THREADS", threads, 1), 0);
    int status = run(p, true, seed, out_file(name));
    ck_assert_int_eq(unsetenv("OMP_NUM_THREADS"), 0);
    ck_assert_msg(status == 0, "%s --seed 20261122 exited %d", p->name, status);
    size_t len;
    char *text = read_whole_file(out_file(name), &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(len > 0, "%s printed nothing", p->name);
    return text;
}

// The first line where a and b differ, with what follows it in each.
static void expect_same(const program *p, const char *a, const char *b, const char *what) {
    size_t at = 0, line = 1;
    for (; a[at] && a[at] == b[at]; at++) line += a[at] == '\n';
    while (at > 0 && a[at - 1] != '\n') at--;
    ck_assert_msg(strcmp(a, b) == 0, "%s --seed 20261122 printed %s; line %zu:\n%.200s\nthen:\n%.200s",
                  p->name, what, line, a + at, b + at);
}

START_TEST(same_seed_same_output_on_one_or_two_threads) {
    for (int i = 0; i < n_programs; i++) {
        const program *p = &programs[i];
        char *a = seeded_run(p, "2", "a"), *b = seeded_run(p, "2", "b"), *one = seeded_run(p, "1", "c");
        const char *bad = bad_label(p->name, a);
        ck_assert_msg(bad == NULL, "%s prints a label that is not its own: %.40s", p->name, bad);
        blank_timings(a);
        blank_timings(b);
        blank_timings(one);
        expect_same(p, a, b, "two different outputs");
        expect_same(p, a, one, "differently with 2 threads and with 1");
        free(a);
        free(b);
        free(one);
    }
}
END_TEST

// The blanking above: the times, the memory and the thread count, of any
// length, and nothing else, not even the losses on a line that ends in a
// time.
START_TEST(timings_are_blanked) {
    char a[] = "Epoch 1, Loss: 0.69 | 9 s\nrun: 10 s (threads: 2); peak memory 270 MB\n"
               "12 steps/s, 3 s left\nkeep 1.5, 12\n";
    char b[] = "Epoch 1, Loss: 0.69 | 10 s\nrun: 9.5 s (threads: 1); peak memory 1,270 MB\n"
               "1106 steps/s, 0 s left\nkeep 1.5, 12\n";
    blank_timings(a);
    blank_timings(b);
    ck_assert_str_eq(a, "Epoch 1, Loss: 0.69 | # s\nrun: # s (threads: #); peak memory # MB\n"
                        "# steps/s, # s left\nkeep 1.5, 12\n");
    ck_assert_str_eq(b, a);
    char c[] = "Epoch 1, Train Loss: 0.5556, Train Accuracy: 0.7145 | chunk 0.7009, review 0.8630 | 2.0 s\n";
    char d[] = "Epoch 1, Train Loss: 0.5557, Train Accuracy: 0.7145 | chunk 0.7009, review 0.8630 | 2.0 s\n";
    blank_timings(c);
    blank_timings(d);
    ck_assert_str_ne(c, d);  // a loss that differs in its last digit is seen
    char e[] = "  512 |     12.0 ms  5.6 GFLOP/s   2% of peak\n", f[] = "  512 |      8.0 ms 15.6 GFLOP/s  12% of peak\n";
    blank_timings(e);
    blank_timings(f);
    ck_assert_str_eq(e, "  512 | # ms # GFLOP/s #% of peak\n");
    ck_assert_str_eq(f, e);
    char h[] = "x\n  right of the ridge: the roofline bounds it by the peak, not the bandwidth\ny\n";
    char k[] = "x\n  left of the ridge: the roofline bounds it by the bandwidth\ny\n";
    blank_timings(h);
    blank_timings(k);
    ck_assert_str_eq(h, k);
    char g[] = "with the cache: 40 tokens in 0.151 s, 264 tokens/s\n";
    blank_timings(g);
    ck_assert_str_eq(g, "with the cache: 40 tokens in # s, # tokens/s\n");
}
END_TEST

// chapter10 --blocks: only the blocks named, in the program's order
// whatever the list's; a label that is no block's, one named twice or an
// empty item is a usage error.
static const program *find_program(const char *name) {
    for (int i = 0; i < n_programs; i++)
        if (strcmp(programs[i].name, name) == 0) return &programs[i];
    return NULL;
}

// The labels of the header lines of out, "[P10.2]" joined by spaces.
static void header_labels(const char *out, char *labels, size_t size) {
    labels[0] = '\0';
    for (const char *l = out; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        size_t len = strcspn(l, "] \n");
        if (l[0] == '[' && l[len] == ']' && len < 16)
            snprintf(labels + strlen(labels), size - strlen(labels), "%s%.*s", labels[0] ? " " : "",
                     (int)len + 1, l);
    }
}

START_TEST(chapter10_runs_only_the_blocks_named) {
    const program *p = find_program("chapter10");
    ck_assert_msg(p != NULL, "chapter10 is not in PROGRAMS (the Makefile lists every chapter)");
    const char *two[] = {"--blocks", "P10.2,P10.5", "--steps", "1", NULL};
    ck_assert_int_eq(run(p, false, two, out_file("out")), 0);
    size_t len;
    char *out = read_whole_file(out_file("out"), &len), labels[64];
    ck_assert_ptr_nonnull(out);
    header_labels(out, labels, sizeof labels);
    ck_assert_str_eq(labels, "[P10.2] [P10.5]");
    free(out);
    const char *bad[][3] = {{"--blocks", "P10.7", NULL}, {"--blocks", "P10.2,P10.2", NULL},
                            {"--blocks", "P10.2,", NULL}, {"--blocks", "P10.1 ", NULL}};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(run(p, false, bad[i], out_file("out")), 2);
        EXPECT_SAID(p, "--blocks needs block labels separated by commas, none empty or repeated");
        EXPECT_SAID(p, "usage: chapter10 ");
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("programs");
    TCase *tc = tcase_create("programs");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, help_goes_to_stdout_and_exits_zero);
    tcase_add_test(tc, bad_options_exit_2_with_usage);
    tcase_add_test(tc, unwritable_data_dir_fails_first);
    tcase_add_test(tc, missing_inputs_fail_first);
    tcase_add_test(tc, data_never_replaces_an_input);
    tcase_add_test(tc, imdb_options_refused_beside_no_imdb);
    tcase_add_test(tc, malformed_reviews_fail_first);
    tcase_add_test(tc, full_disk_is_an_error);
    tcase_add_test(tc, same_seed_same_output_on_one_or_two_threads);
    tcase_add_test(tc, timings_are_blanked);
    tcase_add_test(tc, chapter10_runs_only_the_blocks_named);
    tcase_add_test(tc, labels_name_their_program);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
