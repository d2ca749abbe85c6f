// fail_alloc.c: allocations that fail on request, for `make oom`.
//
// Linked into the programs with -Wl,--wrap=malloc and the others below, so
// that every call the project's code makes to one of these functions comes
// here first (calls made inside the C library or cJSON's own code do not;
// cJSON allocates through src/text/json.c's hooks, which do). Each call is
// known by its return address: the place in the code that called it, one
// per call in the source once the code is built with
// -fno-optimize-sibling-calls (no call becomes a jump) and without PIE
// (the addresses are the same in every run).
//
// Set in the environment:
//   OOM_FAIL_AT=N       the N-th call (1, 2, ...) of the run fails
//   OOM_FAIL_SITE=A,B   the first call from any of these addresses (hex)
//                       fails; later ones succeed
//   OOM_SITES=FILE      at exit, write the number of calls and each address
//                       that called, with its count, into FILE
//   OOM_SITES_SEEN=FILE append each address that calls when it first calls,
//                       in any process of the run: a child that a fork made
//                       and that ends with _exit writes no OOM_SITES
//   OOM_FAILED=FILE     when a call is made to fail, append its address
// A failed call returns what the real one returns when memory runs out:
// NULL (or -1 for getline) with errno ENOMEM.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
ssize_t __real_getline(char **line, size_t *cap, FILE *f);
FILE *__real_open_memstream(char **buf, size_t *size);
char *__real_realpath(const char *path, char *resolved);
FILE *__real_fopen(const char *path, const char *mode);
FILE *__real_fdopen(int fd, const char *mode);
DIR *__real_opendir(const char *path);

#define MAX_FAIL_SITES 64
#define SEEN_SLOTS 4096  // a power of two, far above the project's call sites

static atomic_long calls;
static long fail_at;
static uintptr_t fail_sites[MAX_FAIL_SITES];
static int n_fail_sites;
static atomic_bool site_failed;
static int failed_fd = -1;
static int seen_fd = -1;
static const char *sites_path;
static _Atomic uintptr_t seen_site[SEEN_SLOTS];
static atomic_long seen_count[SEEN_SLOTS];

__attribute__((constructor)) static void read_settings(void) {
    const char *at = getenv("OOM_FAIL_AT");
    if (at) fail_at = strtol(at, NULL, 10);
    const char *sites = getenv("OOM_FAIL_SITE");
    while (sites && *sites && n_fail_sites < MAX_FAIL_SITES) {
        char *end;
        unsigned long long a = strtoull(sites, &end, 16);
        if (end == sites) break;
        fail_sites[n_fail_sites++] = (uintptr_t)a;
        sites = *end == ',' ? end + 1 : end;
    }
    const char *failed = getenv("OOM_FAILED");
    if (failed) failed_fd = open(failed, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    sites_path = getenv("OOM_SITES");
    const char *seen = getenv("OOM_SITES_SEEN");
    if (seen) seen_fd = open(seen, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

// Counts the call from `site` in the table of sites (lock-free: threads
// claim a slot with a compare-and-swap).
static void note_site(uintptr_t site) {
    size_t slot = (size_t)(site * 0x9E3779B97F4A7C15u >> 40) & (SEEN_SLOTS - 1);
    for (size_t probe = 0; probe < SEEN_SLOTS; probe++, slot = (slot + 1) & (SEEN_SLOTS - 1)) {
        uintptr_t expected = 0;
        if (atomic_load(&seen_site[slot]) == site) {
            atomic_fetch_add(&seen_count[slot], 1);
            return;
        }
        if (atomic_compare_exchange_strong(&seen_site[slot], &expected, site)) {
            atomic_fetch_add(&seen_count[slot], 1);
            if (seen_fd >= 0) {  // the first call from site in this process and its parents
                char line[32];
                int len = snprintf(line, sizeof line, "%lx\n", (unsigned long)site);
                if (write(seen_fd, line, (size_t)len) != len) _exit(90);
            }
            return;
        }
        if (expected == site) {
            atomic_fetch_add(&seen_count[slot], 1);
            return;
        }
    }
}

// Whether the call from `site` is to fail. Writes the site to OOM_FAILED
// when it is, with write(2): nothing here may allocate.
static bool should_fail(void *return_address) {
    uintptr_t site = (uintptr_t)return_address;
    long n = atomic_fetch_add(&calls, 1) + 1;
    if (sites_path || seen_fd >= 0) note_site(site);
    bool fail = fail_at > 0 && n == fail_at;
    for (int i = 0; !fail && i < n_fail_sites; i++) {
        bool no = false;
        if (fail_sites[i] == site) fail = atomic_compare_exchange_strong(&site_failed, &no, true);
    }
    if (fail && failed_fd >= 0) {
        char line[32];
        int len = snprintf(line, sizeof line, "%lx\n", (unsigned long)site);
        if (write(failed_fd, line, (size_t)len) != len) _exit(90);
    }
    return fail;
}

__attribute__((destructor)) static void write_sites(void) {
    if (!sites_path) return;
    int fd = open(sites_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    char line[64];
    int len = snprintf(line, sizeof line, "calls %ld\n", atomic_load(&calls));
    bool ok = write(fd, line, (size_t)len) == len;
    for (size_t i = 0; ok && i < SEEN_SLOTS; i++) {
        uintptr_t site = atomic_load(&seen_site[i]);
        if (!site) continue;
        len = snprintf(line, sizeof line, "%lx %ld\n", (unsigned long)site, atomic_load(&seen_count[i]));
        ok = write(fd, line, (size_t)len) == len;
    }
    close(fd);
}

#define FAIL_WITH(value)                                   \
    do {                                                   \
        if (should_fail(__builtin_return_address(0))) {    \
            errno = ENOMEM;                                \
            return value;                                  \
        }                                                  \
    } while (0)

void *__wrap_malloc(size_t n) {
    FAIL_WITH(NULL);
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size) {
    FAIL_WITH(NULL);
    return __real_calloc(n, size);
}

void *__wrap_aligned_alloc(size_t alignment, size_t n) {
    FAIL_WITH(NULL);
    return __real_aligned_alloc(alignment, n);
}

void *__wrap_realloc(void *p, size_t n) {
    FAIL_WITH(NULL);
    return __real_realloc(p, n);
}

char *__wrap_strdup(const char *s) {
    FAIL_WITH(NULL);
    return __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n) {
    FAIL_WITH(NULL);
    return __real_strndup(s, n);
}

ssize_t __wrap_getline(char **line, size_t *cap, FILE *f) {
    FAIL_WITH(-1);
    return __real_getline(line, cap, f);
}

FILE *__wrap_open_memstream(char **buf, size_t *size) {
    FAIL_WITH(NULL);
    return __real_open_memstream(buf, size);
}

char *__wrap_realpath(const char *path, char *resolved) {
    FAIL_WITH(NULL);
    return __real_realpath(path, resolved);
}

FILE *__wrap_fopen(const char *path, const char *mode) {
    FAIL_WITH(NULL);
    return __real_fopen(path, mode);
}

FILE *__wrap_fdopen(int fd, const char *mode) {
    FAIL_WITH(NULL);
    return __real_fdopen(fd, mode);
}

DIR *__wrap_opendir(const char *path) {
    FAIL_WITH(NULL);
    return __real_opendir(path);
}
