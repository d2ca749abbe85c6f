// machine.c: the machine's ceilings, measured. See machine.h.
#define _POSIX_C_SOURCE 200809L  // clock_gettime and CLOCK_THREAD_CPUTIME_ID
#include "kernels/machine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"

#ifdef SIMD_X86
#include <immintrin.h>
#endif

// ACC independent chains of multiply-adds, x = x a + b, `reps` rounds: no
// chain waits for another, so the processor can start one (or two) every
// cycle however long each one takes. Returns a sum of the chains so that
// the compiler keeps the work. 2 ACC VEC flops a round.
enum { ACC = 12, MAX_THREADS = 256 };

#ifdef SIMD_X86
__attribute__((target("avx512f"))) static float fma_chains_avx512(long reps) {
    __m512 x[ACC], a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < ACC; i++) x[i] = _mm512_set1_ps((float)i);
    for (long r = 0; r < reps; r++)
#pragma GCC unroll 12
        for (int i = 0; i < ACC; i++) x[i] = _mm512_fmadd_ps(x[i], a, b);
    float s = 0;
    for (int i = 0; i < ACC; i++) s += _mm512_reduce_add_ps(x[i]);
    return s;
}

//> fma-chains
__attribute__((target("avx2,fma"))) static float fma_chains_avx2(long reps) {
    __m256 x[ACC], a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (int i = 0; i < ACC; i++) x[i] = _mm256_set1_ps((float)i);
    for (long r = 0; r < reps; r++)
#pragma GCC unroll 12
        for (int i = 0; i < ACC; i++) x[i] = _mm256_fmadd_ps(x[i], a, b);
    float lanes[8], s = 0;
    for (int i = 0; i < ACC; i++) {
        _mm256_storeu_ps(lanes, x[i]);
        for (int j = 0; j < 8; j++) s += lanes[j];
    }
    return s;
}
//< fma-chains
#endif

static float fma_chains_scalar(long reps) {
    float x[ACC], s = 0;
    for (int i = 0; i < ACC; i++) x[i] = (float)i;
    for (long r = 0; r < reps; r++)
#pragma GCC unroll 12
        for (int i = 0; i < ACC; i++) x[i] = x[i] * 0.999999f + 1e-7f;
    for (int i = 0; i < ACC; i++) s += x[i];
    return s;
}

// The floats in the widest vector there is.
static int lanes(simd_level level) { return level == SIMD_AVX512 ? 16 : level == SIMD_AVX2 ? 8 : 1; }

// Runs reps rounds on vectors of that level.
static float fma_chains(simd_level level, long reps) {
#ifdef SIMD_X86
    if (level == SIMD_AVX512) return fma_chains_avx512(reps);
    if (level == SIMD_AVX2) return fma_chains_avx2(reps);
#endif
    (void)level;
    return fma_chains_scalar(reps);
}

// The thread's own processor time.
static double thread_seconds(void) {
    struct timespec t;
    return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0 ? (double)t.tv_sec + 1e-9 * t.tv_nsec : 0;
}

double machine_peak_flops(int threads, double seconds) {
    int keep = parallel_threads();
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    parallel_set_threads(threads);
    simd_level level = simd_best();
    double flops = 2.0 * ACC * lanes(level), best[MAX_THREADS] = {0}, total = 0;
    float sink[MAX_THREADS] = {0};
    PARALLEL_FOR(threads > 1)
    for (int t = 0; t < threads; t++) {  // each thread its best rate, on its own clock
        long reps = 1 << 12;
        for (double start = now_seconds(); now_seconds() - start < seconds;) {
            double t0 = thread_seconds();
            sink[t] += fma_chains(level, reps);
            double dt = thread_seconds() - t0;
            if (dt > 0 && flops * reps / dt > best[t]) best[t] = flops * reps / dt;
            if (dt < 2e-3) reps *= 2;  // too short to time well: longer
        }
    }
    for (int t = 0; t < threads; t++) total += best[t] + (sink[t] == 12345.0f);  // the sink read, so the work is kept
    parallel_set_threads(keep);
    return total;
}

double machine_stream_bandwidth(int threads, size_t bytes, int tries) {
    long n = (long)(bytes / sizeof(float));
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double best = 0;
    if (a && b && c) {
        int keep = parallel_threads();
        parallel_set_threads(threads);
        long chunk = 1 << 16;
        long chunks = (n + chunk - 1) / chunk;
        PARALLEL_FOR(threads > 1)  // each thread touches first the pages it will use
        for (long k = 0; k < chunks; k++)
            for (long i = k * chunk; i < n && i < (k + 1) * chunk; i++) a[i] = 0, b[i] = 1, c[i] = 2;
        for (int t = 0; t < tries; t++) {
            double t0 = now_seconds();
            PARALLEL_FOR(threads > 1)
            for (long k = 0; k < chunks; k++)
                for (long i = k * chunk; i < n && i < (k + 1) * chunk; i++) a[i] = b[i] + 3 * c[i];
            double rate = 12.0 * n / (now_seconds() - t0);
            if (rate > best) best = rate;
        }
        parallel_set_threads(keep);
    }
    free(a);
    free(b);
    free(c);
    return best;
}

// The first line of a small sysfs file, without its newline: 1; 0 when
// there is no such file; -1 when it cannot be read (errno says why).
static int read_line(const char *path, char *buf, int size) {
    FILE *f = fopen(path, "r");
    if (!f) return errno == ENOENT ? 0 : -1;
    int ok = fgets(buf, size, f) != NULL;
    fclose(f);
    if (!ok) return 0;
    buf[strcspn(buf, "\n")] = '\0';
    return 1;
}

int machine_caches(cache_info *caches, int max) {
    int found = 0;
    for (int index = 0; found < max; index++) {
        char path[96], level[16], type[16], size[32];
        const char *dir = "/sys/devices/system/cpu/cpu0/cache";
        const char *names[] = {"level", "type", "size"};
        char *into[] = {level, type, size};
        int sizes[] = {sizeof level, sizeof type, sizeof size}, got = 1;
        for (int i = 0; i < 3 && got == 1; i++) {
            snprintf(path, sizeof path, "%s/index%d/%s", dir, index, names[i]);
            got = read_line(path, into[i], sizes[i]);
        }
        if (got < 0) return -1;
        if (got == 0) break;
        char *end;
        long bytes = strtol(size, &end, 10);
        if (*end == 'K') bytes *= 1024;
        else if (*end == 'M') bytes *= 1024 * 1024;
        cache_info *c = &caches[found++];
        c->level = atoi(level);
        snprintf(c->type, sizeof c->type, "%s", type);
        c->bytes = bytes;
    }
    return found;
}
