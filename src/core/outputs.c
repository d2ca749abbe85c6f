// outputs.c: see outputs.h.
#define _POSIX_C_SOURCE 200809L
#include "core/outputs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

// Whether name is one the run may write or remove: <program>-*.dat, or a
// leftover <program>-*.dat.tmp.PID.
static bool written_name(const char *program, const char *name) {
    size_t n = strlen(program);
    return strncmp(name, program, n) == 0 && name[n] == '-' && strstr(name + n, ".dat");
}

static bool same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

// Whether the input path is the entry: the file it names (a hard link of
// the entry included), or any symbolic link on the way there, a link to a
// link to the entry as much as the entry itself.
static bool reaches(const char *input, const struct stat *entry) {
    struct stat st;
    char path[PATH_MAX], target[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", input) >= (int)sizeof path) return false;
    for (int hops = 0; hops < 40; hops++) {  // Linux follows no more than 40 links
        if (lstat(path, &st) != 0) return false;
        if (same_file(&st, entry)) return true;
        if (!S_ISLNK(st.st_mode)) return false;
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n < 0) return false;
        target[n] = '\0';
        // a relative link is read from the folder that holds it
        char *slash = strrchr(path, '/');
        size_t keep = target[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
        if (keep + (size_t)n >= sizeof path) return false;
        memcpy(path + keep, target, (size_t)n + 1);
    }
    return false;
}

bool data_spares_inputs(const char *program, const char *dir, const char *const *inputs, int n) {
    if (!dir) return true;
    DIR *d = opendir(dir);
    if (!d && errno == ENOMEM) {
        fprintf(stderr, "%s: error: out of memory\n", program);
        return false;
    }
    if (!d) return true;  // parse_options made it writable; one it cannot list holds no input of ours
    bool spared = true;
    struct dirent *e;
    while (spared && (e = readdir(d))) {
        char path[PATH_MAX];
        struct stat entry;
        if (!written_name(program, e->d_name)) continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
        if (lstat(path, &entry) != 0) continue;
        for (int i = 0; i < n && spared; i++) {
            if (!inputs[i]) continue;
            if (!reaches(inputs[i], &entry)) continue;
            fprintf(stderr, "%s: error: --data %s would replace the input %s (it is %s); "
                    "write the figure data into another folder\n", program, dir, inputs[i], path);
            spared = false;
        }
    }
    closedir(d);
    return spared;
}
