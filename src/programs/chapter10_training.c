// chapter10_training.c: [P10.5]; see chapter10_training.h.
#define _POSIX_C_SOURCE 200809L
#include "chapter10_training.h"

#include <math.h>
#include <stdlib.h>

#include "core/clock.h"
#include "core/print.h"
#include "core/rng.h"
#include "kernels/attention_tiles.h"
#include "models/gpt.h"

enum { V = 64, T = 256, D = 128, HEADS = 4, LAYERS = 4, B = 4, SHARDS = 1 };
#define LR 4e-3
#define TILED_TOL 2e-5  // tests/test_tiled_attention.c's: relative to |the loss| + 1

void attention_training_batch(int32_t *windows, uint64_t seed, int step) {
    torch_rng g;
    rng_seed(&g, seed * 1000003u + (uint64_t)step);
    for (int b = 0; b < B; b++) {
        int64_t start_stride[2], noise[T + 1], pick[T + 1];
        rng_randint(&g, start_stride, 2, 0, V);
        rng_randint(&g, noise, T + 1, 0, 8);
        rng_randint(&g, pick, T + 1, 0, V);
        for (int t = 0; t <= T; t++)
            windows[b * (T + 1) + t] = noise[t] == 0 ? (int32_t)pick[t]
                : (int32_t)((start_stride[0] + start_stride[1] * t) % V);
    }
}

// One model's losses and its mean time a step, trained with attention `how`.
static int train_one(double *losses, double *ms, int *built, gpt_attention how, int steps,
                     uint64_t seed, char *err, size_t errlen) {
    gpt_config cfg = { .V = V, .T = T, .d = D, .h = HEADS, .L = LAYERS, .attention = how };
    lr_schedule schedule = { .lr_max = LR, .lr_min = LR / 10, .warmup = 0, .decay_steps = steps };
    gpt_model *m = gpt_build(&cfg, B, SHARDS, seed, NULL, 0.1, &schedule, err, errlen);
    int32_t *windows = malloc((size_t)B * (T + 1) * sizeof *windows);
    if (!m || !windows) {
        if (m) snprintf(err, errlen, "out of memory");
        gpt_free(m);
        free(windows);
        return -1;
    }
    *built = (int)m->cfg.attention;
    double started = now_seconds();
    for (int s = 0; s < steps; s++) {
        attention_training_batch(windows, seed, s);
        losses[s] = gpt_train_step(m, windows, B, T);
    }
    *ms = 1000 * (now_seconds() - started) / steps;
    gpt_free(m);
    free(windows);
    return 0;
}

int attention_training_run(attention_training *r, int steps, uint64_t seed, char *err,
                           size_t errlen) {
    r->steps = steps;
    if (train_one(r->naive, &r->naive_ms, &r->built[0], GPT_ATTENTION_NAIVE, steps, seed, err,
                  errlen) != 0 ||
        train_one(r->tiled, &r->tiled_ms, &r->built[1], GPT_ATTENTION_TILED, steps, seed, err,
                  errlen) != 0)
        return -1;
    r->largest = 0;
    for (int s = 0; s < steps; s++)
        r->largest = fmax(r->largest, fabs(r->tiled[s] - r->naive[s]) / fabs(r->naive[s]));
    return 0;
}

void attention_training_print(FILE *out, const attention_training *r) {
    print_cell(out, "P10.5", "chapter 9's model trained with each attention");
    fprintf(out, "4 blocks of width 128, 4 heads, context %d (%d tiles of %d), batch %d; the\n"
            "same starting values and batches; losses in nats\n", T, T / ATTN_TILE, ATTN_TILE, B);
    fputs(" step       naive       tiled  difference\n", out);
    for (int s = 0; s < r->steps; s++)
        fprintf(out, "%5d  %10.6f  %10.6f  %10.1e\n", s + 1, r->naive[s], r->tiled[s],
                r->tiled[s] - r->naive[s]);
    fprintf(out, "largest relative difference: %.1e of the loss; within the tiled kernels'\n"
            "tolerance (%.0e): %s\n", r->largest, TILED_TOL, r->largest <= TILED_TOL ? "yes" : "no");
    fprintf(out, "a step: naive %.0f ms, tiled %.0f ms\n", r->naive_ms, r->tiled_ms);
}
