// transformer.h: the transformer's encoder and decoder layers, as
// torch.nn.TransformerEncoderLayer and torch.nn.TransformerDecoderLayer
// compute them in eval mode (dropout off), ReLU activation.
//
// Dimension legend (as in tensor.h):
//   n    tokens of the sequence a layer transforms (n_t for the decoder's
//        target sequence)
//   n_s  tokens of the source sequence, the memory the decoder reads
//   d    model width (d_model)
//   h    attention heads; d_k = d / h
//   d_ff width of the feed-forward network's hidden layer (dim_feedforward)
//
// Every sub-layer has a residual path around it and a LayerNorm, after the
// addition (post-norm, PyTorch's default, the paper's arrangement) or on the
// sub-layer's input (pre-norm, norm_first=True).
#ifndef ATTN_TRANSFORMER_H
#define ATTN_TRANSFORMER_H

#include <stdbool.h>

#include "nn/feedforward.h"
#include "nn/multihead.h"
#include "core/rng.h"

typedef struct {
    int d, h, d_ff;
    bool norm_first;                  // pre-norm instead of post-norm
    multihead_attention self_attn;
    feedforward ff;
    float *norm_gain[2], *norm_bias[2];  // norm1, norm2: (d) each
} encoder_layer;

typedef struct {
    int d, h, d_ff;
    bool norm_first;
    multihead_attention self_attn;    // over the target, causally masked
    multihead_attention cross_attn;   // queries: target; keys, values: memory
    feedforward ff;
    float *norm_gain[3], *norm_bias[3];  // norm1, norm2, norm3: (d) each
} decoder_layer;

// Allocate the parameters (not initialised). Return MHA_OK,
// MHA_HEADS_DO_NOT_DIVIDE, MHA_BAD_SIZE or MHA_NO_MEMORY (then nothing
// stays allocated).
mha_status encoder_layer_alloc(encoder_layer *L, int d, int h, int d_ff,
                               bool norm_first);
void encoder_layer_free(encoder_layer *L);
mha_status decoder_layer_alloc(decoder_layer *L, int d, int h, int d_ff,
                               bool norm_first);
void decoder_layer_free(decoder_layer *L);

// PyTorch's initialisation, drawing from g in construction order: the
// encoder's self_attn, linear1, linear2; the decoder's self_attn,
// multihead_attn, linear1, linear2. Every LayerNorm starts with gain 1 and
// bias 0 and draws nothing.
void encoder_layer_init(encoder_layer *L, torch_rng *g);
void decoder_layer_init(decoder_layer *L, torch_rng *g);

// The encoder layer on x, (n, d); mask (n, n) or NULL; out is (n, d) and
// may be x. Returns MHA_OK, MHA_NO_MEMORY or MHA_FULLY_MASKED_ROW.
mha_status encoder_layer_forward(float *out, const encoder_layer *L,
                                 const float *x, const bool *mask, int n);

// The decoder layer on the target tgt, (n_t, d), reading memory, (n_s, d);
// tgt_mask (n_t, n_t) or NULL; out is (n_t, d) and may be tgt.
// cross_weights, (n_t, n_s) or NULL, receives the cross-attention weights
// averaged over the heads. Returns MHA_OK, MHA_NO_MEMORY or
// MHA_FULLY_MASKED_ROW.
mha_status decoder_layer_forward(float *out, float *cross_weights,
                                 const decoder_layer *L, const float *tgt,
                                 const float *memory, const bool *tgt_mask,
                                 int n_t, int n_s);

#endif
