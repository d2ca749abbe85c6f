// cleanup.h: temporary files removed when a signal ends the process.
//
// A program that writes a file under a temporary name and renames it into
// place registers the temporary name here while it writes. If SIGINT,
// SIGTERM, SIGHUP, SIGPIPE or SIGXFSZ (a file past `ulimit -f`) then ends
// the process, the handler removes the file and the process ends as the
// signal's default action ends it (the same exit status a shell sees). A
// signal the process inherited as ignored stays ignored (nohup; SIGXFSZ
// ignored makes a write past the limit fail with EFBIG instead, which the
// writer reports), and one with a handler of its own keeps it.
#ifndef ATTN_CLEANUP_H
#define ATTN_CLEANUP_H

#include <stdbool.h>

// Removes path if one of those signals ends the process, until
// keep_on_signal(path). False (and nothing registered) when path is too
// long or CLEANUP_SLOTS files are registered already: then a killed run
// leaves the file, as it would without this. Any thread may call it.
#define CLEANUP_SLOTS 8
bool remove_on_signal(const char *path);

// Forgets path: call it after the file is renamed into place or removed.
void keep_on_signal(const char *path);

// mkstemp(tmpl), the new file registered as remove_on_signal does with no
// moment between in which one of those signals could end the process and
// leave it: they wait, blocked, from before the file exists until it is
// registered. The descriptor, or -1 with errno set.
int mkstemp_removed_on_signal(char *tmpl);

#endif
