// chapter10.c: attention at the machine's limit. The machine's ceilings
// measured (the peak rate of fused multiply-adds, the library's product,
// the memory's bandwidth, the caches), then one head of attention (d = 64)
// the naive way, with its n x n weights in memory, and tiled, for n from
// 256 to 65,536: time, rate, share of the peak and the peak memory of each.
//
// Chapter 10 follows no notebook; its blocks are labelled [P10.1] to [P10.6]:
//   [P10.1] the machine: caches, peak rate, the product, memory bandwidth
//   [P10.2] counting: the operations and bytes of each pass, at n = 4,096
//   [P10.3] the forward pass against n: naive until its weights pass
//           --max-memory, tiled to the end
//   [P10.4] causal, and backward: both ways at n = 4,096, on all threads
//           by the clock, then on one thread by its processor time
//   [P10.5] chapter 9's model trained with each attention (chapter10_training.h)
//   [P10.6] the training steps of chapters 7, 8 and 9 against the peak, their
//           MFU (chapter10_mfu.h)
//
// Each measurement runs in a child process of its own (fork), so that its
// peak memory (getrusage's ru_maxrss) is its own and not the largest of
// the run so far, and so that a measurement that runs out of memory ends
// only the child. The parent computes nothing before its last fork, and so
// starts no threads before it forks (OpenMP's threads do not survive a
// fork); [P10.5] and [P10.6], which fork nothing, come last.
//
// Times are wall-clock, the best of repetitions; rates are the operations
// counted over that time, and shares are of the peak of all the cores the
// threads run on. The peak is each core's best over short bursts
// (machine.h), what an idle machine gives; on a machine that runs other
// work too, the attention's times come out longer and their shares lower.
//
// --blocks runs some of the blocks only (--blocks P10.5,P10.6); the shares of
// [P10.3], [P10.4] and [P10.6] then still need [P10.1]'s peaks, which are
// measured without being printed when [P10.1] is not among them.
//
// Usage: ./chapter10 [--max-n N] [--max-memory MB] [--steps N] [--blocks LIST]
//                    [--seed N] [--data DIR]
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/cli.h"
#include "core/clock.h"
#include "core/print.h"
#include "core/rng.h"
#include "kernels/attention_tiles.h"
#include "kernels/gemm_fast.h"
#include "kernels/machine.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"
#include "layers/naive_attention.h"
#include "layers/tiled_attention.h"
#include "programs/chapter10_mfu.h"
#include "programs/chapter10_training.h"

#define PROGRAM "chapter10"
#define DEFAULT_SEED 1
#define D 64                 // the head's width
#define MIN_N 256
#define MAX_N 65536
#define COUNT_N 4096         // the size of [P10.2] and [P10.4]
#define GEMM_N 1024          // the product of [P10.1]: GEMM_N^3, 2 GEMM_N^3 operations
#define MIN_SECONDS 0.2      // a measurement repeats until it has run this long
#define PEAK_SECONDS 0.3     // each thread's time at the peak kernel
#define TRAINING_STEPS 12    // [P10.5]'s and [P10.6]'s steps, unless --steps says
#define MEMORY_SHARE 8       // --max-memory's default: this share of the machine's memory
#define BLOCKS 6             // [P10.1] to [P10.6]

// The blocks' labels, as their header lines print them, in order.
static const char *const BLOCK_LABELS[BLOCKS] = {"P10.1", "P10.2", "P10.3", "P10.4", "P10.5", "P10.6"};

// ---------------------------------------------------------------- measuring in a child

// What a child sends back.
typedef struct {
    int status;        // 0, or 1 when it ran out of memory
    double wall;       // seconds, the best repetition
    double cpu;        // its processor seconds, all threads together
    double value;      // a measurement's own number (a rate)
    double peak_mb;    // the child's peak memory
} measured;

typedef void (*measure_fn)(measured *m, const void *arg);

// Runs fn(arg) in a child process and returns what it measured; status -1
// when the child could not be started or died.
static measured in_child(measure_fn fn, const void *arg) {
    measured m = {-1, 0, 0, 0, 0};
    int fd[2];
    if (pipe(fd) != 0) return m;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return m;
    }
    if (pid == 0) {
        close(fd[0]);
        measured r;
        memset(&r, 0, sizeof r);  // the padding too: every byte goes down the pipe
        fn(&r, arg);
        struct rusage use;
        r.peak_mb = getrusage(RUSAGE_SELF, &use) == 0 ? use.ru_maxrss / 1024.0 : 0;
        _exit(write(fd[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    measured r;
    bool got = read(fd[0], &r, sizeof r) == (ssize_t)sizeof r;
    close(fd[0]);
    int status;
    if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && got) m = r;
    return m;
}

// The processor time of this process so far, its threads together.
static double cpu_seconds(void) {
    struct timespec t;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) == 0 ? (double)t.tv_sec + 1e-9 * t.tv_nsec : 0;
}

// The best wall time of repetitions of one call, until MIN_SECONDS have
// passed (at least one, at most 50), and the best processor time.
typedef void (*timed_fn)(const void *arg);

static void time_best(measured *m, timed_fn fn, const void *arg) {
    m->wall = m->cpu = INFINITY;
    double started = now_seconds();
    for (int rep = 0; rep < 50 && (rep == 0 || now_seconds() - started < MIN_SECONDS); rep++) {
        double t0 = now_seconds(), c0 = cpu_seconds();
        fn(arg);
        m->wall = fmin(m->wall, now_seconds() - t0);
        m->cpu = fmin(m->cpu, cpu_seconds() - c0);
    }
}

// ---------------------------------------------------------------- [P10.1] the machine

typedef struct {
    int threads;
    long stream_bytes;  // each of the triad's three arrays
} machine_arg;

static void measure_peak(measured *m, const void *arg) {
    m->value = machine_peak_flops(((const machine_arg *)arg)->threads, PEAK_SECONDS);
}

static void measure_stream(measured *m, const void *arg) {
    const machine_arg *a = arg;
    m->value = machine_stream_bandwidth(a->threads, (size_t)a->stream_bytes, 5);
    if (m->value == 0) m->status = 1;
}

typedef struct {
    float *a, *b, *c;
} gemm_arg;

// c += a b, GEMM_N square, blocks of 64 rows of c shared among the threads.
static void gemm_once(const void *arg) {
    const gemm_arg *g = arg;
    simd_level level = simd_best();
    PARALLEL_FOR(1)
    for (int i0 = 0; i0 < GEMM_N; i0 += 64)
        gemm_fast_rows(level, g->c, g->a, g->b, GEMM_N, GEMM_N, GEMM_N, GEMM_AB, i0, i0 + 64);
}

static void measure_gemm(measured *m, const void *arg) {
    parallel_set_threads(((const machine_arg *)arg)->threads);
    long nn = (long)GEMM_N * GEMM_N;
    gemm_arg g = {calloc(nn, sizeof(float)), calloc(nn, sizeof(float)), calloc(nn, sizeof(float))};
    if (g.a && g.b && g.c) {
        torch_rng r;
        rng_seed(&r, 1);
        rng_uniform(&r, g.a, nn, -1, 1);
        rng_uniform(&r, g.b, nn, -1, 1);
        time_best(m, gemm_once, &g);
        m->value = 2.0 * nn * GEMM_N / m->wall;
    } else {
        m->status = 1;
    }
    free(g.a);
    free(g.b);
    free(g.c);
}

// ---------------------------------------------------------------- attention

typedef struct {
    int n;
    bool naive, causal, backward;
    uint64_t seed;
    bool one_thread;  // on one thread, its rate per processor-second
} attention_arg;

typedef struct {
    const attention_arg *a;
    float *q, *k, *v, *dout, *out, *lse, *dq, *dk, *dv, *w, *dw;
} attention_run;

static void forward_once(const void *arg) {
    const attention_run *r = arg;
    int n = r->a->n;
    float scale = 1 / sqrtf(D);
    if (r->a->naive) naive_attention_forward(r->out, r->w, r->q, r->k, r->v, n, D, scale, r->a->causal);
    else tiled_attention_forward(r->out, r->lse, r->q, r->k, r->v, n, D, scale, r->a->causal);
}

static void backward_once(const void *arg) {
    const attention_run *r = arg;
    int n = r->a->n;
    float scale = 1 / sqrtf(D);
    if (r->a->naive)
        naive_attention_backward(r->dq, r->dk, r->dv, r->dw, r->dout, r->w, r->q, r->k, r->v, n, D, scale,
                                 r->a->causal);
    else
        tiled_attention_backward(r->dq, r->dk, r->dv, r->dout, r->q, r->k, r->v, r->out, r->lse, n, D, scale,
                                 r->a->causal);
}

// One block for all the arrays of a measurement (NULL when out of memory).
static float *attention_block(const attention_arg *a) {
    long nd = (long)a->n * D, nn = a->naive ? (long)a->n * a->n : 0;
    return calloc(8 * nd + a->n + (a->backward ? 2 : 1) * nn, sizeof(float));
}

// One pass of attention as arg says, timed; value its rate. Its arrays
// are carved from one block.
static void measure_attention(measured *m, const void *arg) {
    const attention_arg *a = arg;
    long nd = (long)a->n * D, nn = a->naive ? (long)a->n * a->n : 0;
    attention_run r = {.a = a};
    float **arrays[] = {&r.q, &r.k, &r.v, &r.dout, &r.out, &r.dq, &r.dk, &r.dv};
    float *block = attention_block(a);
    if (!block) {
        m->status = 1;
        return;
    }
    for (int i = 0; i < 8; i++) *arrays[i] = block + i * nd;
    r.lse = block + 8 * nd;
    r.w = r.lse + a->n;
    r.dw = r.w + nn;
    if (a->one_thread) parallel_set_threads(1);
    torch_rng g;
    rng_seed(&g, a->seed);
    for (int i = 0; i < 4; i++) rng_uniform(&g, *arrays[i], nd, -1, 1);
    if (a->backward) forward_once(&r);
    time_best(m, a->backward ? backward_once : forward_once, &r);
    if (a->one_thread) m->wall = m->cpu;  // the time it ran
    m->value = attention_flops(a->n, D, a->causal, a->backward) / m->wall;
    free(block);
}

// measure_attention in a child. The parent first asks for the child's
// block and gives it back untouched (a large calloc maps pages without
// using them, so the parent's peak memory does not grow): where the block
// cannot be had, the parent finds it out itself (status 1).
static measured attention_in_child(const attention_arg *a) {
    float *probe = attention_block(a);
    if (!probe) return (measured){1, 0, 0, 0, 0};
    free(probe);
    return in_child(measure_attention, a);
}

// Bytes naive attention's n x n arrays take: w forward, w and dw backward.
static double naive_bytes(int n, bool backward) { return (backward ? 2.0 : 1.0) * n * (double)n * sizeof(float); }

// ---------------------------------------------------------------- printing

typedef struct {
    long long max_n, max_memory_mb, steps;  // steps: [P10.5]'s and [P10.6]'s
    uint64_t seed;
    const char *data_dir;
    double peak1, peak_all, gemm1, gemm_all, bandwidth;  // [P10.1]'s measurements
    long last_cache;                                     // bytes of the largest cache
    bool run[BLOCKS];                                    // the blocks to run, [P10.1] first
} run_options;

// A child's failure, said; false then.
static bool child_ok(const measured *m, const char *what) {
    if (m->status == 0) return true;
    if (m->status == 1) fprintf(stderr, PROGRAM ": error: out of memory (%s)\n", what);
    else fprintf(stderr, PROGRAM ": error: the measurement of %s failed\n", what);
    return false;
}

// False when they cannot be read.
static bool print_caches(FILE *out, run_options *o) {
    cache_info caches[8];
    int found = machine_caches(caches, 8);
    if (found < 0) {
        if (errno == ENOMEM) fprintf(stderr, PROGRAM ": error: out of memory\n");
        else fprintf(stderr, PROGRAM ": error: cannot read the caches from sysfs: %s\n", strerror(errno));
        return false;
    }
    fputs("caches of cpu0:", out);
    for (int i = 0; i < found; i++)  // two to a line, so that the line fits the book's page
        fprintf(out, "%s%sL%d %s %ld KiB", i ? "," : "", i % 2 ? " " : "\n  ", caches[i].level, caches[i].type,
                caches[i].bytes / 1024);
    fputs(found ? "\n" : " not listed by this system\n", out);
    o->last_cache = 0;
    for (int i = 0; i < found; i++)
        if (caches[i].bytes > o->last_cache) o->last_cache = caches[i].bytes;
    return true;
}

// The ceilings for the roofline figure: one line of numbers, FLOP/s and
// bytes/s.
static bool write_machine(const run_options *o) {
    const char *name = PROGRAM "-machine.dat";
    FILE *f = open_data_file(PROGRAM, o->data_dir, name);
    if (!f) return false;
    fputs("# peak_one_core peak_all_cores gemm_one_core gemm_all_cores bandwidth (FLOP/s, B/s)\n", f);
    fprintf(f, "%.6g %.6g %.6g %.6g %.6g\n", o->peak1, o->peak_all, o->gemm1, o->gemm_all, o->bandwidth);
    return close_data_file(PROGRAM, f, o->data_dir, name);
}

// The peaks alone, for the shares of the blocks after [P10.1] when it is
// not run itself: false when a measurement failed.
static bool measure_peaks(run_options *o) {
    machine_arg one = {1, 0}, every = {parallel_threads(), 0};
    measured p1 = in_child(measure_peak, &one), pa = in_child(measure_peak, &every);
    if (!child_ok(&p1, "the peak") || !child_ok(&pa, "the peak")) return false;
    o->peak1 = p1.value, o->peak_all = pa.value;
    return true;
}

// Naive attention's forward at COUNT_N: operations over the bytes of its
// n x n arrays' four passes and its inputs and output (the chapter's d / 4).
static double naive_intensity(void) {
    double n = COUNT_N, d = D;
    return attention_flops(COUNT_N, D, false, false) / (4 * (4 * n * n + 4 * n * d));
}

// [P10.1]: false when a measurement failed.
static bool machine_block(FILE *out, run_options *o) {
    print_cell(out, BLOCK_LABELS[0], "the machine's ceilings");
    if (!print_caches(out, o)) return false;
    int all = parallel_threads();
    // the triad's arrays: four times the largest cache each, so that they stream from memory
    long stream = o->last_cache > 0 ? 4 * o->last_cache : 64L << 20;
    machine_arg one = {1, stream}, every = {all, stream};
    measured p1 = in_child(measure_peak, &one), pa = in_child(measure_peak, &every);
    measured g1 = in_child(measure_gemm, &one), ga = in_child(measure_gemm, &every);
    measured bw = in_child(measure_stream, &every);
    if (!child_ok(&p1, "the peak") || !child_ok(&pa, "the peak") || !child_ok(&g1, "the product") ||
        !child_ok(&ga, "the product") || !child_ok(&bw, "the bandwidth"))
        return false;
    o->peak1 = p1.value, o->peak_all = pa.value, o->gemm1 = g1.value, o->gemm_all = ga.value;
    o->bandwidth = bw.value;
    fprintf(out, "vector instructions: %s\n", simd_name(simd_best()));
    fprintf(out, "peak, independent fused multiply-adds: one core %.1f GFLOP/s,\n"
            "  all cores (threads: %d) %.1f GFLOP/s\n",
            o->peak1 / 1e9, all, o->peak_all / 1e9);
    fprintf(out, "the library's product (gemm_fast), %d x %d times %d x %d:\n"
            "  one core %.1f GFLOP/s (%.0f%% of peak), all cores %.1f GFLOP/s (%.0f%% of peak)\n", GEMM_N, GEMM_N, GEMM_N, GEMM_N, o->gemm1 / 1e9,
            100 * o->gemm1 / o->peak1, o->gemm_all / 1e9, 100 * o->gemm_all / o->peak_all);
    fprintf(out, "memory bandwidth, triad a = b + s c over arrays of %ld MiB: %.1f GB/s\n", stream >> 20,
            o->bandwidth / 1e9);
    fprintf(out, "ridge point: peak / bandwidth = %.1f FLOP/B (a kernel doing fewer operations\n"
            "  per byte moved waits for memory)\n", o->peak_all / o->bandwidth);
    fprintf(out, "naive attention at d = %d, %.0f FLOP/B (block P10.2), lies\n  %s\n", D,
            naive_intensity(), ridge_side(naive_intensity(), o->peak_all / o->bandwidth));
    return o->data_dir ? write_machine(o) : true;
}

// A row of [P10.2]: each count's formula, and its value under it.
static void count_row(FILE *out, const char *pass, const char *ops_formula, double ops, const char *naive_formula,
                      double naive, const char *tiled_formula, double tiled) {
    fprintf(out, "%-10s %-14s %-27s %s\n", pass, ops_formula, naive_formula, tiled_formula);
    fprintf(out, "%-10s = %-12.3g = %-25.3g = %.3g\n", "", ops, naive, tiled);
}

// [P10.2]: the counts at COUNT_N, from the formulas of the chapter. Bytes
// are 4 a float; "naive" counts the n x n arrays' passes, "tiled" the
// reads of blocks that come from the caches once the inputs are there.
static void counting_block(FILE *out) {
    print_cell(out, BLOCK_LABELS[1], "counting the operations and the bytes, n = 4096, d = 64, float");
    double n = COUNT_N, d = D, blocks = ceil(n / ATTN_TILE);
    fputs("pass       operations     naive bytes, n x n arrays   tiled bytes, blocks of 64\n", out);
    // forward. naive: s written by q k^T, read and written by the softmax,
    // read by w v; q, k, v read and out written once. tiled: q read and out
    // written once, k and v read once per block of queries.
    count_row(out, "forward", "4 n^2 d", attention_flops(COUNT_N, D, false, false), "4 (4 n^2 + 4 n d)",
              4 * (4 * n * n + 4 * n * d), "4 (2 n d + 2 n d N)", 4 * (2 * n * d + 2 * n * d * blocks));
    // backward. naive: w read for dv, dw written by dout v^T, then read with
    // w and written as ds, read and written by the scaling, read for dq and
    // for dk; q, k, v, dout read and dq, dk, dv written. tiled: pass 1 reads
    // q, dout, out (and lse) once per block of keys, pass 2 k and v once per
    // block of queries; each block's own rows read and written once.
    count_row(out, "backward", "10 n^2 d", attention_flops(COUNT_N, D, false, true), "4 (9 n^2 + 7 n d)",
              4 * (9 * n * n + 7 * n * d), "4 (5 n d N + 8 n d)", 4 * (5 * n * d * blocks + 8 * n * d));
    fputs("causal: tiled does half the operations (the tiles above the diagonal are skipped) and\n"
          "moves about half the bytes; naive computes all n^2 scores and moves its n x n arrays whole.\n", out);
    fprintf(out, "N = n / 64 = %.0f blocks. From memory, tiled reads each input and writes each output\n"
            "about once while k and v (2 n d floats, %.0f MiB) fit in the last cache: 4 (4 n d) = %.3g\n"
            "bytes forward, %.0f operations a byte; naive moves its n x n arrays, %.0f a byte.\n",
            blocks, 8 * n * d / (1 << 20), 16 * n * d, attention_flops(COUNT_N, D, false, false) / (16 * n * d),
            naive_intensity());
}

// One row of [P10.3]'s table, and of its figure's data.
typedef struct {
    int n;
    measured naive, tiled;  // naive.status -2: not run, over the budget
} size_row;

static void print_side(FILE *out, const measured *m) {
    if (m->status == -2) fputs("       -                -          -  ", out);
    else fprintf(out, "%8.1f ms %6.1f GFLOP/s %6.0f MB", m->wall * 1e3, m->value / 1e9, m->peak_mb);
}

static void print_size_row(FILE *out, const size_row *r) {
    fprintf(out, "%6d | ", r->n);
    print_side(out, &r->naive);
    fputs(" | ", out);
    print_side(out, &r->tiled);
    fputc('\n', out);
}

// The figure's data: n, then time (ms) and peak memory (MB) of each, NaN
// where naive did not run.
static bool write_sizes(const run_options *o, const size_row *rows, int count) {
    const char *name = PROGRAM "-memory.dat";
    FILE *f = open_data_file(PROGRAM, o->data_dir, name);
    if (!f) return false;
    fputs("# n naive_ms naive_MB tiled_ms tiled_MB (one head, d = 64, forward)\n", f);
    for (int i = 0; i < count; i++) {
        const measured *a = &rows[i].naive, *b = &rows[i].tiled;
        fprintf(f, "%d ", rows[i].n);
        if (a->status == 0) fprintf(f, "%.6g %.6g", a->wall * 1e3, a->peak_mb);
        else fputs("NaN NaN", f);  // gnuplot leaves these points out
        fprintf(f, " %.6g %.6g\n", b->wall * 1e3, b->peak_mb);
    }
    return close_data_file(PROGRAM, f, o->data_dir, name);
}

// [P10.3]: false when a measurement failed.
static bool sizes_block(FILE *out, const run_options *o) {
    print_cell(out, BLOCK_LABELS[2], "the forward pass against n (one head, d = 64)");
    fprintf(out, "naive attention stops where its n x n weights would pass --max-memory (%lld MB);\n"
            "each measurement runs in a process of its own, its peak memory its own (getrusage)\n",
            o->max_memory_mb);
    fprintf(out, "%6s | %-34s | %s\n", "n", "naive: time, rate, peak memory", "tiled: the same");
    size_row rows[16];
    int count = 0;
    bool naive_on = true;
    for (long n = MIN_N; n <= o->max_n && count < 16; n *= 2, count++) {
        size_row *r = &rows[count];
        r->n = (int)n;
        attention_arg tiled = {(int)n, false, false, false, o->seed, false}, naive = tiled;
        naive.naive = true;
        double need = naive_bytes((int)n, false) / (1 << 20);
        if (naive_on && need > o->max_memory_mb) {
            fprintf(out, "naive stops: at n = %ld its %ld x %ld weights would take %.0f MiB, over --max-memory\n", n, n, n,
                    need);
            naive_on = false;
        }
        r->naive = naive_on ? attention_in_child(&naive) : (measured){-2, 0, 0, 0, 0};
        r->tiled = attention_in_child(&tiled);
        if ((naive_on && !child_ok(&r->naive, "naive attention")) || !child_ok(&r->tiled, "tiled attention"))
            return false;
        print_size_row(out, r);
        fflush(out);
    }
    return o->data_dir ? write_sizes(o, rows, count) : true;
}

// Two lines of [P10.4]: naive (when its arrays fit) and tiled attention, a
// pass on all threads (against the peak of all cores) or on one thread
// (timed by its processor time, against one core's peak).
static bool pass_lines(FILE *out, const run_options *o, int n, int pass, bool one_thread) {
    const char *names[] = {"forward", "forward, causal", "backward", "backward, causal"};
    bool causal = pass % 2, backward = pass >= 2;
    double peak = one_thread ? o->peak1 : o->peak_all;
    for (int naive = 1; naive >= 0; naive--) {
        attention_arg a = {n, naive, causal, backward, o->seed, one_thread};
        char name[40];
        snprintf(name, sizeof name, "%s %s", naive ? "naive" : "tiled", names[pass]);
        if (naive && naive_bytes(n, backward) / (1 << 20) > o->max_memory_mb) {
            fprintf(out, "%-24s its n x n arrays would pass --max-memory\n", name);
            continue;
        }
        measured m = attention_in_child(&a);
        if (!child_ok(&m, name)) return false;
        fprintf(out, "%-24s %8.1f ms %6.1f GFLOP/s %3.0f%% of peak %6.0f MB\n", name, m.wall * 1e3, m.value / 1e9,
                100 * m.value / peak, m.peak_mb);
    }
    return true;
}

// [P10.4]: the causal forward pass and the backward passes at n = COUNT_N
// (or --max-n, when smaller), on all threads, then on one.
static bool passes_block(FILE *out, const run_options *o) {
    int n = o->max_n < COUNT_N ? (int)o->max_n : COUNT_N;
    char title[96];
    snprintf(title, sizeof title, "causal, and backward, at n = %d", n);
    print_cell(out, BLOCK_LABELS[3], title);
    fputs("backward: 10 n^2 d operations counted (tiled attention does 14: it computes the\n"
          "scores and dp twice, once for dk and dv, once for dq)\n", out);
    for (int one = 0; one <= 1; one++) {
        fputs(one ? "on one thread, timed by its processor time (the time it ran, whatever else ran\n"
                    "beside it), against one core's peak:\n"
                  : "on all threads, by the clock, against the peak of all cores:\n", out);
        for (int pass = 0; pass < 4; pass++)
            if (!pass_lines(out, o, n, pass, one)) return false;
    }
    return true;
}

// ---------------------------------------------------------------- [P10.5] training

static bool training_block(FILE *out, const run_options *o) {
    attention_training r;
    char err[256];
    if (attention_training_run(&r, (int)o->steps, o->seed, err, sizeof err) != 0) {
        fprintf(stderr, PROGRAM ": error: %s\n", err);
        return false;
    }
    attention_training_print(out, &r);
    return true;
}

// [P10.6]: the steps of chapters 7, 8 and 9 against [P10.1]'s peak of all cores.
static bool mfu_block(FILE *out, const run_options *o) {
    mfu_table t;
    char err[256];
    if (mfu_run(&t, (int)o->steps, o->peak_all, o->seed, err, sizeof err) != 0) {
        fprintf(stderr, PROGRAM ": error: %s\n", err);
        return false;
    }
    mfu_print(out, &t);
    return o->data_dir ? mfu_write(&t, PROGRAM, o->data_dir) : true;
}

// ---------------------------------------------------------------- main

// The machine's memory in MB, from sysconf; 0 when it does not say.
static long long machine_memory_mb(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (long long)pages * size / (1 << 20) : 0;
}

// Reads --blocks' list ("P10.5,P10.6": labels, each once at most) into
// o->run (core/cli.h's parse_name_list); false, with the reason said, when
// an item is empty, no block's label, or named twice.
static bool parse_blocks(const char *list, run_options *o) {
    if (parse_name_list(list, BLOCK_LABELS, BLOCKS, o->run)) return true;
    fprintf(stderr, PROGRAM ": error: --blocks needs block labels separated by commas, none empty or "
            "repeated: %s to %s, as in \"%s,%s\"\n", BLOCK_LABELS[0], BLOCK_LABELS[BLOCKS - 1],
            BLOCK_LABELS[BLOCKS - 2], BLOCK_LABELS[BLOCKS - 1]);
    return false;
}

int main(int argc, char **argv) {
    long long memory = machine_memory_mb();
    run_options o = {.max_n = MAX_N, .max_memory_mb = memory > 0 ? memory / MEMORY_SHARE : 1024,
                     .steps = TRAINING_STEPS};
    char usage[2048];
    snprintf(usage, sizeof usage,
             "[--max-n N] [--max-memory MB] [--steps N] [--blocks LIST] [--seed N] [--data DIR]\n"
             "\n"
             "Measures this machine's ceilings (the peak rate of fused multiply-adds, the\n"
             "library's product, memory bandwidth, the caches), then times one head of\n"
             "attention (d = 64) the naive way, with its n x n weights in memory, and\n"
             "tiled, for n = 256, 512, ... up to --max-n: time, rate, share of the peak,\n"
             "peak memory; then the causal and the backward passes at n = 4096; then\n"
             "chapter 9's model trained a few steps with each attention; then the\n"
             "training steps of chapters 7, 8 and 9 timed against the peak.\n"
             "\n"
             "  --max-n N        the largest n (default %d); the sizes double from %d\n"
             "  --max-memory MB  naive attention runs only where its n x n weights fit in MB\n"
             "                   (default %lld: an eighth of this machine's memory, %lld MB;\n"
             "                   at most half of it)\n"
             "  --steps N        training steps of each model in [P10.5], and those timed\n"
             "                   of each in [P10.6] (default %d)\n"
             "  --blocks LIST    only these blocks, their labels joined by commas, in any\n"
             "                   order: --blocks P10.5,P10.6 (default: all of them)\n"
             "  --seed N         random seed of the inputs, and of the models and batches of\n"
             "                   [P10.5] and [P10.6] (default %d)\n"
             "  --data DIR       also write the figure data (chapter10-*.dat) into DIR\n"
             "  --help           this message\n",
             MAX_N, MIN_N, o.max_memory_mb, memory, TRAINING_STEPS, DEFAULT_SEED);
    common_options opts = {DEFAULT_SEED, NULL};
    const char *blocks = NULL;
    for (int i = 0; i < BLOCKS; i++) o.run[i] = true;
    extra_option extra[] = {
        {"--max-n", OPT_INTEGER, &o.max_n, MIN_N, MAX_N, "queries and keys"},
        // at most half the machine: the rest for the system and the other arrays, never a swap storm
        {"--max-memory", OPT_INTEGER, &o.max_memory_mb, 1, memory > 1 ? (double)(memory / 2) : 1e12, "MB"},
        {"--steps", OPT_INTEGER, &o.steps, 1, TRAINING_MAX_STEPS, "training steps"},
        {"--blocks", OPT_STRING, &blocks, 0, 0, "a list of blocks"},
    };
    int done = cli_exit_status(parse_options_with(argc, argv, PROGRAM, usage, &opts, extra, 4));
    if (done >= 0) return done;
    if (blocks && !parse_blocks(blocks, &o)) {
        fprintf(stderr, "usage: " PROGRAM " %.*s\n", (int)strcspn(usage, "\n"), usage);
        return 2;
    }
    o.seed = opts.seed;
    o.data_dir = opts.data_dir;
    double started = now_seconds();
    puts("Chapter 10 follows no notebook: its blocks are this program's own, [P10.1] to [P10.6].\n"
         "Times are the best of repetitions; shares are of the peak of all the cores used.");
    // the shares of [P10.3], [P10.4] and [P10.6] are of [P10.1]'s peaks
    bool ok = o.run[0] ? machine_block(stdout, &o) : !(o.run[2] || o.run[3] || o.run[5]) || measure_peaks(&o);
    if (ok && o.run[1]) counting_block(stdout);
    ok = ok && (!o.run[2] || sizes_block(stdout, &o)) && (!o.run[3] || passes_block(stdout, &o)) &&
         (!o.run[4] || training_block(stdout, &o)) && (!o.run[5] || mfu_block(stdout, &o));
    if (ok) printf("\nthe whole run took %.0f s (threads: %d)\n", now_seconds() - started, parallel_threads());
    return ok && finish_output(PROGRAM) ? 0 : 1;
}
