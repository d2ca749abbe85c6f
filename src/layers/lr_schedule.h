// lr_schedule.h: the learning rate at each step of a training run, GPT-2's
// and nanoGPT's shape: a linear warm-up from near 0 to lr_max, then a cosine
// decay (half a period) from lr_max down to lr_min, then lr_min.
//
//   step          counts from 0 (the first optimiser step is step 0)
//   warmup        steps of warm-up: steps 0 .. warmup - 1
//   decay_steps   the step at which the cosine reaches lr_min (>= warmup)
//
//   step < warmup:                 lr_max (step + 1) / warmup
//   warmup <= step < decay_steps:  lr_min + (lr_max - lr_min) (1 + cos(pi r)) / 2,
//                                  r = (step - warmup) / (decay_steps - warmup)
//   step >= decay_steps:           lr_min
//
// nanoGPT's get_lr(it) is this with lr_max it / warmup in the warm-up
// (and so a first step at lr 0); llm.c's (step + 1) is taken here so that
// every step moves the parameters and the last warm-up step is at lr_max.
// The rate is continuous at warmup (r = 0: lr_max) and at decay_steps
// (r -> 1: lr_min).
#ifndef ATTN_LR_SCHEDULE_H
#define ATTN_LR_SCHEDULE_H

typedef struct {
    double lr_max, lr_min;
    long warmup, decay_steps;
} lr_schedule;

// The learning rate of step (from 0).
double lr_at(const lr_schedule *s, long step);

#endif
