// chapter7_figures.h: the figure data chapter 7 writes with --data DIR
// (chapter7_figures.c). It knows the library's types only, not the cells':
// chapter7.c calls it, and it calls nothing back.
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

// Where the figure data of a trained model goes, and the test chunk whose
// attention the heatmap shows.
typedef struct {
    const trainer_data *data;
    const vocab *vocab;
    size_t chunk;      // a test chunk: data->X_test row
    const char *dir;   // --data DIR, or NULL: nothing is written
    // the models trained, results (n); attention (n), or NULL: for each
    // softmax model of results, its weights over the chunk, (L, L),
    // allocated here and freed by the caller
    const run_result *results;
    int n;
    float **attention;
} figure_target;

// What chapter 7 keeps of a model once trained: the trainer's
// options.trained, with a figure_target as its ctx. Writes the figure data
// when t->dir is set, and keeps a softmax model's attention over the chunk
// in t->attention when r is one of t->results.
int write_figure_data(const run_result *r, const sentiment_model *m, sentiment_acts *a,
                      void *ctx, char *err, size_t errlen);

#endif
