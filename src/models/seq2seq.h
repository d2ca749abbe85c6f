// seq2seq.h: an encoder-decoder transformer built from the layers of
// transformer_layer.h, in real: its parameters in one block, forward to the
// loss, backward, a training step with Adam, and greedy decoding.
//
//   V        vocabulary size (13 for reversing digits)
//   d, h, d_ff   model width, heads, feed-forward width
//   n_enc, n_dec layers of the encoder and of the decoder
//   n_pos    positions a table holds (at least every length used)
//   B        sequences in a batch
//   n_s      source tokens per sequence, n_t target tokens
//
// The model, as a torch.nn twin builds it (and draws its starting values,
// in this order, after torch.manual_seed):
//   embedding   nn.Embedding(V, d), shared by source and target
//   pos         nn.Embedding(n_pos, d), the learned kind only
//   enc.l       nn.TransformerEncoderLayer(d, h, d_ff, dropout=0,
//               batch_first=True, norm_first), l = 0 .. n_enc-1
//   dec.l       nn.TransformerDecoderLayer likewise, l = 0 .. n_dec-1
//   enc_norm, dec_norm   nn.LayerNorm(d) after each stack, norm_first only
//   generator   nn.Linear(d, V)
// The stacks' input: x = embedding[id] + position[i] (no sqrt(d) factor),
// the position table sinusoidal (the caller's), learned, or none.
// Encoder: key padding from src == pad. Decoder: causal self-attention with
// key padding from tgt_in == pad; cross-attention with src's padding.
// Loss: nn.CrossEntropyLoss(ignore_index = pad) of the logits against
// tgt_out.
#ifndef ATTN_SEQ2SEQ_H
#define ATTN_SEQ2SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"
#include "layers/adam.h"
#include "kernels/real.h"
#include "layers/transformer_layer.h"

typedef enum { POSITIONS_NONE, POSITIONS_SINUSOIDAL, POSITIONS_LEARNED } position_kind;

typedef struct {
    int V, d, h, d_ff, n_enc, n_dec, n_pos;
    bool norm_first;
    position_kind positions;
    int32_t pad;  // the padding token: masked, and ignored by the loss (0)
} seq2seq_config;

// The parameters, or their gradients: views into one block, laid out in
// the order of the list above (each layer's tensors in state_dict order).
typedef struct {
    real *embedding;                  // embedding.weight (V, d)
    real *pos;                        // pos.weight (n_pos, d), or NULL
    enc_layer_params *enc;            // (n_enc) enc.l.*
    dec_layer_params *dec;            // (n_dec) dec.l.*
    real *enc_norm_weight, *enc_norm_bias;  // enc_norm.weight, .bias (d), or NULL
    real *dec_norm_weight, *dec_norm_bias;  // dec_norm.weight, .bias (d), or NULL
    real *generator_weight;           // generator.weight (V, d)
    real *generator_bias;             // generator.bias (V)
} seq2seq_params;

// One parameter tensor: its PyTorch name, where it starts in the block, how
// many numbers it holds, and its shape (cols 1 for a vector).
typedef struct {
    char name[48];
    size_t offset, count;
    int rows, cols;
} seq2seq_tensor;

// The activations of a batch, kept by the forward pass, and the backward
// pass's gradients. Room for up to B sequences of n_s and n_t tokens.
typedef struct {
    int B, n_s, n_t;                  // the room
    bool *src_pad, *tgt_pad;          // (B, n_s), (B, n_t)
    real *enc_x;                      // (n_enc + 1, B, n_s, d) the encoder's streams: [0] the
                                      // embedded source, [l + 1] layer l's output
    real *memory;                     // (B, n_s, d) the encoder's output (after enc_norm)
    real *enc_mean, *enc_rstd;        // (B, n_s) enc_norm's statistics
    real *dec_x;                      // (n_dec + 1, B, n_t, d) the decoder's streams
    real *dec_out;                    // (B, n_t, d) the generator's input (after dec_norm)
    real *dec_mean, *dec_rstd;        // (B, n_t)
    real *logits;                     // (B, n_t, V)
    layer_cache *enc, *dec;           // (n_enc), (n_dec)
    real *dlogits;                    // (B, n_t, V)
    real *dmemory;                    // (B, n_s, d)
    real *denc, *ddec;                // (2, B, n_s, d), (2, B, n_t, d): a stream's gradient,
                                      // two buffers that take turns
    int32_t *prefix;                  // (B, n_t) greedy decoding's tokens so far
    // The rows the last forward pass computed: the first src_len[b] and
    // tgt_len[b] positions of sequence b (all n_s and n_t, but for
    // seq2seq_forward_scored), src_rows and tgt_rows in all. Every array
    // above that has a row per token holds those rows one sequence after
    // the other, which with every row kept is the (B, n, ...) layout.
    int *src_len, *tgt_len;           // (B)
    int src_rows, tgt_rows;
    int32_t *src_ids, *tgt_ids;       // (B n_s), (B n_t) the tokens of those rows
    int32_t *tgt_scored;              // (B n_t) tgt_out at those rows
} seq2seq_acts;

typedef struct {
    seq2seq_config cfg;
    layer_dims dims;
    size_t n_params;
    real *param_block, *grad_block;   // (n_params) each
    seq2seq_params p, g;              // views into param_block and grad_block
    seq2seq_tensor *tensors;          // (n_tensors) every parameter tensor, block order
    int n_tensors;
    real *sinusoid;                   // (n_pos, d) a copy of the caller's table, or NULL
    seq2seq_acts a;                   // the last batch's activations
    int B, n_s, n_t;                  // the sizes of the last forward pass
    adam_state opt;                   // Adam's moments over the whole block
    double grad_norm;                 // the last training step's gradient norm, before Adam
} seq2seq_model;

// The number of parameters of a model of that configuration.
size_t seq2seq_param_count(const seq2seq_config *cfg);

// Builds the model: checks the sizes (d divisible by h, all positive),
// allocates the parameters and their gradients, and draws the starting
// values from g as PyTorch's constructors do, in the order above (each drawn
// in float and converted to real); LayerNorms start at gain 1, bias 0.
// sinusoid (n_pos, d) is the table for the sinusoidal kind (copied), else
// NULL. Then room for batches of up to B sequences of n_s and n_t tokens,
// and Adam's state (zero moments; the learning rate is each step's).
// Returns 0, -1 when out of memory, -2 when the sizes make no model.
int seq2seq_init(seq2seq_model *m, const seq2seq_config *cfg, const real *sinusoid, int B, int n_s,
                 int n_t, torch_rng *g);
void seq2seq_free(seq2seq_model *m);

// The tensor named name (PyTorch's name, such as "enc.0.self_attn.in_proj_weight",
// "dec.1.norm3.bias", "embedding.weight", "pos.weight", "generator.weight"):
// *param and *grad point at its values and its gradient, *count numbers.
// Returns 0, or -1 when the model has no such tensor.
int seq2seq_tensor_by_name(const seq2seq_model *m, const char *name, real **param, real **grad,
                           size_t *count);

// Forward pass on B sequences: src (B, n_s), tgt_in (B, n_t), tgt_out
// (B, n_t) token ids (B, n_s, n_t within the room of seq2seq_init; every
// length at most n_pos when positions are used). Keeps the activations,
// the logits (a.logits) and every attention map; returns the loss against
// tgt_out, or 0 when tgt_out is NULL.
real seq2seq_forward(seq2seq_model *m, const int32_t *src, const int32_t *tgt_in,
                     const int32_t *tgt_out, int B, int n_s, int n_t);

// The loss of seq2seq_forward (the same number, to the bit) computing only
// the rows that reach it: the source up to its last token that is not
// padding, the target up to its last position scored (tgt_out not padding;
// the decoder's causal mask keeps the later ones from every earlier
// query). Padding after those rows is left out, so the logits (packed,
// a.tgt_rows of them) and attention maps (multihead_attention.h) hold the
// rows kept only. seq2seq_backward after it gives the gradient of
// seq2seq_forward's loss, the rows left out contributing exactly 0 there.
real seq2seq_forward_scored(seq2seq_model *m, const int32_t *src, const int32_t *tgt_in,
                            const int32_t *tgt_out, int B, int n_s, int n_t);

// After seq2seq_forward or seq2seq_forward_scored on a batch whose targets
// are tgt_out (the forward pass kept the tokens it read): clears grad_block
// and writes the gradient of the loss with respect to every parameter
// into it.
void seq2seq_backward(seq2seq_model *m, const int32_t *tgt_out);

// One training step: seq2seq_forward_scored, backward, and Adam with
// learning rate lr on the whole block (m->opt). Returns the loss before the
// update.
real seq2seq_train_step(seq2seq_model *m, double lr, const int32_t *src, const int32_t *tgt_in,
                        const int32_t *tgt_out, int B, int n_s, int n_t);

typedef enum { ATTN_ENC_SELF, ATTN_DEC_SELF, ATTN_DEC_CROSS } seq2seq_attention_kind;

// The attention weights of the last forward pass, layer layer of the kind
// asked: (B, h, n_q, n_k) with the sizes of that pass (n_q = n_k = n_s for
// ATTN_ENC_SELF; n_t, n_t for ATTN_DEC_SELF; n_t, n_s for ATTN_DEC_CROSS).
const real *seq2seq_attention(const seq2seq_model *m, seq2seq_attention_kind kind, int layer);

// Greedy decoding of B sources src (B, n_s), B and n_s within the room of
// seq2seq_init: the encoder runs once, then the decoder, from bos alone, on
// its whole prefix at each step, and the most likely next token (the
// lowest id on a tie) is appended, until every sequence has produced eos or
// max_len tokens. out (B, max_len) gets the tokens after bos, eos included,
// then pad. max_len at most the room's n_t (and n_pos). The attention maps
// afterwards are those of the last step.
void seq2seq_greedy_decode(seq2seq_model *m, int32_t *out, const int32_t *src, int B, int n_s,
                           int max_len, int32_t bos, int32_t eos);

#endif
