// chapter10_mfu.c: [P10.6]; see chapter10_mfu.h.
#define _POSIX_C_SOURCE 200809L
#include "chapter10_mfu.h"

#include <math.h>
#include <stdlib.h>

#include "chapter10_training.h"
#include "core/cli.h"
#include "core/clock.h"
#include "core/print.h"
#include "core/rng.h"
#include "kernels/parallel.h"
#include "layers/positions.h"
#include "tasks/imdb_task.h"
#include "tasks/reversal_task.h"

// The book runs' sizes and learning rates: chapter 7's (tasks/imdb_task.h
// and its fixed run), chapter 8's (programs/chapter8.c), chapter 9's
// (programs/chapter9.c, its vocabulary the 81 characters of the novels).
enum { CH7_V = IMDB_VOCAB_WORDS + 2, CH7_B = IMDB_BATCH };
#define CH7_LR 1e-3
enum { CH8_D = 64, CH8_HEADS = 4, CH8_FF = 256, CH8_LAYERS = 2, CH8_B = 64 };
#define CH8_LR 1e-3
enum { CH9_V = 81, CH9_B = 32, CH9_T = 64, CH9_D = 128, CH9_HEADS = 4, CH9_LAYERS = 4,
       CH9_SHARDS = 6 };
#define CH9_LR 4e-3
#define CH9_WEIGHT_DECAY 0.1

// One step of a model on its batch.
typedef void (*step_fn)(void *model);

// `steps` steps, each timed: the best time.
static double best_step(step_fn step, void *model, int steps) {
    double best = INFINITY;
    for (int s = 0; s < steps; s++) {
        double t0 = now_seconds();
        step(model);
        best = fmin(best, now_seconds() - t0);
    }
    return best;
}

// ---------------------------------------------------------------- chapter 7

typedef struct {
    sentiment_model m;
    int32_t ids[CH7_B * IMDB_CHUNK], labels[CH7_B];
} ch7_run;

static void ch7_step(void *arg) {
    ch7_run *r = arg;
    int correct;
    sentiment_train_step(&r->m, CH7_LR, r->ids, r->labels, CH7_B, &correct);
}

// The batch: word ids of rank r drawn with a chance falling as 1 / r (r =
// floor(V^u) for u uniform in [0, 1)), labels 0 or 1.
static void ch7_batch(ch7_run *r, torch_rng *g) {
    float u[CH7_B * IMDB_CHUNK];
    rng_rand(g, u, CH7_B * IMDB_CHUNK);
    for (int t = 0; t < CH7_B * IMDB_CHUNK; t++) {
        int rank = (int)pow(CH7_V, u[t]);
        r->ids[t] = rank < CH7_V ? rank : CH7_V - 1;  // float's rounding can reach V
    }
    int64_t labels[CH7_B];
    rng_randint(g, labels, CH7_B, 0, 2);
    for (int b = 0; b < CH7_B; b++) r->labels[b] = (int32_t)labels[b];
}

static int run_ch7(mfu_table *t, int steps, uint64_t seed) {
    sentiment_config cfg = {.kind = MODEL_SOFTMAX_ATTENTION, .V = CH7_V, .d = IMDB_EMBED_DIM,
                            .d_k = IMDB_WIDTH, .L = IMDB_CHUNK, .B = CH7_B, .frozen = false};
    ch7_run *r = calloc(1, sizeof *r);
    float *table = malloc((size_t)CH7_V * IMDB_EMBED_DIM * sizeof *table);
    torch_rng g;
    rng_seed(&g, seed);
    int built = -1;  // sentiment_init leaves nothing to free when it fails
    if (r && table) {
        rng_uniform(&g, table, (size_t)CH7_V * IMDB_EMBED_DIM, -1, 1);
        built = sentiment_init(&r->m, &cfg, table, &g);
    }
    free(table);
    if (built != 0) {
        free(r);
        return -1;
    }
    rng_seed(&g, seed + 1);  // the batch's own generator
    ch7_batch(r, &g);
    mfu_row *row = &t->rows[0];
    row->seconds = best_step(ch7_step, r, steps);
    t->words = r->m.a.n_rows;
    row->cost = sentiment_step_cost(&cfg, CH7_B, t->words);
    sentiment_free(&r->m);
    free(r);
    return 0;
}

// ---------------------------------------------------------------- chapter 8

typedef struct {
    seq2seq_model m;
    reversal_batch b;
} ch8_run;

static void ch8_step(void *arg) {
    ch8_run *r = arg;
    seq2seq_train_step(&r->m, CH8_LR, r->b.src, r->b.tgt_in, r->b.tgt_out, CH8_B,
                       REVERSAL_SRC_LEN, REVERSAL_TGT_LEN);
}

static int run_ch8(mfu_table *t, int steps, uint64_t seed) {
    seq2seq_config cfg = {.V = REVERSAL_VOCAB, .d = CH8_D, .h = CH8_HEADS, .d_ff = CH8_FF,
                          .n_enc = CH8_LAYERS, .n_dec = CH8_LAYERS, .n_pos = REVERSAL_TGT_LEN,
                          .norm_first = false, .positions = POSITIONS_SINUSOIDAL,
                          .pad = REVERSAL_PAD};
    real pe[REVERSAL_TGT_LEN * CH8_D];
    positions_sinusoidal(pe, REVERSAL_TGT_LEN, CH8_D);
    ch8_run r;
    torch_rng g;
    rng_seed(&g, seed);
    if (reversal_batch_alloc(&r.b, CH8_B) != 0) return -1;
    if (seq2seq_init(&r.m, &cfg, pe, CH8_B, REVERSAL_SRC_LEN, REVERSAL_TGT_LEN, &g) != 0) {
        reversal_batch_free(&r.b);
        return -1;
    }
    rng_seed(&g, seed + 1);  // the batch's own generator, as chapter 8's
    reversal_draw(&r.b, &g);
    mfu_row *row = &t->rows[1];
    row->seconds = best_step(ch8_step, &r, steps);
    const seq2seq_acts *a = &r.m.a;
    row->cost = seq2seq_step_cost(&cfg, CH8_B, a->src_len, a->tgt_len);
    t->src_rows = a->src_rows;
    t->tgt_rows = a->tgt_rows;
    seq2seq_free(&r.m);
    reversal_batch_free(&r.b);
    return 0;
}

// ---------------------------------------------------------------- chapter 9

typedef struct {
    gpt_model *m;
    int32_t windows[CH9_B * (CH9_T + 1)];
} ch9_run;

static void ch9_step(void *arg) {
    ch9_run *r = arg;
    gpt_train_step(r->m, r->windows, CH9_B, CH9_T);
}

static int run_ch9(mfu_table *t, int steps, uint64_t seed, char *err, size_t errlen) {
    gpt_config cfg = {.V = CH9_V, .T = CH9_T, .d = CH9_D, .h = CH9_HEADS, .L = CH9_LAYERS};
    lr_schedule schedule = {.lr_max = CH9_LR, .lr_min = CH9_LR / 10, .warmup = 0,
                            .decay_steps = steps};
    ch9_run *r = malloc(sizeof *r);
    if (!r) return -1;
    r->m = gpt_build(&cfg, CH9_B, CH9_SHARDS, seed, NULL, CH9_WEIGHT_DECAY, &schedule, err,
                     errlen);
    if (!r->m) {
        free(r);
        return -2;  // err says why
    }
    torch_rng g;
    rng_seed(&g, seed + 1);
    int64_t ids[CH9_B * (CH9_T + 1)];
    rng_randint(&g, ids, CH9_B * (CH9_T + 1), 0, CH9_V);
    for (int i = 0; i < CH9_B * (CH9_T + 1); i++) r->windows[i] = (int32_t)ids[i];
    mfu_row *row = &t->rows[2];
    row->seconds = best_step(ch9_step, r, steps);
    row->cost = gpt_step_cost(&cfg, CH9_B, CH9_T);
    gpt_free(r->m);
    free(r);
    return 0;
}

// ---------------------------------------------------------------- the block

int mfu_run(mfu_table *t, int steps, double peak, uint64_t seed, char *err, size_t errlen) {
    int threads = parallel_threads();
    *t = (mfu_table){.steps = steps, .peak = peak, .threads = threads,
                     .rows = {{"ch. 7 attention", 1, {0, 0}, 0},
                              {"ch. 8 reversal", 1, {0, 0}, 0},
                              {"ch. 9 GPT", threads < CH9_SHARDS ? threads : CH9_SHARDS,
                               {0, 0}, 0}}};
    if (steps < 1 || steps > TRAINING_MAX_STEPS) {
        snprintf(err, errlen, "[P10.6]: %d steps, not 1 to %d", steps, TRAINING_MAX_STEPS);
        return -1;
    }
    int status = run_ch7(t, steps, seed);
    if (status == 0) status = run_ch8(t, steps, seed);
    if (status == 0) status = run_ch9(t, steps, seed, err, errlen);
    if (status == -1) snprintf(err, errlen, "out of memory");
    return status == 0 ? 0 : -1;
}

double mfu_rate(const mfu_row *r) { return r->cost.flops / r->seconds; }

double mfu_share(const mfu_table *t, const mfu_row *r) { return mfu_rate(r) / t->peak; }

void mfu_print(FILE *out, const mfu_table *t) {
    print_cell(out, "P10.6", "the training steps of chapters 7, 8 and 9 against the peak");
    fprintf(out, "ch. 7: softmax attention, GloVe's width %d trained, %d chunks of %d tokens\n"
            "  (%d distinct words in the batch)\n", IMDB_EMBED_DIM, CH7_B, IMDB_CHUNK, t->words);
    fprintf(out, "ch. 8: encoder-decoder, %d + %d layers of width %d, on %d reversals\n"
            "  (%d source and %d target rows computed)\n", CH8_LAYERS, CH8_LAYERS, CH8_D, CH8_B,
            t->src_rows, t->tgt_rows);
    fprintf(out, "ch. 9: GPT, %d blocks of width %d, %d windows of %d characters\n", CH9_LAYERS,
            CH9_D, CH9_B, CH9_T);
    fprintf(out, "ch. 7's and ch. 8's steps run on one thread; ch. 9's splits its batch into %d\n"
            "  shards that the threads share\n", CH9_SHARDS);
    fprintf(out, "a step: the best of %d; MFU: its rate over the peak of all cores,\n"
            "  %.1f GFLOP/s (threads: %d)\n", t->steps, t->peak / 1e9, t->threads);
    fprintf(out, "%-16s %12s %6s %11s %15s  %s\n", "model", "operations", "FLOP/B", "a step",
            "rate", "MFU");
    for (int i = 0; i < MFU_MODELS; i++) {
        const mfu_row *r = &t->rows[i];
        fprintf(out, "%-16s %12.0f %6.1f %8.2f ms %7.2f GFLOP/s %5.1f%% of peak\n", r->name,
                r->cost.flops, r->cost.flops / r->cost.bytes, 1e3 * r->seconds, mfu_rate(r) / 1e9,
                100 * mfu_share(t, r));
    }
}

bool mfu_write(const mfu_table *t, const char *program, const char *dir) {
    char name[64];
    snprintf(name, sizeof name, "%s-mfu.dat", program);
    FILE *f = open_data_file(program, dir, name);
    if (!f) return false;
    fputs("# model operations bytes seconds threads (a training step, the best)\n", f);
    for (int i = 0; i < MFU_MODELS; i++) {
        const mfu_row *r = &t->rows[i];
        fprintf(f, "\"%s\" %.17g %.17g %.6g %d\n", r->name, r->cost.flops, r->cost.bytes,
                r->seconds, r->threads);
    }
    return close_data_file(program, f, dir, name);
}

const char *ridge_side(double intensity, double ridge) {
    return intensity >= ridge
               ? "right of the ridge: the roofline bounds it by the peak, not the bandwidth"
               : "left of the ridge: the roofline bounds it by the bandwidth";
}
