// cleanup.c: see cleanup.h.
#define _POSIX_C_SOURCE 200809L
#include "core/cleanup.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// A slot is FREE, then CLAIMED while its path is copied in, then ARMED:
// the handler reads only armed paths, and a slot's state is a lock-free
// atomic, so that the handler never waits and never reads a path half
// written.
enum { FREE, CLAIMED, ARMED };
static char paths[CLEANUP_SLOTS][PATH_MAX];
static atomic_int state[CLEANUP_SLOTS];

static const int SIGNALS[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};
#define N_SIGNALS (sizeof SIGNALS / sizeof *SIGNALS)

// Only what is async-signal-safe: unlink, then the signal again, which
// stays blocked until the handler returns and then takes its default
// action (SA_RESETHAND put it back).
static void on_signal(int sig) {
    int saved = errno;
    for (int k = 0; k < CLEANUP_SLOTS; k++)
        if (atomic_load(&state[k]) == ARMED) unlink(paths[k]);
    raise(sig);
    errno = saved;
}

// Installs the handler for each signal whose action is the default, at
// every registration: a signal set back to the default since (as a forked
// child may do) gets it again; one ignored or handled otherwise is left
// alone. Two threads installing at once install the same thing.
static void install(void) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_SIGNALS; i++) sigaddset(&sa.sa_mask, SIGNALS[i]);
    for (size_t i = 0; i < N_SIGNALS; i++)
        if (sigaction(SIGNALS[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
            old.sa_handler == SIG_DFL)
            sigaction(SIGNALS[i], &sa, NULL);
}

bool remove_on_signal(const char *path) {
    size_t len = strlen(path);
    if (len >= PATH_MAX) return false;
    install();
    for (int k = 0; k < CLEANUP_SLOTS; k++) {
        int expected = FREE;
        if (!atomic_compare_exchange_strong(&state[k], &expected, CLAIMED)) continue;
        memcpy(paths[k], path, len + 1);
        atomic_store(&state[k], ARMED);
        return true;
    }
    return false;
}

int mkstemp_removed_on_signal(char *tmpl) {
    install();
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < N_SIGNALS; i++) sigaddset(&block, SIGNALS[i]);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(tmpl);
    int saved = errno;
    if (fd >= 0) remove_on_signal(tmpl);
    pthread_sigmask(SIG_SETMASK, &old, NULL);  // a signal that came meanwhile ends the run now
    errno = saved;
    return fd;
}

void keep_on_signal(const char *path) {
    for (int k = 0; k < CLEANUP_SLOTS; k++) {
        if (atomic_load(&state[k]) != ARMED || strcmp(paths[k], path) != 0) continue;
        atomic_store(&state[k], FREE);
        return;
    }
}
