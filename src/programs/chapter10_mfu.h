// chapter10_mfu.h: chapter 10's [P10.6]: the training steps of chapters 7,
// 8 and 9 timed at the sizes of their book runs, and set against the
// machine's peak: each step's model FLOPs (models/step_flops.h, its matrix
// products) over its time, as a share of the peak of all cores ([P10.1]'s),
// its MFU. The models are built and their batches made here, from the
// random seed (no data needed):
//   chapter 7: the softmax attention classifier of the fixed run (GloVe's
//     width, the vectors trained), a batch of 64 chunks of 32 tokens whose
//     ids are drawn as words are, the frequent ones often (the chance of
//     the word of rank r falling as 1 / r, Zipf's law);
//   chapter 8: the encoder-decoder with sinusoidal positions on a batch of
//     the reversal task (tasks/reversal_task.h);
//   chapter 9: the GPT of 4 blocks of width 128 on 32 windows of 64
//     characters drawn uniformly from its 81.
// The models draw their starting values from a generator seeded with the
// random seed, the batches from one seeded with seed + 1. Each model takes
// `steps` steps on the same batch, each timed; a step's time is the best of
// them (no step untimed first: the best of several leaves the first, slow
// one out, and a short run under a memory checker pays for one step only).
#ifndef ATTN_CHAPTER10_MFU_H
#define ATTN_CHAPTER10_MFU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "models/step_flops.h"

#define MFU_MODELS 3

typedef struct {
    const char *name;  // "ch. 7 attention", "ch. 8 reversal", "ch. 9 GPT"
    int threads;       // the threads its step runs on
    step_cost cost;    // a step's products (every timed step has the same batch)
    double seconds;    // the best step's time
} mfu_row;

typedef struct {
    int steps;
    double peak;        // FLOP/s: the peak of all cores, [P10.1]'s
    int threads;        // the threads the program runs with
    int words;          // chapter 7's batch: its distinct words
    int src_rows, tgt_rows;  // chapter 8's batch: the rows its step computes
    mfu_row rows[MFU_MODELS];
} mfu_table;

// Times the three models, steps (1 .. TRAINING_MAX_STEPS) timed steps each,
// models and batches from seed; peak is the peak the shares are of. 0, or
// -1 with the reason in err.
int mfu_run(mfu_table *t, int steps, double peak, uint64_t seed, char *err, size_t errlen);

// A row's rate, FLOP/s, and its share of the peak.
double mfu_rate(const mfu_row *r);
double mfu_share(const mfu_table *t, const mfu_row *r);

// The block: the sizes and the threads, then a line a model (operations a
// step, operations a byte, milliseconds a step, GFLOP/s, MFU), every
// measured number followed by its unit.
void mfu_print(FILE *out, const mfu_table *t);

// Where a kernel of `intensity` FLOP/B stands against the ridge point
// `ridge` (FLOP/B) of the roofline, and which roof bounds it there: at or
// right of the ridge the peak, left of it the bandwidth.
const char *ridge_side(double intensity, double ridge);

// The roofline's points, DIR/<program>-mfu.dat: a line a model, its name
// in quotes, its operations and bytes a step, its seconds a step, its
// threads. False (said on stderr) when the file cannot be written.
bool mfu_write(const mfu_table *t, const char *program, const char *dir);

#endif
