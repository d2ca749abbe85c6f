// chapter8_imdb.h: chapter 8's cell on IMDb. Chapter 7's data (the 50,000
// reviews, word_tokenize, the vocabulary of 10,002 words, GloVe's 100-d
// vectors, chunks of 32 token ids), and two classifiers trained on it side
// by side by chapter 7's trainer, with the same pool, epochs, learning
// rate, seed and embeddings: the transformer classifier (sentiment.h's
// MODEL_TRANSFORMER: one encoder layer with sinusoidal positions) and
// chapter 7's single softmax-attention head. A pair of them with the GloVe
// vectors trained, a pair with them frozen, or both pairs. Prints their
// epochs and, for each pair, a table of their test accuracies, per chunk
// and per review, and the difference.
//
//   B  chunks in a batch (64), L tokens in a chunk (32)
//   V  vocabulary (10,002), d embedding width (100), w model width (32)
#ifndef ATTN_CHAPTER8_IMDB_H
#define ATTN_CHAPTER8_IMDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cli.h"
#include "tasks/imdb_task.h"

typedef struct {
    const char *imdb_path;   // reviews.json (IMDB_CELL_IMDB)
    const char *glove_path;  // GloVe text, 100 numbers a word (IMDB_CELL_GLOVE)
    long epochs;             // training epochs, 1 or more
    long limit;              // training chunks, every (214588/N)-th (0: all)
    long test_limit;         // test reviews scored, spread evenly (0: all 25,000)
    double lr;               // Adam's learning rate, both models
    bool trained, frozen;    // the pairs: GloVe vectors trained, kept fixed (one or both)
    uint64_t seed;           // torch.manual_seed before each model, and the shuffles
    const char *data_dir;    // figure data (chapter8-train-*.dat, chapter8-loss-*.dat), or NULL
    FILE *progress;          // the trainer's progress lines (stderr), or NULL
} imdb_cell_options;

#define IMDB_CELL_IMDB IMDB_DEFAULT_REVIEWS   // chapter 7's files (imdb_task.h)
#define IMDB_CELL_GLOVE IMDB_DEFAULT_GLOVE

// The settings chapter 8 runs: about a minute on two cores, data included.
// Both pairs.
imdb_cell_options imdb_cell_defaults(void);

// Loads the data, trains the models side by side (two threads when
// OMP_NUM_THREADS allows; the transformers, the slower, first), prints to
// out. Returns 0, or -1 with the reason in err (no pair chosen, a file that
// cannot be read, out of memory, a model that diverged). Prints no cell
// heading: the caller's.
int imdb_transformer_cell(FILE *out, const imdb_cell_options *o, char *err, size_t errlen);

// The cell in two halves, so that chapter 8 checks every input before its
// other work: imdb_cell_load checks o, reads and checks the files (a
// message names the file at fault) and makes the chunks into s (imdb_task_free
// frees it, whatever the result); imdb_cell_train trains and prints, load_seconds
// what loading took. Each returns 0, or -1 with the reason in err.
int imdb_cell_load(imdb_task *s, const imdb_cell_options *o, char *err, size_t errlen);
int imdb_cell_train(FILE *out, imdb_task *s, const imdb_cell_options *o, double load_seconds,
                    char *err, size_t errlen);

// [P8.12]: the IMDb cell with the command line's settings, on the data
// imdb_check_inputs read before the other cells. Returns 0, or -1 said on
// stderr.
int imdb_block(FILE *out, imdb_task *s, const imdb_cell_options *io, double load_seconds);

// The options the IMDb block alone reads, refused beside --no-imdb:
// CLI_OK, or CLI_USAGE (said why).
cli_status imdb_refuse_with_no_imdb(int argc, char **argv, const char *usage);

// Before any training: the inputs read and checked (none of them a file
// the figure data would replace). Returns 0, or -1 with the reason on
// stderr.
int imdb_check_inputs(imdb_task *s, const imdb_cell_options *io, bool no_imdb,
                      double *load_seconds);

#endif
