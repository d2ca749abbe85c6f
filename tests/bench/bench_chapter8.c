// bench_chapter8.c: how fast chapter 8's two models train, against PyTorch
// measured in the same run. `make bench` builds and runs it.
//
//   B     sequences or chunks in a batch (64)
//   S, T  the reversal task's source and target lengths (10, 11)
//   V     vocabulary (13 digits and markers; 10,002 words for IMDb)
//   d     model width (64; the classifier's embedding width 100)
//   L     tokens in an IMDb chunk (32), w the classifier's width (32)
//
// The models, at the sizes ./chapter8 trains them:
//   reversal      seq2seq.h's encoder-decoder transformer (d 64, 4 heads,
//                 d_ff 256, 2 encoder and 2 decoder layers, post-norm,
//                 sinusoidal positions) on batches of the digit-reversal
//                 task (reversal_task.h)
//   transformer   sentiment.h's IMDb classifier (MODEL_TRANSFORMER: GloVe
//                 rows of 100 -> Dense(32) -> + positions -> one encoder
//                 layer, 2 heads, d_ff 64 -> mean -> Dense(1)), the
//                 embedding trained and kept as a lazy Adam table as
//                 ./chapter8 keeps it, on chunks of ids drawn by Zipf's law
//                 (id r with probability proportional to 1 / (r + 1)), as
//                 tests/bench/bench_train.c draws them
// A step is what a training step of ./chapter8 does: forward, the loss,
// backward, Adam on every parameter. C runs on one thread (a step is never
// split among threads: src/kernels/parallel.h).
//
// 1. C: WARMUP steps, then REPEATS runs of STEPS steps; the time of a step
//    is a run's time divided by STEPS.
// 2. PyTorch: the command --torch CMD names (tests/reference/bench_torch8.py,
//    the same models in torch.nn with torch.optim.Adam, on 1 and on 2
//    threads), run in ROUNDS rounds in turn with C's: PyTorch, then C, then
//    PyTorch again, and so on, so that a slow spell of a shared machine
//    falls on both sides. The min and the median of all rounds' runs, and
//    the ratio of PyTorch's better minimum (of 1 and 2 threads) to C's.
// 3. The processor time of the same runs, C's and PyTorch's on one thread:
//    what a step costs when the process runs, whatever else the machine
//    does (a process that waits for the processor is not charged for it),
//    so a steadier ratio than that of the wall-clock times on a busy
//    machine; it says nothing of two threads, which are charged for both.
//
// Usage: bench_chapter8 [--torch CMD] [--rounds N] [--steps N] [--repeats R] [--quick]
//                       [--model reversal|transformer]
// Its output is one cell, [1], whose lines fit the book's page (93
// characters): the book quotes build/out/bench-chapter8.txt. Without
// PyTorch (no --torch, or a command that fails) the C side is still
// measured and the output says what it left out.
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cli.h"
#include "core/clock.h"
#include "core/rng.h"
#include "nn/positions.h"
#include "layers/adam.h"
#include "tasks/reversal_task.h"
#include "models/sentiment.h"
#include "models/seq2seq.h"
#include "kernels/simd.h"

#define PROGRAM "bench_chapter8"
enum { B = 64, S = REVERSAL_SRC_LEN, T = REVERSAL_TGT_LEN };
enum { D_MODEL = 64, HEADS = 4, D_FF = 256, N_ENC = 2, N_DEC = 2 };  // chapter8.c's
enum { V_WORDS = 10002, D_GLOVE = 100, W = 32, L = 32 };              // chapter 7's
enum { WARMUP = 10, MAX_RUNS = 64, MODELS = 2 };
#define TARGET 3.0  // C this many times as fast as PyTorch's better run

typedef enum { REVERSAL, CLASSIFIER } which_model;
static const char *const NAME[MODELS] = {"reversal", "transformer"};
static const char *const TITLE[MODELS] = {"digit reversal", "IMDb classifier"};

typedef struct {
    int steps, repeats, rounds;
    const char *torch;  // the command that runs bench_torch8.py, or NULL
    bool timed[MODELS]; // the models measured (--model NAME: one only)
} options;

// Runs' times, in ms per step, pooled over the rounds.
typedef struct {
    double ms[MAX_RUNS];
    int n;
} runs;

// The processor time this process has used, in seconds.
static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void add_run(runs *r, double ms) {
    if (r->n < MAX_RUNS) r->ms[r->n++] = ms;
}

// The min and the median of the runs, or 0 and 0 when there are none.
static void summary(const runs *r, double *min, double *median) {
    *min = *median = 0;
    if (r->n == 0) return;
    double copy[MAX_RUNS];
    memcpy(copy, r->ms, sizeof copy);
    min_median(copy, (size_t)r->n, min, median);
}

static void *checked(void *p) {
    if (!p) {
        fprintf(stderr, "%s: error: out of memory\n", PROGRAM);
        exit(1);
    }
    return p;
}

// The batches every run trains on, drawn once: n of each task.
typedef struct {
    int n;
    int32_t *src, *tgt_in, *tgt_out;  // (n, B, S), (n, B, T), (n, B, T)
    int32_t *ids, *labels;            // (n, B, L), (n, B)
    float *glove;                     // (V_WORDS, D_GLOVE) the classifier's starting table
    real pe[T * D_MODEL];             // the sinusoidal table of the reversal model
    double distinct;                  // distinct words in a classifier batch, on average
} batches;

// n reversal batches from the generator ./chapter8 trains with (seed 2).
static void draw_reversal(batches *x) {
    reversal_batch b;
    if (reversal_batch_alloc(&b, B) != 0) checked(NULL);
    torch_rng g;
    rng_seed(&g, 2);
    for (int i = 0; i < x->n; i++) {
        reversal_draw(&b, &g);
        memcpy(x->src + (size_t)i * B * S, b.src, sizeof *b.src * B * S);
        memcpy(x->tgt_in + (size_t)i * B * T, b.tgt_in, sizeof *b.tgt_in * B * T);
        memcpy(x->tgt_out + (size_t)i * B * T, b.tgt_out, sizeof *b.tgt_out * B * T);
    }
    reversal_batch_free(&b);
    float pe[T * D_MODEL];
    sinusoidal_positions(pe, T, D_MODEL);
    for (int i = 0; i < T * D_MODEL; i++) x->pe[i] = (real)pe[i];
}

// n classifier batches of ids by Zipf's law, and labels at random.
static void draw_classifier(batches *x) {
    torch_rng g;
    rng_seed(&g, 1);
    rng_randn(&g, x->glove, (size_t)V_WORDS * D_GLOVE);
    double *cdf = checked(malloc(sizeof *cdf * V_WORDS)), sum = 0;
    unsigned char *seen = checked(calloc(V_WORDS, 1));
    for (int r = 0; r < V_WORDS; r++) cdf[r] = sum += 1.0 / (r + 1);
    long distinct = 0, n = (long)x->n * B * L;
    for (long i = 0; i < n; i++) {
        double u = (double)rng_next_u64(&g) / 18446744073709551616.0 * sum;
        int lo = 0, hi = V_WORDS - 1;  // the first r with cdf[r] > u
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (cdf[mid] > u) hi = mid;
            else lo = mid + 1;
        }
        x->ids[i] = lo;
        distinct += !seen[lo];
        seen[lo] = 1;
        if ((i + 1) % (B * L) == 0) memset(seen, 0, V_WORDS);
    }
    for (long i = 0; i < (long)x->n * B; i++) x->labels[i] = (int32_t)(rng_next_u32(&g) % 2);
    x->distinct = (double)distinct / x->n;
    free(cdf);
    free(seen);
}

static void batches_init(batches *x, int n) {
    x->n = n;
    x->src = checked(malloc(sizeof *x->src * n * B * S));
    x->tgt_in = checked(malloc(sizeof *x->tgt_in * n * B * T));
    x->tgt_out = checked(malloc(sizeof *x->tgt_out * n * B * T));
    x->ids = checked(malloc(sizeof *x->ids * n * B * L));
    x->labels = checked(malloc(sizeof *x->labels * n * B));
    x->glove = checked(malloc(sizeof *x->glove * V_WORDS * D_GLOVE));
    draw_reversal(x);
    draw_classifier(x);
}

static void batches_free(batches *x) {
    free(x->src);
    free(x->tgt_in);
    free(x->tgt_out);
    free(x->ids);
    free(x->labels);
    free(x->glove);
}

// ---------------------------------------------------------------- C

static seq2seq_config reversal_config(void) {
    return (seq2seq_config){.V = REVERSAL_VOCAB, .d = D_MODEL, .h = HEADS, .d_ff = D_FF,
                            .n_enc = N_ENC, .n_dec = N_DEC, .n_pos = T, .norm_first = false,
                            .positions = POSITIONS_SINUSOIDAL, .pad = REVERSAL_PAD};
}

// Step i of the reversal model.
static void reversal_step(seq2seq_model *m, const batches *x, int i) {
    seq2seq_train_step(m, 1e-3, x->src + (size_t)i * B * S, x->tgt_in + (size_t)i * B * T,
                       x->tgt_out + (size_t)i * B * T, B, S, T);
}

// o->repeats runs of o->steps steps of the reversal model, after WARMUP.
static void time_reversal(runs *out, runs *cpu, const options *o, const batches *x) {
    torch_rng g;
    rng_seed(&g, 1);
    seq2seq_config cfg = reversal_config();
    seq2seq_model m;
    if (seq2seq_init(&m, &cfg, x->pe, B, S, T, &g) != 0) checked(NULL);
    for (int s = 0; s < WARMUP; s++) reversal_step(&m, x, s);
    for (int r = 0; r < o->repeats; r++) {
        double t0 = now_seconds(), c0 = cpu_seconds();
        for (int s = 0; s < o->steps; s++) reversal_step(&m, x, WARMUP + s);
        add_run(out, (now_seconds() - t0) * 1e3 / o->steps);
        add_run(cpu, (cpu_seconds() - c0) * 1e3 / o->steps);
    }
    seq2seq_free(&m);
}

// Step i of the classifier.
static void classifier_step(sentiment_model *m, const batches *x, int i) {
    int correct;
    sentiment_train_step(m, 1e-3, x->ids + (size_t)i * B * L, x->labels + (size_t)i * B, B,
                         &correct);
}

// The same for the IMDb classifier.
static void time_classifier(runs *out, runs *cpu, const options *o, const batches *x) {
    torch_rng g;
    rng_seed(&g, 42);
    sentiment_model m;
    // kind, V, d, d_k, L, B, frozen
    sentiment_config cfg = {MODEL_TRANSFORMER, V_WORDS, D_GLOVE, W, L, B, false};
    if (sentiment_init(&m, &cfg, x->glove, &g) < 0) checked(NULL);
    for (int s = 0; s < WARMUP; s++) classifier_step(&m, x, s);
    for (int r = 0; r < o->repeats; r++) {
        double t0 = now_seconds(), c0 = cpu_seconds();
        for (int s = 0; s < o->steps; s++) classifier_step(&m, x, WARMUP + s);
        add_run(out, (now_seconds() - t0) * 1e3 / o->steps);
        add_run(cpu, (cpu_seconds() - c0) * 1e3 / o->steps);
    }
    sentiment_free(&m);
}

// ---------------------------------------------------------------- PyTorch

// PyTorch's runs: [model][threads 1, 2], their processor times on one
// thread, and the version line.
typedef struct {
    runs by[MODELS][3];
    runs cpu[MODELS];
    char version[160];
    int lines;  // measurements read
} torch_times;

// The comma-separated numbers from p on, into r.
static void add_runs(runs *r, char *p) {
    for (char *end; *p && *p != '\n'; p = *end == ',' ? end + 1 : end) {
        double ms = strtod(p, &end);
        if (end == p) break;
        add_run(r, ms);
    }
}

// Runs the command and adds the runs it prints. Returns 0, or -1 when the
// command failed or printed no measurement.
static int run_torch(torch_times *t, const char *command) {
    FILE *f = popen(command, "r");
    if (!f) return -1;
    char line[2048], name[64];
    int threads, found = 0, at;
    while (fgets(line, sizeof line, f)) {
        at = 0;
        if (sscanf(line,
                   "torch %63s threads %d ms_per_step %*s %*s %*s %*s "
                   "repeats %*d steps %*d runs %n",
                   name, &threads, &at) == 2 && at > 0) {
            for (int k = 0; k < MODELS; k++) {
                if (strcmp(name, NAME[k]) != 0 || threads < 1 || threads > 2) continue;
                add_runs(&t->by[k][threads], line + at);
                found++;
            }
        } else if (sscanf(line, "torch_cpu %63s threads 1 runs %n", name, &at) == 1 && at > 0) {
            for (int k = 0; k < MODELS; k++)
                if (strcmp(name, NAME[k]) == 0) add_runs(&t->cpu[k], line + at);
        } else if (strncmp(line, "torch ", 6) == 0 && strstr(line, " with ")) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(t->version, sizeof t->version, "%.150s", line + 6);
        }
    }
    int status = pclose(f);
    t->lines += found;
    return status == 0 && found > 0 ? 0 : -1;
}

// ---------------------------------------------------------------- the table

static int parameters(which_model k) {
    if (k == REVERSAL) {
        seq2seq_config cfg = reversal_config();
        return (int)seq2seq_param_count(&cfg);
    }
    return (int)sentiment_param_count(MODEL_TRANSFORMER, V_WORDS, D_GLOVE, W);
}

// "1,234,567"
static void with_commas(char *out, size_t size, int n) {
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%d", n), at = 0;
    for (int i = 0; i < len && at + 2 < (int)size; i++) {
        if (i > 0 && (len - i) % 3 == 0) out[at++] = ',';
        out[at++] = digits[i];
    }
    out[at] = '\0';
}

static void print_table(const options *o, const batches *x, runs c[MODELS], runs c_cpu[MODELS],
                        const torch_times *t, bool have_torch) {
    char count[MODELS][24];
    for (int k = 0; k < MODELS; k++)
        with_commas(count[k], sizeof count[k], parameters((which_model)k));
    printf("[1] chapter 8's training step (forward, backward, Adam), batch %d\n", B);
    printf("  digit reversal   sources of %d, targets of %d tokens; d %d, %d heads, d_ff %d,\n"
           "                   %d + %d layers; %s parameters\n",
           S, T, D_MODEL, HEADS, D_FF, N_ENC, N_DEC, count[REVERSAL]);
    printf("  IMDb classifier  chunks of %d words (by Zipf's law, %.0f distinct a batch);\n"
           "                   width %d, 2 heads, d_ff 64, 1 layer; %s parameters\n",
           L, x->distinct, W, count[CLASSIFIER]);
    printf("C on one thread (%s vectors)\n", simd_name(simd_best()));
    if (have_torch) printf("PyTorch %s\n", t->version);
    printf("ms per step, min and median of %d runs of %d steps", c[0].n ? c[0].n : c[1].n,
           o->steps);
    if (have_torch)
        printf(" (%d round%s, PyTorch and C in turn)", o->rounds, o->rounds == 1 ? "" : "s");
    printf("\n\n%-16s %-17s   %-17s   %-17s   %s\n", "", "  C, one thread", "PyTorch, 1 thread",
           "PyTorch, 2 threads", "C is");
    printf("%-16s %8s %8s   %8s %8s   %8s %8s   %s\n", "model", "min", "median", "min", "median",
           "min", "median", "faster by");
    bool met = true, two_slower = false;
    for (int k = 0; k < MODELS; k++) {
        double lo, mid;
        summary(&c[k], &lo, &mid);
        if (lo <= 0) continue;  // not timed (--model)
        printf("%-16s %8.2f %8.2f", TITLE[k], lo, mid);
        double best = 0, first = 0;
        for (int th = 1; th <= 2; th++) {
            double tlo, tmid;
            summary(&t->by[k][th], &tlo, &tmid);
            if (th == 1) first = tlo;
            else two_slower = two_slower || (have_torch && tlo > first);
            if (have_torch && tlo > 0) printf("   %8.2f %8.2f", tlo, tmid);
            else printf("   %8s %8s", "-", "-");
            if (have_torch && tlo > 0 && (best == 0 || tlo < best)) best = tlo;
        }
        if (best > 0 && lo > 0) {
            printf("   %8.1fx\n", best / lo);
            met = met && best / lo >= TARGET;
        } else {
            printf("   %9s\n", "-");
        }
    }
    if (have_torch)
        printf("\nC is faster by: PyTorch's better min (of 1 and 2 threads) over C's min\n");
    // The target is the benchmark's own check, for make bench; not a line of
    // the table the book quotes.
    if (have_torch)
        fprintf(stderr, "bench: C faster than PyTorch by %.0fx on every model: %s\n", TARGET,
                met ? "met" : "NOT MET");
    if (two_slower)
        printf("PyTorch on two threads was slower here than on one: its threads meet at every\n"
               "operation of a step, and on a machine that runs other work too, each waits\n"
               "for the other\n");
    printf("\nprocessor time of a step on one thread, min (what the step costs when it runs):\n");
    for (int k = 0; k < MODELS; k++) {
        double lo, mid, tlo = 0, tmid;
        summary(&c_cpu[k], &lo, &mid);
        if (lo <= 0) continue;
        summary(&t->cpu[k], &tlo, &tmid);
        printf("  %-16s C %6.2f ms", TITLE[k], lo);
        if (have_torch && tlo > 0)
            printf(", PyTorch %6.2f ms: C is faster by %.1fx\n", tlo, tlo / lo);
        else
            printf("\n");
    }
}

// ---------------------------------------------------------------- main

static void usage(FILE *f) {
    fprintf(f, "usage: %s [--torch CMD] [--rounds N] [--steps N] [--repeats R] [--quick]\n"
               "       [--model NAME]\n"
               "  --torch CMD   also time PyTorch: CMD runs tests/reference/bench_torch8.py\n"
               "  --rounds N    rounds, PyTorch and C in turn (4)\n"
               "  --steps N     training steps a run times (50)\n"
               "  --repeats R   runs of each model in a round (3)\n"
               "  --quick       20 steps, 3 runs, 1 round\n"
               "  --model NAME  time one model only, reversal or transformer (profiling)\n",
            PROGRAM);
}

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

// Parses the command line into o. Returns -1 to go on, else the exit status.
static int parse(options *o, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        bool ok = true;
        if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--torch") == 0 && i + 1 < argc) {
            o->torch = argv[++i];
        } else if (strcmp(argv[i], "--steps") == 0) {
            ok = number_option(argc, argv, &i, 100000, &o->steps);
        } else if (strcmp(argv[i], "--repeats") == 0) {
            ok = number_option(argc, argv, &i, MAX_RUNS, &o->repeats);
        } else if (strcmp(argv[i], "--rounds") == 0) {
            ok = number_option(argc, argv, &i, MAX_RUNS, &o->rounds);
        } else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
            i++;
            for (int k = 0; k < MODELS; k++) o->timed[k] = strcmp(argv[i], NAME[k]) == 0;
            if (!o->timed[REVERSAL] && !o->timed[CLASSIFIER]) {
                fprintf(stderr, "%s: error: --model is reversal or transformer\n", PROGRAM);
                return 2;
            }
        } else if (strcmp(argv[i], "--quick") == 0) {
            o->steps = 20, o->repeats = 3, o->rounds = 1;
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

int main(int argc, char **argv) {
    options o = {.steps = 50, .repeats = 3, .rounds = 4, .timed = {true, true}};
    int status = parse(&o, argc, argv);
    if (status >= 0) return status;
    batches x;
    batches_init(&x, WARMUP + o.steps);
    runs c[MODELS] = {{.n = 0}}, c_cpu[MODELS] = {{.n = 0}};
    torch_times t = {.lines = 0};
    bool torch_failed = false;
    for (int round = 0; round < o.rounds; round++) {
        if (o.torch && !torch_failed) {
            fprintf(stderr, "bench: round %d of %d, PyTorch\n", round + 1, o.rounds);
            torch_failed = run_torch(&t, o.torch) < 0;
        }
        fprintf(stderr, "bench: round %d of %d, C\n", round + 1, o.rounds);
        if (o.timed[REVERSAL]) time_reversal(&c[REVERSAL], &c_cpu[REVERSAL], &o, &x);
        if (o.timed[CLASSIFIER]) time_classifier(&c[CLASSIFIER], &c_cpu[CLASSIFIER], &o, &x);
    }
    bool have_torch = o.torch && !torch_failed && t.lines > 0;
    print_table(&o, &x, c, c_cpu, &t, have_torch);
    if (o.torch && !have_torch)
        printf("PyTorch: its run failed (%.60s); C measured alone\n", o.torch);
    else if (!o.torch)
        printf("PyTorch: not measured in this run (`make bench` times it with Debian's\n"
               "python3-torch in the same run and prints the ratios)\n");
    batches_free(&x);
    return o.torch && !have_torch ? 1 : 0;
}
