// sentiment_encoder.h: the middle of the transformer classifier of
// sentiment.h (MODEL_TRANSFORMER), from the words' embedding rows to one
// vector per chunk: each word projected to the model width, the sinusoidal
// positions added, one encoder layer (nn.TransformerEncoderLayer, post-norm,
// ReLU, dropout 0), the mean over the chunk's positions. sentiment.c looks
// the words up before it and puts Dense(1) and the loss after it.
//
//   B    chunks in a batch (64), L tokens each (32)
//   U    distinct words of the batch (sentiment_batch_words)
//   d    embedding width (100)
//   w    the model width, the stream the layer works on (32, chapter 7's d_k)
//   h    heads (SENTIMENT_ENCODER_HEADS), each w / h wide
//   d_ff the feed-forward network's width (SENTIMENT_ENCODER_FF_FACTOR * w)
//
//   word_x (U, d) -> Dense(w), once per word      -> word_p (U, w)
//   each token looks its word's row up            -> x (B, L, w)
//   x += PE (L, w), sinusoidal, fixed
//   y = encoder layer (x)                         (B, L, w)
//   mean over L                                   -> (B, w)
//
// The projection is linear and comes before the positions, so, as for
// chapter 7's heads, it runs on the U distinct words, not on the B L
// tokens. No key is masked: <PAD> is a word like any other, as in
// chapter 7's models.
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// backward function ADDS its gradients.
#ifndef ATTN_SENTIMENT_ENCODER_H
#define ATTN_SENTIMENT_ENCODER_H

#include <stdint.h>

#include "core/rng.h"
#include "kernels/real.h"
#include "layers/transformer_layer.h"

#define SENTIMENT_ENCODER_HEADS 2
#define SENTIMENT_ENCODER_FF_FACTOR 2

// The sizes of the layer for model width w: h heads, d_ff, post-norm.
layer_dims sentiment_encoder_dims(int w);

// The parameters, or their gradients: views into a model's block.
typedef struct {
    real *wp, *bp;          // the projection, flax's Dense: kernel (d, w), bias (w)
    enc_layer_params layer; // the encoder layer, PyTorch's names and shapes
} sentiment_encoder_params;

// Lays out the views of p from block (NULL: views NULL, only counting), in
// the order wp, bp, then the layer as its state_dict lists it. Returns the
// number of parameters.
size_t sentiment_encoder_lay_out(sentiment_encoder_params *p, real *block, int d, int w);

// Starting values drawn from g: wp with flax's lecun_normal, bp zero; the
// layer as PyTorch draws nn.TransformerEncoderLayer(w, h, d_ff) (out_proj,
// then in_proj xavier-uniform, their biases zero; linear1, linear2; the
// norms 1 and 0). Returns 0, or -1 when out of memory.
int sentiment_encoder_init(const sentiment_encoder_params *p, torch_rng *g, int d, int w);

// The activations of a batch of up to B chunks, and their gradients.
typedef struct {
    real *word_p, *word_dp;  // (B L, w): room for U <= B L words
    real *x, *dx;            // (B, L, w) the layer's input
    real *y, *dy;            // (B, L, w) its output
    layer_cache layer;
    int has_layer;           // layer allocated
} sentiment_encoder_acts;

int sentiment_encoder_acts_init(sentiment_encoder_acts *a, int B, int L, int w);
void sentiment_encoder_acts_free(sentiment_encoder_acts *a);

// mean (B, w) from word_x (U, d), the batch's words' embedding rows, and
// slot (B L), where each token's word stands among them; positions (L, w).
void sentiment_encoder_forward(real *mean, sentiment_encoder_acts *a,
                               const sentiment_encoder_params *p, const real *positions,
                               const real *word_x, const int32_t *slot, int U, int B, int L,
                               int d, int w);

// After the forward pass: word_dx (U, d) and g ADD the gradients of the
// loss given dmean (B, w). word_dx may be NULL (the embedding frozen).
void sentiment_encoder_backward(real *word_dx, const sentiment_encoder_params *g,
                                sentiment_encoder_acts *a, const real *dmean,
                                const real *word_x, const sentiment_encoder_params *p,
                                const int32_t *slot, int U, int B, int L, int d, int w);

#endif
