// sentiment.h: chapter 7's three sentiment classifiers (the notebook
// "How and Why does Self Attention Work?", cell [H142]) and a transformer
// classifier to hold them against, their forward and backward passes, and
// one training step.
//
//   B    chunks in a batch (64)
//   L    tokens in a chunk (32)
//   V    vocabulary size (10,002)
//   d    embedding width (100)
//   d_k  width of queries, keys and values (32)
//   w    the width the classifier sees: d for the baseline, d_k otherwise
//        (the transformer's model width)
//
// baseline:              ids -> embedding (B, L, d) -> mean over L (B, d)
//                            -> Dense(1) -> logit (B)
// notebook's attention:  ids -> embedding -> q, k, v = three Dense(d_k)
//                            -> w = q k^T / sqrt(d_k) -> w v (B, L, d_k)
//                            -> mean over L (B, d_k) -> Dense(1) -> logit
// softmax attention:     the same with w = softmax(q k^T / sqrt(d_k))
// transformer:           ids -> embedding -> Dense(d_k) + sinusoidal positions
//                            -> one encoder layer (sentiment_encoder.h)
//                            -> mean over L (B, d_k) -> Dense(1) -> logit
#ifndef ATTN_SENTIMENT_H
#define ATTN_SENTIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layers/adam.h"
#include "kernels/real.h"
#include "models/sentiment_encoder.h"
#include "core/rng.h"

typedef enum {
    MODEL_BASELINE, MODEL_NOTEBOOK_ATTENTION, MODEL_SOFTMAX_ATTENTION, MODEL_TRANSFORMER
} model_kind;
#define MODEL_KINDS 4

// "baseline", "notebook-attention", "softmax-attention", "transformer"
const char *model_name(model_kind kind);

// Which kinds the comma-separated model names of list name: chosen[kind]
// (MODEL_KINDS of them) true for each named. false when a name is not a
// model's, is empty or is named twice (core/cli.h's parse_name_list).
bool model_kinds_named(bool *chosen, const char *list);

// The parameters, or their gradients: views into one block. The dense
// kernels are (in, out) as flax stores them; the q, k, v ones are NULL but
// for the two attention models, enc's but for the transformer. The
// embedding comes last, so that freezing it leaves a block's first n_dense
// numbers to train.
typedef struct {
    real *wq, *bq, *wk, *bk, *wv, *bv;  // (d, d_k), (d_k) each
    sentiment_encoder_params enc;       // the transformer's projection and layer
    real *wo, *bo;                      // (w, 1), (1)
    real *embedding;                    // (V, d)
} sentiment_params;

// The activations of a batch of up to B chunks, and their gradients.
//
// The attention models project words, not tokens: a token's query, key and
// value depend on its word only, so each of the U distinct words of a batch
// is projected once, and each token looks its word's row up (see
// sentiment.c); the transformer projects its words once too, before it adds
// the positions. U <= B L; in chapter 7's batches U is about a third of B L
// (its output counts them).
typedef struct {
    int B;
    int32_t *rows;        // (B * L) the batch's distinct words, U of them, in increasing order
    int32_t *slot;        // (B * L) token t is word rows[slot[t]]
    int n_rows;           // U
    real *x;              // (B, L, d) embedded tokens (baseline)
    real *word_x;         // (U, d) the words' embedding rows (attention)
    real *word_q, *word_k, *word_v;  // (U, d_k) each: the words' projections
    real *q, *k, *v, *w;  // (B, L, d_k) each, and (B, L, L) attention weights
    real *h;              // (B, L, d_k) attention output
    real *mean;           // (B, w)
    real *z;              // (B) logits
    real *dx, *word_dx, *word_dq, *word_dk, *word_dv;
    real *dq, *dk, *dv, *dh, *dmean, *dz;
    real *scratch;        // (L, L)
    sentiment_encoder_acts enc;  // the transformer's, from word_x to mean
} sentiment_acts;

// What to build: the kind, the sizes, room for batches of up to B chunks,
// and whether the embedding is frozen (kept as it starts: Adam covers the
// n_dense numbers before it) or trained (Adam covers the whole block and
// keeps the embedding as a lazy table, adam.h, its rows updated when a
// batch uses them).
typedef struct {
    model_kind kind;
    int V, d, d_k, L;
    int B;
    bool frozen;
} sentiment_config;

// A model owns all it needs: its parameters and their gradients, the
// activations of a batch, and Adam's state.
typedef struct {
    model_kind kind;
    int V, d, d_k, L;
    bool frozen;
    size_t n_params, n_dense;  // all parameters; those before the embedding
    real *param_block, *grad_block;
    sentiment_params p, g;     // views into param_block and grad_block
    // The embedding's gradient is zero but in these rows, those of the last
    // batch that sentiment_backward wrote a gradient for, each listed once
    // (and in the rows a lazy Adam table holds, sentiment_train_step):
    // so the next backward clears these rows only, not all V.
    int32_t *grad_rows;        // (V)
    int n_grad_rows;
    unsigned char *seen;       // (V) zero between calls; marks rows while listing them
    int32_t *slot_of;          // (V) where a word stands in the last batch's list of words
    real *positions;           // (L, d_k) the transformer's sinusoidal table, else NULL
    sentiment_acts a;          // the last batch's activations (room for cfg.B chunks)
    adam_state opt;            // the whole block, or its first n_dense numbers when frozen
} sentiment_model;

// The width of what the last Dense layer sees: d for the baseline, d_k
// for the others.
int sentiment_classifier_width(const sentiment_model *m);

// How many of the B logits in m->a.z are right about labels (B): z > 0
// predicts positive.
int sentiment_correct(const sentiment_model *m, const int32_t *labels, int B);

// The number of parameters of a model of that kind and size.
size_t sentiment_param_count(model_kind kind, int V, int d, int d_k);

// Builds a model with all it owns: its embedding copied from table (V, d),
// its dense kernels drawn with flax's lecun_normal from g in the order q, k,
// v, out, and zero biases (the transformer: its projection and layer as
// sentiment_encoder.h says, then out); its activations; Adam's state with
// zero moments. Returns 0, or -1 when out of memory (nothing left to free).
int sentiment_init(sentiment_model *m, const sentiment_config *cfg, const float *table,
                   torch_rng *g);
void sentiment_free(sentiment_model *m);

// The distinct words of the n ids of a batch (n <= B L) into m->a.rows, and
// where each token's word stands in that list into m->a.slot; returns their
// number, also put in m->a.n_rows.
int sentiment_batch_words(sentiment_model *m, const int32_t *ids, int n);

// The logits of B chunks, ids (B, L), into m->a.z; m->a.rows, m->a.slot
// and m->a.n_rows get the batch's words, m->a.w the attention weights of
// the attention models. Reads the parameters as they stand: after
// training steps with a lazy table, sentiment_catch_up first.
void sentiment_forward(sentiment_model *m, const int32_t *ids, int B);

// After sentiment_forward on the same ids: the mean loss over the batch
// against labels (B), and every gradient into m->grad_block (cleared first;
// a frozen model's embedding gradient is left alone).
real sentiment_backward(sentiment_model *m, const int32_t *ids, const int32_t *labels, int B);

// One training step on a batch: forward, backward, Adam with learning rate
// lr on every parameter (on all but the embedding when frozen). Returns the
// loss; *correct gets the number of chunks the logits got right (z > 0
// predicts positive), both before the update.
//
// With the embedding trained, the rows of the batch are brought up to date
// before the forward pass and the others are left behind (adam.h's lazy
// table): sentiment_catch_up brings them all.
real sentiment_train_step(sentiment_model *m, double lr, const int32_t *ids,
                          const int32_t *labels, int B, int *correct);

// Every parameter up to date: the embedding rows a lazy table left behind
// take the steps they missed. Nothing to do for a frozen model.
void sentiment_catch_up(sentiment_model *m);

// The logits of n chunks X (n, L) into z (n), in batches of m->a.B, after
// sentiment_catch_up: the same numbers as sentiment_forward, bit for bit,
// computed faster (see sentiment.c). Returns 0, or -1 when out of memory.
int sentiment_logits(float *z, sentiment_model *m, const int32_t *X, size_t n);

#endif
