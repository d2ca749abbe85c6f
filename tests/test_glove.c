// test_glove.c: the GloVe text reader's numbers (Python's float(),
// text/pyfloat.c) and files (an empty one), and the converter's output
// (--convert-glove): a JSON with no words, a write-protected output, a
// full disk or `ulimit -f`, and runs ended by a signal.
#include <check.h>

#include "suite.h"
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/readfile.h"
#include "core/strmap.h"
#include "text/glove.h"
#include "text/pyfloat.h"

// What Python 3.11's float() makes of each text (value NULL: ValueError),
// as /usr/bin/python3 printed repr(float(text)).
static const struct { const char *text, *value; } PY_FLOATS[] = {
    {"0x1p-3", NULL}, {"0X10", NULL}, {"0x10", NULL},               // no hexadecimal
    {"1_0", "10.0"}, {"1__0", NULL}, {"_1", NULL}, {"1_", NULL},     // underscores between digits
    {"1_000.000_1", "1000.0001"}, {"1e1_0", "10000000000.0"}, {"1_e5", NULL}, {"1._5", NULL},
    {"1.5_0", "1.5"}, {"0_0.0_1e0_1", "0.1"},
    {"inf", "inf"}, {"-inf", "-inf"}, {"+inf", "inf"}, {"nan", "nan"}, {"-nan", "nan"},
    {"NaN", "nan"}, {"iNfInItY", "inf"}, {"infinit", NULL}, {"nan(1)", NULL}, {"infx", NULL},
    {"+1", "1.0"}, {"-1", "-1.0"}, {"+-1", NULL}, {"1e5", "100000.0"}, {"1E+05", "100000.0"},
    {"1e-5", "1e-05"}, {"1.", "1.0"}, {".5", "0.5"}, {".", NULL}, {"e5", NULL}, {".e5", NULL},
    {"1e", NULL}, {"1e+", NULL}, {"1.e5", "100000.0"}, {"1d5", NULL}, {"1,5", NULL},
    {"12abc", NULL}, {"", NULL}, {"-", NULL}, {"0.1", "0.1"},
    {"3.4028235e38", "3.4028235e+38"},
    // digits of other scripts: Arabic-Indic 3, fullwidth 12, Arabic 1.5 (its
    // own decimal separator U+066B is not '.'), 1.5e2 mixed, mathematical
    // bold 0, segmented 9; superscript two and Roman numeral eight are not
    // decimal digits
    {"\xd9\xa3", "3.0"}, {"\xef\xbc\x91\xef\xbc\x92", "12.0"}, {"\xd9\xa1\xd9\xab\xd9\xa5", NULL},
    {"\xd9\xa1.\xd9\xa5", "1.5"}, {"1\xd9\xa5" "e\xd9\xa2", "1500.0"}, {"\xf0\x9d\x9f\x8e", "0.0"},
    {"\xf0\x9f\xaf\xb9", "9.0"}, {"\xc2\xb2", NULL}, {"\xe2\x85\xa7", NULL},
    {"\xd9\xa3_\xd9\xa3", "33.0"}, {"\xff", NULL}, {"1\xc3", NULL},
};

START_TEST(numbers_as_python_float_reads_them) {
    for (size_t k = 0; k < sizeof PY_FLOATS / sizeof *PY_FLOATS; k++) {
        const char *t = PY_FLOATS[k].text, *want = PY_FLOATS[k].value;
        double x = 12345;
        int rc = py_float(t, strlen(t), &x);
        if (!want) {
            ck_assert_msg(rc == -1, "'%s': float() refuses it; read as %g", t, x);
        } else if (strstr(want, "nan")) {
            ck_assert_msg(rc == 0 && isnan(x), "'%s': %d %g", t, rc, x);
        } else {
            ck_assert_msg(rc == 0 && x == strtod(want, NULL), "'%s': %d %.17g, Python %s", t, rc, x, want);
        }
    }
    // a NUL inside is no part of a number; long fields read whole
    ck_assert_int_eq(py_float("1\0", 2, &(double){0}), -1);
    char big[1200];
    snprintf(big, sizeof big, "1%0300de-300", 0);
    double x;
    ck_assert(py_float(big, strlen(big), &x) == 0 && x == 1.0);
    snprintf(big, sizeof big, "0.%0400d1e400", 0);
    ck_assert(py_float(big, strlen(big), &x) == 0 && x == 0.1);
    memset(big, '_', 600);  // and long bad ones are refused
    ck_assert_int_eq(py_float(big, 600, &x), -1);
}
END_TEST

// glove_lookup on text (an in-memory file): its status, err.
static int lookup(const char *text, size_t d, float *v, bool *found, char *err, size_t errlen) {
    strmap w;
    strmap_init(&w);
    strmap_intern(&w, "good", 4, NULL);
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    size_t n;
    int rc = glove_lookup_stream(v, found, &n, f, "g.txt", d, &w, err, errlen);
    fclose(f);
    strmap_free(&w);
    return rc;
}

// The GloVe reader takes a number as float() does, which np.asarray(values,
// dtype='float32') calls: "0x1p-3" is refused with its line (C's strtod
// read it as 0.125), "1_0" is 10.
START_TEST(glove_numbers_are_pythons) {
    float v[2];
    bool found[1];
    char err[512];
    ck_assert_int_eq(lookup("good 0x1p-3 1\n", 2, v, found, err, sizeof err), -1);
    ck_assert_str_eq(err, "g.txt:1: \"0x1p-3\" is not a number (as Python's float() reads one)");
    ck_assert_int_eq(lookup("good 1 2\nbad 1 INF\n", 2, v, found, err, sizeof err), 0);  // not wanted
    ck_assert_int_eq(lookup("good 1_0 \xd9\xa3.5\n", 2, v, found, err, sizeof err), 0);
    ck_assert(found[0] && v[0] == 10.0f && v[1] == 3.5f);
    ck_assert_int_eq(lookup("good 1 Infinity\n", 2, v, found, err, sizeof err), -1);
    ck_assert_str_eq(err, "g.txt:1: \"Infinity\" is not a finite float");
}
END_TEST

// A file with no vectors is an error that says so, not a run in which
// every word goes without a vector.
START_TEST(empty_glove_file_is_refused) {
    float v[2];
    bool found[1];
    char err[512];
    ck_assert_int_eq(lookup("", 2, v, found, err, sizeof err), -1);
    ck_assert_str_eq(err, "g.txt: no vectors (an empty file)");
    ck_assert_int_eq(lookup("\n \n", 2, v, found, err, sizeof err), -1);
    ck_assert_str_eq(err, "g.txt: no vectors (only blank lines)");
    ck_assert_int_eq(lookup("other 1 2\n", 2, v, found, err, sizeof err), 0);
    ck_assert(!found[0]);
}
END_TEST

// ------------------------------------------------------------ the converter

static void put(const char *path, const char *text, mode_t mode) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
}

// The names in dir but for keep, joined by spaces, sorted.
static void names_in(char *out, size_t n, const char *dir) {
    struct dirent **list;
    int k = scandir(dir, &list, NULL, alphasort);
    ck_assert_int_ge(k, 0);
    out[0] = '\0';
    for (int i = 0; i < k; i++) {
        if (list[i]->d_name[0] != '.' || strlen(list[i]->d_name) > 2) {
            size_t used = strlen(out);
            snprintf(out + used, n - used, "%s%s", used ? " " : "", list[i]->d_name);
        }
        free(list[i]);
    }
    free(list);
}

static void remove_dir(const char *dir) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

// A JSON that gives no word to write is refused by name; nothing written.
START_TEST(convert_refuses_no_words) {
    char dir[] = "/tmp/test_glove.XXXXXX", in[100], out[100], err[1024], names[400];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(in, sizeof in, "%s/in.json", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    put(in, "{\"dimensions\":2,\"vectors\":{}}", 0644);
    ck_assert_int_eq(glove_convert_wink(in, out, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, in) && strstr(err, "no word vectors to convert"), "%s", err);
    put(in, "{\"dimensions\":1,\"vectors\":{\"a b\":[1,1,0]}}", 0644);  // every word skipped
    ck_assert_int_eq(glove_convert_wink(in, out, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "holds 1, 1 of them skipped"), "%s", err);
    names_in(names, sizeof names, dir);
    ck_assert_str_eq(names, "in.json");
    remove_dir(dir);
}
END_TEST

// A write-protected output is refused, as cp without -f refuses it, even
// where the folder lets a rename replace it (and for root); left as it was.
START_TEST(convert_keeps_write_protected_output) {
    char dir[] = "/tmp/test_glove.XXXXXX", in[100], out[100], err[1024];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(in, sizeof in, "%s/in.json", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    put(in, "{\"dimensions\":1,\"vectors\":{\"the\":[0.5,1,1]}}", 0644);
    put(out, "mine\n", 0444);
    ck_assert_int_eq(glove_convert_wink(in, out, NULL, err, sizeof err), -1);
    char want[300];
    snprintf(want, sizeof want, "cannot write %s: the file is write-protected (mode 0444)", out);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
    size_t len;
    char *text = read_whole_file(out, &len);
    ck_assert_str_eq(text, "mine\n");
    free(text);
    ck_assert_int_eq(chmod(out, 0644), 0);  // once writable, replaced
    ck_assert_int_eq(glove_convert_wink(in, out, NULL, err, sizeof err), 1);
    remove_dir(dir);
}
END_TEST

// A JSON of n words of width 100, big enough to pass a small `ulimit -f`.
static void put_big_json(const char *path, int n) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"dimensions\":100,\"vectors\":{", f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s\"w%d\":[", i ? "," : "", i);
        for (int k = 0; k < 100; k++) fprintf(f, "0.12345678%d,", k);
        fputs("1,2]", f);
    }
    fputs("}}", f);
    ck_assert_int_eq(fclose(f), 0);
}

// Runs the converter in a child with the file size limit limit (0: none)
// and SIGXFSZ as xfsz says; with block, its progress goes to a pipe that
// is full, so that it waits there, its temporary file open, until the
// signal sig comes. Returns the child's wait status; err gets its error.
static int convert_in_child(const char *in, const char *out, rlim_t limit, void (*xfsz)(int),
                            int sig, char *err, size_t errlen) {
    int report[2], block[2];
    ck_assert_int_eq(pipe(report), 0);
    ck_assert_int_eq(pipe(block), 0);
    pid_t child = fork();
    ck_assert_int_ne(child, -1);
    if (child == 0) {
        close(report[0]);
        signal(SIGXFSZ, xfsz);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        FILE *progress = NULL;
        if (sig) {  // fill the pipe, then the first progress line waits
            fcntl(block[1], F_SETFL, O_NONBLOCK);
            while (write(block[1], "x", 1) == 1) {}
            fcntl(block[1], F_SETFL, 0);
            progress = fdopen(block[1], "w");
            setvbuf(progress, NULL, _IONBF, 0);
        }
        if (limit) setrlimit(RLIMIT_FSIZE, &(struct rlimit){limit, limit});
        char e[1024] = "";
        long n = glove_convert_wink(in, out, progress, e, sizeof e);
        ssize_t w = write(report[1], e, strlen(e));
        (void)w;
        _exit(n < 0 ? 1 : 0);
    }
    close(report[1]);
    if (sig) {  // wait until the temporary file is there, then the signal
        char dir[200], names[400];
        snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(out, '/') - out), out);
        for (int tries = 0; tries < 1000; tries++) {
            names_in(names, sizeof names, dir);
            if (strstr(names, ".out.txt.")) break;
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        }
        ck_assert_msg(strstr(names, ".out.txt."), "no temporary file: %s", names);
        kill(child, sig);
    }
    size_t got = 0;
    for (ssize_t r; got < errlen - 1 && (r = read(report[0], err + got, errlen - 1 - got)) > 0;)
        got += (size_t)r;
    err[got] = '\0';
    close(report[0]);
    close(block[0]);
    close(block[1]);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    return status;
}

// A run ended by SIGINT, SIGTERM or (past `ulimit -f`) SIGXFSZ ends by
// that signal and leaves no .out.txt.XXXXXX; with SIGXFSZ ignored, the
// write fails with "File too large", said of out.txt, not of the
// temporary file, which is gone too.
START_TEST(convert_leaves_nothing_behind) {
    char dir[] = "/tmp/test_glove.XXXXXX", in[100], out[100], err[1024], names[400];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(in, sizeof in, "%s/in.json", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    put_big_json(in, 200);
    const int sigs[] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        int status = convert_in_child(in, out, 0, SIG_DFL, sigs[k], err, sizeof err);
        ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k], "status %#x", status);
        names_in(names, sizeof names, dir);
        ck_assert_msg(strcmp(names, "in.json") == 0, "signal %d left: %s", sigs[k], names);
    }
    int status = convert_in_child(in, out, 16384, SIG_DFL, 0, err, sizeof err);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ, "status %#x", status);
    names_in(names, sizeof names, dir);
    ck_assert_msg(strcmp(names, "in.json") == 0, "SIGXFSZ left: %s", names);
    status = convert_in_child(in, out, 16384, SIG_IGN, 0, err, sizeof err);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %#x", status);
    char want[300];
    snprintf(want, sizeof want, "cannot write %s: File too large", out);
    ck_assert_str_eq(err, want);
    names_in(names, sizeof names, dir);
    ck_assert_msg(strcmp(names, "in.json") == 0, "EFBIG left: %s", names);
    remove_dir(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("glove");
    TCase *tc = tcase_create("glove");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, numbers_as_python_float_reads_them);
    tcase_add_test(tc, glove_numbers_are_pythons);
    tcase_add_test(tc, empty_glove_file_is_refused);
    tcase_add_test(tc, convert_refuses_no_words);
    tcase_add_test(tc, convert_keeps_write_protected_output);
    tcase_add_test(tc, convert_leaves_nothing_behind);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
