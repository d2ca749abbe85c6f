// test_rdb.c: the reader of R's lazy-load databases (src/text/rdb.h) on
// databases made here, byte by byte, with zlib's compress: read back
// exactly, and every way such a file can be wrong refused with a message
// that names the file, the object and the byte. And, tagged "data", the
// counts of Jane Austen's novels in Debian's r-cran-janeaustenr, which
// `make data` fetches (SKIP without it; a failure in CI, tests/skip.h).
#define _POSIX_C_SOURCE 200809L
#include <check.h>

#include "suite.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdb_write.h"
#include "skip.h"
#include "tmpfile.h"
#include "text/rdb.h"
#include "text/utf8.h"

#ifndef DATA_DIR
#define DATA_DIR "data"
#endif

// ---------------------------------------------------------------- making databases

static const char *const TWO_AND_NA[] = {"It is a truth universally acknowledged", NULL,
                                         "her \xc2\xa3" "20,000"};
static const char *const PERSUASION[] = {"Persuasion", "", "by Jane Austen"};

// A database of the two vectors above.
static bytes hand_made(void) {
    bytes file = {.n = 0};
    bytes a = serialize(TWO_AND_NA, 3), b = serialize(PERSUASION, 3);
    put_object(&file, &a);
    put_object(&file, &b);
    return file;
}

// The bytes written to a new file under /tmp; the caller removes it.
static char *tmp_bytes(const bytes *o) {
    char tmpl[] = "/tmp/attn_rdb.XXXXXX";
    int fd = mkstemp(tmpl);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, o->b, o->n), (ssize_t)o->n);
    ck_assert_int_eq(close(fd), 0);
    return strdup(tmpl);
}

// rdb_parse must refuse buf with a message holding each of the phrases.
static void assert_refused(const bytes *buf, const char *const *phrases, size_t n) {
    rdb_database db;
    char err[512] = "";
    ck_assert_int_eq(rdb_parse(&db, buf->b, buf->n, "made.rdb", err, sizeof err), -1);
    ck_assert_ptr_null(db.vec);
    ck_assert_msg(strncmp(err, "made.rdb: ", 10) == 0, "the message does not name the file: %s", err);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(strstr(err, phrases[i]), "\"%s\" not in: %s", phrases[i], err);
}
#define REFUSED(buf, ...)                                                     \
    do {                                                                      \
        const char *const ph_[] = {__VA_ARGS__};                              \
        assert_refused(buf, ph_, sizeof ph_ / sizeof *ph_);                   \
    } while (0)

// A database of one object whose serialization is ser.
static bytes one_object(const bytes *ser) {
    bytes file = {.n = 0};
    put_object(&file, ser);
    return file;
}

// ---------------------------------------------------------------- tests

START_TEST(hand_made_database_read_back) {
    bytes file = hand_made();
    char *path = tmp_bytes(&file);
    rdb_database db;
    char err[512] = "";
    ck_assert_msg(rdb_load(path, &db, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(db.n, 2);
    const rdb_strings *v = &db.vec[0];
    ck_assert_uint_eq(v->n, 3);
    ck_assert(!v->na[0] && v->na[1] && !v->na[2]);
    ck_assert_str_eq(v->text + v->off[0], TWO_AND_NA[0]);
    ck_assert_uint_eq(v->len[0], strlen(TWO_AND_NA[0]));
    ck_assert_str_eq(v->text + v->off[1], "");
    ck_assert_uint_eq(v->len[1], 0);
    ck_assert_str_eq(v->text + v->off[2], TWO_AND_NA[2]);
    ck_assert_uint_eq(v->len[2], 12);  // 11 characters: the pound sign takes two bytes
    size_t len;
    char *text = rdb_join(v, &len);
    ck_assert_str_eq(text, "It is a truth universally acknowledged\n\nher \xc2\xa3" "20,000\n");
    ck_assert_uint_eq(len, strlen(text));
    free(text);
    ck_assert_ptr_null(rdb_austen_title(v));
    ck_assert_uint_eq(db.vec[1].n, 3);
    for (size_t i = 0; i < 3; i++) ck_assert_str_eq(db.vec[1].text + db.vec[1].off[i], PERSUASION[i]);
    ck_assert_str_eq(rdb_austen_title(&db.vec[1]), "Persuasion");
    rdb_free(&db);
    ck_assert_uint_eq(db.n, 0);
    ck_assert_int_eq(remove(path), 0);
    free(path);
}
END_TEST

START_TEST(empty_vector_and_version_2) {
    // version 2 has no encoding's name; a vector may hold no strings
    bytes ser = {.n = 0};
    put_bytes(&ser, "X\n", 2);
    put_int(&ser, 2);
    put_int(&ser, 0x030601);
    put_int(&ser, 0x020300);
    put_int(&ser, 16);
    put_int(&ser, 0);
    bytes file = one_object(&ser);
    rdb_database db;
    char err[512] = "";
    ck_assert_msg(rdb_parse(&db, file.b, file.n, "v2.rdb", err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(db.n, 1);
    ck_assert_uint_eq(db.vec[0].n, 0);
    size_t len;
    char *text = rdb_join(&db.vec[0], &len);
    ck_assert_uint_eq(len, 0);
    ck_assert_str_eq(text, "");
    free(text);
    ck_assert_ptr_null(rdb_austen_title(&db.vec[0]));
    rdb_free(&db);
}
END_TEST

START_TEST(titles_in_any_case) {
    static const char *const NAMES[][2] = {
        {"EMMA", "Emma"}, {"MANSFIELD PARK", "Mansfield Park"},
        {"NORTHANGER ABBEY", "Northanger Abbey"}, {"Persuasion", "Persuasion"},
        {"PRIDE AND PREJUDICE", "Pride and Prejudice"},
        {"SENSE AND SENSIBILITY", "Sense and Sensibility"}};
    bytes file = {.n = 0};
    for (size_t i = 0; i < 6; i++) {
        bytes ser = serialize(&NAMES[i][0], 1);
        put_object(&file, &ser);
    }
    static const char *const NA[] = {NULL};
    bytes ser = serialize(NA, 1);
    put_object(&file, &ser);
    rdb_database db;
    char err[512] = "";
    ck_assert_msg(rdb_parse(&db, file.b, file.n, "titles.rdb", err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(db.n, 7);
    for (size_t i = 0; i < 6; i++) ck_assert_str_eq(rdb_austen_title(&db.vec[i]), NAMES[i][1]);
    ck_assert_ptr_null(rdb_austen_title(&db.vec[6]));  // an NA first line
    rdb_free(&db);
}
END_TEST

START_TEST(missing_and_empty_files) {
    rdb_database db;
    char err[512] = "";
    ck_assert_int_eq(rdb_load("/nonexistent/Rdata.rdb", &db, err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot read /nonexistent/Rdata.rdb: No such file or directory");
    char *path = tmp_with("");
    ck_assert_int_eq(rdb_load(path, &db, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, path));
    ck_assert_ptr_nonnull(strstr(err, "an empty file"));
    ck_assert_int_eq(remove(path), 0);
    free(path);
    ck_assert_int_eq(rdb_load("/tmp", &db, err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot read /tmp: Is a directory");
}
END_TEST

START_TEST(truncated_files) {
    bytes whole = hand_made(), file = whole;
    // the second object's stream starts where the first one's ends
    size_t first = 0;
    {
        bytes a = serialize(TWO_AND_NA, 3), z = {.n = 0};
        put_object(&z, &a);
        first = z.n;
    }
    char at[64];
    // cut inside the second object's length
    file.n = first + 3;
    snprintf(at, sizeof at, "object 1 at byte %lu: 3 bytes where", (unsigned long)first);
    REFUSED(&file, at, "4-byte length");
    // cut inside its zlib stream: the file ends before the stream
    file.n = whole.n - 5;
    snprintf(at, sizeof at, "object 1 at byte %lu: ", (unsigned long)first);
    REFUSED(&file, at, "cut short", "the end of the file");
    file.n = first + 4;  // a length and no stream at all
    REFUSED(&file, at);
    // garbage after the last object
    file = whole;
    put_bytes(&file, "garbage!", 8);
    snprintf(at, sizeof at, "object 2 at byte %zu: ", whole.n);
    REFUSED(&file, at, "more than the 4 bytes left can inflate to");
    file = whole;
    put_bytes(&file, "\0\0\0\x10 garbage", 12);  // a plausible length, then no zlib
    REFUSED(&file, at, "not a valid zlib stream");
}
END_TEST

START_TEST(damaged_streams) {
    bytes file = hand_made();
    file.b[4] ^= 0xff;  // the first stream's zlib header
    REFUSED(&file, "object 0 at byte 0: not a valid zlib stream", "zlib: ");
    file = hand_made();
    file.b[file.n - 1] ^= 0x01;  // the second stream's checksum
    REFUSED(&file, "object 1 at byte", "not a valid zlib stream", "incorrect data check");
    // a length other than the inflated size, either way
    file = hand_made();
    file.b[3] += 1;
    REFUSED(&file, "object 0 at byte 0: the zlib stream inflates to", "its length says");
    file = hand_made();
    file.b[3] -= 1;
    REFUSED(&file, "object 0 at byte 0: the zlib stream inflates to more than");
}
END_TEST

// The serialization of TWO_AND_NA with the 4 bytes at byte `at` replaced by v.
static bytes with_int_at(size_t at, uint32_t v) {
    bytes ser = serialize(TWO_AND_NA, 3);
    bytes out = {.n = 0};
    put_bytes(&out, ser.b, at);
    put_int(&out, v);
    put_bytes(&out, ser.b + at + 4, ser.n - at - 4);
    return one_object(&out);
}

// Byte offsets in serialize()'s output: the header is 2 + 12 + 4 + 5 bytes.
enum { AT_VERSION = 2, AT_FLAGS = 23, AT_LENGTH = 27, AT_STRING0 = 31 };

START_TEST(bad_headers) {
    bytes ser = serialize(TWO_AND_NA, 3);
    ser.b[0] = 'Y';
    bytes file = one_object(&ser);
    REFUSED(&file, "object 0 at byte 0: not an R serialization in XDR form");
    ser.b[0] = 'A';
    file = one_object(&ser);
    REFUSED(&file, "R's ASCII serialization, not read");
    ser.b[0] = 'B';
    file = one_object(&ser);
    REFUSED(&file, "R's native binary serialization, not read");
    file = with_int_at(AT_VERSION, 4);
    REFUSED(&file, "serialization version 4 at its byte 2");
    file = with_int_at(AT_VERSION + 12, 1000);  // the encoding's name
    REFUSED(&file, "the encoding's name at its byte 14 has length 1000, past the end");
    ser.n = 10;  // the header cut short
    ser.b[0] = 'X';
    file = one_object(&ser);
    REFUSED(&file, "the serialization ends at its byte 10, where R's version should be");
}
END_TEST

START_TEST(wrong_types) {
    bytes file = with_int_at(AT_FLAGS, 13);  // an integer vector
    REFUSED(&file, "the object at its byte 23 is of R type 13, not a character vector (16)");
    file = with_int_at(AT_FLAGS, 16 | 1u << 9);
    REFUSED(&file, "has attributes");
    file = with_int_at(AT_STRING0, 16);
    REFUSED(&file, "string 0 at its byte 31 is of R type 16, not a string (9)");
    file = with_int_at(AT_STRING0, 9 | (1u << 2) << 12);
    REFUSED(&file, "string 0 at its byte 31 is marked Latin-1, not UTF-8");
    file = with_int_at(AT_STRING0, 9 | (1u << 1) << 12);
    REFUSED(&file, "string 0 at its byte 31 is marked bytes, not UTF-8");
    static const char *const BAD[] = {"ok", "\xff"};
    bytes ser = serialize(BAD, 2);
    file = one_object(&ser);
    REFUSED(&file, "string 1 at its byte", "not valid UTF-8 text");
}
END_TEST

START_TEST(lengths_past_the_end) {
    bytes file = with_int_at(AT_LENGTH, 1000);
    REFUSED(&file, "the vector's length 1000 at its byte 27 is more strings than the bytes left can hold");
    file = with_int_at(AT_LENGTH, 0xffffffffu);
    REFUSED(&file, "a long vector's mark (not read)");
    file = with_int_at(AT_LENGTH, 0x80000000u);
    REFUSED(&file, "is negative");
    file = with_int_at(AT_LENGTH, 4);  // a fourth string that is not there
    REFUSED(&file, "the serialization ends at its byte", "where a string's flags should be");
    file = with_int_at(AT_STRING0 + 4, 1000);
    REFUSED(&file, "string 0 at its byte 31 has length 1000, past the end of the serialization");
    file = with_int_at(AT_STRING0 + 4, 0xfffffffeu);  // -2
    REFUSED(&file, "string 0 at its byte 31 has length -2");
    // bytes after the vector inside its stream
    bytes ser = serialize(TWO_AND_NA, 3);
    put_bytes(&ser, "xyz", 3);
    file = one_object(&ser);
    REFUSED(&file, "3 bytes after the character vector, from its byte");
}
END_TEST

// The characters of a UTF-8 text: how many, how many distinct ones, and
// of these how many are not ASCII and how many are control characters
// other than the newline.
typedef struct {
    size_t chars, distinct, non_ascii, controls;
} char_counts;

static char_counts count_characters(const char *text, size_t len) {
    static bool seen[0x110000];
    memset(seen, 0, sizeof seen);
    char_counts c = {0, 0, 0, 0};
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += (size_t)utf8_decode(text + i, len - i, &cp);
        c.chars++;
        if (seen[cp]) continue;
        seen[cp] = true;
        c.distinct++;
        c.non_ascii += cp >= 0x80;
        c.controls += (cp < 0x20 && cp != '\n') || cp == 0x7f;
    }
    return c;
}

START_TEST(jane_austen_counts) {
    const char *path = DATA_DIR "/janeaustenr/data/Rdata.rdb";
    if (!exists(path)) SKIP_TEST("no %s (make data fetches it)", path);
    rdb_database db;
    char err[512] = "";
    ck_assert_msg(rdb_load(path, &db, err, sizeof err) == 0, "%s", err);
    static const struct {
        const char *title;
        size_t lines;
    } NOVELS[] = {{"Emma", 16235},      {"Mansfield Park", 15349},      {"Northanger Abbey", 7856},
                  {"Persuasion", 8328}, {"Pride and Prejudice", 13030}, {"Sense and Sensibility", 12624}};
    ck_assert_uint_eq(db.n, 6);
    size_t lines = 0, total = 0, cap = 0;
    char *all = NULL;
    for (size_t i = 0; i < db.n; i++) {
        const rdb_strings *v = &db.vec[i];
        ck_assert_str_eq(rdb_austen_title(v), NOVELS[i].title);
        ck_assert_uint_eq(v->n, NOVELS[i].lines);
        for (size_t j = 0; j < v->n; j++) ck_assert(!v->na[j]);
        lines += v->n;
        size_t len;
        char *text = rdb_join(v, &len);
        ck_assert_ptr_nonnull(text);
        cap = total + len + 1;
        all = realloc(all, cap);
        ck_assert_ptr_nonnull(all);
        memcpy(all + total, text, len + 1);
        total += len;
        free(text);
    }
    ck_assert_uint_eq(lines, 73422);
    size_t newlines = 0;
    for (size_t i = 0; i < total; i++) newlines += all[i] == '\n';
    char_counts c = count_characters(all, total);
    ck_assert_uint_eq(newlines, 73422);  // one a line
    ck_assert_uint_eq(c.chars, 4025028);
    ck_assert_uint_eq(total, 4025029);   // bytes: the pound sign takes two
    // the newline, 79 printable ASCII characters and the pound sign
    ck_assert_uint_eq(c.distinct, 81);
    ck_assert_uint_eq(c.controls, 0);
    ck_assert_uint_eq(c.non_ascii, 1);
    ck_assert_ptr_nonnull(strstr(all, "\xc2\xa3"));
    printf("rdb: %s: %zu vectors, %zu lines, %zu characters (%zu bytes) with a newline after each "
           "line, %zu distinct characters (%zu not ASCII)\n",
           path, db.n, lines, c.chars, total, c.distinct, c.non_ascii);
    free(all);
    rdb_free(&db);
}
END_TEST

int main(void) {
    Suite *s = suite_create("rdb");
    TCase *tc = tcase_create("rdb");
    tcase_add_test(tc, hand_made_database_read_back);
    tcase_add_test(tc, empty_vector_and_version_2);
    tcase_add_test(tc, titles_in_any_case);
    tcase_add_test(tc, missing_and_empty_files);
    tcase_add_test(tc, truncated_files);
    tcase_add_test(tc, damaged_streams);
    tcase_add_test(tc, bad_headers);
    tcase_add_test(tc, wrong_types);
    tcase_add_test(tc, lengths_past_the_end);
    suite_add_tcase(s, tc);
    // the real novels: tagged "data", so that `make valgrind` leaves them out
    TCase *data = tcase_create("data");
    tcase_set_tags(data, "data");
    tcase_set_timeout(data, 60);
    tcase_add_test(data, jane_austen_counts);
    suite_add_tcase(s, data);
    return run_suite(s);
}
