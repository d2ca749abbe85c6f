// chapter10_training.h: chapter 10's [P10.5]: chapter 9's GPT (4 blocks of
// width 128, 4 heads) trained for a few steps twice from the same starting
// values on the same batches, once with its attention computed the naive
// way (the weights of every head in memory) and once with the tiled
// kernels of [P10.3] and [P10.4] (nothing T x T kept). The context is 256
// characters, four tiles of 64, so that the tiled passes run their running
// maximum across tiles and skip the tiles above the diagonal; the text is
// made here (no data needed): windows that count up by a stride, with
// noise.
#ifndef ATTN_CHAPTER10_TRAINING_H
#define ATTN_CHAPTER10_TRAINING_H

#include <stdint.h>
#include <stdio.h>

#define TRAINING_MAX_STEPS 64

typedef struct {
    int steps;
    double naive[TRAINING_MAX_STEPS], tiled[TRAINING_MAX_STEPS];  // each step's loss
    double largest;                // the largest |tiled - naive| / naive over the steps
    double naive_ms, tiled_ms;     // milliseconds a step, each way, the mean
    int built[2];                  // the attention each model was built with, as it says
} attention_training;

// Trains both models steps (1 .. TRAINING_MAX_STEPS) steps on batches drawn
// from a generator seeded with seed. 0, or -1 with the reason in err.
int attention_training_run(attention_training *r, int steps, uint64_t seed, char *err,
                           size_t errlen);

// The windows (B, T + 1) of step `step`: each window counts up from a
// random start by a random stride, modulo the vocabulary, with one
// character in eight replaced by a random one.
void attention_training_batch(int32_t *windows, uint64_t seed, int step);

// The losses side by side, the largest difference against the tolerance
// the tiled kernels are held to, and the time of a step each way.
void attention_training_print(FILE *out, const attention_training *r);

#endif
