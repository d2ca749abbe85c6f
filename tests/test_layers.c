// test_layers.c: src/ keeps to its layers. Each folder's README.md says,
// in a paragraph that starts "Includes:", which folders its files may
// include: the folders it names in backquotes (`core/`), or, when it names
// none, every folder if it says "any" or "every" ("Includes: any layer.").
// A folder may always include itself. The suite reads those paragraphs and
// every #include "folder/file.h" of src/, and fails naming the file and
// line of each include into a folder not allowed, and any circle: among
// the folders the READMEs allow, and among the files as they include each
// other.
//
// Nothing here lists the folders: a folder added to src/ is held to its
// README as soon as it has one (and the suite fails until it does).
//
// SRC_DIR is src/; the Makefile passes an absolute path, the default suits
// running from the project root.
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/readfile.h"
#include "suite.h"

#ifndef SRC_DIR
#define SRC_DIR "src"
#endif

// A folder's name, a file's path under src/ (folder/name), an #include's
// name, and a path from / (SRC_DIR/folder/name).
enum { MAX_FOLDERS = 32, MAX_FILES = 1024, NAME_LEN = 256, PATH_LEN = 520, FULL_LEN = 4096 };

// One folder of src/ and what its README allows.
typedef struct {
    char name[NAME_LEN];
    bool has_rule;               // its README has an "Includes:" paragraph
    bool any;                    // it may include every folder
    bool allowed[MAX_FOLDERS];   // by index into the layout's folders
    char rule[256];              // the paragraph, for the messages
} folder;

// One .c or .h file of src/ and the files of src/ it includes.
typedef struct {
    char path[PATH_LEN];  // "models/seq2seq.c"
    int folder;
    int *includes, n_includes;
} source;

typedef struct {
    folder folders[MAX_FOLDERS];
    int n_folders;
    source *files;
    int n_files;
    FILE *report;  // what is wrong, one line each
    char *text;
    size_t len;
    int problems;
} layout;

static void problem(layout *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(layout *l, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("  ", l->report);
    vfprintf(l->report, fmt, ap);
    fputc('\n', l->report);
    va_end(ap);
    l->problems++;
}

static int folder_index(const layout *l, const char *name, size_t len) {
    for (int i = 0; i < l->n_folders; i++)
        if (strlen(l->folders[i].name) == len && strncmp(l->folders[i].name, name, len) == 0)
            return i;
    return -1;
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const folder *)a)->name, ((const folder *)b)->name);
}

// The subfolders of src/, sorted by name.
static void list_folders(layout *l) {
    DIR *d = opendir(SRC_DIR);
    ck_assert_msg(d != NULL, "cannot open %s", SRC_DIR);
    for (struct dirent *e; (e = readdir(d));) {
        char path[FULL_LEN];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", SRC_DIR, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        ck_assert_msg(l->n_folders < MAX_FOLDERS, "more than %d folders in src/", MAX_FOLDERS);
        snprintf(l->folders[l->n_folders++].name, NAME_LEN, "%s", e->d_name);
    }
    closedir(d);
    qsort(l->folders, (size_t)l->n_folders, sizeof *l->folders, by_name);
}

// Whether the paragraph says "any" or "every" as a word.
static bool says_any(const char *s) {
    for (const char *p = s; *p; p++) {
        if (p > s && isalpha((unsigned char)p[-1])) continue;
        if ((strncasecmp(p, "any", 3) == 0 && !isalpha((unsigned char)p[3])) ||
            (strncasecmp(p, "every", 5) == 0 && !isalpha((unsigned char)p[5])))
            return true;
    }
    return false;
}

// Folder f's "Includes:" paragraph (the last, up to a blank line), read
// into what it allows; each `name/` it names must be a folder of src/.
static void read_rule(layout *l, int f) {
    folder *fo = &l->folders[f];
    char path[FULL_LEN];
    snprintf(path, sizeof path, "%s/%s/README.md", SRC_DIR, fo->name);
    size_t len;
    char *text = read_whole_file(path, &len);
    if (!text) {
        problem(l, "src/%s/ has no README.md saying what it may include", fo->name);
        return;
    }
    const char *start = NULL;
    for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, "Includes:", 9) == 0) start = p;
    if (!start) {
        problem(l, "src/%s/README.md has no line \"Includes: ...\" naming the folders it may "
                   "include", fo->name);
        free(text);
        return;
    }
    const char *end = strstr(start, "\n\n");
    size_t n = end ? (size_t)(end - start) : strlen(start);
    snprintf(fo->rule, sizeof fo->rule, "%.*s", (int)n, start);
    for (char *c = fo->rule; *c; c++)
        if (*c == '\n') *c = ' ';
    for (size_t k = strlen(fo->rule); k > 0 && fo->rule[k - 1] == ' '; k--) fo->rule[k - 1] = '\0';
    fo->has_rule = true;
    fo->allowed[f] = true;
    bool names = false;
    for (const char *p = strchr(fo->rule, '`'); p; p = strchr(p + 1, '`')) {
        const char *q = strchr(p + 1, '`');
        if (!q) break;
        size_t k = (size_t)(q - p - 1);
        if (k > 1 && p[k] == '/') {
            int to = folder_index(l, p + 1, k - 1);
            if (to < 0)
                problem(l, "src/%s/README.md: \"%s\" names %.*s, which is not a folder of src/",
                        fo->name, fo->rule, (int)k, p + 1);
            else fo->allowed[to] = true;
            names = true;
        }
        p = q;
    }
    fo->any = !names && says_any(fo->rule);
    free(text);
}

static void add_file(layout *l, int f, const char *name) {
    ck_assert_msg(l->n_files < MAX_FILES, "more than %d files in src/", MAX_FILES);
    source *s = &l->files[l->n_files++];
    snprintf(s->path, sizeof s->path, "%s/%s", l->folders[f].name, name);
    s->folder = f;
    s->includes = NULL;
    s->n_includes = 0;
}

static int file_index(const layout *l, const char *path) {
    for (int i = 0; i < l->n_files; i++)
        if (strcmp(l->files[i].path, path) == 0) return i;
    return -1;
}

// The .c and .h files of every folder.
static void list_files(layout *l) {
    l->files = calloc(MAX_FILES, sizeof *l->files);
    ck_assert_ptr_nonnull(l->files);
    for (int f = 0; f < l->n_folders; f++) {
        char path[FULL_LEN];
        snprintf(path, sizeof path, "%s/%s", SRC_DIR, l->folders[f].name);
        DIR *d = opendir(path);
        ck_assert_msg(d != NULL, "cannot open %s", path);
        for (struct dirent *e; (e = readdir(d));) {
            size_t n = strlen(e->d_name);
            if (n > 2 && e->d_name[n - 2] == '.' && (e->d_name[n - 1] == 'c' || e->d_name[n - 1] == 'h'))
                add_file(l, f, e->d_name);
        }
        closedir(d);
    }
}

// The quoted name of an #include line, into out; false for any other line
// (an #include <...> of the C library among them).
static bool quoted_include(const char *line, char *out, size_t cap) {
    while (*line == ' ' || *line == '\t') line++;
    if (*line++ != '#') return false;
    while (*line == ' ' || *line == '\t') line++;
    if (strncmp(line, "include", 7) != 0) return false;
    line += 7;
    while (*line == ' ' || *line == '\t') line++;
    if (*line++ != '"') return false;
    const char *end = strchr(line, '"');
    if (!end || (size_t)(end - line) >= cap) return false;
    snprintf(out, cap, "%.*s", (int)(end - line), line);
    return true;
}

// One #include "name" at line `at` of file i: held to the file's folder's
// rule, and recorded as an edge when it names a file of src/.
static void check_include(layout *l, int i, int at, const char *name) {
    source *s = &l->files[i];
    const folder *from = &l->folders[s->folder];
    char target[FULL_LEN];
    const char *slash = strchr(name, '/');
    if (!slash) {  // a file beside it
        snprintf(target, sizeof target, "%s/%s", from->name, name);
    } else {
        int to = folder_index(l, name, (size_t)(slash - name));
        if (to < 0) {
            problem(l, "src/%s:%d: #include \"%s\": %.*s is not a folder of src/", s->path, at,
                    name, (int)(slash - name), name);
            return;
        }
        if (from->has_rule && !from->any && !from->allowed[to])
            problem(l, "src/%s:%d: #include \"%s\": src/%s/ may not include %s/ (its README: "
                       "\"%s\")", s->path, at, name, from->name, l->folders[to].name, from->rule);
        snprintf(target, sizeof target, "%s", name);
    }
    int t = file_index(l, target);
    if (t < 0) return;
    s->includes = realloc(s->includes, sizeof *s->includes * (size_t)(s->n_includes + 1));
    ck_assert_ptr_nonnull(s->includes);
    s->includes[s->n_includes++] = t;
}

static void read_includes(layout *l, int i) {
    char path[FULL_LEN], name[PATH_LEN];
    snprintf(path, sizeof path, "%s/%s", SRC_DIR, l->files[i].path);
    size_t len;
    char *text = read_whole_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    int at = 1;
    for (char *line = text; line; at++) {
        char *next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (quoted_include(line, name, sizeof name)) check_include(l, i, at, name);
        line = next;
    }
    free(text);
}

// Starts l's report afresh: each test reports only its own problems.
static void new_report(layout *l) {
    if (l->report) fclose(l->report);
    free(l->text);
    l->text = NULL;
    l->len = 0;
    l->problems = 0;
    l->report = open_memstream(&l->text, &l->len);
    ck_assert_ptr_nonnull(l->report);
}

// The folders of src/ and their READMEs' rules; what is wrong with them in
// l->problems and the report.
static void read_rules(layout *l) {
    memset(l, 0, sizeof *l);
    new_report(l);
    list_folders(l);
    for (int f = 0; f < l->n_folders; f++) read_rule(l, f);
}

// Then the files and their includes, in a new report: the includes the
// rules do not allow (a folder without a rule is left to read_rules'
// report).
static void read_sources(layout *l) {
    new_report(l);
    list_files(l);
    for (int i = 0; i < l->n_files; i++) read_includes(l, i);
}

static void layout_free(layout *l) {
    for (int i = 0; i < l->n_files; i++) free(l->files[i].includes);
    free(l->files);
    if (l->report) fclose(l->report);
    free(l->text);
}

// ---------------------------------------------------------------- circles

// A graph of n nodes whose edges edge(l, a, b) says, and a depth-first walk
// from a that finds a circle: state 0 not seen, 1 on the current path, 2
// done. On a circle, path holds it, from its first node round to that node
// again, and the walk returns its length (0: none).
typedef bool (*edge_fn)(const layout *l, int a, int b);

static int find_circle(const layout *l, int n, edge_fn edge, int a, int *state, int *path,
                       int depth) {
    state[a] = 1;
    path[depth] = a;
    for (int b = 0; b < n; b++) {
        if (b == a || !edge(l, a, b)) continue;
        if (state[b] == 1) {  // back to a node on the path: the circle runs from b
            int k = 0;
            while (path[k] != b) k++;
            memmove(path, path + k, sizeof *path * (size_t)(depth + 1 - k));
            path[depth + 1 - k] = b;
            return depth + 2 - k;
        }
        if (state[b] == 0) {
            int len = find_circle(l, n, edge, b, state, path, depth + 1);
            if (len > 0) return len;
        }
    }
    state[a] = 2;
    return 0;
}

// The nodes of a circle, if there is one (its length, 0 if none).
static int any_circle(const layout *l, int n, edge_fn edge, int *path) {
    int *state = calloc((size_t)n, sizeof *state);
    ck_assert_ptr_nonnull(state);
    int len = 0;
    for (int a = 0; a < n && len == 0; a++)
        if (state[a] == 0) len = find_circle(l, n, edge, a, state, path, 0);
    free(state);
    return len;
}

// Folder a may include folder b: its README names b, or says any folder.
static bool folder_allows(const layout *l, int a, int b) {
    return l->folders[a].any || l->folders[a].allowed[b];
}

// File a includes file b.
static bool file_includes(const layout *l, int a, int b) {
    const source *s = &l->files[a];
    for (int k = 0; k < s->n_includes; k++)
        if (s->includes[k] == b) return true;
    return false;
}

// ---------------------------------------------------------------- tests

static void expect_no_problems(layout *l, const char *what) {
    fflush(l->report);
    ck_assert_msg(l->problems == 0, "%s: %d problem%s:\n%s", what, l->problems,
                  l->problems == 1 ? "" : "s", l->text);
}

START_TEST(every_folder_says_what_it_may_include) {
    layout l;
    read_rules(&l);
    ck_assert_int_gt(l.n_folders, 1);
    expect_no_problems(&l, "the folders of src/ and their READMEs");
    layout_free(&l);
}
END_TEST

START_TEST(every_include_stays_in_the_layers_its_readme_allows) {
    layout l;
    read_rules(&l);
    read_sources(&l);
    ck_assert_int_gt(l.n_files, 1);
    expect_no_problems(&l, "the includes of src/ against each folder's README");
    layout_free(&l);
}
END_TEST

// A circle of path (len nodes, the last the first again), named by name.
static void report_circle(layout *l, const int *path, int len,
                          const char *(*name)(const layout *, int), const char *what) {
    if (len == 0) return;
    char *chain = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&chain, &size);
    ck_assert_ptr_nonnull(f);
    for (int k = 0; k < len; k++) fprintf(f, "%s%s", k ? " -> " : "", name(l, path[k]));
    fclose(f);
    problem(l, "%s: %s", chain, what);
    free(chain);
}

static const char *folder_name(const layout *l, int f) { return l->folders[f].name; }
static const char *file_name(const layout *l, int i) { return l->files[i].path; }

START_TEST(the_layers_allowed_form_no_circle) {
    layout l;
    read_rules(&l);
    new_report(&l);  // the READMEs' own problems are the first test's
    int path[MAX_FOLDERS + 1];
    int len = any_circle(&l, l.n_folders, folder_allows, path);
    report_circle(&l, path, len, folder_name, "each README allows the next folder");
    expect_no_problems(&l, "a circle among the folders the READMEs allow");
    layout_free(&l);
}
END_TEST

START_TEST(no_file_includes_itself_round_a_circle) {
    layout l;
    read_rules(&l);
    read_sources(&l);
    new_report(&l);  // the includes' own problems are the second test's
    int *path = calloc(MAX_FILES + 1, sizeof *path);
    ck_assert_ptr_nonnull(path);
    int len = any_circle(&l, l.n_files, file_includes, path);
    report_circle(&l, path, len, file_name, "each includes the next");
    free(path);
    expect_no_problems(&l, "a circle among the files of src/");
    layout_free(&l);
}
END_TEST

int main(void) {
    Suite *s = suite_create("layers");
    TCase *tc = tcase_create("layers");
    tcase_add_test(tc, every_folder_says_what_it_may_include);
    tcase_add_test(tc, every_include_stays_in_the_layers_its_readme_allows);
    tcase_add_test(tc, the_layers_allowed_form_no_circle);
    tcase_add_test(tc, no_file_includes_itself_round_a_circle);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
