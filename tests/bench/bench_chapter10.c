// bench_chapter10.c: how fast chapter 10's tiled attention runs, against
// PyTorch's attention written the usual way, measured in the same run.
// `make bench` builds and runs it.
//
// One head, d = 64, float, no mask, at n = 1024, 2048, 4096 and 8192:
//   forward   tiled_attention_forward (tiled_attention.h) on all threads
//   train     the forward, then tiled_attention_backward given a random
//             dout: a training step's attention, without the rest
// against tests/reference/bench_torch10.py, softmax(q k^T / sqrt(d)) v in
// torch (the forward under torch.no_grad, the train pass with autograd),
// on 1 and on 2 threads, the better of the two. The rounds take turns,
// PyTorch then C (bench.h, bench_rounds), and a pass's time is the min of
// every round's runs (each run the mean of a few passes). Last, the
// tiled forward and backward at n = 4096 against the peak of the same
// cores, measured (kernels/machine.h) in the same run, counting 4 n^2 d
// and 10 n^2 d operations, and the largest ratio to PyTorch the peak
// allows a kernel that does the counted operations and nothing else.
//
// Usage: bench_chapter10 [--torch CMD] [--rounds N] [--steps N] [--repeats R] [--quick]
// Its output is one cell, [1], whose lines fit the book's page.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/clock.h"
#include "core/rng.h"
#include "kernels/machine.h"
#include "kernels/parallel.h"
#include "layers/tiled_attention.h"

#define PROGRAM "bench_chapter10"
#include "bench.h"

enum { D = 64, SIZES = 4, PASSES = 2, WARMUP = 1, PEAK_N = 4096 };
static const int N[SIZES] = {1024, 2048, 4096, 8192};
static const char *const NAME[SIZES * PASSES] = {"forward-1024", "forward-2048", "forward-4096",
                                                 "forward-8192", "train-1024",   "train-2048",
                                                 "train-4096",   "train-8192"};
#define TARGET 2.0  // C at least this many times as fast as PyTorch's better run

// One size's arrays, drawn once: inputs, outputs and gradients.
typedef struct {
    int n;
    float *q, *k, *v, *dout, *out, *lse, *dq, *dk, *dv;
} problem;

static void problem_init(problem *p, int n, torch_rng *g) {
    size_t nd = (size_t)n * D;
    p->n = n;
    float **arrays[] = {&p->q, &p->k, &p->v, &p->dout, &p->out, &p->dq, &p->dk, &p->dv};
    for (int a = 0; a < 8; a++) *arrays[a] = checked(malloc(nd * sizeof(float)));
    p->lse = checked(malloc((size_t)n * sizeof(float)));
    for (int a = 0; a < 4; a++) rng_randn(g, *arrays[a], nd);
}

static void problem_free(problem *p) {
    float *arrays[] = {p->q, p->k, p->v, p->dout, p->out, p->lse, p->dq, p->dk, p->dv};
    for (int a = 0; a < 9; a++) free(arrays[a]);
}

// One pass: the forward, and for train the backward after it.
static void pass(problem *p, bool train) {
    float scale = 1.0f / sqrtf((float)D);
    tiled_attention_forward(p->out, p->lse, p->q, p->k, p->v, p->n, D, scale, false);
    if (!train) return;
    size_t nd = (size_t)p->n * D;
    memset(p->dq, 0, nd * sizeof(float));
    memset(p->dk, 0, nd * sizeof(float));
    memset(p->dv, 0, nd * sizeof(float));
    tiled_attention_backward(p->dq, p->dk, p->dv, p->dout, p->q, p->k, p->v, p->out, p->lse, p->n,
                             D, scale, false);
}

typedef struct {
    const bench_options *o;
    problem p[SIZES];
    runs c[SIZES * PASSES];
} c_runs;

// C's side of a round: each size and pass, WARMUP passes, then o->repeats
// runs of o->steps passes each, a run's time divided by its passes.
static void c_round(void *ctx) {
    c_runs *r = ctx;
    for (int s = 0; s < SIZES; s++)
        for (int t = 0; t < PASSES; t++) {
            for (int w = 0; w < WARMUP; w++) pass(&r->p[s], t);
            for (int rep = 0; rep < r->o->repeats; rep++) {
                double t0 = now_seconds();
                for (int i = 0; i < r->o->steps; i++) pass(&r->p[s], t);
                add_run(&r->c[t * SIZES + s], (now_seconds() - t0) * 1e3 / r->o->steps);
            }
        }
}

// PyTorch's better min of 1 and 2 threads, 0 when it has none.
static double torch_best(const torch_times *t, int k) {
    double best = 0, min, median;
    for (int threads = 1; threads <= 2; threads++) {
        summary(&t->by[k][threads], &min, &median);
        if (min > 0 && (best == 0 || min < best)) best = min;
    }
    return best;
}

static void print_table(const c_runs *r, const torch_times *t, bool have_torch) {
    printf("[1] tiled attention against PyTorch's (one head, d = %d, float, no mask; C on %d\n"
           "threads, PyTorch the better of 1 and 2; ms a pass, the min of the runs)\n",
           D, parallel_threads());
    printf("%6s | %-25s | %s\n", "n", "forward: C, PyTorch, ratio", "forward + backward: the same");
    for (int s = 0; s < SIZES; s++) {
        printf("%6d", N[s]);
        for (int pass_ = 0; pass_ < PASSES; pass_++) {
            int k = pass_ * SIZES + s;
            double c, median, torch = have_torch ? torch_best(t, k) : 0;
            summary(&r->c[k], &c, &median);
            if (torch > 0) printf(" | %8.1f %8.1f %6.2fx", c, torch, torch / c);
            else printf(" | %8.1f %8s %7s", c, "-", "-");
        }
        printf("\n");
    }
    if (have_torch) printf("target: C at least %.0fx as fast as PyTorch; torch %s\n", TARGET, t->version);
    if (have_torch && *t->kernels) printf("%s\n", t->kernels);
}

// The tiled forward and backward at PEAK_N against the peak of the same
// threads (the backward's time is the train pass's less the forward's),
// and what the peak allows: the counted operations of each pass (4 n^2 d
// forward, 10 n^2 d backward) at the peak, so the largest ratio to PyTorch
// that any kernel doing them could reach.
static void print_peak_share(const c_runs *r, const torch_times *t, bool have_torch) {
    int threads = parallel_threads(), s = 0;
    while (N[s] != PEAK_N) s++;
    double fwd, train, median, peak = machine_peak_flops(threads, 0.5);
    summary(&r->c[s], &fwd, &median);
    summary(&r->c[SIZES + s], &train, &median);
    double rate = attention_flops(PEAK_N, D, false, false) / (fwd * 1e-3);
    double back = attention_flops(PEAK_N, D, false, true) / ((train - fwd) * 1e-3);
    printf("at n = %d, of the measured peak of %d threads (%.1f GFLOP/s, independent\n"
           "fused multiply-adds): tiled forward %.1f GFLOP/s, %.0f%% (target 50%%);\n"
           "backward %.1f GFLOP/s, %.0f%% (target 35%%), 10 n^2 d counted\n",
           PEAK_N, threads, peak / 1e9, rate / 1e9, 100 * rate / peak, back / 1e9,
           100 * back / peak);
    if (!have_torch) return;
    printf("the most any kernel could do at that peak, the counted operations only:\n");
    for (int k = 0; k < SIZES; k++) {
        double f = attention_flops(N[k], D, false, false), b = attention_flops(N[k], D, false, true);
        double tf = torch_best(t, k), tt = torch_best(t, SIZES + k);
        printf("%6d | forward %5.2fx PyTorch | forward + backward %5.2fx PyTorch\n", N[k],
               tf / (1e3 * f / peak), tt / (1e3 * (f + b) / peak));
    }
}

static void usage(FILE *f) {
    fprintf(f, "usage: %s [--torch CMD] [--rounds N] [--steps N] [--repeats R] [--quick]\n"
               "  --torch CMD   also time PyTorch: CMD runs tests/reference/bench_torch10.py\n"
               "  --rounds N    rounds, PyTorch and C in turn (3)\n"
               "  --steps N     passes a run times (3)\n"
               "  --repeats R   runs of each size and pass in a round (3)\n"
               "  --quick       1 pass, 3 runs, 1 round\n",
            PROGRAM);
}

int main(int argc, char **argv) {
    bench_options b = {.steps = 3, .repeats = 3, .rounds = 3, .quick_steps = 1, .max_steps = 1000};
    int status = bench_parse(&b, argc, argv, usage, NULL, NULL);
    if (status >= 0) return status;
    c_runs c = {.o = &b};
    torch_rng g;
    rng_seed(&g, 1);
    for (int s = 0; s < SIZES; s++) problem_init(&c.p[s], N[s], &g);
    torch_times t = {.lines = 0};
    bool have_torch = bench_rounds(&b, &t, NAME, SIZES * PASSES, c_round, &c);
    print_table(&c, &t, have_torch);
    print_peak_share(&c, &t, have_torch);
    if (b.torch && !have_torch)
        printf("PyTorch: its run failed (%.60s); C measured alone\n", b.torch);
    else if (!b.torch)
        printf("PyTorch: not measured in this run (`make bench` times it in the same run)\n");
    for (int s = 0; s < SIZES; s++) problem_free(&c.p[s]);
    return b.torch && !have_torch ? 1 : 0;
}
