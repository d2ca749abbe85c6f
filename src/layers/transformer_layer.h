// transformer_layer.h: nn.TransformerEncoderLayer and
// nn.TransformerDecoderLayer (batch_first, activation relu, dropout 0) in
// real over a batch (one sequence is a batch of one), post-norm and
// pre-norm, forward and backward, their starting values and the checks of
// their sizes.
//
//   B      sequences in the batch
//   n      tokens per sequence in the layer's stream (n_s in the encoder,
//          n_t in the decoder)
//   n_s    source tokens (the memory's rows), n_t target tokens
//   d      the model width, h heads, d_ff the feed-forward network's width
//
// Each sub-layer f (self-attention, cross-attention, feed-forward) sits on
// the residual stream x with its LayerNorm:
//   post-norm (norm_first false):  x = LayerNorm(x + f(x))
//   pre-norm  (norm_first true):   x = x + f(LayerNorm(x))
// encoder: self-attention (key padding of the source), then feed-forward;
// decoder: self-attention (with the target's key padding, and causal when
// the decoder writes the target token by token), then cross-attention
// (queries from the stream, keys and values from the memory, the source's
// padding hidden), then feed-forward.
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// forward function overwrites its output, a backward one ADDS the gradients.
#ifndef ATTN_TRANSFORMER_LAYER_H
#define ATTN_TRANSFORMER_LAYER_H

#include <stdbool.h>

#include "layers/ffn.h"
#include "layers/multihead_attention.h"
#include "core/rng.h"
#include "kernels/real.h"

// The sizes every layer of a model shares.
typedef struct {
    int d, h, d_ff;
    bool norm_first;
} layer_dims;

// The parameters, or their gradients: views into a model's block. The
// names in the comments are PyTorch's state_dict names within the layer.
typedef struct {
    mha_params self_attn;       // self_attn.in_proj_weight ... out_proj.bias
    ffn_params ff;              // linear1.weight, linear1.bias, linear2.weight, linear2.bias
    real *norm_weight[2];       // norm1.weight, norm2.weight (d)
    real *norm_bias[2];         // norm1.bias, norm2.bias (d)
} enc_layer_params;

typedef struct {
    mha_params self_attn;       // self_attn.*
    mha_params cross_attn;      // multihead_attn.*
    ffn_params ff;              // linear1.*, linear2.*
    real *norm_weight[3];       // norm1.weight .. norm3.weight (d)
    real *norm_bias[3];         // norm1.bias .. norm3.bias (d)
} dec_layer_params;

// One tensor of a layer: its state_dict name within the layer, its shape,
// and the view of the parameters (or gradients) that points at it.
typedef struct {
    const char *name;
    real **view;
    int rows, cols;
} layer_tensor;

enum { ENC_LAYER_TENSORS = 12, DEC_LAYER_TENSORS = 18 };

// A layer's tensors in PyTorch's state_dict order: each attention's four,
// linear1's and linear2's, then the norms'. Every model that keeps a layer
// in its block lays it out from this table, and so do enc_layer_alloc and
// dec_layer_alloc. Returns the count (ENC_ or DEC_LAYER_TENSORS).
int enc_layer_tensors(layer_tensor *t, enc_layer_params *p, const layer_dims *dims);
int dec_layer_tensors(layer_tensor *t, dec_layer_params *p, const layer_dims *dims);

// What one sub-layer keeps: f's input t (pre-norm LayerNorm(x), post-norm
// x itself), the sum s = x + f(t) (post-norm LayerNorm's input; pre-norm
// the stream after the sub-layer), LayerNorm's statistics.
typedef struct {
    real *t, *s;        // (B, n, d)
    real *mean, *rstd;  // (B, n)
} sublayer_cache;

// What a layer's forward pass keeps (the attention weights among it, for
// figures: self_attn.w, cross_attn.w), and its backward pass's scratch.
typedef struct {
    sublayer_cache sub[3];      // the encoder uses two
    mha_cache self_attn, cross_attn;  // the encoder has no cross_attn
    ffn_cache ff;
    real *f;                    // (B, n, d) a sub-layer's output
    real *dx, *dx2, *dt, *ds;   // (B, n, d) scratch of the backward pass
} layer_cache;

// Room for B sequences of up to n tokens (encoder), or n_t target tokens
// attending to n_s memory rows (decoder). Return 0, or -1 when out of memory.
int enc_layer_cache_alloc(layer_cache *c, const layer_dims *dims, int B, int n);
int dec_layer_cache_alloc(layer_cache *c, const layer_dims *dims, int B, int n_t, int n_s);
void layer_cache_free(layer_cache *c);

// Whether the sizes make a layer: mha_check(d, h)'s status, or
// MHA_BAD_SIZE when d_ff is below 1.
mha_status layer_dims_check(const layer_dims *dims);

// A layer's parameters in a block of their own, in PyTorch's state_dict
// order, for a program that uses the layer by itself: layer_dims_check's
// status (then nothing is allocated), or MHA_NO_MEMORY. The values are not
// set: enc_layer_init, dec_layer_init.
mha_status enc_layer_alloc(enc_layer_params *p, const layer_dims *dims);
mha_status dec_layer_alloc(dec_layer_params *p, const layer_dims *dims);
void enc_layer_free(enc_layer_params *p);
void dec_layer_free(dec_layer_params *p);

// PyTorch's initialisation, drawing from g in construction order: the
// encoder's self_attn, linear1, linear2; the decoder's self_attn,
// multihead_attn, linear1, linear2. Every LayerNorm starts with gain 1 and
// bias 0 and draws nothing. Return 0, or -1 when out of memory.
int enc_layer_init(torch_rng *g, const enc_layer_params *p, const layer_dims *dims);
int dec_layer_init(torch_rng *g, const dec_layer_params *p, const layer_dims *dims);

// Rows left out: with len (tgt_len, src_len in the decoder), not NULL, the
// layers compute only the first len[b] rows of each sequence, packed one
// sequence after the other as multihead_attention.h says: inp, out, dinp
// and the caches hold mha_rows(len, B, n) rows, memory and dmemory
// mha_rows(src_len, B, n_s). Exact for the rows kept when the rows left out
// are trailing padding of the source, and positions after the last one kept
// in the (causal) decoder. NULL: every row, the (B, n, d) layout.

// out and inp are (B, n, d), out not inp; pad (B, n) true where a token is
// padding, or NULL; causal: token i sees tokens 0 .. i only (chapter 2's
// mask). Returns mha_forward's status.
mha_status enc_layer_forward(real *out, layer_cache *c, const enc_layer_params *p,
                             const real *inp, const bool *pad, bool causal,
                             const layer_dims *dims, int B, int n, const int *len);

// dinp (B, n, d) += the gradient of the loss with respect to inp, g += the
// parameters', given dout (B, n, d) and the forward's inp and cache.
void enc_layer_backward(real *dinp, const enc_layer_params *g, layer_cache *c, const real *dout,
                        const real *inp, const enc_layer_params *p, const layer_dims *dims,
                        int B, int n, const int *len);

// out and inp are (B, n_t, d), out not inp; memory is (B, n_s, d);
// tgt_pad (B, n_t) and src_pad (B, n_s), or NULL; causal masks the
// self-attention (chapter 8's decoder always is). Returns mha_forward's
// status. The cross-attention's weights stay in c->cross_attn.w.
mha_status dec_layer_forward(real *out, layer_cache *c, const dec_layer_params *p,
                             const real *inp, const real *memory, const bool *tgt_pad,
                             const bool *src_pad, bool causal, const layer_dims *dims, int B,
                             int n_t, int n_s, const int *tgt_len, const int *src_len);

// dinp (B, n_t, d) and dmemory (B, n_s, d) += the gradients of the loss
// with respect to inp and memory, g += the parameters'; dmemory may be NULL.
void dec_layer_backward(real *dinp, real *dmemory, const dec_layer_params *g, layer_cache *c,
                        const real *dout, const real *inp, const real *memory,
                        const dec_layer_params *p, const layer_dims *dims, int B, int n_t,
                        int n_s, const int *tgt_len, const int *src_len);

#endif
