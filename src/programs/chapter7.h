// chapter7.h: what chapter7.c, the notebook's cells, shares with
// chapter7_main.c, the program around them: the notebook's constants, the
// options, everything the pipeline computes, and the cells main runs.
#ifndef ATTN_CHAPTER7_H
#define ATTN_CHAPTER7_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/sentiment.h"
#include "models/trainer.h"
#include "programs/chapter7_figures.h"
#include "tasks/imdb_task.h"

#define PROGRAM "chapter7"
// the notebook's constants, the IMDb task's (imdb_task.h)
#define VOCAB_SIZE IMDB_VOCAB_WORDS
#define EMBED_DIM IMDB_EMBED_DIM
#define SEQUENCE_LENGTH IMDB_CHUNK
#define BATCH_SIZE IMDB_BATCH
#define ATTENTION_DIM IMDB_WIDTH  // the width of the notebook's nn.Dense(32)
#define NUM_EPOCHS 10         // NUM_EPOCHS
#define NOTEBOOK_LR 5e-2      // create_train_state's learning_rate
#define FIXED_LR 1e-3         // the learning rate the fixed runs use
#define LR_MIN 1e-9           // the smallest --lr accepted
#define DEFAULT_SEED 42       // jax.random.PRNGKey(42)
#define DEFAULT_IMDB IMDB_DEFAULT_REVIEWS
#define DEFAULT_GLOVE IMDB_DEFAULT_GLOVE

// One training run: which models, how.
typedef struct {
    bool models[MODEL_KINDS];  // indexed by model_kind
    double lr;
    bool frozen;             // --freeze-embeddings
} ch7_run;

// [H65]: the share of the text the FEW_WORDS most frequent words cover, and
// how many words occur RARE_COUNT times or fewer
#define FEW_WORDS 10
#define RARE_COUNT 5
#define MAX_RUNS 3
// [P7.1]: what a softmax model attends to in the figure's chunk: the keys
// with the TOP_KEYS largest column sums, the queries that put ONE_KEY_WEIGHT
// or more on one key, in lines of at most LIST_LINE characters
#define TOP_KEYS 5
#define ONE_KEY_WEIGHT 0.9
#define LIST_LINE 88

typedef struct {
    long epochs;
    long limit;                  // --limit N, or 0 for every training chunk
    long test_limit;             // --test-limit N, or 0 for every test review
    const char *imdb_path, *glove_path;
    bool tokenize;
    const char *convert_in, *convert_out;
    const char *data_dir;        // --data DIR, or NULL
    uint64_t seed;
    ch7_run runs[MAX_RUNS];
    int nruns;
    const char *command;         // the command line, as the output reports it
} ch7_options;

// Everything the pipeline computes, kept for the tests: the IMDb task's
// stages, and [H136]'s cosine.
typedef struct {
    imdb_task imdb;
    float cosine;
} ch7_state;

void ch7_free(ch7_state *s);

// The data pipeline, cells [H60] to [H69] and [H136], printed to out. Returns
// 0, or -1 with the reason in err.
int run_pipeline(ch7_state *s, const ch7_options *o, FILE *out, char *err, size_t errlen);

// [H142] the models, [H141] their training (results gets one entry per model
// trained, *nresults how many, each softmax model's with its attention over
// the figure's chunk; with --data, their figure data; 0, or -1 with the
// reason in err) and [P7.1] the results, with the keys those models attend
// to most.
void cell_142_models(const ch7_state *s, const ch7_options *o, FILE *out);
int cell_141_training(run_result *results, int *nresults, ch7_state *s,
                      const ch7_options *o, FILE *out, char *err, size_t errlen);
void print_results_block(const run_result *results, int n, const ch7_state *s, FILE *out);

// The first test chunk without <PAD> or <UNK>: the one whose attention the
// attention figure (07-attention) shows.
size_t heatmap_chunk(const ch7_state *s);

#endif
