// outputs.c: see outputs.h.
#define _POSIX_C_SOURCE 200809L
#include "core/outputs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
        struct stat entry, in, in_link;
        if (!written_name(program, e->d_name)) continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
        if (lstat(path, &entry) != 0) continue;
        for (int i = 0; i < n && spared; i++) {
            if (!inputs[i]) continue;
            bool hit = (stat(inputs[i], &in) == 0 && same_file(&in, &entry)) ||
                       (lstat(inputs[i], &in_link) == 0 && same_file(&in_link, &entry));
            if (!hit) continue;
            fprintf(stderr, "%s: error: --data %s would replace the input %s (it is %s); "
                    "write the figure data into another folder\n", program, dir, inputs[i], path);
            spared = false;
        }
    }
    closedir(d);
    return spared;
}
