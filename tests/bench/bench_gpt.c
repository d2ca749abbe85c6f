// bench_gpt.c: the time of a training step of chapter 9's GPT on Jane
// Austen's novels (Persuasion held out, tasks/austen.h), and the files
// tests/reference/chapter9_twin.py starts from. The training itself, with
// its held-out losses and samples, is ./chapter9's (src/programs/chapter9.c);
// the sizes here are its: 4 layers, 4 heads, width 128, context 64, batch 32.
//
//   bench_gpt [--steps N] [--lr X] [--warmup N] [--seed S] [--threads N]
//             [--shards N] [--rdb PATH] [--time-only] [--tiled]
//             [--write-init FILE] [--write-ids FILE]
//
// --write-init writes the model before its first step (gpt_save) and
// --write-ids the training text's ids (little-endian int32): what
// tests/reference/chapter9_twin.py starts from, drawing the same batches
// from the same --seed (tests/reference/chapter9_losses_golden.py runs
// both). The first 20 steps' losses are printed each.
//
// --shards splits each batch into that many parts (gpt.h), which --threads
// threads share; the numbers do not depend on the threads.
// --time-only prints only the step's time (the median of the steps after
// the first 3, which warm up). --tiled computes the attention a tile at a
// time (gpt.h's GPT_ATTENTION_TILED), not with the weights in memory.
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/rng.h"
#include "kernels/parallel.h"
#include "models/gpt.h"
#include "tasks/austen.h"

enum { B = 32, T = 64, D = 128, HEADS = 4, LAYERS = 4 };

typedef struct {
    long steps, warmup;
    double lr;
    unsigned long long seed;
    int threads, shards;
    const char *rdb, *write_init, *write_ids;
    int time_only, tiled;
} options;

static void parse(options *o, int argc, char **argv) {
    *o = (options){ .steps = 1250, .warmup = 50, .lr = 4e-3, .seed = 1337,
                    .threads = 1, .shards = 2, .rdb = "data/janeaustenr/data/Rdata.rdb" };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--time-only") == 0) { o->time_only = 1; continue; }
        if (strcmp(a, "--tiled") == 0) { o->tiled = 1; continue; }
        if (!v) { fprintf(stderr, "bench_gpt: %s needs a value\n", a); exit(2); }
        if (strcmp(a, "--steps") == 0) o->steps = atol(v);
        else if (strcmp(a, "--warmup") == 0) o->warmup = atol(v);
        else if (strcmp(a, "--lr") == 0) o->lr = atof(v);
        else if (strcmp(a, "--seed") == 0) o->seed = strtoull(v, NULL, 10);
        else if (strcmp(a, "--threads") == 0) o->threads = atoi(v);
        else if (strcmp(a, "--shards") == 0) o->shards = atoi(v);
        else if (strcmp(a, "--rdb") == 0) o->rdb = v;
        else if (strcmp(a, "--write-init") == 0) o->write_init = v;
        else if (strcmp(a, "--write-ids") == 0) o->write_ids = v;
        else { fprintf(stderr, "bench_gpt: unknown option %s\n", a); exit(2); }
        i++;
    }
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

int main(int argc, char **argv) {
    options o;
    parse(&o, argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);  // progress lines as they come, also into a file
    parallel_set_threads(o.threads);
    austen_corpus c;
    char err[400];
    if (austen_load(&c, o.rdb, AUSTEN_HELD_OUT, err, sizeof err) != 0) {
        fprintf(stderr, "bench_gpt: %s\n", err);
        return 1;
    }
    gpt_config cfg = { .V = c.vocab.size, .T = T, .d = D, .h = HEADS, .L = LAYERS,
                       .attention = o.tiled ? GPT_ATTENTION_TILED : GPT_ATTENTION_NAIVE };
    lr_schedule s = { .lr_max = o.lr, .lr_min = o.lr / 10, .warmup = o.warmup,
                      .decay_steps = o.steps };
    gpt_model *m = gpt_build(&cfg, B, o.shards, o.seed, c.vocab.chars, 0.1, &s, err, sizeof err);
    if (!m) {
        fprintf(stderr, "bench_gpt: %s\n", err);
        return 1;
    }
    m->opt.b2 = 0.99;  // nanoGPT's for its small character models
    if (o.write_init && gpt_save(m, o.write_init, err, sizeof err) != 0)
        fprintf(stderr, "bench_gpt: %s\n", err);
    if (o.write_ids && write_ids(o.write_ids, austen_train_ids(&c), c.n_train) != 0)
        fprintf(stderr, "bench_gpt: cannot write %s\n", o.write_ids);
    torch_rng g;
    rng_seed(&g, o.seed);
    int32_t *windows = malloc((size_t)B * (T + 1) * sizeof *windows);
    double *ms = malloc((size_t)(o.steps > 0 ? o.steps : 1) * sizeof *ms);
    if (!windows || !ms) return 1;
    if (!o.time_only)
        printf("bench_gpt: %zu parameters, %zu training and %zu held-out (%s) characters, "
               "V %d, %d thread(s), %d shard(s), %s attention\n", m->n_params, c.n_train,
               c.n_val, c.held_out, cfg.V, o.threads, o.shards, o.tiled ? "tiled" : "naive");
    double t0 = now_seconds();
    for (long step = 0; step < o.steps; step++) {
        austen_batch(windows, NULL, austen_train_ids(&c), c.n_train, B, T, &g);
        double a = now_seconds();
        double loss = gpt_train_step(m, windows, B, T);
        ms[step] = 1e3 * (now_seconds() - a);
        if (o.time_only) continue;
        if (step < 20 || step % 50 == 0 || step == o.steps - 1)
            printf("step %5ld  loss %.6f  lr %.2e  norm %.3f  %.1f ms\n", step, loss,
                   lr_at(&s, step), m->last_norm, ms[step]);
    }
    qsort(ms + 3, o.steps > 3 ? o.steps - 3 : 0, sizeof *ms, cmp_double);
    long k = o.steps > 3 ? 3 + (o.steps - 3) / 2 : 0;
    printf("step time: median %.1f ms over %ld steps (%d thread(s)), %.1f s in all\n",
           o.steps ? ms[k] : 0, o.steps, o.threads, now_seconds() - t0);
    free(windows);
    free(ms);
    gpt_free(m);
    austen_free(&c);
    return 0;
}
