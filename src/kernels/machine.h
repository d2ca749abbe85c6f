// machine.h: what this machine can do at best, measured: the rate of
// independent fused multiply-adds on one core and on all cores, the rate
// of streaming memory, and the sizes of the caches. The ceilings a kernel's
// speed is set against (chapter 10's roofline): a kernel that does F
// floating-point operations per byte it moves runs at most at
// min(peak, F x bandwidth).
#ifndef ATTN_MACHINE_H
#define ATTN_MACHINE_H

#include <stddef.h>

// Floating-point operations a second (a fused multiply-add counts as two)
// of `threads` threads (parallel.h, at most 256) each running loops of
// independent float fused multiply-adds, as wide as simd_best() allows (a
// vector of 16 with AVX-512, 8 with AVX2, one number otherwise), for about
// `seconds`: the sum over the threads of each one's best rate, timed by
// the thread's own processor time, so that other work on a shared machine,
// which takes turns on the cores, does not count against it.
double machine_peak_flops(int threads, double seconds);


// Bytes a second read and written by `threads` threads running the triad
// a[i] = b[i] + s c[i] over three arrays of `bytes` each (choose them far
// larger than the last cache): 12 bytes counted per i (two floats read, one
// written), as the STREAM benchmark counts. The best of `tries`. 0 when the
// arrays cannot be allocated.
double machine_stream_bandwidth(int threads, size_t bytes, int tries);

// A cache of cpu0 as sysfs lists it (/sys/devices/system/cpu/cpu0/cache).
typedef struct {
    int level;         // 1, 2, 3
    char type[16];     // "Data", "Instruction", "Unified"
    long bytes;        // its size
} cache_info;

// Up to max caches of cpu0, in sysfs's order; the number found (0 where
// sysfs does not list them), or -1 when a file that sysfs lists cannot be
// read (errno says why: ENOMEM, out of memory).
int machine_caches(cache_info *caches, int max);

#endif
