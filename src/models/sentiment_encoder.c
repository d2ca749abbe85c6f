// sentiment_encoder.c: the transformer classifier's words-to-chunk part,
// forward and backward. Dimension legend in sentiment_encoder.h.
#include "models/sentiment_encoder.h"

#include <stdlib.h>
#include <string.h>

#include "layers/embedding.h"
#include "layers/linear.h"
#include "layers/mean.h"
#include "layers/positions.h"

layer_dims sentiment_encoder_dims(int w) {
    return (layer_dims){.d = w, .h = SENTIMENT_ENCODER_HEADS,
                        .d_ff = SENTIMENT_ENCODER_FF_FACTOR * w, .norm_first = false};
}

// The next n numbers of the block at *at, or NULL when only counting.
static real *take(real *block, size_t *at, size_t n) {
    real *view = block ? block + *at : NULL;
    *at += n;
    return view;
}

size_t sentiment_encoder_lay_out(sentiment_encoder_params *p, real *block, int d, int w) {
    size_t at = 0, W = (size_t)w;
    p->wp = take(block, &at, (size_t)d * W);
    p->bp = take(block, &at, W);
    const layer_dims dims = sentiment_encoder_dims(w);
    layer_tensor t[ENC_LAYER_TENSORS];
    int n = enc_layer_tensors(t, &p->layer, &dims);  // the layer's own order
    for (int k = 0; k < n; k++) *t[k].view = take(block, &at, (size_t)t[k].rows * t[k].cols);
    return at;
}

int sentiment_encoder_init(const sentiment_encoder_params *p, torch_rng *g, int d, int w) {
    layer_dims dims = sentiment_encoder_dims(w);
    linear_init_lecun_normal(g, p->wp, d, w);
    memset(p->bp, 0, (size_t)w * sizeof *p->bp);
    return enc_layer_init(g, &p->layer, &dims);  // PyTorch's order, as the layer draws it
}

int sentiment_encoder_acts_init(sentiment_encoder_acts *a, int B, int L, int w) {
    *a = (sentiment_encoder_acts){0};
    size_t n = (size_t)B * L * w;
    real **all[] = {&a->word_p, &a->word_dp, &a->x, &a->dx, &a->y, &a->dy};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (!(*all[i] = malloc((n ? n : 1) * sizeof(real)))) {
            sentiment_encoder_acts_free(a);
            return -1;
        }
    layer_dims dims = sentiment_encoder_dims(w);
    if (enc_layer_cache_alloc(&a->layer, &dims, B, L) < 0) {
        sentiment_encoder_acts_free(a);
        return -1;
    }
    a->has_layer = 1;
    return 0;
}

void sentiment_encoder_acts_free(sentiment_encoder_acts *a) {
    real *all[] = {a->word_p, a->word_dp, a->x, a->dx, a->y, a->dy};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(all[i]);
    if (a->has_layer) layer_cache_free(&a->layer);
    *a = (sentiment_encoder_acts){0};
}

//> encoder-forward
void sentiment_encoder_forward(real *mean, sentiment_encoder_acts *a,
                               const sentiment_encoder_params *p, const real *positions,
                               const real *word_x, const int32_t *slot, int U, int B, int L,
                               int d, int w) {
    layer_dims dims = sentiment_encoder_dims(w);
    // (U, w): each word once
    linear_forward(a->word_p, word_x, p->wp, p->bp, U, d, w, WEIGHT_IN_OUT);
    // (B, L, w): each token looks its word's row up, + PE
    embedding_forward(a->x, slot, a->word_p, B * L, w);
    positions_forward(a->x, positions, NULL, B, L, w);
    enc_layer_forward(a->y, &a->layer, &p->layer, a->x, NULL, false, &dims, B, L, NULL);
    mean_forward(mean, a->y, B, L, w);                        // (B, w)
}
//< encoder-forward

//> encoder-backward
void sentiment_encoder_backward(real *word_dx, const sentiment_encoder_params *g,
                                sentiment_encoder_acts *a, const real *dmean,
                                const real *word_x, const sentiment_encoder_params *p,
                                const int32_t *slot, int U, int B, int L, int d, int w) {
    layer_dims dims = sentiment_encoder_dims(w);
    size_t tokens = (size_t)B * L * w * sizeof(real);
    memset(a->dy, 0, tokens);
    mean_backward(a->dy, dmean, B, L, w);
    memset(a->dx, 0, tokens);
    enc_layer_backward(a->dx, &g->layer, &a->layer, a->dy, a->x, &p->layer, &dims, B, L, NULL);
    // the positions are fixed: the gradient goes on to the words, a word
    // used by several tokens collecting all of theirs
    memset(a->word_dp, 0, (size_t)U * w * sizeof(real));
    embedding_backward(a->word_dp, a->dx, slot, B * L, w);
    linear_backward(word_dx, g->wp, g->bp, a->word_dp, word_x, p->wp, U, d, w, WEIGHT_IN_OUT);
}
//< encoder-backward
