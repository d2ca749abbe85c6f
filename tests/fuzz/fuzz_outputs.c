// fuzz_outputs.c: libFuzzer target for data_spares_inputs (core/outputs.h):
// whether the figure data a run writes under --data DIR would replace one
// of the files the run reads.
//
// The input's bytes build a small tree in a folder of the target's own:
//   real/          the data folder, up to 8 entries: names the run writes
//                  (<program>-*.dat, leftovers <program>-*.dat.tmp.N) and
//                  names it leaves alone, each a file, a symbolic link (to
//                  an input, to a missing file, to an entry) or a hard link
//                  of a file;
//   other/         the inputs in0..in3 and two symbolic links s0, s1;
//   link, olink    symbolic links to real/ and other/;
// then --data (real/ spelled directly, through link, with "..", "./",
// "//", relative to the working folder; a missing folder; NULL) and up to
// 4 inputs naming any of those files in such spellings, some NULL, some
// missing.
//
// The oracle asks nothing of how the function decides: it does what a run
// does, renames a new file over every entry whose name the run writes, and
// looks whether an input now reads otherwise (other content, no longer
// readable, or readable where it was not). An input that is the same file
// (device and inode) as such an entry beforehand, a hard link, is in
// danger too, as outputs.h says, though the rename leaves its content. The
// function must refuse exactly when an input is in danger, with one line on
// stderr naming --data DIR, an input in danger and the entry that
// endangers it (checked by renaming over that entry alone); and must print
// nothing when it lets the run go on.
#include "../../src/core/outputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ENTRIES 8
#define MAX_INPUTS 4
#define PATH_LEN 512
#define N_TARGETS (5 + MAX_ENTRIES)  // in0..in3, a missing file, an entry

static char root[64];            // the target's own folder, made once
static char rel_root[PATH_LEN];  // the same, relative to the working folder

// The data folder's names; "%s" is the program. Bit p of written is set
// when program p writes or removes the name: it begins with "<program>-"
// and holds ".dat". Written out here, not computed, so that the oracle
// does not share the function's test.
static const char *const programs[2] = {"ch", "chap"};
static const struct {
    const char *format;
    unsigned written;
} names[] = {
    {"%s-a.dat", 3},   {"%s-b.dat", 3},   {"%s-a.dat.tmp.7", 3}, {"%s-.dat", 3},
    {"%s-x.data", 3},  {"ch-c.dat", 1},   {"chap-c.dat", 2},     {"%s-a.txt", 0},
    {"%sa.dat", 0},    {"x-%s-a.dat", 0}, {"%s-adat", 0},        {"%s.dat", 0},
    {"in0", 0},        {"%s-a.DAT", 0},
};
#define N_NAMES (int)(sizeof names / sizeof names[0])

enum { PLAIN, SYMLINK, HARDLINK };

typedef struct {
    char name[64];
    int kind, target;  // target: what a link names, one of N_TARGETS
    bool absolute;     // a symbolic link's text: from the root, or relative
    bool written;      // the run would rename a file over it
} entry;

typedef struct {
    int program;
    char dir[PATH_LEN];
    bool dir_null, writes;  // writes: dir is real/, where the run writes
    int n_entries;
    entry e[MAX_ENTRIES];
    int s_target[2];
    bool s_absolute[2];
    int n_inputs;
    char input[MAX_INPUTS][PATH_LEN];
    bool input_null[MAX_INPUTS];
} tree;

typedef struct {
    const uint8_t *p;
    size_t n;
} bytes;

// The next byte modulo range; 0 once the input is used up.
static int take(bytes *b, int range) {
    if (!b->n) return 0;
    b->n--;
    return *b->p++ % range;
}

// out = the path of `name` in folder (real or other), spelled the way
// `spelling` says; every spelling names the same file.
static void spell(char *out, const char *folder, const char *name, int spelling) {
    bool data = strcmp(folder, "real") == 0;
    const char *link = data ? "link" : "olink", *sibling = data ? "other" : "real";
    switch (spelling) {
    case 0: snprintf(out, PATH_LEN, "%s/%s/%s", root, folder, name); break;
    case 1: snprintf(out, PATH_LEN, "%s/%s/%s", root, link, name); break;
    case 2: snprintf(out, PATH_LEN, "%s/%s/../%s/%s", root, sibling, folder, name); break;
    case 3: snprintf(out, PATH_LEN, "%s/%s/%s", rel_root, folder, name); break;
    case 4: snprintf(out, PATH_LEN, "./%s/%s/../%s//%s", rel_root, link, folder, name); break;
    default: snprintf(out, PATH_LEN, "%s//%s/./%s", root, folder, name); break;
    }
}

static void decode_dir(tree *t, int spelling) {
    static const char *const tails[] = {"/real", "/link", "/real/", "//real", "/other/../real",
                                        "/link/.", "/real/./", "/missing"};
    t->dir_null = spelling == 8;
    t->writes = spelling < 7 || spelling == 9;
    if (spelling == 9)
        snprintf(t->dir, PATH_LEN, "./%s/link/", rel_root);
    else if (spelling < 8)
        snprintf(t->dir, PATH_LEN, "%s%s", root, tails[spelling]);
}

// An input: NULL, in0..in3, s0, s1, a missing file of other/, or an entry
// of real/ (a missing written name when there is no such entry).
static void decode_input(tree *t, int k, int what, int spelling) {
    char name[64];
    t->input_null[k] = what == 0;
    if (what == 0) return;
    if (what >= 8) {
        if (what - 8 < t->n_entries)
            snprintf(name, sizeof name, "%s", t->e[what - 8].name);
        else
            snprintf(name, sizeof name, "%s-none.dat", programs[t->program]);
        spell(t->input[k], "real", name, spelling);
        return;
    }
    if (what <= 4) snprintf(name, sizeof name, "in%d", what - 1);
    else if (what <= 6) snprintf(name, sizeof name, "s%d", what - 5);
    else snprintf(name, sizeof name, "none");
    spell(t->input[k], "other", name, spelling);
}

static void decode(tree *t, const uint8_t *data, size_t size) {
    bytes b = {data, size};
    memset(t, 0, sizeof *t);
    t->program = take(&b, 2);
    decode_dir(t, take(&b, 10));
    int wanted = take(&b, MAX_ENTRIES + 1);
    for (int i = 0; i < wanted; i++) {
        entry *e = &t->e[t->n_entries];
        int n = take(&b, N_NAMES);
        snprintf(e->name, sizeof e->name, names[n].format, programs[t->program]);
        e->written = names[n].written >> t->program & 1;
        e->kind = take(&b, 3);
        e->target = take(&b, N_TARGETS);
        e->absolute = take(&b, 2);
        bool again = false;  // a name given twice makes one entry
        for (int j = 0; j < t->n_entries; j++) again = again || !strcmp(t->e[j].name, e->name);
        if (!again) t->n_entries++;
    }
    for (int s = 0; s < 2; s++) {
        t->s_target[s] = take(&b, N_TARGETS);
        t->s_absolute[s] = take(&b, 2);
    }
    t->n_inputs = take(&b, MAX_INPUTS + 1);
    for (int k = 0; k < t->n_inputs; k++) {
        int what = take(&b, 16);
        decode_input(t, k, what, take(&b, 6));
    }
}

// The text of a symbolic link in real/ (from_data) or other/ to target.
static void link_text(char *out, const tree *t, int target, bool absolute, bool from_data) {
    char name[64];
    const char *folder = "other";
    if (target < 4) {
        snprintf(name, sizeof name, "in%d", target);
    } else if (target == 4) {
        snprintf(name, sizeof name, "none");
    } else {
        folder = "real";
        snprintf(name, sizeof name, "%s", target - 5 < t->n_entries ? t->e[target - 5].name
                                                                      : "nothing");
    }
    bool here = strcmp(folder, from_data ? "real" : "other") == 0;
    if (absolute)  // from other/ an entry is reached through link, one link more
        snprintf(out, PATH_LEN, "%s/%s/%s", root, from_data || here ? folder : "link", name);
    else
        snprintf(out, PATH_LEN, "%s%s%s%s", here ? "" : "../", here ? "" : folder,
                 here ? "" : "/", name);
}

static int counter;  // each new file's content is its own

static void put_file(const char *path) {
    char text[32];
    int n = snprintf(text, sizeof text, "file %d\n", ++counter);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) != 0) abort();
}

static void at_root(char *out, const char *folder, const char *name) {
    snprintf(out, PATH_LEN, "%s/%s/%s", root, folder, name);
}

static void build(const tree *t) {
    char path[PATH_LEN], text[PATH_LEN], name[64];
    at_root(path, "real", "");
    if (mkdir(path, 0755) != 0) abort();
    at_root(path, "other", "");
    if (mkdir(path, 0755) != 0) abort();
    snprintf(path, PATH_LEN, "%s/link", root);
    if (symlink("real", path) != 0) abort();
    snprintf(path, PATH_LEN, "%s/olink", root);
    if (symlink("other", path) != 0) abort();
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "in%d", k);
        at_root(path, "other", name);
        put_file(path);
    }
    bool regular[MAX_ENTRIES];  // hard links are made of regular files only
    for (int i = 0; i < t->n_entries; i++) {
        const entry *e = &t->e[i];
        int j = e->target - 5;
        at_root(path, "real", e->name);
        regular[i] = e->kind != SYMLINK;
        if (e->kind == SYMLINK) {
            link_text(text, t, e->target, e->absolute, true);
            if (symlink(text, path) != 0) abort();
        } else if (e->kind == HARDLINK && (e->target < 4 || (j >= 0 && j < i && regular[j]))) {
            snprintf(name, sizeof name, "in%d", e->target);
            at_root(text, e->target < 4 ? "other" : "real", e->target < 4 ? name : t->e[j].name);
            if (link(text, path) != 0) abort();
        } else {
            put_file(path);
        }
    }
    for (int s = 0; s < 2; s++) {
        link_text(text, t, t->s_target[s], t->s_absolute[s], false);
        snprintf(path, PATH_LEN, "%s/other/s%d", root, s);
        if (symlink(text, path) != 0) abort();
    }
}

static void empty_folder(const char *folder) {
    char path[PATH_LEN];
    at_root(path, folder, "");
    DIR *d = opendir(path);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        at_root(path, folder, e->d_name);
        unlink(path);
    }
    closedir(d);
    at_root(path, folder, "");
    rmdir(path);
}

static void clear(void) {
    char path[PATH_LEN];
    empty_folder("real");
    empty_folder("other");
    snprintf(path, PATH_LEN, "%s/link", root);
    unlink(path);
    snprintf(path, PATH_LEN, "%s/olink", root);
    unlink(path);
}

// What reading a path gives: its text, or the error that stopped it.
typedef struct {
    int error;
    char text[32];
} content;

static content read_content(const char *path) {
    content c = {0, ""};
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        c.error = errno;
        return c;
    }
    ssize_t n = read(fd, c.text, sizeof c.text - 1);
    if (n < 0) c.error = errno;
    else c.text[n] = '\0';
    close(fd);
    return c;
}

// Builds t afresh and finds which inputs a run endangers, by doing what it
// does: a new file renamed over each entry it writes (only >= 0: over
// that entry alone).
static void find_danger(const tree *t, int only, bool danger[MAX_INPUTS]) {
    clear();
    build(t);
    char path[PATH_LEN], fresh[PATH_LEN];
    struct stat target[MAX_ENTRIES], st;
    bool renamed[MAX_ENTRIES];
    for (int i = 0; i < t->n_entries; i++) {
        at_root(path, "real", t->e[i].name);
        renamed[i] = t->writes && t->e[i].written && (only < 0 || only == i);
        if (renamed[i] && lstat(path, &target[i]) != 0) abort();
    }
    content before[MAX_INPUTS];
    for (int k = 0; k < t->n_inputs; k++) {
        danger[k] = false;
        if (t->input_null[k]) continue;
        before[k] = read_content(t->input[k]);
        for (int i = 0; i < t->n_entries && stat(t->input[k], &st) == 0; i++)
            if (renamed[i] && st.st_dev == target[i].st_dev && st.st_ino == target[i].st_ino)
                danger[k] = true;  // the same file as the entry: a hard link
    }
    at_root(fresh, "real", ".fresh");
    for (int i = 0; i < t->n_entries; i++) {
        if (!renamed[i]) continue;
        at_root(path, "real", t->e[i].name);
        put_file(fresh);
        if (rename(fresh, path) != 0) abort();
    }
    for (int k = 0; k < t->n_inputs; k++) {
        if (t->input_null[k]) continue;
        content after = read_content(t->input[k]);
        if (after.error != before[k].error || strcmp(after.text, before[k].text) != 0)
            danger[k] = true;
    }
}

// Shows the tree, what the oracle found and what the function said, then
// aborts: the crash report tells the case without decoding its bytes.
static void fail(const tree *t, const bool danger[MAX_INPUTS], const char *said, const char *why) {
    static const char *const kinds[] = {"file", "symbolic link to", "hard link (or a new file) of"};
    char text[PATH_LEN];
    fprintf(stderr, "fuzz_outputs: %s\nprogram %s, --data %s, the root %s\n", why,
            programs[t->program], t->dir_null ? "NULL" : t->dir, root);
    for (int i = 0; i < t->n_entries; i++) {
        const entry *e = &t->e[i];
        link_text(text, t, e->target, e->absolute, true);
        fprintf(stderr, "  real/%s%s: %s %s\n", e->name, e->written ? " (written)" : "",
                kinds[e->kind], e->kind == PLAIN ? "" : text);
    }
    for (int s = 0; s < 2; s++) {
        link_text(text, t, t->s_target[s], t->s_absolute[s], false);
        fprintf(stderr, "  other/s%d: symbolic link to %s\n", s, text);
    }
    for (int k = 0; k < t->n_inputs; k++)
        fprintf(stderr, "  input %s%s\n", t->input_null[k] ? "NULL" : t->input[k],
                danger[k] ? " (in danger)" : "");
    fprintf(stderr, "data_spares_inputs said: %s\n", said && said[0] ? said : "nothing");
    abort();
}

// The refusal: one line, "<program>: error: --data DIR would replace the
// input PATH (it is DIR/NAME)...", PATH an input that renaming over NAME
// alone puts in danger.
static void check_refusal(const tree *t, const bool all[MAX_INPUTS], const char *text) {
    char want[3 * PATH_LEN];
    size_t len = strlen(text);
    if (len == 0 || text[len - 1] != '\n' || strchr(text, '\n') != text + len - 1)
        fail(t, all, text, "not one line");
    snprintf(want, sizeof want, "%s: error: --data %s would replace the input ",
             programs[t->program], t->dir);
    if (strncmp(text, want, strlen(want)) != 0) fail(t, all, text, "not the refusal's words");
    const char *rest = text + strlen(want);
    for (int k = 0; k < t->n_inputs; k++) {
        for (int i = 0; i < t->n_entries && !t->input_null[k]; i++) {
            snprintf(want, sizeof want, "%s (it is %s/%s)", t->input[k], t->dir, t->e[i].name);
            bool danger[MAX_INPUTS];
            if (strncmp(rest, want, strlen(want)) != 0 || !t->e[i].written) continue;
            find_danger(t, i, danger);
            if (danger[k]) return;
        }
    }
    fail(t, all, text, "names no input in danger and the entry that endangers it");
}

static void remove_root(void) {
    clear();
    rmdir(root);
}

static void setup(void) {
    snprintf(root, sizeof root, "/tmp/fuzz-outputs-XXXXXX");
    if (!mkdtemp(root)) abort();
    char cwd[PATH_LEN];
    if (!getcwd(cwd, sizeof cwd)) abort();
    rel_root[0] = '\0';
    for (const char *c = cwd; *c; c++)  // one ".." a folder below "/"
        if (*c == '/' && c[1]) strcat(rel_root, "../");
    strcat(rel_root, root + 1);
    atexit(remove_root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!root[0]) setup();
    tree t;
    decode(&t, data, size);
    bool danger[MAX_INPUTS], any = false;
    find_danger(&t, -1, danger);
    for (int k = 0; k < t.n_inputs; k++) any = any || danger[k];
    clear();
    build(&t);
    const char *inputs[MAX_INPUTS];
    for (int k = 0; k < t.n_inputs; k++) inputs[k] = t.input_null[k] ? NULL : t.input[k];
    char *err_text = NULL;
    size_t err_len = 0;
    FILE *saved_err = stderr;
    stderr = open_memstream(&err_text, &err_len);
    if (!stderr) abort();
    bool spared = data_spares_inputs(programs[t.program], t.dir_null ? NULL : t.dir, inputs,
                                     t.n_inputs);
    fclose(stderr);
    stderr = saved_err;
    if (spared == any) fail(&t, danger, err_text, spared ? "spared, and an input is in danger"
                                                          : "refused, and no input is in danger");
    if (spared && err_len != 0) fail(&t, danger, err_text, "spared, and said something");
    if (!spared) check_refusal(&t, danger, err_text);
    free(err_text);
    clear();
    return 0;
}
