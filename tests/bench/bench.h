// bench.h: what the benchmarks (bench_train.c, bench_chapter8.c, bench_chapter10.c)
// share: runs of timings and their min and median, token ids drawn by
// Zipf's law, the PyTorch script's runs read from its output, the rounds
// that take turns between PyTorch and C, and the command line's common
// options. Define PROGRAM (the benchmark's name, for its messages) before
// including it.
#ifndef ATTN_TESTS_BENCH_H
#define ATTN_TESTS_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h"
#include "core/clock.h"
#include "core/rng.h"

// Runs' times, in ms per step, pooled over the rounds.
enum { MAX_RUNS = 64, MAX_MODELS = 8 };  // chapter 10's: 4 sizes, 2 passes
typedef struct {
    double ms[MAX_RUNS];
    int n;
} runs;

static void add_run(runs *r, double ms) {
    if (r->n < MAX_RUNS) r->ms[r->n++] = ms;
}

// The comma-separated numbers from p on, into r.
static void add_runs(runs *r, const char *p) {
    for (char *end; *p && *p != '\n'; p = *end == ',' ? end + 1 : end) {
        double ms = strtod(p, &end);
        if (end == p) break;
        add_run(r, ms);
    }
}

// The min and the median of the runs, or 0 and 0 when there are none.
static void summary(const runs *r, double *min, double *median) {
    *min = *median = 0;
    if (r->n == 0) return;
    double copy[MAX_RUNS];
    memcpy(copy, r->ms, sizeof copy);
    min_median(copy, (size_t)r->n, min, median);
}

// p, or the end of the program with "out of memory" when p is NULL.
static void *checked(void *p) {
    if (!p) {
        fprintf(stderr, "%s: error: out of memory\n", PROGRAM);
        exit(1);
    }
    return p;
}

// n ids of a vocabulary of V words, in batches of `batch` tokens, drawn by
// Zipf's law as words occur in text: id r (the r-th most frequent word)
// with probability proportional to 1 / (r + 1). Returns the mean number of
// distinct ids in a batch.
static inline double zipf_ids(int32_t *X, long n, int V, long batch, torch_rng *g) {
    double *cdf = checked(malloc(sizeof *cdf * V)), sum = 0;
    unsigned char *seen = checked(calloc((size_t)V, 1));
    for (int r = 0; r < V; r++) cdf[r] = sum += 1.0 / (r + 1);
    long distinct = 0;
    for (long i = 0; i < n; i++) {
        double u = (double)rng_next_u64(g) / 18446744073709551616.0 * sum;
        int lo = 0, hi = V - 1;  // the first r with cdf[r] > u
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (cdf[mid] > u) hi = mid;
            else lo = mid + 1;
        }
        X[i] = lo;
        distinct += !seen[lo];
        seen[lo] = 1;
        if ((i + 1) % batch == 0) memset(seen, 0, (size_t)V);
    }
    free(cdf);
    free(seen);
    return (double)distinct / (double)(n / batch);
}

// ---------------------------------------------------------------- PyTorch

// PyTorch's runs: [model][threads 1, 2], their processor times on one
// thread (the scripts that print them), and the version line.
typedef struct {
    runs by[MAX_MODELS][3];
    runs cpu[MAX_MODELS];
    char version[160];
    char kernels[160];  // the OpenBLAS kernels the script chose, or ""
    int lines;          // measurements read
} torch_times;

// Runs the command and adds the runs it prints for the models named
// name[0..n-1]: lines "torch NAME threads T ms_per_step ... runs a,b,...",
// "torch_cpu NAME threads 1 runs a,b,..." and the version line "torch
// VERSION with BLAS", and "torch_kernels WHICH" when the script chose
// OpenBLAS's kernels (tests/reference/torch_timing.py). Returns 0, or -1
// when the command failed or printed no measurement.
static int run_torch(torch_times *t, const char *command, const char *const *name, int n) {
    FILE *f = popen(command, "r");
    if (!f) return -1;
    char line[2048], model[64];
    int threads, found = 0, at;
    while (fgets(line, sizeof line, f)) {
        at = 0;
        if (sscanf(line,
                   "torch %63s threads %d ms_per_step %*s %*s %*s %*s "
                   "repeats %*d steps %*d runs %n",
                   model, &threads, &at) == 2 && at > 0) {
            for (int k = 0; k < n; k++) {
                if (strcmp(model, name[k]) != 0 || threads < 1 || threads > 2) continue;
                add_runs(&t->by[k][threads], line + at);
                found++;
            }
        } else if (sscanf(line, "torch_cpu %63s threads 1 runs %n", model, &at) == 1 && at > 0) {
            for (int k = 0; k < n; k++)
                if (strcmp(model, name[k]) == 0) add_runs(&t->cpu[k], line + at);
        } else if (strncmp(line, "torch_kernels ", 14) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(t->kernels, sizeof t->kernels, "%.150s", line + 14);
        } else if (strncmp(line, "torch ", 6) == 0 && strstr(line, " with ")) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(t->version, sizeof t->version, "%.150s", line + 6);
        }
    }
    int status = pclose(f);
    t->lines += found;
    return status == 0 && found > 0 ? 0 : -1;
}

// ---------------------------------------------------------------- options

typedef struct {
    int steps, repeats, rounds;
    const char *torch;  // the command that runs the PyTorch script, or NULL
    int quick_steps;    // the steps of --quick
    int max_steps;      // the most --steps takes
} bench_options;

// The value of option argv[*i], a whole number from 1 to hi, into *out;
// *i moves past it.
static bool number_option(int argc, char **argv, int *i, long long hi, int *out) {
    long long n;
    const char *name = argv[*i];
    if (*i + 1 >= argc || !parse_integer(argv[*i + 1], 1, hi, &n)) {
        fprintf(stderr, "%s: error: %s needs a whole number from 1 to %lld\n", PROGRAM, name, hi);
        return false;
    }
    *out = (int)n;
    *i += 1;
    return true;
}

// A benchmark's own option at argv[*i]: returns 1 when it took it (and
// moved *i past its value), 0 when argv[*i] is not its, or an exit status
// (2 after an error it said).
typedef int (*own_option_fn)(void *ctx, int argc, char **argv, int *i);

// Parses the command line into o: --help, --torch CMD, --steps N,
// --repeats R, --rounds N, --quick (quick_steps steps, 3 runs, 1 round),
// and whatever own (if not NULL) takes. Returns -1 to go on, else the exit
// status. (inline: a benchmark whose options are core/cli.h's, bench_gpt.c,
// leaves it unused.)
static inline int bench_parse(bench_options *o, int argc, char **argv, void (*usage)(FILE *),
                              own_option_fn own, void *ctx) {
    for (int i = 1; i < argc; i++) {
        bool ok = true;
        int taken = 0;
        if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--torch") == 0 && i + 1 < argc) {
            o->torch = argv[++i];
        } else if (strcmp(argv[i], "--steps") == 0) {
            ok = number_option(argc, argv, &i, o->max_steps, &o->steps);
        } else if (strcmp(argv[i], "--repeats") == 0) {
            ok = number_option(argc, argv, &i, MAX_RUNS, &o->repeats);
        } else if (strcmp(argv[i], "--rounds") == 0) {
            ok = number_option(argc, argv, &i, MAX_RUNS, &o->rounds);
        } else if (strcmp(argv[i], "--quick") == 0) {
            o->steps = o->quick_steps, o->repeats = 3, o->rounds = 1;
        } else if (own && (taken = own(ctx, argc, argv, &i)) != 0) {
            if (taken != 1) return taken;
        } else {
            fprintf(stderr, "%s: unknown option or missing value: %s\n", PROGRAM, argv[i]);
            usage(stderr);
            return 2;
        }
        if (!ok) return 2;
    }
    if (o->repeats * o->rounds > MAX_RUNS) {
        fprintf(stderr, "%s: error: at most %d runs (--repeats times --rounds)\n", PROGRAM,
                MAX_RUNS);
        return 2;
    }
    return -1;
}

// ---------------------------------------------------------------- rounds

// o->rounds rounds in turn: PyTorch's command (while it has not failed),
// then c_round(ctx), C's runs. A virtual machine's speed drifts over
// seconds, as its neighbours come and go; taking turns spreads both sides'
// runs over the same stretch of time, so that a slow spell does not fall
// on one side only. Returns whether PyTorch's runs are there to compare.
static bool bench_rounds(const bench_options *o, torch_times *t, const char *const *name, int n,
                         void (*c_round)(void *ctx), void *ctx) {
    bool torch_failed = false;
    for (int round = 0; round < o->rounds; round++) {
        if (o->torch && !torch_failed) {
            fprintf(stderr, "bench: round %d of %d, PyTorch\n", round + 1, o->rounds);
            torch_failed = run_torch(t, o->torch, name, n) < 0;
        }
        fprintf(stderr, "bench: round %d of %d, C\n", round + 1, o->rounds);
        c_round(ctx);
    }
    return o->torch && !torch_failed && t->lines > 0;
}

#endif
