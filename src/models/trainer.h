// trainer.h: the training loop of cell [H141] of the notebook "How and Why
// does Self Attention Work?", for the classifiers of sentiment.h: epochs
// of shuffled batches of chunks, a line per epoch, the test accuracy per
// chunk and per review after each; and several models trained side by
// side, their lines printed in order.
//
//   B  chunks in a batch (64)
//   L  tokens in a chunk (32)
//
// The trainer prints where it is told: the epoch lines to the stream given
// it, the progress lines to o->progress. What else is done with a trained
// model (figure data) is the caller's, in o->trained.
#ifndef ATTN_TRAINER_H
#define ATTN_TRAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/sentiment.h"

// The chunks a model trains on and is scored on.
typedef struct {
    int L;
    int32_t *X_train, *Y_train;  // (n_train, L), (n_train) token ids and labels (0 or 1)
    size_t n_train;
    size_t *pool;                // (n_pool) the training chunks used (training_pool)
    size_t n_pool;
    int32_t *X_test, *Y_test;    // (n_test, L), (n_test)
    int32_t *test_review;        // (n_test) the review each test chunk comes from, in order
    size_t n_test;
    size_t reviews;              // the test reviews: test_review[c] < reviews
    size_t scored;               // how many of them are scored (0: all), spread evenly
} trainer_data;

// The numbers of one epoch of one model.
typedef struct {
    double train_loss, train_accuracy;     // averaged over the epoch's steps
    double chunk_accuracy, review_accuracy;  // on the test chunks, and reviews
    double seconds;                        // training and evaluation
} epoch_result;

// One model to train, and what its training gave.
typedef struct {
    model_kind kind;
    double lr;                // Adam's learning rate
    bool frozen;              // the embedding kept as it starts
    long epochs;              // the epochs done
    epoch_result *per_epoch;  // (epochs)
    double *tenths;           // (10 epochs) the mean training loss of each tenth of an epoch
} run_result;

// How to train: the same for every model.
typedef struct {
    long epochs;
    int B;
    uint64_t seed;            // torch.manual_seed before each model's initialisation
    const float *embedding;   // (V, d) every model's embedding to start from
    int V, d, d_k;
    FILE *progress;           // the progress lines (stderr), or NULL
    // Called with each model once trained (may be NULL): returns 0, or -1
    // with the reason in err. ctx is passed on.
    int (*trained)(const run_result *r, const sentiment_model *m, sentiment_acts *a, void *ctx,
                   char *err, size_t errlen);
    void *ctx;
    // Asked once a step (may be NULL): true stops the training, which then
    // fails. train_models sets it.
    bool (*stop)(const void *arg);
    const void *stop_arg;
} trainer_options;

// "frozen" or "trained": what happens to a model's embedding.
const char *embeddings_word(bool frozen);

// The training chunks a run uses: all n_train of them, or with a limit N
// below that every (n_train/N)-th one, so that both labels occur (the first
// N would all be negative reviews). *n gets how many; returns a new array
// of indices, or NULL when out of memory.
size_t *training_pool(size_t *n, size_t n_train, long limit);

// Frees the arrays of d (X_train, Y_train, pool, X_test, Y_test,
// test_review) and clears it.
void trainer_data_free(trainer_data *d);

// Keeps the chunks of n test reviews only, in place, so that a short run is
// not mostly evaluation: reviews floor(i * reviews / n), i = 0 .. n-1, every
// (reviews/n)-th when n divides reviews; sets d->scored. n of reviews or
// more keeps them all.
void keep_test_reviews(trainer_data *d, long n);

// Whether test review r (0 .. d->reviews-1) is one of those scored.
bool test_review_scored(const trainer_data *d, size_t r);

// The test accuracy per chunk and per review of a model into
// *chunk_accuracy and *review_accuracy; logits (n_test) gets its logits.
// Returns 0, or -1 when out of memory.
int evaluate(double *chunk_accuracy, double *review_accuracy, float *logits,
             const sentiment_model *m, sentiment_acts *a, const trainer_data *d);

// Batch `step` of an epoch whose order of the pool's chunks is perm: its B
// chunks' ids into X (B, L) and their labels into Y (B).
void gather_batch(int32_t *X, int32_t *Y, const trainer_data *d, const int64_t *perm,
                  size_t step, int B);

// Trains one model of r's kind, lr and embedding for o->epochs epochs,
// printing a line per epoch to out; fills r's results. Returns 0, or -1
// with the reason in err. A pool of fewer than o->B chunks, which holds no
// whole batch, is refused. A training loss that is not finite (a learning
// rate too large) stops it at that step, the model, epoch and step named
// in err; nothing of that epoch is printed or kept.
int train_model(run_result *r, const trainer_data *d, const trainer_options *o, FILE *out,
                char *err, size_t errlen);

// Trains the n models of results (their kind, lr and frozen set) side by
// side, one per thread, the attention models (the slowest) first. Each
// prints into its own buffer, a line naming it and its epochs, and the
// buffers go to out in the order of results as soon as they and those
// before them are done: the output is the same whatever the number of
// threads. Returns 0, or -1 with the reason of the first model in results
// that failed in err; the models after it stop at their next step, and
// neither its output nor theirs is printed. The error is the same whatever
// the number of threads.
int train_models(run_result *results, int n, const trainer_data *d, const trainer_options *o,
                 FILE *out, char *err, size_t errlen);

// The epoch of r with the best test accuracy per review (reviews) or per
// chunk: the first of them on a tie.
long best_epoch(const run_result *r, bool reviews);

// r as figure data in dir: PROGRAM-train-KIND-LR-EMBEDDINGS.dat, a line
// per epoch, and PROGRAM-loss-KIND-LR-EMBEDDINGS.dat, the mean training
// loss of each tenth of an epoch. Returns 0, or -1 (with a message on
// stderr) when a file cannot be written.
int write_epoch_data(const run_result *r, const char *program, const char *dir);

#endif
