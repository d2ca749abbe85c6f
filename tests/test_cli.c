// test_cli.c: the options every chapter program shares.
#include <check.h>

#include "suite.h"
#include <stdlib.h>

#include "cli.h"

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
    const char *argv[] = { "prog", "--seed", "3570563066", "--data", "out" };
    ck_assert_int_eq(parse(5, argv, &o), CLI_OK);
    ck_assert_uint_eq(o.seed, 3570563066u);
    ck_assert_str_eq(o.data_dir, "out");
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

int main(void) {
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("options");
    tcase_add_test(tc, defaults_survive_no_options);
    tcase_add_test(tc, seed_and_data_are_read);
    tcase_add_test(tc, help_asks_to_exit_zero);
    tcase_add_test(tc, bad_options_are_usage_errors);
    tcase_add_test(tc, integers_are_whole_and_in_range);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
