// chapter7_figures.h: the figure data chapter 7 writes with --data DIR
// (chapter7_figures.c). It knows the library's types only, not the cells':
// chapter7.c calls it with what the trainer returned, and it calls nothing
// back.
#ifndef ATTN_CHAPTER7_FIGURES_H
#define ATTN_CHAPTER7_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "text/vocab.h"
#include "models/sentiment.h"
#include "models/trainer.h"

// Zipf's counts: rank, count and the coverage of the top `rank` words, at
// every rank up to 100 and then at ranks 2% apart, into dir. sorted is (n),
// the counts from the largest down. 0, or -1 after a message.
int write_zipf(const int64_t *sorted, size_t n, const char *dir);

// A trained model's figure data in dir: its numbers by epoch
// (write_epoch_data), and for a softmax model, its attention over test
// chunk `chunk` of d, r->attention (L, L): each position's word and the
// weight its key receives, its column's sum. Returns 0, or -1 after a
// message.
int write_figure_data(const run_result *r, const trainer_data *d, const vocab *v, size_t chunk,
                      const char *dir);

#endif
