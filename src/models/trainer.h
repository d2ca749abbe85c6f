// trainer.h: the training loop of cell [H141] of the notebook "How and Why
// does Self Attention Work?", for the classifiers of sentiment.h: epochs
// of shuffled batches of chunks, a line per epoch, the test accuracy per
// chunk and per review after each; and several models trained side by
// side, their lines printed in order.
//
//   B  chunks in a batch (64)
//   L  tokens in a chunk (32)
//
// The loop has the shape of every training loop of the book (README.md):
// the model is built by one call and owns its parameters, gradients,
// activations and Adam's state; each step takes a batch and calls the
// model's train step, which returns the loss. The trainer prints where it
// is told: the epoch lines to the stream given it, the progress lines to
// o->progress. What it keeps of a model comes back in run_result: the
// numbers of each epoch, and an attention model's weights over a chunk;
// the caller writes them where it wants (figure data).
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
    float *attention;         // (L, L) the trained weights over o->probe of an attention
                              // model (notebook- or softmax-attention), or NULL
} run_result;

// Frees r's arrays (per_epoch, tenths, attention).
void run_result_free(run_result *r);

// The notebook's line for each epoch of r ("Epoch 1, Train Loss: ...,
// Train Accuracy: ... | chunk ..., review ... | N.N s", the test accuracy
// per chunk and per review, and the epoch's seconds), the columns lined up
// (93 characters for a loss of 100 or more and an epoch under 100 s);
// train_models prints them once a model is trained.
void print_epochs(FILE *out, const run_result *r);

// How to train: the same for every model.
typedef struct {
    long epochs;
    int B;
    uint64_t seed;            // torch.manual_seed before each model's initialisation
    const float *embedding;   // (V, d) every model's embedding to start from
    int V, d, d_k;
    FILE *progress;           // the progress lines (stderr), or NULL
    const int32_t *probe;     // (L) a chunk whose attention weights each trained attention
                              // model keeps in run_result.attention, or NULL
    const char *lr_option;    // the option that sets the rate ("--lr"), or NULL when the
                              // program has none: advice names it only where it can help
    double lr_min;            // the smallest rate lr_option accepts
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

// The scored test reviews that give no chunk (empty after cleaning); the
// chunks of d must be in the order of their reviews (make_chunks', kept by
// keep_test_reviews).
size_t test_reviews_without_chunks(const trainer_data *d);

// The test accuracy per chunk and per review of a model into
// *chunk_accuracy and *review_accuracy; logits (n_test) gets its logits.
// The review accuracy is over the scored reviews that give a chunk: one
// without any has no logit to judge by, and is left out (train_models says
// how many).
// Brings every parameter up to date first (sentiment_catch_up). Returns 0,
// or -1 when out of memory.
int trainer_evaluate(double *chunk_accuracy, double *review_accuracy, float *logits,
                     sentiment_model *m, const trainer_data *d);

// Batch `step` of an epoch whose order of the pool's chunks is perm: its B
// chunks' ids into X (B, L) and their labels into Y (B).
void gather_batch(int32_t *X, int32_t *Y, const trainer_data *d, const int64_t *perm,
                  size_t step, int B);

// The model of r's kind and embedding (frozen or trained) that o says,
// with room for batches of o->B chunks of L tokens, its parameters
// drawn from g after torch.manual_seed(o->seed). Returns 0, or -1 when out
// of memory.
int trainer_model(sentiment_model *m, torch_rng *g, const run_result *r, const trainer_options *o,
                  int L);

// Trains m, built by trainer_model(m, g, r, o, d->L), at r's lr for
// o->epochs epochs, each epoch's order of the chunks drawn from g,
// printing a line per epoch to out; fills r's results. m is the trained
// model afterwards, its parameters up to date. Returns 0, or -1 with the
// reason in err. A pool of fewer than o->B chunks, which holds no whole
// batch, is refused. A training loss that is not finite (a learning rate
// too large) stops it at that step, the model, epoch and step named in
// err; nothing of that epoch is printed or kept.
int train_model(run_result *r, sentiment_model *m, torch_rng *g, const trainer_data *d,
                const trainer_options *o, FILE *out, char *err, size_t errlen);

// Builds and trains the n models of results (their kind, lr and frozen
// set) side by side, one per thread, each freed once trained (what is kept
// of it is in its run_result), the attention models (the slowest) first. Each
// prints into its own buffer, a line naming it and its epochs, and the
// buffers go to out in the order of results as soon as they and those
// before them are done: the output is the same whatever the number of
// threads. Returns 0, or -1 with the reason of the first model in results
// that failed in err; the models after it stop at their next step, and
// neither its output nor theirs is printed. The error is the same whatever
// the number of threads. A test set of no chunk is refused; scored test
// reviews that give no chunk are counted in a note before the models'
// lines.
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
