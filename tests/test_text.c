// test_text.c: clean_paragraph, Punkt and the NLTK word tokenizer against
// NLTK's answers on crafted texts (tests/golden/tokenizer_cases.jsonl,
// written by tests/reference/nltk_golden.py), plus the edges: empty text,
// invalid UTF-8, missing or malformed Punkt parameters. And the pieces under
// them: str.split() (py_split_next), JSON errors, grow_array, the strmap.
//
// The cases with NLTK's answers need Punkt's English parameters: NLTK's
// punkt_tab found through NLTK_DATA, or Debian's JSON, which make test
// installs. Without them those tests print SKIP and pass, except in CI,
// where they fail (skip.h).
#define _POSIX_C_SOURCE 200809L
#include <check.h>

#include "suite.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "skip.h"
#include "core/grow.h"
#include "core/strmap.h"
#include "text/clean.h"
#include "text/punkt_params.h"
#include "core/readfile.h"
#include "text/imdb.h"
#include "text/json.h"
#include "text/tokenize_documents.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden"
#endif

static char *clean_str(const char *s) {
    size_t n;
    return clean_paragraph(s, strlen(s), &n);
}

#define CHECK_CLEAN(in, want)                                              \
    do {                                                                   \
        char *got_ = clean_str(in);                                        \
        ck_assert_ptr_nonnull(got_);                                       \
        ck_assert_str_eq(got_, want);                                      \
        free(got_);                                                        \
    } while (0)

START_TEST(clean_paragraph_rules) {
    CHECK_CLEAN("Hello World", "hello world");
    CHECK_CLEAN("well-known", "well known");               // - to a space
    CHECK_CLEAN("a.b", "a. b");                            // . to ". "
    CHECK_CLEAN("Mr. X", "mr.  x");
    CHECK_CLEAN("one<br />two<br/>three<BR>four<br >five", "one two three four five");
    CHECK_CLEAN("<br\t\n/>x", " x");                      // \s* inside the tag
    CHECK_CLEAN("<br\xc2\xa0/>x", " x");                   // Unicode \s too
    CHECK_CLEAN("<b>bold</b> <brr> <br /", "bboldb brr br ");  // not line breaks: only < > / go
    CHECK_CLEAN("it's \"great\" (really) [sic] $5 & 10%", "its great really sic 5  10");
    CHECK_CLEAN("wow!!! what?! a, b; c: d", "wow!!! what?! a, b; c: d");
    CHECK_CLEAN("caf\xc3\xa9 na\xc3\xafve", "caf nave");    // non-ASCII letters are dropped
    CHECK_CLEAN("\xe2\x84\xaa", "k");                      // KELVIN SIGN lower-cases to k
    CHECK_CLEAN("\xc4\xb0stanbul", "istanbul");            // I with dot: i + a dropped combining dot
    CHECK_CLEAN("a\xc2\xa0" "b\xe2\x80\x83" "c\xe3\x80\x80" "d", "a\xc2\xa0" "b\xe2\x80\x83" "c\xe3\x80\x80" "d");  // Unicode spaces stay
    CHECK_CLEAN("a\x1c" "b\xc2\x85" "c", "a\x1c" "b\xc2\x85" "c");  // so do \x1c and NEL
    CHECK_CLEAN("a\xe2\x80\x8b" "b", "ab");                // a zero-width space is not whitespace
    CHECK_CLEAN("", "");
    CHECK_CLEAN("\xff\xfe bad \xc3", " bad ");             // invalid UTF-8 is dropped
}
END_TEST

START_TEST(py_isspace_matches_python) {
    // the 29 code points of str.isspace()
    static const uint32_t spaces[] = {0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0,
                                      0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
                                      0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000};
    size_t n = 0;
    for (uint32_t c = 0; c < 0x110000; c++)
        if (py_isspace(c)) {
            ck_assert_uint_lt(n, 29);
            ck_assert_uint_eq(c, spaces[n]);
            n++;
        }
    ck_assert_uint_eq(n, 29);
}
END_TEST

// The fields of s as py_split_next finds them, joined by '|'.
static char *split_fields(const char *s, space_kind space) {
    static char out[256];
    size_t len = strlen(s), i = 0, start, n, o = 0;
    out[0] = '\0';
    while (py_split_next(s, len, space, &i, &start, &n))
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s", o ? "|" : "", (int)n, s + start);
    return out;
}

START_TEST(py_split_next_as_str_split) {
    // Python: " a\tb\n\x1cc\u00a0d\u3000 e ".split() == ['a', 'b', 'c', 'd', 'e']
    const char *s = " a\tb\n\x1c" "c\xc2\xa0" "d\xe3\x80\x80 e ";
    ck_assert_str_eq(split_fields(s, PY_SPACE), "a|b|c|d|e");
    // C's isspace() knows only \t \n \v \f \r and space
    ck_assert_str_eq(split_fields(s, C_SPACE), "a|b|\x1c" "c\xc2\xa0" "d\xe3\x80\x80|e");
    ck_assert_str_eq(split_fields("", PY_SPACE), "");
    ck_assert_str_eq(split_fields(" \t\xe2\x80\x83 ", PY_SPACE), "");
    ck_assert_str_eq(split_fields("one", C_SPACE), "one");
    ck_assert_str_eq(split_fields("\xff \xc3", PY_SPACE), "\xff|\xc3");  // bytes, not text
    // *i passes the character that ended the field, which may be overwritten
    char cut[] = "ab\xc2\xa0" "cd";
    size_t i = 0, start, n;
    ck_assert(py_split_next(cut, strlen(cut), PY_SPACE, &i, &start, &n));
    ck_assert_uint_eq(start, 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(i, 4);
    cut[2] = '\0';
    ck_assert(py_split_next(cut, 6, PY_SPACE, &i, &start, &n));
    ck_assert_uint_eq(start, 4);
    ck_assert_uint_eq(n, 2);
    ck_assert(!py_split_next(cut, 6, PY_SPACE, &i, &start, &n));
}
END_TEST

START_TEST(json_errors_give_the_line) {
    char err[256];
    const char *bad = "[1,\n2,\n}";
    ck_assert_ptr_null(json_parse(bad, strlen(bad), "f.json", err, sizeof err));
    ck_assert_str_eq(err, "f.json:3: malformed JSON (byte 7): expected a value");
    ck_assert_ptr_null(json_parse("", 0, "e.json", err, sizeof err));
    ck_assert_str_eq(err, "e.json:1: malformed JSON (byte 0): expected a value");
    cJSON *ok = json_parse("[1]", 3, "ok.json", err, sizeof err);
    ck_assert_ptr_nonnull(ok);
    cJSON_Delete(ok);
    ck_assert_uint_eq(line_of("a\nb\nc", 4), 3);
}
END_TEST

// What json_parse does with each text, beside what Python's
// json.load(open(path, encoding='utf-8')) does (Python 3.11, default
// settings; the comment after each case). want is NULL where json_parse
// reads the text, else a piece of its error. "cJSON alone" marks where
// cJSON's own parse accepted what Python refuses, or read it otherwise.
#define JSON_CASE(text, want) {text, sizeof text - 1, want}
static const struct {
    const char *text;
    size_t len;
    const char *want;
} json_cases[] = {
    JSON_CASE("[1]", NULL),                                       // [1]
    JSON_CASE(" \t\r\n[1] \t\r\n", NULL),                          // [1]
    JSON_CASE("\xef\xbb\xbf[1]", "(byte 0): a UTF-8 byte order mark"),  // Unexpected UTF-8 BOM; cJSON alone: [1]
    JSON_CASE("[\"\xff\"]", "(byte 2): a byte that is not UTF-8"),        // can't decode byte 0xff; cJSON alone: kept
    JSON_CASE("[\"\xc0\xaf\"]", "(byte 2): a byte that is not UTF-8"),    // can't decode (overlong); cJSON alone: kept
    JSON_CASE("[\"\xed\xa0\x80\"]", "(byte 2): a byte that is not UTF-8"),  // can't decode (surrogate); cJSON alone: kept
    JSON_CASE("[\"\xf4\x90\x80\x80\"]", "(byte 2): a byte that is not UTF-8"),  // can't decode (> U+10FFFF)
    JSON_CASE("[\"caf\xc3\xa9 \xf0\x9f\x98\x80\"]", NULL),         // ['café 😀']
    JSON_CASE("[\"a\x01\"]", "(byte 3): a control character inside a string"),  // Invalid control character; cJSON alone: kept
    JSON_CASE("[\"a\tb\"]", "(byte 3): a control character inside a string"),    // Invalid control character; cJSON alone: kept
    JSON_CASE("[\"a\x7f\"]", NULL),                                // ['a\x7f']
    JSON_CASE("[\"a\x00\"]", "(byte 3): a control character inside a string"),  // Invalid control character; cJSON alone: ["a"]
    JSON_CASE("[\"a\"\x00]", "(byte 4): expected ',' or ']'"),     // Expecting ',' delimiter; cJSON alone: ["a"]
    JSON_CASE("[\"\\ud83d\\ude00\"]", NULL),                       // ['😀'], the pair as one character
    JSON_CASE("[\"\\ud800\"]", "byte 2: an unpaired surrogate"),   // ['\ud800']; cJSON alone: refused
    JSON_CASE("[\"\\udc00\"]", "byte 2: an unpaired surrogate"),   // ['\udc00']; cJSON alone: refused
    JSON_CASE("[\"\\ud83dx\"]", "byte 2: an unpaired surrogate"),  // ['\ud83dx']; cJSON alone: refused
    JSON_CASE("[\"a\\u0000b\"]", "byte 3: \\u0000"),                // ['a\x00b']; cJSON alone: ["a"]
    JSON_CASE("[\"\\u12\"]", "(byte 2): \\u not followed by four"),  // Invalid \uXXXX escape
    JSON_CASE("[\"\\U0041\"]", "(byte 2): an unknown escape"),      // Invalid \escape
    JSON_CASE("[\"\\x\"]", "(byte 2): an unknown escape"),          // Invalid \escape
    JSON_CASE("[\"\\/\\\"\\\\\\b\\f\\n\\r\\t\\u0041\"]", NULL),    // ['/"\\\x08\x0c\n\r\tA']
    JSON_CASE("[\"abc", "(byte 1): a string without its closing quote"),  // Unterminated string
    JSON_CASE("[NaN]", "byte 1: NaN"),                              // [nan]; cJSON alone: refused
    JSON_CASE("[Infinity]", "byte 1: Infinity"),                    // [inf]; cJSON alone: refused
    JSON_CASE("[-Infinity]", "byte 1: -Infinity"),                  // [-inf]; cJSON alone: refused
    JSON_CASE("[nan]", "(byte 1): expected a value"),               // Expecting value
    JSON_CASE("[-Inf]", "(byte 1): expected a value"),              // Expecting value
    JSON_CASE("[1e400]", "byte 1: a number beyond the range of a double"),  // [inf]; cJSON alone: [inf]
    JSON_CASE("[-1e400]", "byte 1: a number beyond the range"),     // [-inf]
    JSON_CASE("[1e-400, -0, 0.5, 1E+2, 123456789012345678901234567890]", NULL),  // [0.0, 0, 0.5, 100.0, 1234...890]
    JSON_CASE("[01]", "(byte 1): a number with a leading zero"),    // Expecting ',' delimiter; cJSON alone: [1]
    JSON_CASE("[-01]", "(byte 2): a number with a leading zero"),   // Expecting ',' delimiter; cJSON alone: [-1]
    JSON_CASE("[1.]", "(byte 3): a decimal point not followed"),    // Expecting ',' delimiter; cJSON alone: [1]
    JSON_CASE("[.5]", "(byte 1): expected a value"),                // Expecting value
    JSON_CASE("[+1]", "(byte 1): expected a value"),                // Expecting value
    JSON_CASE("[-]", "(byte 1): expected a value"),                 // Expecting value
    JSON_CASE("[1e]", "(byte 3): an exponent without digits"),      // Expecting ',' delimiter
    JSON_CASE("[0x10]", "(byte 2): expected ',' or ']'"),           // Expecting ',' delimiter
    JSON_CASE("[1,]", "(byte 3): expected a value"),                // Expecting value
    JSON_CASE("{\"a\": 1,}", "(byte 8): expected a key"),           // Expecting property name
    JSON_CASE("{1: 2}", "(byte 1): expected a key"),                // Expecting property name
    JSON_CASE("{\"a\" 1}", "(byte 5): expected ':'"),               // Expecting ':' delimiter
    JSON_CASE("[1 2]", "(byte 3): expected ',' or ']'"),            // Expecting ',' delimiter
    JSON_CASE("[1] x", "(byte 4): more after the end"),             // Extra data; cJSON alone: [1]
    JSON_CASE("[1]\x00", "(byte 3): more after the end"),           // Extra data; cJSON alone: [1]
    JSON_CASE("[1]\f", "(byte 3): more after the end"),             // Extra data; cJSON alone: [1]
    JSON_CASE("[\v1]", "(byte 1): expected a value"),               // Expecting value; cJSON alone: [1]
    JSON_CASE("['a']", "(byte 1): expected a value"),               // Expecting value
    JSON_CASE("[True]", "(byte 1): expected a value"),              // Expecting value
    JSON_CASE("[tru]", "(byte 1): expected a value"),               // Expecting value
    JSON_CASE("", "(byte 0): expected a value"),                    // Expecting value
    JSON_CASE(" ", "(byte 1): expected a value"),                   // Expecting value
    JSON_CASE("[true, false, null, {}, [], \"\"]", NULL),           // [True, False, None, {}, [], '']
    JSON_CASE("{\"a\": 1, \"a\": 2, \"b\": 3}", NULL),              // {'a': 2, 'b': 3}; cJSON alone: finds a = 1
};

START_TEST(json_read_as_python_reads_it) {
    char err[512];
    for (size_t i = 0; i < sizeof json_cases / sizeof *json_cases; i++) {
        err[0] = '\0';
        cJSON *root = json_parse(json_cases[i].text, json_cases[i].len, "t.json", err, sizeof err);
        if (!json_cases[i].want) {
            ck_assert_msg(root != NULL, "case %zu refused: %s", i, err);
        } else {
            ck_assert_msg(root == NULL, "case %zu read", i);
            ck_assert_msg(strncmp(err, "t.json:1: ", 10) == 0 && strstr(err, json_cases[i].want),
                          "case %zu: %s", i, err);
        }
        cJSON_Delete(root);
    }
}
END_TEST

START_TEST(json_nesting_and_lines) {
    char err[512];
    // JSON_MAX_DEPTH arrays inside each other are read, one more is refused
    // (Python stops near 1000, cJSON at 1000)
    char deep[2 * JSON_MAX_DEPTH + 3];
    for (int extra = 0; extra <= 1; extra++) {
        size_t d = JSON_MAX_DEPTH + (size_t)extra;
        memset(deep, '[', d);
        memset(deep + d, ']', d);
        cJSON *root = json_parse(deep, 2 * d, "d.json", err, sizeof err);
        if (extra) {
            ck_assert_ptr_null(root);
            ck_assert_msg(strstr(err, "nested too deep"), "%s", err);
        } else {
            ck_assert_msg(root != NULL, "%s", err);
        }
        cJSON_Delete(root);
    }
    // an error names its line
    const char *t = "{\"a\": [1,\n 2],\n \"b\": 1.}";
    ck_assert_ptr_null(json_parse(t, strlen(t), "l.json", err, sizeof err));
    ck_assert_str_eq(err, "l.json:3: malformed JSON (byte 23): a decimal point not followed by a digit");
    // where each item of an array starts, for errors about valid JSON
    t = "[1, [2, 3], \"x,]\" ,\n{}]";
    static const size_t at[] = {1, 4, 12, 20, 23};
    for (size_t i = 0; i < 5; i++) ck_assert_uint_eq(json_item_offset(t, strlen(t), i), at[i]);
    ck_assert_uint_eq(json_item_offset(" [ ] ", 5, 0), 5);
    ck_assert_uint_eq(json_item_offset("{}", 2, 0), 2);
    t = "[\"ok\",\n\"\\ud800\"]";
    ck_assert_ptr_null(json_parse(t, strlen(t), "s.json", err, sizeof err));
    ck_assert_msg(strncmp(err, "s.json:2: byte 8: an unpaired surrogate", 39) == 0, "%s", err);
}
END_TEST

START_TEST(json_values_as_python_has_them) {
    char err[512];
    // a repeated key keeps its last value, at its first place, as a dict does
    const char *t = "{\"a\": 1, \"b\": 2, \"a\": [3], \"\\u0062\": 4, \"c\": 5}";
    cJSON *root = json_parse(t, strlen(t), "k.json", err, sizeof err);
    ck_assert_msg(root != NULL, "%s", err);
    ck_assert_int_eq(cJSON_GetArraySize(root), 3);
    const cJSON *m = root->child;
    ck_assert_str_eq(m->string, "a");
    ck_assert(cJSON_IsArray(m) && cJSON_GetArrayItem(m, 0)->valuedouble == 3);
    m = m->next;
    ck_assert_str_eq(m->string, "b");
    ck_assert_double_eq(m->valuedouble, 4);
    m = m->next;
    ck_assert_str_eq(m->string, "c");
    ck_assert_ptr_eq(root->child->prev, m);  // cJSON's link to the last member
    ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(root, "b")->valuedouble, 4);
    cJSON_Delete(root);
    // the same in an object of many members (a hash set instead of pairs)
    char big[4096];
    size_t o = (size_t)snprintf(big, sizeof big, "{");
    for (int i = 0; i < 40; i++) o += (size_t)snprintf(big + o, sizeof big - o, "\"k%d\": %d, ", i % 30, i);
    snprintf(big + o, sizeof big - o, "\"end\": 0}");
    root = json_parse(big, strlen(big), "b.json", err, sizeof err);
    ck_assert_msg(root != NULL, "%s", err);
    ck_assert_int_eq(cJSON_GetArraySize(root), 31);
    int i = 0;
    for (m = root->child; i < 30; m = m->next, i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        ck_assert_str_eq(m->string, key);
        ck_assert_double_eq(m->valuedouble, i < 10 ? i + 30 : i);
    }
    ck_assert_str_eq(m->string, "end");
    cJSON_Delete(root);
    // whole numbers are told from the others, as Python's int from float
    t = "[1, -0, 123456789012, 1.0, 1e0, 0.5, true, \"1\"]";
    root = json_parse(t, strlen(t), "n.json", err, sizeof err);
    ck_assert_msg(root != NULL, "%s", err);
    static const bool integer[] = {true, true, true, false, false, false, false, false};
    i = 0;
    cJSON_ArrayForEach(m, root) ck_assert_int_eq(json_is_integer(m), integer[i++]);
    cJSON_Delete(root);
    // a surrogate pair is one character, in UTF-8
    t = "[\"\\ud83d\\ude00\"]";
    root = json_parse(t, strlen(t), "p.json", err, sizeof err);
    ck_assert_msg(root != NULL, "%s", err);
    ck_assert_str_eq(root->child->valuestring, "\xf0\x9f\x98\x80");
    cJSON_Delete(root);
}
END_TEST

START_TEST(imdb_labels_are_the_integers_0_and_1) {
    // Python reads "s": 1.0 and 1e0 as floats and true as a bool: none is
    // the label 0 or 1 of the data set
    static const char *const bad[] = {"1.0", "1e0", "0.0", "true", "false", "null", "\"1\"", "-1", "2", "0.5"};
    imdb_reviews r;
    char text[128], err[512];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "[{\"t\": \"a,[{\\\"\", \"s\": 0},\n {\"t\": \"b\", \"s\": %s}]", bad[i]);
        ck_assert_int_eq(imdb_parse(&r, text, strlen(text), "r.json", err, sizeof err), -1);
        ck_assert_msg(strstr(err, "r.json:2: review 1: expected {\"t\": text, \"s\": the integer 0 or 1}"),
                      "%s: %s", bad[i], err);
    }
    // -0 is Python's int 0; a repeated "s" counts by its last value
    const char *ok = "[{\"t\": \"a\", \"s\": -0}, {\"t\": \"b\", \"s\": 0.5, \"s\": 1}]";
    ck_assert_msg(imdb_parse(&r, ok, strlen(ok), "r.json", err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.label[0], 0);
    ck_assert_int_eq(r.label[1], 1);
    imdb_free(&r);
}
END_TEST

// Sanitizers reserve terabytes of address space at start and stop the
// program when an allocation fails: no room for a limit there.
#if defined(__SANITIZE_ADDRESS__)
#define ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN_BUILD 1
#endif
#endif

// The error of json_parse (imdb = false) or imdb_parse (true) on text, run
// in a child whose address space may grow by only 16 MB more than it holds
// now: a tree many times the text's size cannot be built. Returns false
// (with a note in err) where the limit does not hold, as under valgrind.
static bool parse_in_16_mb(const char *text, size_t len, bool imdb, char *err, size_t errlen) {
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        char msg[512] = "";
        long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (!f || fscanf(f, "%ld", &pages) != 1) _exit(2);
        fclose(f);
        struct rlimit lim;
        lim.rlim_cur = lim.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (16u << 20);
        if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(3);
        void *probe = malloc(64u << 20);
        if (probe) {
            snprintf(msg, sizeof msg, "the address-space limit does not hold here");
        } else if (imdb) {
            imdb_reviews r;
            if (imdb_parse(&r, text, len, "big.json", msg, sizeof msg) == 0) snprintf(msg, sizeof msg, "read");
        } else {
            cJSON *root = json_parse(text, len, "big.json", msg, sizeof msg);
            if (root) snprintf(msg, sizeof msg, "read");
        }
        ssize_t w = write(fd[1], msg, strlen(msg));
        _exit(w < 0 || probe ? 4 : 0);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < errlen && (r = read(fd[0], err + n, errlen - 1 - n)) > 0) n += (size_t)r;
    err[n] = '\0';
    close(fd[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "the child died: %s", err);
    return WEXITSTATUS(status) == 0;
}

START_TEST(json_out_of_memory_says_so) {
#ifdef ASAN_BUILD
    printf("json_out_of_memory_says_so: not under AddressSanitizer\n");
#else
    // 1,000,000 zeros: 2 MB of text, 64 MB of cJSON's tree
    size_t n = 1000000, len = 2 * n + 1;
    char *text = malloc(len + 1);
    ck_assert_ptr_nonnull(text);
    text[0] = '[';
    for (size_t i = 0; i < n; i++) memcpy(text + 1 + 2 * i, i + 1 < n ? "0," : "0]", 2);
    char err[512];
    if (!parse_in_16_mb(text, len, false, err, sizeof err)) {
        printf("json_out_of_memory_says_so: %s\n", err);
        free(text);
        return;
    }
    ck_assert_str_eq(err, "out of memory reading big.json");
    free(text);
    // 200,000 reviews: 3 MB of text
    const char *review = "{\"t\": \"a\", \"s\": 0}";
    size_t rl = strlen(review);
    n = 200000;
    len = 1 + n * (rl + 1);
    text = malloc(len + 1);
    ck_assert_ptr_nonnull(text);
    text[0] = '[';
    for (size_t i = 0; i < n; i++) {
        memcpy(text + 1 + i * (rl + 1), review, rl);
        text[1 + i * (rl + 1) + rl] = i + 1 < n ? ',' : ']';
    }
    ck_assert(parse_in_16_mb(text, len, true, err, sizeof err));
    ck_assert_str_eq(err, "out of memory reading big.json");
    free(text);
#endif
}
END_TEST

START_TEST(grow_array_doubles) {
    size_t cap = 0;
    int *a = grow_array(NULL, &cap, 3, sizeof *a, 4);  // from first
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(cap, 4);
    for (int i = 0; i < 4; i++) a[i] = i;
    ck_assert_ptr_eq(grow_array(a, &cap, 4, sizeof *a, 4), a);  // room already
    a = grow_array(a, &cap, 9, sizeof *a, 4);                   // 4, 8, 16
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(cap, 16);
    ck_assert_int_eq(a[3], 3);
    // more bytes than a size_t holds: NULL, the array and cap untouched
    ck_assert_ptr_null(grow_array(a, &cap, SIZE_MAX / 2, sizeof *a, 4));
    ck_assert_uint_eq(cap, 16);
    ck_assert_int_eq(a[3], 3);
    free(a);
    // the zeroed kind clears what it adds and keeps the rest
    char *b = NULL;
    size_t bcap = 0;
    b = grow_array_zeroed(b, &bcap, 1, 1, 2);
    ck_assert_ptr_nonnull(b);
    b[0] = 'x';
    b = grow_array_zeroed(b, &bcap, 5, 1, 2);
    ck_assert_uint_eq(bcap, 8);
    ck_assert_int_eq(b[0], 'x');
    for (size_t i = 1; i < bcap; i++) ck_assert_int_eq(b[i], 0);
    free(b);
    // zero items still gives an array, so that NULL means failure
    size_t zcap = 0;
    void *z = grow_array(NULL, &zcap, 0, 8, 16);
    ck_assert_ptr_nonnull(z);
    ck_assert_uint_eq(zcap, 16);
    free(z);
}
END_TEST

// Joins tokens with single spaces into a new string.
static char *join(const token_list *t) {
    size_t n = 1;
    for (size_t i = 0; i < t->n; i++) n += strlen(token_at(t, i)) + 1;
    char *s = malloc(n), *p = s;
    *p = '\0';
    for (size_t i = 0; i < t->n; i++) p += sprintf(p, "%s%s", i ? " " : "", token_at(t, i));
    return s;
}

static char *join_json(const cJSON *arr) {
    size_t n = 1;
    const cJSON *x;
    cJSON_ArrayForEach(x, arr) n += strlen(x->valuestring) + 1;
    char *s = malloc(n), *p = s;
    *p = '\0';
    bool first = true;
    cJSON_ArrayForEach(x, arr) {
        p += sprintf(p, "%s%s", first ? "" : " ", x->valuestring);
        first = false;
    }
    return s;
}

// Punkt's English parameters from the first source there is, as chapter 7
// finds them; NULL when there is none.
static punkt_params *english_params(void) {
    char source[4096], err[1024];
    bool failed;
    punkt_params *p = punkt_load_english(getenv("NLTK_DATA"), getenv("HOME"), PUNKT_DEBIAN_JSON,
                                         source, sizeof source, err, sizeof err, &failed);
    ck_assert_msg(!failed, "%s", err);
    return p;
}

START_TEST(golden_cases) {
    punkt_params *p = english_params();
    if (!p) SKIP_TEST("tokenizer golden cases: no Punkt parameters (install %s)", PUNKT_DEBIAN_PACKAGE);
    char err[512];
    tokenizer *t = tokenizer_new(p, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    size_t len;
    char *all = read_whole_file(GOLDEN_DIR "/tokenizer_cases.jsonl", &len);
    ck_assert_msg(all != NULL, "cannot read " GOLDEN_DIR "/tokenizer_cases.jsonl");
    int cases = 0;
    token_list toks;
    token_list_init(&toks);
    span_list spans = {0};
    for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') continue;
        cJSON *c = cJSON_Parse(line);
        ck_assert_ptr_nonnull(c);
        const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
        const char *want_clean = cJSON_GetObjectItem(c, "clean")->valuestring;
        // clean_paragraph
        size_t clen;
        char *clean = clean_paragraph(text, strlen(text), &clen);
        ck_assert_msg(strcmp(clean, want_clean) == 0, "clean_paragraph(\"%s\"): \"%s\", NLTK \"%s\"", text, clean, want_clean);
        // Punkt's sentences
        spans.n = 0;
        ck_assert_int_eq(sent_tokenize(t, clean, clen, &spans), 0);
        const cJSON *sents = cJSON_GetObjectItem(c, "sentences");
        ck_assert_msg((int)spans.n == cJSON_GetArraySize(sents), "\"%s\": %zu sentences, NLTK %d", clean, spans.n, cJSON_GetArraySize(sents));
        for (size_t i = 0; i < spans.n; i++) {
            const char *want = cJSON_GetArrayItem(sents, (int)i)->valuestring;
            size_t n = spans.end[i] - spans.start[i];
            ck_assert_msg(strlen(want) == n && memcmp(want, clean + spans.start[i], n) == 0,
                          "\"%s\": sentence %zu is \"%.*s\", NLTK \"%s\"", clean, i, (int)n, clean + spans.start[i], want);
        }
        // word_tokenize of the cleaned text, and of the raw text
        for (int raw = 0; raw < 2; raw++) {
            const char *in = raw ? text : clean;
            token_list_clear(&toks);
            ck_assert_int_eq(word_tokenize(t, in, strlen(in), &toks), 0);
            char *got = join(&toks);
            char *want = join_json(cJSON_GetObjectItem(c, raw ? "raw_tokens" : "tokens"));
            ck_assert_msg(strcmp(got, want) == 0, "word_tokenize(\"%s\"):\n  C    %s\n  NLTK %s", in, got, want);
            // the same tokens written out a sentence at a time (--tokenize)
            char *written = NULL;
            size_t wlen = 0;
            FILE *w = open_memstream(&written, &wlen);
            ck_assert_ptr_nonnull(w);
            ck_assert_int_eq(word_tokenize_write(t, in, strlen(in), w), 0);
            ck_assert_int_eq(fclose(w), 0);
            ck_assert_msg(strcmp(written, want) == 0, "word_tokenize_write(\"%s\"):\n  C    %s\n  NLTK %s",
                          in, written, want);
            free(written);
            free(got);
            free(want);
        }
        free(clean);
        cJSON_Delete(c);
        cases++;
    }
    ck_assert_int_ge(cases, 30);
    span_list_free(&spans);
    token_list_free(&toks);
    free(all);
    tokenizer_free(t);
    punkt_free(p);
}
END_TEST

// Tokens of text with the given parameters, joined by spaces.
static char *tokens_of(const punkt_params *p, const char *text) {
    char err[512];
    tokenizer *t = tokenizer_new(p, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    token_list toks;
    token_list_init(&toks);
    ck_assert_int_eq(word_tokenize(t, text, strlen(text), &toks), 0);
    char *s = join(&toks);
    token_list_free(&toks);
    tokenizer_free(t);
    return s;
}

START_TEST(word_tokenizer_rules) {
    // rules that hold with or without Punkt's parameters
    struct { const char *in, *out; } cases[] = {
        {"", ""},
        {"   \xc2\xa0\xe3\x80\x80  ", ""},
        {"hello world", "hello world"},
        {"it is gonna be ok, cannot wait", "it is gon na be ok , can not wait"},
        {"wanna go? wanna", "wan na go ? wan na"},  // the sentence gets a space at each end first
        {"wannabe", "wannabe"},
        {"at 10:30, then 3,000", "at 10:30 , then 3,000"},
        {"a: b; c", "a : b ; c"},
        {"wow!!! ok", "wow ! ! ! ok"},
        {"\xff\xfe x", "\xef\xbf\xbd\xef\xbf\xbd x"},  // invalid UTF-8 reads as U+FFFD
    };
    punkt_params *empty = punkt_empty();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = tokens_of(empty, cases[i].in);
        ck_assert_msg(strcmp(got, cases[i].out) == 0, "\"%s\": \"%s\", want \"%s\"", cases[i].in, got, cases[i].out);
        free(got);
    }
    // NULL parameters are the empty parameters
    char *a = tokens_of(NULL, "mr. smith left. he said so.");
    char *b = tokens_of(empty, "mr. smith left. he said so.");
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    punkt_free(empty);
}
END_TEST

START_TEST(abbreviations_need_parameters) {
    // "mr." is an abbreviation only if the parameters say so; without them
    // Punkt ends a sentence there and the word tokenizer splits the period
    punkt_params *p = english_params();
    if (!p) SKIP_TEST("abbreviation test: no Punkt parameters (install %s)", PUNKT_DEBIAN_PACKAGE);
    char *with = tokens_of(p, "mr.  smith arrived.");
    char *without = tokens_of(NULL, "mr.  smith arrived.");
    ck_assert_str_eq(with, "mr. smith arrived .");
    ck_assert_str_eq(without, "mr . smith arrived .");
    free(with);
    free(without);
    punkt_free(p);
}
END_TEST

static char *write_tmp_dir(void) {
    char tmpl[] = "/tmp/test_text.XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    return strdup(d);
}

static void write_file(const char *dir, const char *name, const char *content) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    fclose(f);
}

static void remove_dir(const char *dir) {
    const char *names[] = {"abbrev_types.txt", "collocations.tab", "sent_starters.txt", "ortho_context.tab"};
    char path[512];
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    rmdir(dir);
}

// chapter7 --tokenize's lines, as the reference (tests/reference/
// nltk_golden.py --tokenize: `for line in sys.stdin`, then line.rstrip('\n')) reads
// them with python3.11 on Debian: sys.stdin splits at \n only (newline="\n"
// on POSIX; no universal newlines), keeps \r in the line, does not split at
// \v \f \x1c \x85 U+2028 (str.splitlines() would); clean_paragraph drops
// NUL. (Invalid UTF-8 is an error: tokenize_stream_refuses_invalid_utf8.)
// Each want is what the reference prints: after its clean_paragraph these lines hold
// letters and whitespace only, which word_tokenize splits at whitespace (the
// reading and the cleaning checked with python3.11 under LANG=C.UTF-8).
START_TEST(tokenize_stream_line_ends) {
    static const struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
#define IN(s) s, sizeof s - 1
        {IN(""), ""},                                  // no line, no output
        {IN("\n"), "\n"},                              // one empty line
        {IN("A b"), "a b\n"},                          // a last line without \n
        {IN("A\nb\n"), "a\nb\n"},
        {IN("A\n\nb"), "a\n\nb\n"},
        {IN("A\r\nB\r\n"), "a\nb\n"},                  // \r\n: the \r is whitespace
        {IN("A\rB\n"), "a b\n"},                       // a lone \r ends no line
        {IN("A\rB"), "a b\n"},
        {IN("A\r"), "a\n"},
        {IN("\r\n\r"), "\n\n"},
        {IN("x\n\ry\n"), "x\ny\n"},
        {IN("a\vb\fc\x1c" "d\xc2\x85" "e\xe2\x80\xa8" "f\xe2\x80\xa9g\n"), "a b c d e f g\n"},
        {IN("A\0B\n\0\n"), "ab\n\n"},                  // NUL is dropped
#undef IN
    };
    char err[256];
    tokenizer *t = tokenizer_new(NULL, err, sizeof err);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        FILE *in = tmpfile(), *out = tmpfile();
        ck_assert_uint_eq(fwrite(cases[i].in, 1, cases[i].len, in), cases[i].len);
        rewind(in);
        ck_assert_int_eq(tokenize_stream(in, out, t, err, sizeof err), 0);
        rewind(out);
        char buf[256];
        size_t n = fread(buf, 1, sizeof buf - 1, out);
        buf[n] = '\0';
        ck_assert_msg(strcmp(buf, cases[i].want) == 0, "case %zu: got \"%s\"", i, buf);
        fclose(in);
        fclose(out);
    }
    tokenizer_free(t);
}
END_TEST

// Invalid UTF-8 on --tokenize's input stops it with the line and the byte
// at fault, after the lines before it are written: Python's strict
// decoding, its default in a UTF-8 locale, raises UnicodeDecodeError there
// (a stray byte, a cut sequence, a surrogate, an overlong form, past
// U+10FFFF); U+FFFD written as UTF-8 is valid.
START_TEST(tokenize_stream_refuses_invalid_utf8) {
    static const struct {
        const char *in;
        size_t len;
        const char *out, *err;
    } cases[] = {
#define IN(s) s, sizeof s - 1
        {IN("A\xff" "B\n"), "", "line 1, byte 2: 0xff is not UTF-8"},
        {IN("ok\nfine\nx \xc3<br>\n"), "ok\nfine\n", "line 3, byte 3: 0xc3 is not UTF-8"},
        {IN("\xe2\x80\n"), "", "line 1, byte 1: 0xe2 is not UTF-8"},
        {IN("a\n\xed\xa0\x80x\n"), "a\n", "line 2, byte 1: 0xed is not UTF-8"},
        {IN("\xc0\xaf"), "", "line 1, byte 1: 0xc0 is not UTF-8"},
        {IN("\xf4\x90\x80\x80"), "", "line 1, byte 1: 0xf4 is not UTF-8"},
        {IN("\xef\xbf\xbd \xe2\x80\xa6 ok\n"), "ok\n", NULL},
#undef IN
    };
    char err[256];
    tokenizer *t = tokenizer_new(NULL, err, sizeof err);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        FILE *in = tmpfile(), *out = tmpfile();
        ck_assert_uint_eq(fwrite(cases[i].in, 1, cases[i].len, in), cases[i].len);
        rewind(in);
        err[0] = '\0';
        int rc = tokenize_stream(in, out, t, err, sizeof err);
        ck_assert_msg(rc == (cases[i].err ? -1 : 0), "case %zu: %d %s", i, rc, err);
        if (cases[i].err)
            ck_assert_msg(strstr(err, "standard input, ") && strstr(err, cases[i].err), "case %zu: %s", i, err);
        rewind(out);
        char buf[256];
        size_t n = fread(buf, 1, sizeof buf - 1, out);
        buf[n] = '\0';
        ck_assert_msg(strcmp(buf, cases[i].out) == 0, "case %zu: wrote \"%s\"", i, buf);
        fclose(in);
        fclose(out);
    }
    tokenizer_free(t);
}
END_TEST

// chapter7 --tokenize on one long line in memory a small multiple of the
// line: 2 MB of "!" (one sentence, a token per byte) in a child whose
// address space may grow by 64 MB only. Punkt's tokens of the whole
// sentence at once and a list of every token of the line took about 75
// times the line; tests/bench/bench_tokenize_memory.sh measures the peak.
// (Not under AddressSanitizer or valgrind, which reserve address space of
// their own.)
START_TEST(tokenize_stream_long_line_memory) {
#if defined(__SANITIZE_ADDRESS__)
    return;
#endif
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "vgpreload")) return;
    enum { N = 2000000 };
    FILE *in = tmpfile(), *out = tmpfile();
    ck_assert(in && out);
    for (size_t i = 0; i < N; i++) putc('!', in);
    putc('\n', in);
    rewind(in);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char err[256];
        tokenizer *t = tokenizer_new(NULL, err, sizeof err);
        unsigned long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (!t || !statm || fscanf(statm, "%lu", &pages) != 1) _exit(3);
        fclose(statm);
        rlim_t limit = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)64 << 20);
        struct rlimit r = {limit, limit};
        if (setrlimit(RLIMIT_AS, &r) != 0) _exit(4);
        if (tokenize_stream(in, out, t, err, sizeof err) != 0) _exit(1);
        tokenizer_free(t);
        _exit(ftell(out) == 2 * N ? 0 : 2);  // "! ! ... !\n"
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the child failed: status %d (1: out of memory, 2: wrong output)", status);
    fclose(in);
    fclose(out);
}
END_TEST

// punkt_tab's four files, line by line, as the reference reads them
// (load_punkt_tab in tests/reference/nltk_golden.py, python3.11): open(path,
// encoding='utf-8') has universal newlines, so \n, \r\n and a lone \r each
// end a line, and nothing else does (\v, \x1c, U+0085 do not);
// abbrev_types.txt skips empty lines only (l.strip('\n')), sent_starters.txt
// and collocations.tab whitespace-only lines (l.strip()), ortho_context.tab
// none: there an empty line is an error (Python: "not enough values to
// unpack"), as invalid UTF-8 is in any file. Each want is what Python read.
START_TEST(punkt_tab_line_ends) {
    static const struct {
        const char *file, *in;
        size_t len;
        size_t n;              // entries read, or 0 with err
        const char *want[3];   // entries, or err's text
    } cases[] = {
#define IN(s) s, sizeof s - 1
        {"abbrev_types.txt", IN(""), 0, {NULL}},
        {"abbrev_types.txt", IN("mr\ndr"), 2, {"mr", "dr"}},
        {"abbrev_types.txt", IN("mr\r\ndr\r\n"), 2, {"mr", "dr"}},
        {"abbrev_types.txt", IN("mr\rdr\r"), 2, {"mr", "dr"}},
        {"abbrev_types.txt", IN("mr\r\r\ndr"), 2, {"mr", "dr"}},
        {"abbrev_types.txt", IN("mr\n\n \n"), 2, {"mr", " "}},
        {"abbrev_types.txt", IN("a\vb\x1c" "c\xc2\x85\n"), 1, {"a\vb\x1c" "c\xc2\x85"}},
        {"abbrev_types.txt", IN("mr\n\xff\n"), 0, {"t:2: not valid UTF-8"}},
        {"sent_starters.txt", IN("however\r\n \t\n\xc2\xa0\n\x1c\xc2\x85\rbut"), 2,
         {"however", "but"}},
        {"sent_starters.txt", IN("x \n"), 1, {"x "}},
        {"collocations.tab", IN("a\tb\rc\td\r\n \n"), 2, {"a\tb", "c\td"}},
        {"ortho_context.tab", IN("smith\t4\rthe\t126"), 2, {"smith", "the"}},
        {"ortho_context.tab", IN("smith\t4\n\nthe\t1\n"), 0,
         {"t:2: expected two tab-separated fields"}},
        {"ortho_context.tab", IN("smith\t4\r\rthe\t1"), 0,
         {"t:2: expected two tab-separated fields"}},
#undef IN
    };
    char err[256];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        punkt_params *p = punkt_empty();
        ck_assert_ptr_nonnull(p);
        int rc = punkt_parse_tab(p, cases[i].file, cases[i].in, cases[i].len, "t", err, sizeof err);
        const strmap *set = cases[i].file[0] == 'a'   ? &p->abbrev
                            : cases[i].file[0] == 'c' ? &p->colloc
                            : cases[i].file[0] == 's' ? &p->starters
                                                      : &p->ortho;
        if (cases[i].n == 0 && cases[i].want[0]) {
            ck_assert_msg(rc == -1, "case %zu: read", i);
            ck_assert_msg(strcmp(err, cases[i].want[0]) == 0, "case %zu: %s", i, err);
        } else {
            ck_assert_msg(rc == 0, "case %zu: %s", i, err);
            ck_assert_msg(set->n == cases[i].n, "case %zu: %zu entries", i, set->n);
            for (size_t k = 0; k < cases[i].n; k++)
                ck_assert_msg(strmap_find(set, cases[i].want[k], strlen(cases[i].want[k])) >= 0,
                              "case %zu: no entry %zu", i, k);
        }
        punkt_free(p);
    }
    punkt_params *p = punkt_empty();
    const char *ortho = "smith\t4\rthe\t126";
    ck_assert_int_eq(punkt_parse_tab(p, "ortho_context.tab", ortho, strlen(ortho), "t", err,
                                     sizeof err), 0);
    ck_assert_int_eq(punkt_ortho(p, "smith", 5), 4);
    ck_assert_int_eq(punkt_ortho(p, "the", 3), 126);
    punkt_free(p);
}
END_TEST

START_TEST(punkt_load_errors) {
    char err[1024];
    // a missing directory
    ck_assert_ptr_null(punkt_load("/nonexistent/punkt_tab/english", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/punkt_tab/english/abbrev_types.txt"));
    // a tiny valid set
    char *d = write_tmp_dir();
    write_file(d, "abbrev_types.txt", "mr\ndr\n\n");
    write_file(d, "collocations.tab", "##number##\tst\n");
    write_file(d, "sent_starters.txt", "however\n");
    write_file(d, "ortho_context.tab", "smith\t4\r\nthe\t126\n");
    punkt_params *p = punkt_load(d, err, sizeof err);
    ck_assert_msg(p != NULL, "%s", err);
    size_t a, c, s, o;
    punkt_sizes(p, &a, &c, &s, &o);
    ck_assert_uint_eq(a, 2);
    ck_assert_uint_eq(c, 1);
    ck_assert_uint_eq(s, 1);
    ck_assert_uint_eq(o, 2);
    char *got = tokens_of(p, "dr.  who left.  mr.  x came.");
    ck_assert_str_eq(got, "dr. who left . mr. x came .");
    free(got);
    punkt_free(p);
    // malformed lines are reported with file and line
    write_file(d, "ortho_context.tab", "smith\t4\nthe 126\n");
    ck_assert_ptr_null(punkt_load(d, err, sizeof err));
    ck_assert_msg(strstr(err, "ortho_context.tab:2:") != NULL, "%s", err);
    write_file(d, "ortho_context.tab", "smith\tfour\n");
    ck_assert_ptr_null(punkt_load(d, err, sizeof err));
    ck_assert_msg(strstr(err, "ortho_context.tab:1:") != NULL, "%s", err);
    write_file(d, "ortho_context.tab", "smith\t4\n");
    write_file(d, "collocations.tab", "a\tb\tc\n");
    ck_assert_ptr_null(punkt_load(d, err, sizeof err));
    ck_assert_msg(strstr(err, "collocations.tab:1:") != NULL, "%s", err);
    // a FIFO in place of a file is refused at once (open() would wait for a
    // writer), by name; alarm() turns a hang into a failure
    write_file(d, "collocations.tab", "##number##\tst\n");
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/sent_starters.txt", d);
    ck_assert_int_eq(remove(fifo), 0);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    alarm(5);
    ck_assert_ptr_null(punkt_load(d, err, sizeof err));
    alarm(0);
    char want[700];
    snprintf(want, sizeof want, "cannot read %s: ", fifo);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
    remove_dir(d);
    free(d);
    // the same reader on text in memory: flags are whole numbers up to
    // 65535, digits only; a name that is not one of the four files is refused
    p = punkt_empty();
    const char ortho[] = "smith\t4\nthe\t65535";
    ck_assert_int_eq(punkt_parse_tab(p, "ortho_context.tab", ortho, sizeof ortho - 1, "o.tab", err, sizeof err), 0);
    ck_assert_int_eq(punkt_ortho(p, "the", 3), 65535);
    const char *bad_flags[] = {"x\t65536", "x\t+4", "x\t 4", "x\t-0", "x\t"};
    for (size_t i = 0; i < sizeof bad_flags / sizeof *bad_flags; i++) {
        ck_assert_int_eq(punkt_parse_tab(p, "ortho_context.tab", bad_flags[i], strlen(bad_flags[i]),
                                         "o.tab", err, sizeof err), -1);
        ck_assert_msg(strstr(err, "o.tab:1: expected a small whole number"), "%s", err);
    }
    ck_assert_int_eq(punkt_parse_tab(p, "abbrev.txt", "mr", 2, "a.txt", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "abbrev.txt: not one of punkt_tab's files"), "%s", err);
    punkt_free(p);
    // punkt_find: nothing under a path that has no punkt_tab
    char out[4096];
    ck_assert(!punkt_find("/nonexistent:/also/not", "/nonexistent-home", out, sizeof out) ||
              strncmp(out, "/usr", 4) == 0);
}
END_TEST

START_TEST(punkt_json_reader) {
    char tmpl[] = "/tmp/test_text.XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/english.json", d);
    // the layout of Debian's english.json, in small
    write_file(d, "english.json",
               "{\"OrthoContext\": {\"smith\": 4, \"the\": 126},\n"
               " \"Collocations\": {\"##number##,st\": 1},\n"
               " \"AbbrevTypes\": {\"mr\": 1, \"dr\": 1},\n"
               " \"SentStarters\": {\"however\": 1}}\n");
    punkt_params *p = punkt_load_json(path, err, sizeof err);
    ck_assert_msg(p != NULL, "%s", err);
    size_t a, c, st, o;
    punkt_sizes(p, &a, &c, &st, &o);
    ck_assert_uint_eq(a, 2);
    ck_assert_uint_eq(c, 1);
    ck_assert_uint_eq(st, 1);
    ck_assert_uint_eq(o, 2);
    ck_assert_int_eq(punkt_ortho(p, "the", 3), 126);
    ck_assert_int_ge(strmap_find(&p->colloc, "##number##\tst", 13), 0);  // the pair, tab-separated
    char *got = tokens_of(p, "dr.  who left.  mr.  x came.");
    ck_assert_str_eq(got, "dr. who left . mr. x came .");
    free(got);
    punkt_free(p);
    // each malformed file is refused with the file and what is wrong
    const char *bad[][2] = {
        {"{\"AbbrevTypes\": {\"mr\": 1},\n \"Collocations\": {", ":2: malformed JSON (byte"},
        {"[1, 2]", "expected a JSON object"},
        {"{\"AbbrevTypes\": {}, \"Collocations\": {}, \"SentStarters\": {}}", "no object \"OrthoContext\""},
        {"{\"AbbrevTypes\": {\"mr\": 2}, \"Collocations\": {}, \"SentStarters\": {}, \"OrthoContext\": {}}",
         "AbbrevTypes[\"mr\"]: expected the whole number 1"},
        // a whole number written as a float is refused, not read as one
        {"{\"AbbrevTypes\": {\"mr\": 1.0}, \"Collocations\": {}, \"SentStarters\": {}, \"OrthoContext\": {}}",
         "AbbrevTypes[\"mr\"]: expected the whole number 1"},
        {"{\"AbbrevTypes\": {}, \"Collocations\": {}, \"SentStarters\": {\"the\": 1e0}, \"OrthoContext\": {}}",
         "SentStarters[\"the\"]: expected the whole number 1"},
        {"{\"AbbrevTypes\": {}, \"Collocations\": {}, \"SentStarters\": {}, \"OrthoContext\": {\"x\": 2.0}}",
         "OrthoContext[\"x\"]: expected a whole number from 0 to 65535"},
        {"{\"AbbrevTypes\": {}, \"Collocations\": {}, \"SentStarters\": {}, \"OrthoContext\": {\"x\": 65536}}",
         "OrthoContext[\"x\"]: expected a whole number from 0 to 65535"},
        {"{\"AbbrevTypes\": {}, \"Collocations\": {\"ab\": 1}, \"SentStarters\": {}, \"OrthoContext\": {}}",
         "Collocations[\"ab\"]: expected two types joined by a comma"},
        {"{\"AbbrevTypes\": {}, \"Collocations\": {}, \"SentStarters\": {}, \"OrthoContext\": {\"x\": 1.5}}",
         "OrthoContext[\"x\"]: expected a whole number from 0 to 65535"},
        {"", ":1: malformed JSON (byte 0)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(d, "english.json", bad[i][0]);
        ck_assert_ptr_null(punkt_load_json(path, err, sizeof err));
        ck_assert_msg(strstr(err, path) && strstr(err, bad[i][1]), "case %zu: %s", i, err);
    }
    remove(path);
    ck_assert_ptr_null(punkt_load_json(path, err, sizeof err));
    ck_assert_msg(strstr(err, "cannot read") && strstr(err, "No such file"), "%s", err);
    rmdir(d);
}
END_TEST

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// The FNV-1a 64 digest of the parameters' canonical listing: one line per
// entry, sorted by bytes (A<TAB>abbreviation, C<TAB>type1<TAB>type2,
// S<TAB>starter, O<TAB>type<TAB>flags), each ending in a newline; as
// tests/reference/nltk_golden.py computes it for NLTK's punkt_tab.
static uint64_t punkt_digest(const punkt_params *p) {
    size_t n = p->abbrev.n + p->colloc.n + p->starters.n + p->ortho.n, k = 0;
    char **lines = malloc(n * sizeof *lines);
    ck_assert_ptr_nonnull(lines);
    const struct { const strmap *m; char tag; } sets[] = {
        {&p->abbrev, 'A'}, {&p->colloc, 'C'}, {&p->starters, 'S'}, {&p->ortho, 'O'}};
    for (size_t s = 0; s < 4; s++)
        for (size_t i = 0; i < sets[s].m->n; i++) {
            const char *key = strmap_key(sets[s].m, i);
            size_t len = strlen(key) + 16;
            lines[k] = malloc(len);
            ck_assert_ptr_nonnull(lines[k]);
            if (sets[s].tag == 'O')
                snprintf(lines[k], len, "O\t%s\t%d", key, p->ortho_flags[i]);
            else
                snprintf(lines[k], len, "%c\t%s", sets[s].tag, key);
            k++;
        }
    qsort(lines, n, sizeof *lines, cmp_str);
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++) {
        for (const char *c = lines[i]; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
        h = (h ^ '\n') * 1099511628211ULL;
        free(lines[i]);
    }
    free(lines);
    return h;
}

// The value after `name ` in the golden file's text.
static unsigned long long golden_value(const char *text, const char *name, int base) {
    char key[64];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *at = strstr(text, key);
    ck_assert_msg(at != NULL, "punkt_english.txt has no %s", name);
    return strtoull(at + strlen(key), NULL, base);
}

// Debian's JSON holds NLTK's punkt_tab english entry for entry: the same
// sizes and the same digest as tests/golden/punkt_english.txt, which
// nltk_golden.py wrote from NLTK's own files. When a punkt_tab is on the
// NLTK data path here too, it is read and held to the same digest.
START_TEST(debian_json_equals_nltk_punkt_tab) {
    if (access(PUNKT_DEBIAN_JSON, R_OK) != 0)
        SKIP_TEST("no %s (install %s)", PUNKT_DEBIAN_JSON, PUNKT_DEBIAN_PACKAGE);
    size_t len;
    char *golden = read_whole_file(GOLDEN_DIR "/punkt_english.txt", &len);
    ck_assert_msg(golden != NULL, "cannot read " GOLDEN_DIR "/punkt_english.txt");
    char err[1024];
    punkt_params *p = punkt_load_json(PUNKT_DEBIAN_JSON, err, sizeof err);
    ck_assert_msg(p != NULL, "%s", err);
    size_t a, c, st, o;
    punkt_sizes(p, &a, &c, &st, &o);
    ck_assert_uint_eq(a, golden_value(golden, "abbrev_types", 10));
    ck_assert_uint_eq(c, golden_value(golden, "collocations", 10));
    ck_assert_uint_eq(st, golden_value(golden, "sent_starters", 10));
    ck_assert_uint_eq(o, golden_value(golden, "ortho_context", 10));
    uint64_t want = golden_value(golden, "digest", 16);
    ck_assert_msg(punkt_digest(p) == want, "Debian's parameters: digest %016llx, NLTK's %016llx",
                  (unsigned long long)punkt_digest(p), (unsigned long long)want);
    punkt_free(p);
    char dir[4096];
    if (punkt_find(getenv("NLTK_DATA"), NULL, dir, sizeof dir)) {
        punkt_params *tab = punkt_load(dir, err, sizeof err);
        ck_assert_msg(tab != NULL, "%s", err);
        ck_assert_msg(punkt_digest(tab) == want, "%s: digest %016llx, golden %016llx", dir,
                      (unsigned long long)punkt_digest(tab), (unsigned long long)want);
        punkt_free(tab);
    }
    free(golden);
}
END_TEST

START_TEST(strmap_basics) {
    strmap m;
    strmap_init(&m);
    ck_assert_int_eq(strmap_find(&m, "a", 1), -1);
    char key[16];
    for (int i = 0; i < 10000; i++) {
        int n = snprintf(key, sizeof key, "k%d", i);
        ck_assert_int_eq(strmap_intern(&m, key, (size_t)n, NULL), i);
    }
    bool added = true;
    ck_assert_int_eq(strmap_intern(&m, "k42", 3, &added), 42);
    ck_assert(!added);
    ck_assert_str_eq(strmap_key(&m, 9999), "k9999");
    ck_assert_int_eq(strmap_find(&m, "", 0), -1);
    strmap_free(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("text");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, clean_paragraph_rules);
    tcase_add_test(tc, py_isspace_matches_python);
    tcase_add_test(tc, py_split_next_as_str_split);
    tcase_add_test(tc, json_errors_give_the_line);
    tcase_add_test(tc, json_read_as_python_reads_it);
    tcase_add_test(tc, json_nesting_and_lines);
    tcase_add_test(tc, json_values_as_python_has_them);
    tcase_add_test(tc, imdb_labels_are_the_integers_0_and_1);
    tcase_add_test(tc, json_out_of_memory_says_so);
    tcase_add_test(tc, grow_array_doubles);
    tcase_add_test(tc, golden_cases);
    tcase_add_test(tc, word_tokenizer_rules);
    tcase_add_test(tc, abbreviations_need_parameters);
    tcase_add_test(tc, tokenize_stream_line_ends);
    tcase_add_test(tc, tokenize_stream_refuses_invalid_utf8);
    tcase_add_test(tc, tokenize_stream_long_line_memory);
    tcase_add_test(tc, punkt_tab_line_ends);
    tcase_add_test(tc, punkt_load_errors);
    tcase_add_test(tc, punkt_json_reader);
    tcase_add_test(tc, debian_json_equals_nltk_punkt_tab);
    tcase_add_test(tc, strmap_basics);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
