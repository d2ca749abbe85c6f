// suite.h: the one way every test program runs its Check suite.
#ifndef ATTN_TESTS_SUITE_H
#define ATTN_TESTS_SUITE_H

#include <check.h>
#include <stdlib.h>

// Runs suite s (its output as CK_VERBOSITY asks, fork mode as CK_FORK asks)
// and returns the program's exit status: 0 when every test passed.
static int run_suite(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
