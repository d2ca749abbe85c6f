// bench_train.c: how fast chapter 7 trains, against PyTorch and OpenBLAS
// measured in the same run. `make bench` builds and runs it.
//
//   B    chunks in a batch (64)
//   L    tokens in a chunk (32)
//   V    vocabulary size (10,002)
//   d    embedding width (100)
//   d_k  width of queries, keys and values (32)
//
// 1. The training step of each model (sentiment_train_step: forward,
//    backward, Adam on all 1.01 million parameters, the embedding kept as a
//    lazy table as ./chapter7 keeps it): WARMUP steps, then REPEATS runs of
//    STEPS steps; the time of a step is a run's time divided by STEPS. Once
//    on one thread, and once with two models training at the same time on
//    two threads, as ./chapter7 trains them (a step itself is not split
//    among threads: see src/kernels/parallel.h). The token ids are drawn as words
//    occur in text, by Zipf's law: id r (the r-th most frequent word) with
//    probability proportional to 1 / (r + 1), as in chapter 7's figure of
//    the training words. How many distinct words a batch holds is what the
//    projections and the lazy table's work depend on (PyTorch's does not);
//    the output says it.
// 2. PyTorch's step of the same models: the command --torch CMD names
//    (tests/reference/bench_torch.py, which prints every run's time), run
//    in ROUNDS rounds in turn with C's: PyTorch, then C, then PyTorch again,
//    and so on. A virtual machine's speed drifts over seconds, as its
//    neighbours come and go; taking turns spreads both sides' runs over the
//    same stretch of time, so that a slow spell does not fall on one side
//    only. The min and the median of all rounds' runs, and the ratios of
//    the minima with the targets.
// 3. The matrix products of a training step: gemm_reference, gemm_fast_rows
//    and OpenBLAS's cblas_sgemm (opened with dlopen, so that nothing else
//    needs OpenBLAS), each on one thread, in GFLOP/s.
//
// Usage: bench_train [--torch CMD] [--rounds N] [--steps N] [--repeats R] [--quick]
// Its lines fit the book's page (93 characters).
// --quick: fewer steps and rounds (the book's build, when make bench has
// not run). Anything missing (PyTorch, OpenBLAS) is said, and the rest
// still measured.
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdbool.h>

#include "layers/adam.h"
#include "core/cli.h"
#include "core/clock.h"
#include "kernels/gemm_fast.h"
#include "kernels/parallel.h"
#include "core/rng.h"
#include "models/sentiment.h"
#include "kernels/simd.h"

#define PROGRAM "bench_train"
#include "bench.h"

enum { B = 64, L = 32, V = 10002, D = 100, DK = 32, WARMUP = 20 };

// The targets: the attention step this many times as fast as PyTorch's
// better run, the baseline's this many, gemm this share of OpenBLAS.
#define TARGET_ATTENTION 4.0
#define TARGET_BASELINE 3.0
#define TARGET_GEMM 0.70

// Runs of each matrix product (each about 20 ms long).
#define GEMM_RUNS 5

// ---------------------------------------------------------------- the step

// o->repeats runs of o->steps training steps of one model, after WARMUP
// steps, into out.
static int time_model(runs *out, model_kind kind, const bench_options *o, const float *table,
                      const int32_t *X, const int32_t *Y) {
    torch_rng g;
    rng_seed(&g, 42);
    sentiment_model m;
    sentiment_config cfg = {kind, V, D, DK, L, B, false};  // kind, V, d, d_k, L, B, frozen
    if (sentiment_init(&m, &cfg, table, &g) < 0) return -1;
    int correct;
    for (int s = 0; s < WARMUP; s++)
        sentiment_train_step(&m, 1e-3, X + (long)s * B * L, Y + (long)s * B, B, &correct);
    for (int r = 0; r < o->repeats; r++) {
        double t0 = now_seconds();
        for (int s = 0; s < o->steps; s++) {
            long at = WARMUP + s;
            sentiment_train_step(&m, 1e-3, X + at * B * L, Y + at * B, B, &correct);
        }
        add_run(out, (now_seconds() - t0) * 1e3 / o->steps);
    }
    sentiment_free(&m);
    return 0;
}

// Two models (of the same kind) training at once, one on each thread: the
// slower of the two in each run, into out.
static int time_two_at_once(runs *out, model_kind kind, const bench_options *o, const float *table,
                            const int32_t *X, const int32_t *Y) {
    runs each[2] = {{.n = 0}, {.n = 0}};
    int rc[2] = {0};
    PARALLEL_FOR(true)
    for (int i = 0; i < 2; i++) rc[i] = time_model(&each[i], kind, o, table, X, Y);
    for (int r = 0; r < each[0].n && r < each[1].n; r++)
        add_run(out, each[0].ms[r] > each[1].ms[r] ? each[0].ms[r] : each[1].ms[r]);
    return rc[0] < 0 || rc[1] < 0 ? -1 : 0;
}

// The better (smaller) of PyTorch's one- and two-thread minima; *threads
// gets which.
static double torch_best(const torch_times *t, int k, int *threads) {
    double best = 0;
    for (int th = 1; th <= 2; th++) {
        double lo, mid;
        summary(&t->by[k][th], &lo, &mid);
        if (lo > 0 && (best == 0 || lo < best)) best = lo, *threads = th;
    }
    return best;
}

// C's side of a round: each model on one thread, and two at once.
typedef struct {
    const bench_options *o;
    const float *table;
    const int32_t *X, *Y;
    bool two;  // two threads to run two models at once
    runs one_thread[3], two_at_once[3];
} c_runs;

static void c_round(void *ctx) {
    c_runs *c = ctx;
    for (int k = 0; k < 3; k++)
        if (time_model(&c->one_thread[k], (model_kind)k, c->o, c->table, c->X, c->Y) < 0 ||
            (c->two &&
             time_two_at_once(&c->two_at_once[k], (model_kind)k, c->o, c->table, c->X, c->Y) < 0))
            checked(NULL);
}

// Returns the mean number of distinct words in a batch; *torch_ok gets
// whether PyTorch ran when it was asked for.
static double bench_steps(const bench_options *o, bool *torch_ok) {
    torch_rng g;
    rng_seed(&g, 1);
    long steps = WARMUP + o->steps;
    float *table = malloc(sizeof *table * V * D);
    int32_t *X = malloc(sizeof *X * steps * B * L), *Y = malloc(sizeof *Y * steps * B);
    if (!table || !X || !Y) {
        fprintf(stderr, "%s: error: out of memory\n", PROGRAM);
        exit(1);
    }
    rng_randn(&g, table, (size_t)V * D);
    double distinct = zipf_ids(X, steps * B * L, V, B * L, &g);
    for (long i = 0; i < steps * B; i++) Y[i] = (int32_t)(rng_next_u32(&g) % 2);
    bool two = parallel_threads() >= 2;
    c_runs c = {.o = o, .table = table, .X = X, .Y = Y, .two = two};
    torch_times torch = {.lines = 0};
    const char *names[3];
    for (int k = 0; k < 3; k++) names[k] = model_name((model_kind)k);
    bool have_torch = bench_rounds(o, &torch, names, 3, c_round, &c);
    runs *one_thread = c.one_thread, *two_at_once = c.two_at_once;
    *torch_ok = have_torch || !o->torch;
    printf("[1] the training step, batch %d (L %d, d %d, d_k %d, V %d)\n", B, L, D, DK, V);
    printf("token ids by Zipf's law, %.0f distinct words a batch on average\n", distinct);
    printf("(attention: C projects each distinct word once and its tokens look the row up,\n"
           "the same q, k and v to the bit; PyTorch projects every one of the %d tokens)\n", B * L);
    printf("C: %s vectors; ms per step, min and median of %d runs of %d steps after %d\n",
           simd_name(simd_best()), one_thread[0].n, o->steps, WARMUP);
    if (have_torch) {
        printf("PyTorch %s\n", torch.version);
        if (*torch.kernels) printf("%s\n", torch.kernels);
        printf("(its better run of 1 and 2 threads; %d round%s, PyTorch and C in turn)\n",
               o->rounds, o->rounds == 1 ? "" : "s");
    }
    printf("\n%-18s %19s   %19s   %19s\n", "", "C, one thread", "C, 2 models at once",
           "PyTorch");
    printf("%-18s %9s %9s   %9s %9s   %9s %9s %8s\n", "model", "min", "median", "min", "median",
           "min", "median", "threads");
    double c_best[3] = {0}, t_best[3] = {0};
    for (int k = 0; k < 3; k++) {
        double lo, mid, lo2, mid2;
        summary(&one_thread[k], &lo, &mid);
        summary(&two_at_once[k], &lo2, &mid2);
        c_best[k] = lo;
        printf("%-18s %9.3f %9.3f", model_name((model_kind)k), lo, mid);
        if (two) printf("   %9.3f %9.3f", lo2, mid2);
        else printf("   %19s", "(one thread only)");
        int th = 0;
        if (have_torch && (t_best[k] = torch_best(&torch, k, &th)) > 0) {
            double tlo, tmid;
            summary(&torch.by[k][th], &tlo, &tmid);
            printf("   %9.2f %9.2f %8d\n", tlo, tmid, th);
        } else {
            printf("   %9s %9s %8s\n", "-", "-", "-");
        }
    }
    if (!have_torch && o->torch) {
        printf("PyTorch: its run failed (%.60s)\n", o->torch);
    } else if (!have_torch) {
        printf("PyTorch: not measured in this run: `make bench` times it with Debian's\n");
        printf("python3-torch in the same run, and prints the ratios\n");
    } else {
        printf("\nC on one thread against PyTorch's better run, by the minima:\n");
        for (int k = 0; k < 3; k++) {
            if (t_best[k] <= 0) continue;
            double ratio = t_best[k] / c_best[k], target = k == MODEL_BASELINE ? TARGET_BASELINE : TARGET_ATTENTION;
            printf("  %-19s C is %.1f times as fast\n", model_name((model_kind)k), ratio);
            // the benchmark's own check, for make bench, not the book's table
            fprintf(stderr, "bench: %s: C %.1fx as fast as PyTorch (target %.0fx: %s)\n",
                    model_name((model_kind)k), ratio, target, ratio >= target ? "met" : "NOT MET");
        }
    }
    free(table);
    free(X);
    free(Y);
    return distinct;
}

// ---------------------------------------------------------------- gemm

// cblas_sgemm and openblas_set_num_threads, from libopenblas.so.0.
typedef void (*sgemm_fn)(int order, int transa, int transb, int m, int n, int k, float alpha, const float *a,
                         int lda, const float *b, int ldb, float beta, float *c, int ldc);
enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };

typedef struct {
    const char *what;
    gemm_layout layout;
    int n, k, m, count;  // count products of that shape, one after the other
    int per_step;        // how many of these a softmax-attention step computes
} shape;

// The products of a training step. The projections run on the batch's
// distinct words, U of them: WORDS stands for U, the mean that [1]
// measured. The rows that a step does not compute (per_step 0): the
// projection of every token, as PyTorch's step computes it, and the
// evaluation's table of the whole vocabulary.
enum { WORDS = -1 };
static const shape SHAPES[] = {
    {"x W_q (3 per step)", GEMM_AB, WORDS, 100, 32, 1, 3},
    {"dq W_q^T", GEMM_ABT, WORDS, 32, 100, 1, 3},
    {"x^T dq", GEMM_ATB, 100, WORDS, 32, 1, 3},
    {"q k^T, 64 chunks", GEMM_ABT, 32, 32, 32, 64, 2},
    {"w v, 64 chunks", GEMM_AB, 32, 32, 32, 64, 2},
    {"w^T dout, 64 chunks", GEMM_ATB, 32, 32, 32, 64, 2},
    {"x W_q, every token", GEMM_AB, 2048, 100, 32, 1, 0},
    {"vocabulary x W_q", GEMM_AB, 10002, 100, 32, 1, 0},
};

typedef enum { BY_REFERENCE, BY_FAST, BY_OPENBLAS } method;

static void run_product(method how, const shape *s, float *c, const float *a, const float *b, sgemm_fn sgemm,
                        simd_level level) {
    long sa = (long)s->n * s->k, sb = (long)s->k * s->m, sc = (long)s->n * s->m;
    for (int i = 0; i < s->count; i++) {
        const float *ai = a + i * sa, *bi = b + i * sb;
        float *ci = c + i * sc;
        if (how == BY_REFERENCE) gemm_reference(ci, ai, bi, s->n, s->k, s->m, s->layout);
        else if (how == BY_FAST) gemm_fast_rows(level, ci, ai, bi, s->n, s->k, s->m, s->layout, 0, s->n);
        else if (s->layout == GEMM_AB)
            sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, s->n, s->m, s->k, 1, ai, s->k, bi, s->m, 1, ci, s->m);
        else if (s->layout == GEMM_ABT)
            sgemm(ROW_MAJOR, NO_TRANS, TRANS, s->n, s->m, s->k, 1, ai, s->k, bi, s->k, 1, ci, s->m);
        else
            sgemm(ROW_MAJOR, TRANS, NO_TRANS, s->n, s->m, s->k, 1, ai, s->n, bi, s->m, 1, ci, s->m);
    }
}

// Seconds per call (all count products), min over repeats of enough calls
// to last about 20 ms each.
static double time_product(method how, const shape *s, float *c, const float *a, const float *b,
                           sgemm_fn sgemm, simd_level level, int repeats) {
    double t0 = now_seconds();
    run_product(how, s, c, a, b, sgemm, level);
    double once = now_seconds() - t0;
    int calls = once > 0 ? (int)(0.02 / once) + 1 : 1000;
    double sec[MAX_RUNS], lo, mid;
    for (int r = 0; r < repeats; r++) {
        t0 = now_seconds();
        for (int i = 0; i < calls; i++) run_product(how, s, c, a, b, sgemm, level);
        sec[r] = (now_seconds() - t0) / calls;
    }
    min_median(sec, (size_t)repeats, &lo, &mid);
    return lo;
}

static void bench_gemm(int words) {
    void *lib = dlopen("libopenblas.so.0", RTLD_NOW);
    sgemm_fn sgemm = lib ? (sgemm_fn)(size_t)dlsym(lib, "cblas_sgemm") : NULL;
    void (*set_threads)(int) = lib ? (void (*)(int))(size_t)dlsym(lib, "openblas_set_num_threads") : NULL;
    if (set_threads) set_threads(1);
    simd_level level = simd_best();
    printf("\n[2] the matrix products of a training step, one thread, GFLOP/s (min of %d runs)\n", GEMM_RUNS);
    if (!sgemm) printf("OpenBLAS: skipped (libopenblas.so.0 not found: Debian's libopenblas0-pthread has it)\n");
    printf("%-21s %6s %-16s %9s %9s %9s %6s\n", "product", "layout", "(n, k, m)", "readable", "gemm",
           "OpenBLAS", "share");
    printf("%-21s %6s %-16s %9s %9s %9s %6s\n", "", "", "", "loops", "", "", "");
    torch_rng g;
    rng_seed(&g, 2);
    double step_fast = 0, step_blas = 0, step_flop = 0;
    int below = 0;
    for (size_t i = 0; i < sizeof SHAPES / sizeof *SHAPES; i++) {
        shape for_words = SHAPES[i], *s = &for_words;
        if (s->n == WORDS) s->n = words;
        if (s->k == WORDS) s->k = words;
        long na = (long)s->count * s->n * s->k, nb = (long)s->count * s->k * s->m, nc = (long)s->count * s->n * s->m;
        float *a = malloc(sizeof *a * na), *b = malloc(sizeof *b * nb), *c = calloc((size_t)nc, sizeof *c);
        if (!a || !b || !c) {
            fprintf(stderr, "%s: error: out of memory\n", PROGRAM);
            exit(1);
        }
        rng_uniform(&g, a, (size_t)na, -1, 1);
        rng_uniform(&g, b, (size_t)nb, -1, 1);
        double flop = 2.0 * s->count * s->n * s->k * s->m;
        double ref = time_product(BY_REFERENCE, s, c, a, b, sgemm, level, GEMM_RUNS);
        double fast = time_product(BY_FAST, s, c, a, b, sgemm, level, GEMM_RUNS);
        double blas = sgemm ? time_product(BY_OPENBLAS, s, c, a, b, sgemm, level, GEMM_RUNS) : 0;
        static const char *const LAYOUT[] = {"a b", "a b^T", "a^T b"};
        char dims[32];
        snprintf(dims, sizeof dims, "(%d, %d, %d)", s->n, s->k, s->m);
        printf("%-21s %6s %-16s %9.1f %9.1f", s->what, LAYOUT[s->layout], dims, flop / ref * 1e-9,
               flop / fast * 1e-9);
        if (sgemm) {
            printf(" %9.1f %5.0f%%\n", flop / blas * 1e-9, 100 * blas / fast);
            below += blas / fast < TARGET_GEMM;
        } else {
            printf(" %9s\n", "-");
        }
        step_fast += s->per_step * fast;
        step_flop += s->per_step * flop;
        step_blas += s->per_step * blas;
        free(a);
        free(b);
        free(c);
    }
    printf("a step's products, %.0f million operations: gemm %.3f ms", step_flop * 1e-6, step_fast * 1e3);
    if (sgemm) {
        printf(", OpenBLAS %.3f ms: %.0f%%\n", step_blas * 1e3, 100 * step_blas / step_fast);
        printf("share: gemm's speed as a percentage of OpenBLAS's\n");
        fprintf(stderr, "bench: gemm at %.0f%% of OpenBLAS or more on every shape: %s\n",
                100 * TARGET_GEMM, below == 0 ? "met" : "NOT MET on some");
    } else {
        printf("\n");
    }
    if (lib) dlclose(lib);
}

static void usage(FILE *f) {
    fprintf(f, "usage: %s [--torch CMD] [--rounds N] [--steps N] [--repeats R] [--quick]\n"
               "  --torch CMD   also time PyTorch: CMD runs tests/reference/bench_torch.py\n"
               "  --rounds N    rounds, PyTorch and C in turn (4)\n"
               "  --steps N     training steps a run times (100)\n"
               "  --repeats R   runs of each model in a round (3)\n"
               "  --quick       50 steps, 3 runs, 1 round\n", PROGRAM);
}

int main(int argc, char **argv) {
    bench_options o = {.steps = 100, .repeats = 3, .rounds = 4, .quick_steps = 50,
                       .max_steps = 1000000};
    int status = bench_parse(&o, argc, argv, usage, NULL, NULL);
    if (status >= 0) return status;
    bool torch_ok;
    double words = bench_steps(&o, &torch_ok);
    bench_gemm((int)(words + 0.5));
    return torch_ok ? 0 : 1;
}
