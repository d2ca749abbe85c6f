// transformer.c: the encoder and decoder layers. Dimension legend in
// transformer.h.
#include "nn/transformer.h"

#include <stdlib.h>
#include <string.h>

#include "nn/layernorm.h"

// Gains of one, biases of zero: nn.LayerNorm's start. Returns -1 when out
// of memory (what was allocated is left for the caller to free).
static int norms_alloc(float **gain, float **bias, int count, int d) {
    for (int k = 0; k < count; k++) {
        gain[k] = malloc((size_t)d * sizeof(float));
        bias[k] = calloc((size_t)d, sizeof(float));
        if (!gain[k] || !bias[k]) return -1;
        for (int j = 0; j < d; j++) gain[k][j] = 1.0f;
    }
    return 0;
}

static void norms_free(float **gain, float **bias, int count) {
    for (int k = 0; k < count; k++) {
        free(gain[k]);
        free(bias[k]);
        gain[k] = bias[k] = NULL;
    }
}

// What both layers allocate first: the self-attention, d and h checked by
// multihead_alloc, then d_ff checked. Returns MHA_OK, or why not (then
// nothing stays allocated).
static mha_status self_attention_alloc(multihead_attention *self_attn, int d,
                                       int h, int d_ff) {
    mha_status s = multihead_alloc(self_attn, d, h);
    if (s == MHA_OK && d_ff < 1) {
        multihead_free(self_attn);
        s = MHA_BAD_SIZE;
    }
    return s;
}

mha_status encoder_layer_alloc(encoder_layer *L, int d, int h, int d_ff,
                               bool norm_first) {
    memset(L, 0, sizeof *L);
    mha_status s = self_attention_alloc(&L->self_attn, d, h, d_ff);
    if (s != MHA_OK) return s;
    *L = (encoder_layer){ .d = d, .h = h, .d_ff = d_ff,
                          .norm_first = norm_first, .self_attn = L->self_attn };
    if (feedforward_alloc(&L->ff, d, d_ff) != 0 ||
        norms_alloc(L->norm_gain, L->norm_bias, 2, d) != 0) {
        encoder_layer_free(L);
        return MHA_NO_MEMORY;
    }
    return MHA_OK;
}

void encoder_layer_free(encoder_layer *L) {
    multihead_free(&L->self_attn);
    feedforward_free(&L->ff);
    norms_free(L->norm_gain, L->norm_bias, 2);
}

mha_status decoder_layer_alloc(decoder_layer *L, int d, int h, int d_ff,
                               bool norm_first) {
    memset(L, 0, sizeof *L);
    mha_status s = self_attention_alloc(&L->self_attn, d, h, d_ff);
    if (s != MHA_OK) return s;
    *L = (decoder_layer){ .d = d, .h = h, .d_ff = d_ff,
                          .norm_first = norm_first, .self_attn = L->self_attn };
    if (multihead_alloc(&L->cross_attn, d, h) != MHA_OK ||
        feedforward_alloc(&L->ff, d, d_ff) != 0 ||
        norms_alloc(L->norm_gain, L->norm_bias, 3, d) != 0) {
        decoder_layer_free(L);
        return MHA_NO_MEMORY;
    }
    return MHA_OK;
}

void decoder_layer_free(decoder_layer *L) {
    multihead_free(&L->self_attn);
    multihead_free(&L->cross_attn);
    feedforward_free(&L->ff);
    norms_free(L->norm_gain, L->norm_bias, 3);
}

//> layer-init
// The order in which the constructors build (and so draw) the sub-modules.
void encoder_layer_init(encoder_layer *L, torch_rng *g) {
    multihead_init(&L->self_attn, g);
    feedforward_init(&L->ff, g);      // linear1, then linear2
}

void decoder_layer_init(decoder_layer *L, torch_rng *g) {
    multihead_init(&L->self_attn, g);
    multihead_init(&L->cross_attn, g);  // PyTorch's multihead_attn
    feedforward_init(&L->ff, g);
}
//< layer-init

// y += a, for count elements: the residual path.
static void add(float *y, const float *a, int count) {
    for (int i = 0; i < count; i++) y[i] += a[i];
}

//> sublayer
// What a sub-layer computes: multi-head attention, its queries from the
// sub-layer's input and its keys and values from kv (n_kv rows), or, when
// attn is NULL, the feed-forward network.
typedef struct {
    const multihead_attention *attn;
    const float *kv;        // (n_kv, d): the memory, or NULL for the input
    int n_kv;
    const bool *mask;       // (n, n_kv) or NULL
    float *weights;         // (n, n_kv) the weights averaged over the heads,
                            // or NULL
    const feedforward *ff;  // when attn is NULL
} sublayer;

// One sub-layer with its residual path and its LayerNorm (gain, bias):
// post-norm y = LayerNorm(y + f(y)), pre-norm y = y + f(LayerNorm(y)).
// y, the residual stream, is (n, d); t and a are scratch, (n, d) each.
static mha_status residual_sublayer(float *y, float *t, float *a,
                                    const sublayer *f, const float *gain,
                                    const float *bias, bool norm_first,
                                    int n, int d) {
    if (norm_first) layernorm_forward(t, y, gain, bias, n, d, LAYERNORM_EPS);
    else memcpy(t, y, (size_t)n * d * sizeof(float));
    if (f->attn) {
        const float *kv = f->kv ? f->kv : t;
        int n_kv = f->kv ? f->n_kv : n;
        mha_status s = multihead_forward(a, NULL, f->weights, f->attn, t, kv,
                                         kv, f->mask, n, n_kv);
        if (s != MHA_OK) return s;
    } else if (feedforward_forward(a, f->ff, t, n) != 0) {
        return MHA_NO_MEMORY;
    }
    add(y, a, n * d);
    if (!norm_first) layernorm_forward(y, y, gain, bias, n, d, LAYERNORM_EPS);
    return MHA_OK;
}

// The residual stream through count sub-layers in turn, sub-layer k with
// LayerNorm k (gain[k], bias[k]): x and out are (n, d), out may be x.
static mha_status run_sublayers(float *out, const float *x,
                                const sublayer *sublayers, int count,
                                float *const *gain, float *const *bias,
                                bool norm_first, int n, int d) {
    size_t nd = (size_t)n * d;
    float *y = malloc(nd * sizeof(float));  // the residual stream
    float *t = malloc(nd * sizeof(float));  // a sub-layer's input
    float *a = malloc(nd * sizeof(float));  // a sub-layer's output
    mha_status s = y && t && a ? MHA_OK : MHA_NO_MEMORY;
    if (s == MHA_OK) memcpy(y, x, nd * sizeof(float));
    for (int k = 0; k < count && s == MHA_OK; k++)
        s = residual_sublayer(y, t, a, &sublayers[k], gain[k], bias[k],
                              norm_first, n, d);
    if (s == MHA_OK) memcpy(out, y, nd * sizeof(float));
    free(y); free(t); free(a);
    return s;
}
//< sublayer

//> encoder-layer
// x and out are (n, d); mask is (n, n) or NULL.
mha_status encoder_layer_forward(float *out, const encoder_layer *L,
                                 const float *x, const bool *mask, int n) {
    const sublayer sublayers[2] = {
        // 1. self-attention: every token looks at every token (or as masked)
        { .attn = &L->self_attn, .mask = mask },
        // 2. feed-forward: every token on its own
        { .ff = &L->ff },
    };
    return run_sublayers(out, x, sublayers, 2, L->norm_gain, L->norm_bias,
                         L->norm_first, n, L->d);
}
//< encoder-layer

//> decoder-layer
// tgt and out are (n_t, d), memory is (n_s, d), tgt_mask (n_t, n_t) or
// NULL, cross_weights (n_t, n_s) or NULL.
mha_status decoder_layer_forward(float *out, float *cross_weights,
                                 const decoder_layer *L, const float *tgt,
                                 const float *memory, const bool *tgt_mask,
                                 int n_t, int n_s) {
    const sublayer sublayers[3] = {
        // 1. masked self-attention: target token i sees target tokens 0 .. i
        { .attn = &L->self_attn, .mask = tgt_mask },
        // 2. cross-attention: queries from the target, keys and values from
        // the memory, the encoder's output; no mask, every source token is
        // there
        { .attn = &L->cross_attn, .kv = memory, .n_kv = n_s,
          .weights = cross_weights },
        // 3. feed-forward
        { .ff = &L->ff },
    };
    return run_sublayers(out, tgt, sublayers, 3, L->norm_gain, L->norm_bias,
                         L->norm_first, n_t, L->d);
}
//< decoder-layer
