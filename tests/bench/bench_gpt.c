// bench_gpt.c: chapter 9's GPT on Jane Austen's novels (Persuasion held
// out, tasks/austen.h), timed, and the files tests/reference/chapter9_twin.py
// starts from. The training itself, with its held-out losses and samples,
// is ./chapter9's (src/programs/chapter9.c); the sizes here are its:
// 4 layers, 4 heads, width 128, context 64, batch 32.
//
// Two modes. Without --bench, the training of ./chapter9 from its starting
// model, the first 20 steps' losses printed each and every 50th, then the
// median step time (the steps after the first 3, which warm up): --steps N
// steps (0: none, only the files below), one thread unless --threads says.
// --write-init writes the model before its first step (gpt_save) and
// --write-ids the training text's ids (little-endian int32): what
// tests/reference/chapter9_twin.py starts from, drawing the same batches
// from the same --seed (tests/reference/chapter9_losses_golden.py runs
// both). --time-only prints only the step time.
//
// With --bench (`make bench-gpt`), C against the PyTorch twin in one run,
// on all threads unless --threads says, the rounds taking turns, PyTorch
// then C (bench.h's bench_rounds):
//   [1] the training step, B 32 windows of 64: C's time against the
//       twin's (tests/reference/bench_torch9.py, chapter9_twin.py's
//       train_step) on the same starting model (gpt_build's, written with
//       gpt_save and read by the twin) and the same batches (each round
//       both start again from that model and the seed): one step untimed,
//       then R runs of N steps, a run's time its steps' mean; each side
//       the min of its runs, 8 rounds of 3 runs by default: this
//       machine's speed swings by a third over tens of seconds, and with
//       4 rounds a side's few seconds of training could all fall in slow
//       stretches (here, one run's C took 80.7 ms at best; a run of 8
//       rounds a minute later, 54.0). Then the step's model FLOPs
//       (models/step_flops.h) a second, as a share of the measured peak of
//       the threads the side ran on (kernels/machine.h).
//   [2] generation: for each context T of 64, 128, 256, 512 (the book's
//       width, heads and layers; the starting weights, since the speed
//       does not depend on training), T - 1 tokens from a one-character
//       prompt, so that the window fills and never slides: gpt_generate
//       with the cache and without, against the twin's generation with a
//       cache of keys and values. The C writes each model with gpt_save,
//       so that the twin generates with the same weights. Tokens a second
//       of the best run.
// The models and ids go into temporary files under --work DIR (build),
// removed at the end (and when a signal ends the run).
// PyTorch takes the better of 1 and 2 threads; --torch CMD runs its
// script (CMD is given the files' options after it). Without --torch, C
// alone.
//
// --shards splits each batch into that many parts (gpt.h), which the
// threads share; the numbers do not depend on the threads. --tiled computes
// the training's attention a tile at a time (gpt.h's GPT_ATTENTION_TILED),
// not with the weights in memory.
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/cli.h"
#include "core/clock.h"
#include "core/rng.h"
#include "kernels/machine.h"
#include "kernels/parallel.h"
#include "models/gpt.h"
#include "models/step_flops.h"
#include "tasks/austen.h"

#define PROGRAM "bench_gpt"
#include "bench.h"

enum { B = 32, T = 64, D = 128, HEADS = 4, LAYERS = 4, CONTEXTS = 4, MAX_STEPS = 1000000 };
static const int CONTEXT[CONTEXTS] = {64, 128, 256, 512};
static const char *const NAME[1 + CONTEXTS] = {"train", "generate-64", "generate-128",
                                               "generate-256", "generate-512"};
#define WEIGHT_DECAY 0.1
#define TRAIN_TARGET 2.0     // PyTorch's step time at least this many times C's
#define GENERATE_TARGET 5.0  // C's cached tokens a second at least this many times PyTorch's

static const char USAGE[] =
    "[--steps N] [--lr X] [--warmup N] [--seed N] [--threads N] [--shards N]\n"
    "         [--rdb PATH] [--time-only] [--tiled] [--write-init FILE] [--write-ids FILE]\n"
    "   or: bench_gpt --bench [--torch CMD] [--rounds N] [--repeats R] [--steps N]\n"
    "         [--quick] [--seed N] [--threads N] [--shards N] [--rdb PATH] [--tiled]\n"
    "         [--work DIR]\n"
    "\n"
    "Chapter 9's GPT (4 layers, 4 heads, width 128, context 64, batches of 32) timed.\n"
    "Without --bench: ./chapter9's training, its losses and the median step time.\n"
    "  --steps N         training steps (1500; 0: only write the files below)\n"
    "  --lr X, --warmup N  the peak learning rate (0.004) and its warm-up steps (50)\n"
    "  --time-only       print only the step time\n"
    "  --write-init FILE, --write-ids FILE  the starting model (gpt_save) and the\n"
    "                    training ids (little-endian int32), for chapter9_twin.py\n"
    "With --bench: the training step and generation against the PyTorch twin.\n"
    "  --torch CMD       also time PyTorch: CMD runs tests/reference/bench_torch9.py\n"
    "  --rounds N        rounds, PyTorch and C in turn (8)\n"
    "  --repeats R       runs of each measurement in a round (3)\n"
    "  --steps N         training steps a run (3)\n"
    "  --quick           1 step, 2 runs, 1 round\n"
    "  --work DIR        where the temporary model files go (build)\n"
    "Both:\n"
    "  --seed N          the starting weights' and the batches' seed (1337)\n"
    "  --threads N       threads (without --bench 1, with it all)\n"
    "  --shards N        parts each batch is split into, 1 to 32 (6, as ./chapter9)\n"
    "  --rdb PATH        the novels (data/janeaustenr/data/Rdata.rdb)\n"
    "  --tiled           the training's attention a tile at a time\n"
    "  --help            this message";

typedef struct {
    long long steps, warmup, threads, shards, rounds, repeats;
    double lr;
    common_options common;  // the seed
    const char *rdb, *write_init, *write_ids, *torch, *work;
    bool time_only, tiled, bench, quick;
} options;

static int usage_error(const char *message, const char *option) {
    fprintf(stderr, "%s: error: %s%s\n", PROGRAM, option, message);
    fprintf(stderr, "usage: %s %s\n", PROGRAM, USAGE);
    return 2;
}

// The options that belong to one mode only: refused in the other.
static int check_modes(const options *o, int argc, char **argv) {
    static const char *const bench_only[] = {"--torch", "--rounds", "--repeats", "--quick",
                                             "--work"};
    static const char *const train_only[] = {"--lr", "--warmup", "--time-only", "--write-init",
                                             "--write-ids"};
    for (size_t k = 0; k < sizeof bench_only / sizeof *bench_only; k++)
        if (!o->bench && option_given(argc, argv, bench_only[k]))
            return usage_error(" is an option of --bench", bench_only[k]);
    for (size_t k = 0; k < sizeof train_only / sizeof *train_only; k++) {
        int st = cli_exit_status(refuse_together(argc, argv, PROGRAM, USAGE, train_only[k],
                                                 "--bench"));
        if (st >= 0) return st;
    }
    static const char *const quick_sets[] = {"--steps", "--repeats", "--rounds"};
    for (size_t k = 0; k < sizeof quick_sets / sizeof *quick_sets; k++) {
        int st = cli_exit_status(refuse_together(argc, argv, PROGRAM, USAGE, quick_sets[k],
                                                 "--quick"));
        if (st >= 0) return st;
    }
    return -1;
}

// Parses the command line into o; -1 to go on, else the exit status.
static int parse(options *o, int argc, char **argv) {
    *o = (options){.steps = -1, .warmup = 50, .lr = 4e-3, .common = {.seed = 1337},
                   .shards = 6, .rounds = 8, .repeats = 3, .work = "build",
                   .rdb = "data/janeaustenr/data/Rdata.rdb"};
    extra_option extra[] = {
        {"--steps", OPT_INTEGER, &o->steps, 0, MAX_STEPS, "training steps"},
        {"--lr", OPT_NUMBER, &o->lr, 0, 10, ""},
        {"--warmup", OPT_INTEGER, &o->warmup, 0, MAX_STEPS, "steps"},
        {"--threads", OPT_INTEGER, &o->threads, 1, 256, ""},
        {"--shards", OPT_INTEGER, &o->shards, 1, B, "parts of a batch"},
        {"--rdb", OPT_STRING, &o->rdb, 0, 0, "a file"},
        {"--time-only", OPT_FLAG, &o->time_only, 0, 0, ""},
        {"--tiled", OPT_FLAG, &o->tiled, 0, 0, ""},
        {"--write-init", OPT_STRING, &o->write_init, 0, 0, "a file"},
        {"--write-ids", OPT_STRING, &o->write_ids, 0, 0, "a file"},
        {"--bench", OPT_FLAG, &o->bench, 0, 0, ""},
        {"--torch", OPT_STRING, &o->torch, 0, 0, "a command"},
        {"--rounds", OPT_INTEGER, &o->rounds, 1, MAX_RUNS, "rounds"},
        {"--repeats", OPT_INTEGER, &o->repeats, 1, MAX_RUNS, "runs"},
        {"--quick", OPT_FLAG, &o->quick, 0, 0, ""},
        {"--work", OPT_STRING, &o->work, 0, 0, "a directory"},
    };
    if (option_given(argc, argv, "--data"))  // cli.h's, which this program has no use for
        return usage_error("' is not an option of bench_gpt", "'--data");
    int st = cli_exit_status(parse_options_with(argc, argv, PROGRAM, USAGE, &o->common, extra,
                                                (int)(sizeof extra / sizeof *extra)));
    if (st < 0) st = check_modes(o, argc, argv);
    if (st >= 0) return st;
    if (!o->bench) {
        if (o->steps < 0) o->steps = 1500;
        if (o->threads == 0) o->threads = 1;
        return -1;
    }
    if (o->quick) o->steps = 1, o->repeats = 2, o->rounds = 1;
    if (o->steps < 0) o->steps = 3;
    if (o->steps < 1 || o->steps > 1000)
        return usage_error(" needs a whole number from 1 to 1000 with --bench", "--steps");
    if (o->repeats * o->rounds > MAX_RUNS)
        return usage_error(" times --rounds is at most 64 (runs kept)", "--repeats");
    if (o->threads == 0) o->threads = parallel_threads();
    return -1;
}

// ids (n) as little-endian int32 into path; 0, or -1.
static int write_ids(const char *path, const int32_t *ids, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)ids[i];
        unsigned char b[4] = { u & 255, u >> 8 & 255, u >> 16 & 255, u >> 24 };
        fwrite(b, 1, 4, f);
    }
    int bad = ferror(f);
    return fclose(f) == 0 && !bad ? 0 : -1;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// The book's schedule over `steps` steps.
static lr_schedule schedule(const options *o, long long steps) {
    return (lr_schedule){.lr_max = o->lr, .lr_min = o->lr / 10, .warmup = o->warmup,
                         .decay_steps = steps};
}

// chapter 9's starting model, room for batches of B; exits when it cannot.
static gpt_model *book_model(const options *o, const austen_corpus *c, const lr_schedule *s) {
    gpt_config cfg = {.V = c->vocab.size, .T = T, .d = D, .h = HEADS, .L = LAYERS,
                      .attention = o->tiled ? GPT_ATTENTION_TILED : GPT_ATTENTION_NAIVE};
    char err[400];
    gpt_model *m = gpt_build(&cfg, B, (int)o->shards, o->common.seed, c->vocab.chars,
                             WEIGHT_DECAY, s, err, sizeof err);
    if (!m) {
        fprintf(stderr, "%s: %s\n", PROGRAM, err);
        exit(1);
    }
    m->opt.b2 = 0.99;  // nanoGPT's for its small character models
    return m;
}

// ---------------------------------------------------------------- training

// Without --bench: trains and prints as the top of this file says.
static int train_and_print(const options *o, const austen_corpus *c) {
    lr_schedule s = schedule(o, o->steps);
    gpt_model *m = book_model(o, c, &s);
    char err[400];
    int bad = o->write_init && gpt_save(m, o->write_init, err, sizeof err) != 0;
    if (!bad && o->write_ids && write_ids(o->write_ids, austen_train_ids(c), c->n_train) != 0)
        bad = snprintf(err, sizeof err, "cannot write %s", o->write_ids) > 0;
    if (bad) {
        fprintf(stderr, "%s: error: %s\n", PROGRAM, err);
        gpt_free(m);
        return 1;
    }
    torch_rng g;
    rng_seed(&g, o->common.seed);
    int32_t *windows = checked(malloc((size_t)B * (T + 1) * sizeof *windows));
    double *ms = checked(malloc((size_t)(o->steps > 0 ? o->steps : 1) * sizeof *ms));
    if (!o->time_only)
        printf("%s: %zu parameters, %zu training and %zu held-out (%s) characters, "
               "V %d, %lld thread(s), %lld shard(s), %s attention\n", PROGRAM, m->n_params,
               c->n_train, c->n_val, c->held_out, m->cfg.V, o->threads, o->shards,
               o->tiled ? "tiled" : "naive");
    double t0 = now_seconds();
    for (long step = 0; step < o->steps; step++) {
        austen_batch(windows, NULL, austen_train_ids(c), c->n_train, B, T, &g);
        double a = now_seconds();
        double loss = gpt_train_step(m, windows, B, T);
        ms[step] = 1e3 * (now_seconds() - a);
        if (o->time_only) continue;
        if (step < 20 || step % 50 == 0 || step == o->steps - 1)
            printf("step %5ld  loss %.6f  lr %.2e  norm %.3f  %.1f ms\n", step, loss,
                   lr_at(&s, step), m->last_norm, ms[step]);
    }
    qsort(ms + 3, o->steps > 3 ? o->steps - 3 : 0, sizeof *ms, cmp_double);
    long k = o->steps > 3 ? 3 + (o->steps - 3) / 2 : 0;
    printf("step time: median %.1f ms over %lld steps (%lld thread(s)), %.1f s in all\n",
           o->steps ? ms[k] : 0, o->steps, o->threads, now_seconds() - t0);
    free(windows);
    free(ms);
    gpt_free(m);
    return 0;
}

// ---------------------------------------------------------------- the files

// The temporary files of --bench: removed at exit and on a signal.
enum { FILES = 2 + CONTEXTS };
static char *temp_file[FILES];

static void remove_temp_files(void) {
    for (int k = 0; k < FILES; k++)
        if (temp_file[k]) {
            remove(temp_file[k]);
            keep_on_signal(temp_file[k]);
            free(temp_file[k]);
            temp_file[k] = NULL;
        }
}

// Temporary file k's name, DIR/bench-gpt-PID-SUFFIX, registered for removal.
static const char *temp_name(const options *o, int k, const char *suffix) {
    size_t len = strlen(o->work) + strlen(suffix) + 40;
    temp_file[k] = checked(malloc(len));
    snprintf(temp_file[k], len, "%s/bench-gpt-%ld-%s", o->work, (long)getpid(), suffix);
    remove_on_signal(temp_file[k]);
    return temp_file[k];
}

// s appended to the command at *end, quoted for the shell.
static void append_quoted(char **end, const char *s) {
    *(*end)++ = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            memcpy(*end, "'\\''", 4);
            *end += 4;
        } else {
            *(*end)++ = *s;
        }
    }
    *(*end)++ = '\'';
    **end = '\0';
}

// The twin's command: --torch's, then the files and the sizes.
static char *torch_command(const options *o) {
    size_t len = strlen(o->torch) + 200;
    for (int k = 0; k < FILES; k++) len += 4 * strlen(temp_file[k]) + 8;
    char *cmd = checked(malloc(len)), *end = cmd;
    end += sprintf(end, "%s --seed %llu --batch %d --steps %lld --repeats %lld --model ",
                   o->torch, (unsigned long long)o->common.seed, B, o->steps, o->repeats);
    append_quoted(&end, temp_file[0]);
    end += sprintf(end, " --ids ");
    append_quoted(&end, temp_file[1]);
    end += sprintf(end, " --gen");
    for (int k = 0; k < CONTEXTS; k++) {
        *end++ = ' ';
        append_quoted(&end, temp_file[2 + k]);
    }
    return cmd;
}

// ---------------------------------------------------------------- --bench

typedef struct {
    const options *o;
    const austen_corpus *c;
    gpt_model *gen[CONTEXTS];  // the generation models, room for one sequence
    int32_t *windows, *tokens;
    runs train, cached[CONTEXTS], uncached[CONTEXTS];  // ms a step, ms a token
} c_side;

// The models the rounds use, written for the twin.
static void write_models(c_side *s) {
    const options *o = s->o;
    char err[400];
    lr_schedule sch = schedule(o, 1500);
    gpt_model *m = book_model(o, s->c, &sch);
    int bad = gpt_save(m, temp_name(o, 0, "init.gpt"), err, sizeof err) != 0;
    gpt_free(m);
    const char *ids = temp_name(o, 1, "ids.bin");
    if (!bad && write_ids(ids, austen_train_ids(s->c), s->c->n_train) != 0) {
        bad = snprintf(err, sizeof err, "cannot write %s", ids) > 0;
    }
    for (int k = 0; k < CONTEXTS && !bad; k++) {
        gpt_config cfg = {.V = s->c->vocab.size, .T = CONTEXT[k], .d = D, .h = HEADS,
                          .L = LAYERS};
        char suffix[32];
        snprintf(suffix, sizeof suffix, "gen%d.gpt", CONTEXT[k]);
        s->gen[k] = gpt_build(&cfg, 1, 1, o->common.seed, s->c->vocab.chars, WEIGHT_DECAY,
                              &sch, err, sizeof err);
        bad = !s->gen[k] || gpt_save(s->gen[k], temp_name(o, 2 + k, suffix), err,
                                     sizeof err) != 0;
    }
    if (bad) {
        fprintf(stderr, "%s: error: %s\n", PROGRAM, err);
        exit(1);  // remove_temp_files runs at exit
    }
}

// One untimed step, then o->repeats runs of o->steps steps, from the
// starting model and the seed, as the twin runs them.
static void time_training(c_side *s) {
    const options *o = s->o;
    lr_schedule sch = schedule(o, 1500);
    gpt_model *m = book_model(o, s->c, &sch);
    torch_rng g;
    rng_seed(&g, o->common.seed);
    for (long long run = -1; run < o->repeats; run++) {
        double seconds = 0;
        for (long long step = 0; step < (run < 0 ? 1 : o->steps); step++) {
            austen_batch(s->windows, NULL, austen_train_ids(s->c), s->c->n_train, B, T, &g);
            double a = now_seconds();
            gpt_train_step(m, s->windows, B, T);
            seconds += now_seconds() - a;
        }
        if (run >= 0) add_run(&s->train, 1e3 * seconds / (double)o->steps);
    }
    gpt_free(m);
}

// The ms a token of one generation of T - 1 tokens after the prompt id 0.
static double generation_ms(c_side *s, int k, bool use_cache) {
    int32_t prompt = 0;
    double a = now_seconds();
    if (gpt_generate(s->gen[k], s->tokens, &prompt, 1, CONTEXT[k] - 1, 1.0, 0,
                     s->o->common.seed, use_cache) != 0) {
        fprintf(stderr, "%s: gpt_generate refused the prompt\n", PROGRAM);
        exit(1);
    }
    return 1e3 * (now_seconds() - a) / (CONTEXT[k] - 1);
}

// C's side of a round: the training, then each context's generation with
// the cache (one untimed, then o->repeats) and without (one run: at
// T = 512 it takes seconds, and its speed is not a target).
static void c_round(void *ctx) {
    c_side *s = ctx;
    time_training(s);
    for (int k = 0; k < CONTEXTS; k++) {
        generation_ms(s, k, true);
        for (long long run = 0; run < s->o->repeats; run++)
            add_run(&s->cached[k], generation_ms(s, k, true));
        add_run(&s->uncached[k], generation_ms(s, k, false));
    }
}

// PyTorch's better min of 1 and 2 threads (0 when it has none), and the
// threads of that one.
static double torch_best(const torch_times *t, int k, int *threads) {
    double best = 0, min, median;
    for (int n = 1; n <= 2; n++) {
        summary(&t->by[k][n], &min, &median);
        if (min > 0 && (best == 0 || min < best)) best = min, *threads = n;
    }
    return best;
}

// The min of r.
static double best(const runs *r) {
    double min, median;
    summary(r, &min, &median);
    return min;
}

static void print_step_row(const char *who, double ms, double flops, int threads,
                           double peak) {
    double rate = flops / (ms * 1e-3);
    printf("  %-8s %8.1f %10.1f %8d %14.1f %8.0f%%\n", who, ms, rate / 1e9, threads,
           peak / 1e9, 100 * rate / peak);
}

static void print_training(const c_side *s, const torch_times *t, bool have_torch) {
    gpt_config cfg = {.V = s->c->vocab.size, .T = T, .d = D, .h = HEADS, .L = LAYERS};
    double flops = gpt_step_flops(&cfg, B, T), c = best(&s->train);
    int threads = (int)s->o->threads, torch_threads = 1;
    double torch = have_torch ? torch_best(t, 0, &torch_threads) : 0;
    printf("[1] training step, B %d windows of %d characters, d %d, h %d, L %d, V %d:\n"
           "%.2f GFLOP a step (models/step_flops.h); ms a step, the min of the runs;\n"
           "share: of the measured peak of the same threads (kernels/machine.h)\n",
           B, T, D, HEADS, LAYERS, cfg.V, flops / 1e9);
    printf("  %-8s %8s %10s %8s %14s %9s\n", "", "ms", "GFLOP/s", "threads", "peak GFLOP/s",
           "share");
    print_step_row("C", c, flops, threads, machine_peak_flops(threads, 0.5));
    if (torch > 0)
        print_step_row("PyTorch", torch, flops, torch_threads,
                       machine_peak_flops(torch_threads, 0.5));
    if (torch > 0)
        printf("  PyTorch / C: %.2fx, target: at least %.0fx\n", torch / c, TRAIN_TARGET);
}

static void print_generation(const c_side *s, const torch_times *t, bool have_torch) {
    printf("[2] generation: T - 1 tokens from a one-character prompt (temperature 1; the\n"
           "window fills and never slides); tokens a second, the best run (C uncached: one\n"
           "run a round)\n");
    printf("  %5s %10s %12s %16s %20s   %s\n", "T", "C cached", "C uncached",
           "PyTorch cached", "C cached / PyTorch", "target");
    for (int k = 0; k < CONTEXTS; k++) {
        int threads = 0;
        double c = 1e3 / best(&s->cached[k]), un = 1e3 / best(&s->uncached[k]);
        double ms = have_torch ? torch_best(t, 1 + k, &threads) : 0;
        printf("  %5d %10.0f %12.0f", CONTEXT[k], c, un);
        if (ms > 0)
            printf(" %16.0f %19.2fx   at least %.0fx\n", 1e3 / ms, c * ms / 1e3,
                   GENERATE_TARGET);
        else
            printf(" %16s %20s\n", "-", "-");
    }
}

static int bench(const options *o, const austen_corpus *c) {
    double t0 = now_seconds();
    c_side s = {.o = o, .c = c};
    s.windows = checked(malloc((size_t)B * (T + 1) * sizeof *s.windows));
    s.tokens = checked(malloc((size_t)CONTEXT[CONTEXTS - 1] * sizeof *s.tokens));
    atexit(remove_temp_files);
    write_models(&s);
    char *cmd = o->torch ? torch_command(o) : NULL;
    bench_options b = {.steps = (int)o->steps, .repeats = (int)o->repeats,
                       .rounds = (int)o->rounds, .torch = cmd};
    torch_times t = {.lines = 0};
    bool have_torch = bench_rounds(&b, &t, NAME, 1 + CONTEXTS, c_round, &s);
    remove_temp_files();
    if (o->torch)
        printf("%s: chapter 9's GPT, C on %lld thread(s) against its PyTorch twin on 1 and 2\n"
               "(tests/reference/bench_torch9.py, the better); %lld round(s) in turn, PyTorch\n"
               "then C, %lld runs of each measurement a round\n",
               PROGRAM, o->threads, o->rounds, o->repeats);
    else
        printf("%s: chapter 9's GPT, C on %lld thread(s); %lld round(s), %lld runs of each\n"
               "measurement a round\n", PROGRAM, o->threads, o->rounds, o->repeats);
    print_training(&s, &t, have_torch);
    print_generation(&s, &t, have_torch);
    if (have_torch) printf("torch %s\n", t.version);
    if (have_torch && *t.kernels) printf("%s\n", t.kernels);
    else if (o->torch) printf("PyTorch: its run failed (%.60s); C measured alone\n", o->torch);
    else printf("PyTorch: not measured in this run (no --torch); C alone\n");
    printf("the whole run: %.0f s\n", now_seconds() - t0);
    free(cmd);
    free(s.windows);
    free(s.tokens);
    for (int k = 0; k < CONTEXTS; k++) gpt_free(s.gen[k]);
    return o->torch && !have_torch ? 1 : 0;
}

int main(int argc, char **argv) {
    options o;
    int status = parse(&o, argc, argv);
    if (status >= 0) return status;
    setvbuf(stdout, NULL, _IOLBF, 0);  // progress lines as they come, also into a file
    parallel_set_threads((int)o.threads);
    austen_corpus c;
    char err[400];
    if (austen_load(&c, o.rdb, AUSTEN_HELD_OUT, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROGRAM, err);
        return 1;
    }
    status = o.bench ? bench(&o, &c) : train_and_print(&o, &c);
    austen_free(&c);
    return finish_output(PROGRAM) ? status : 1;
}
