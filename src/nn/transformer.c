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

mha_status encoder_layer_alloc(encoder_layer *L, int d, int h, int d_ff,
                               bool norm_first) {
    memset(L, 0, sizeof *L);
    mha_status s = multihead_alloc(&L->self_attn, d, h);
    if (s != MHA_OK) return s;
    if (d_ff < 1) {
        multihead_free(&L->self_attn);
        return MHA_BAD_SIZE;
    }
    L->d = d;
    L->h = h;
    L->d_ff = d_ff;
    L->norm_first = norm_first;
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
    mha_status s = multihead_alloc(&L->self_attn, d, h);
    if (s != MHA_OK) return s;
    if (d_ff < 1) {
        multihead_free(&L->self_attn);
        return MHA_BAD_SIZE;
    }
    L->d = d;
    L->h = h;
    L->d_ff = d_ff;
    L->norm_first = norm_first;
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

//> encoder-layer
// x and out are (n, d); mask is (n, n) or NULL.
mha_status encoder_layer_forward(float *out, const encoder_layer *L,
                                 const float *x, const bool *mask, int n) {
    const int d = L->d;
    size_t nd = (size_t)n * d;
    float *y = malloc(nd * sizeof(float));  // the residual stream
    float *t = malloc(nd * sizeof(float));  // a sub-layer's input
    float *a = malloc(nd * sizeof(float));  // a sub-layer's output
    mha_status s = MHA_NO_MEMORY;
    if (!y || !t || !a) goto done;
    memcpy(y, x, nd * sizeof(float));
    // 1. self-attention: every token looks at every token (or as masked)
    if (L->norm_first) layernorm_forward(t, y, L->norm_gain[0], L->norm_bias[0],
                                         n, d, LAYERNORM_EPS);
    else memcpy(t, y, nd * sizeof(float));
    s = multihead_forward(a, NULL, NULL, &L->self_attn, t, t, t, mask, n, n);
    if (s != MHA_OK) goto done;
    add(y, a, n * d);
    if (!L->norm_first) layernorm_forward(y, y, L->norm_gain[0],
                                          L->norm_bias[0], n, d, LAYERNORM_EPS);
    // 2. feed-forward: every token on its own
    if (L->norm_first) layernorm_forward(t, y, L->norm_gain[1], L->norm_bias[1],
                                         n, d, LAYERNORM_EPS);
    else memcpy(t, y, nd * sizeof(float));
    s = MHA_NO_MEMORY;
    if (feedforward_forward(a, &L->ff, t, n) != 0) goto done;
    add(y, a, n * d);
    if (!L->norm_first) layernorm_forward(y, y, L->norm_gain[1],
                                          L->norm_bias[1], n, d, LAYERNORM_EPS);
    memcpy(out, y, nd * sizeof(float));
    s = MHA_OK;
done:
    free(y); free(t); free(a);
    return s;
}
//< encoder-layer

//> decoder-layer
// tgt and out are (n_t, d), memory is (n_s, d), tgt_mask (n_t, n_t) or
// NULL, cross_weights (n_t, n_s) or NULL.
mha_status decoder_layer_forward(float *out, float *cross_weights,
                                 const decoder_layer *L, const float *tgt,
                                 const float *memory, const bool *tgt_mask,
                                 int n_t, int n_s) {
    const int d = L->d;
    const bool pre = L->norm_first;
    size_t nd = (size_t)n_t * d;
    float *y = malloc(nd * sizeof(float));  // the residual stream
    float *t = malloc(nd * sizeof(float));  // a sub-layer's input
    float *a = malloc(nd * sizeof(float));  // a sub-layer's output
    mha_status s = MHA_NO_MEMORY;
    if (!y || !t || !a) goto done;
    memcpy(y, tgt, nd * sizeof(float));
    // 1. masked self-attention: target token i sees target tokens 0 .. i
    if (pre) layernorm_forward(t, y, L->norm_gain[0], L->norm_bias[0], n_t, d,
                               LAYERNORM_EPS);
    else memcpy(t, y, nd * sizeof(float));
    s = multihead_forward(a, NULL, NULL, &L->self_attn, t, t, t, tgt_mask,
                          n_t, n_t);
    if (s != MHA_OK) goto done;
    add(y, a, n_t * d);
    if (!pre) layernorm_forward(y, y, L->norm_gain[0], L->norm_bias[0], n_t, d,
                                LAYERNORM_EPS);
    // 2. cross-attention: queries from the target, keys and values from
    // the memory, the encoder's output; no mask, every source token is there
    if (pre) layernorm_forward(t, y, L->norm_gain[1], L->norm_bias[1], n_t, d,
                               LAYERNORM_EPS);
    else memcpy(t, y, nd * sizeof(float));
    s = multihead_forward(a, NULL, cross_weights, &L->cross_attn, t, memory,
                          memory, NULL, n_t, n_s);
    if (s != MHA_OK) goto done;
    add(y, a, n_t * d);
    if (!pre) layernorm_forward(y, y, L->norm_gain[1], L->norm_bias[1], n_t, d,
                                LAYERNORM_EPS);
    // 3. feed-forward
    if (pre) layernorm_forward(t, y, L->norm_gain[2], L->norm_bias[2], n_t, d,
                               LAYERNORM_EPS);
    else memcpy(t, y, nd * sizeof(float));
    s = MHA_NO_MEMORY;
    if (feedforward_forward(a, &L->ff, t, n_t) != 0) goto done;
    add(y, a, n_t * d);
    if (!pre) layernorm_forward(y, y, L->norm_gain[2], L->norm_bias[2], n_t, d,
                                LAYERNORM_EPS);
    memcpy(out, y, nd * sizeof(float));
    s = MHA_OK;
done:
    free(y); free(t); free(a);
    return s;
}
//< decoder-layer
