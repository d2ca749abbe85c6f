// gpt.h: a character-level decoder-only transformer of GPT-2's shape
// (nanoGPT's GPT), in real, built from the layers of layers/: forward to
// the loss, backward, a training step with AdamW, generation with and
// without a cache of keys and values, and saving and loading.
//
//   V        vocabulary size (characters)
//   T        context: the positions the model reads at most (the learned
//            position table's rows)
//   d, h     model width and heads (d_k = d / h)
//   L        blocks
//   B        sequences in a batch, each of n <= T positions
//
// The model, as tests/reference/chapter9_twin.py builds it in torch.nn:
//   x = wte[id] + wpe[pos]
//   each block l:  x = x + attn(ln_1(x))   causal self-attention
//                  x = x + mlp(ln_2(x))    c_fc (4d), GELU (tanh), c_proj
//   logits = ln_f(x) wte^T                 the output layer is the token
//                                          embedding (weight tying)
// The attention's c_attn is nn.MultiheadAttention's in_proj (3d, d): the
// query rows, the key rows, the value rows; the queries are scaled by
// 1/sqrt(d_k) (layers/multihead_attention.h).
//
// The parameters live in one block, each tensor a view, in this order
// (nanoGPT's state_dict names):
//   wte (V, d), wpe (T, d),
//   per block: ln_1.weight, ln_1.bias (d), attn.c_attn.weight (3d, d),
//   attn.c_attn.bias (3d), attn.c_proj.weight (d, d), attn.c_proj.bias (d),
//   ln_2.weight, ln_2.bias (d), mlp.c_fc.weight (4d, d), mlp.c_fc.bias (4d),
//   mlp.c_proj.weight (d, 4d), mlp.c_proj.bias (d),
//   ln_f.weight, ln_f.bias (d).
// Starting values, GPT-2's: every weight matrix and both embeddings
// normal(0, 0.02), the two residual projections (attn.c_proj.weight,
// mlp.c_proj.weight) normal(0, 0.02 / sqrt(2 L)), biases 0, LayerNorm gains
// 1. The normals are drawn with core/rng.h's rng_randn (PyTorch's
// torch.randn) from one generator, tensor after tensor in block order, each
// draw in float times its standard deviation. The twin reads these values
// from a file the C writes (gpt_save), so it need not draw them.
#ifndef ATTN_GPT_H
#define ATTN_GPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/real.h"
#include "layers/adamw.h"
#include "layers/lr_schedule.h"
#include "layers/multihead_attention.h"

// How the blocks compute their attention: the heads' weights in memory
// (mha_forward, the default: chapter 9's numbers), or a tile at a time
// (mha_tiled_forward, chapter 10's kernels: the same to rounding, nothing
// T x T kept, so no attention maps to read from the model).
typedef enum { GPT_ATTENTION_NAIVE = 0, GPT_ATTENTION_TILED = 1 } gpt_attention;

typedef struct {
    int V, T, d, h, L;
    gpt_attention attention;  // not part of the model's file: gpt_load gives naive
} gpt_config;

// One block's parameters, or their gradients: views into a block.
typedef struct {
    real *ln1_w, *ln1_b;     // (d)
    mha_params attn;         // c_attn as in_proj_weight (3d, d) and in_proj_bias (3d),
                             // c_proj as out_proj_weight (d, d) and out_proj_bias (d)
    real *ln2_w, *ln2_b;     // (d)
    real *fc_w, *fc_b;       // (4d, d), (4d)
    real *proj_w, *proj_b;   // (d, 4d), (d)
} gpt_block;

typedef struct {
    real *wte, *wpe;         // (V, d), (T, d)
    gpt_block *blocks;       // (L)
    real *lnf_w, *lnf_b;     // (d)
} gpt_params;

// One parameter tensor: its name, place in the block, size and shape
// (cols 1 for a vector), and whether AdamW decays it (matrices and the
// embeddings; not biases and gains).
typedef struct {
    char name[40];
    size_t offset, count;
    int rows, cols;
    bool decay;
} gpt_tensor;

// One block's activations for a batch.
typedef struct {
    real *ln1, *ln1_mean, *ln1_rstd;  // (B, T, d), (B, T), (B, T)
    mha_cache *attn;                  // (shards) each shard's attention; tiled, no
                                      // weights (attn[k].w NULL)
    real *mid;                        // (B, T, d) the stream after the attention
    real *ln2, *ln2_mean, *ln2_rstd;
    real *fc;                         // (B, T, 4d) c_fc's output, then GELU's slope at it
    real *gelu;                       // (B, T, 4d) GELU's output
} gpt_block_acts;

typedef struct {
    int B;                            // the room: B sequences of T positions
    int32_t *ids, *targets;           // (B, T) the last batch
    real *x;                          // (L + 1, B, T, d) the streams: [0] the embedded
                                      // tokens, [l + 1] block l's output
    gpt_block_acts *blocks;           // (L)
    real *lnf, *lnf_mean, *lnf_rstd;  // (B, T, d), (B, T), (B, T)
    real *logits;                     // (B, T, V)
    double *lse, *loss;               // (B, T) each position's log-sum-exp of its logits
                                      // and loss, when the pass had targets
    real *dlogits;                    // (B, T, V)
    real *dx, *dln;                   // (B, T, d) each: backward scratch
    real *dh;                         // (B, T, 4d) backward scratch: the MLP's hidden
                                      // layer's gradient
    real *arena;                      // the one allocation the arrays above are carved from
} gpt_acts;

// Keys and values of the positions generation has seen, the weight
// matrices transposed, and the scratch of a forward pass of up to T new
// positions.
// A position's products read its weights (in, out), row after row: the
// same sums, in the same order, as a product of many rows, which copies
// each (out, in) weight transposed a slice at a time (kernels/gemm_fast.c),
// where one row would pay for the copy alone. The threads share each
// product by columns: each transposed weight is stored as `threads`
// matrices of its own, one for each thread's columns (gpt_generate.c).
typedef struct {
    real *k, *v;                      // (L, h, d_k, T) the keys transposed, (L, h, T, d_k)
    int len;                          // positions cached
    int threads;                      // threads a position's products are shared by
    real *wt;                         // per block c_attn^T (d, 3d), c_proj^T (d, d),
                                      // c_fc^T (d, 4d), mlp c_proj^T (4d, d); then wte^T (d, V)
    real *x, *ln, *qkv, *z, *out;     // (T, d), (T, d), (T, 3d), (T, d), (T, d)
    real *hid, *logits, *w, *scratch; // (T, 4d), (V), (h, T) a head's weights each, (T d)
    double *probs;                    // (2V) sampling's scratch
} gpt_kv_cache;

typedef struct {
    gpt_config cfg;
    size_t n_params;
    real *param_block, *grad_block;   // (n_params) each
    gpt_params p, g;                  // views into them
    int shards;                       // the batch's sequences split into this many parts
    real *shard_grads;                // (shards - 1) the other shards' gradients, n_params each,
                                      // each from a cache line (kernels/aligned.h)
    gpt_params *gs;                   // (shards) views: gs[0] = g, gs[s] into shard_grads
    gpt_tensor *tensors;              // (n_tensors), block order
    int n_tensors;
    uint32_t *vocab;                  // (V) the character (code point) of each id
    gpt_acts a;
    int B, n;                         // the sizes of the last forward pass
    gpt_kv_cache kv;
    adamw_state opt;
    lr_schedule schedule;
    double clip;                      // the gradient norm clipped to (1.0)
    long step;                        // optimiser steps taken
    double last_norm;                 // the last step's gradient norm, before clipping
} gpt_model;

// The number of parameters of that configuration.
size_t gpt_param_count(const gpt_config *cfg);

// Threads: a batch's sequences are split into `shards` parts, each
// computed on its own from the embedding to the loss's gradient (OpenMP
// shares the parts among the threads, kernels/parallel.h); each part adds
// its parameters' gradients into a block of its own, and the blocks are
// summed in order, part 0 first. The numbers are the same with any number
// of threads for a given number of parts; a different number of parts sums
// the gradients in another order (to rounding).
//
// The threads take the parts as they come free, so the parts are not all
// alike: from four parts (and four sequences) on, the last two are small,
// B / 16 sequences each (at least one), and the others share the rest
// equally (a batch of 32 in six: 7, 7, 7, 7, 2, 2). On a shared machine one
// thread often runs slower than the other for a while; the faster one,
// done with its large parts first, takes the small ones, and neither waits
// for the other for long. With fewer parts they are equal. gpt_shard_end
// says where part k of a batch of B ends (k = -1: 0).
int gpt_shard_end(int B, int shards, int k);
//
// Builds the model, room for batches of up to B sequences: checks the sizes
// (all positive, d divisible by h), allocates everything it owns, draws the
// starting values from a generator seeded with seed (the order above), and
// sets AdamW (weight decay wd on the decayed tensors), the schedule and
// clipping at 1. vocab (V) is copied, or NULL for code points 0 .. V-1.
// Returns the model, or NULL with the reason in err.
gpt_model *gpt_build(const gpt_config *cfg, int B, int shards, uint64_t seed,
                     const uint32_t *vocab, double wd, const lr_schedule *schedule, char *err,
                     size_t errlen);
void gpt_free(gpt_model *m);

// The tensor of that name, or NULL.
const gpt_tensor *gpt_find(const gpt_model *m, const char *name);

// The forward pass of B sequences of n <= T ids (B, n): the logits
// (B, n, V) in m->a.logits, and with targets (B, n) not NULL the mean
// cross-entropy over the B n positions, which it returns (else 0).
real gpt_forward(gpt_model *m, const int32_t *ids, const int32_t *targets, int B, int n);

// The attention weights of head `head` of block l over sequence b of the
// last forward pass, what its softmax computed (the cache of that block's
// attention): w (n, n), row i the weights query i gave keys 0 .. n - 1,
// each row summing to 1, 0 above the diagonal (the causal mask). Returns 0,
// or -1 (and writes nothing) when b, l or head is out of range, or the
// model's attention is tiled (it keeps no weights).
int gpt_attention_weights(const gpt_model *m, int b, int l, int head, real *w);

// Clears the gradients and computes them for the last forward pass (which
// had targets): m->grad_block. The tied wte collects the gradient of the
// output layer and of the embedding.
void gpt_backward(gpt_model *m);

// One training step on windows (B, n + 1) (gpt_forward's ids are each
// window's first n, its targets the last n): forward, backward, clipping,
// AdamW at the schedule's rate for m->step. Returns the loss before it.
real gpt_train_step(gpt_model *m, const int32_t *windows, int B, int n);

// ---------------------------------------------------------------- generation

// Empties the cache and copies the weights into it transposed, in shares
// for the threads (as many as parallel_threads() says now): call it before
// the first gpt_forward_cached, and again whenever the parameters change
// (gpt_generate calls it).
void gpt_cache_reset(gpt_model *m);

// The logits (V) of the token after positions kv.len .. kv.len + n - 1,
// given their n ids (n >= 1), with the keys and values of positions
// 0 .. kv.len - 1 from the cache; appends the n positions' keys and values.
// kv.len + n must not pass T. The same numbers, to the bit, as n calls of
// one id each, and as the whole window's pass (gpt_forward_window): n rows
// only make the products longer. Returns m->kv.logits.
const real *gpt_forward_cached(gpt_model *m, const int32_t *ids, int n);

// The same logits computed over the whole window ids (n <= T) by
// gpt_forward: the last position's row. Returns a pointer into m->a.logits.
const real *gpt_forward_window(gpt_model *m, const int32_t *ids, int n);

// Where the window starts when the sequence holds n tokens and the window
// started at start: once the window would hold more than T, it slides on to
// its last T / 2 tokens (at least 1), so that a cache is rebuilt once every
// T / 2 tokens rather than at every token.
int gpt_window_start(int start, int n, int T);

// Samples token after token: out (n_prompt + n_new) gets the prompt's ids
// (n_prompt >= 1), then n_new tokens drawn from the softmax of the logits
// divided by temperature, among the top_k most likely (top_k <= 0 or >= V:
// all); temperature <= 0 takes the most likely. The draws come from a
// generator seeded with seed, one uniform number per token. With use_cache,
// each token is one gpt_forward_cached step of one position (the window's
// first positions, the prompt's or those kept when it slides, in one step
// of them all); without, gpt_forward_window over the window.
// Both give the same tokens (tests/test_gpt.c). Returns 0, or -1 (and
// writes nothing) when the prompt is empty or holds an id outside 0 .. V-1.
int gpt_generate(gpt_model *m, int32_t *out, const int32_t *prompt, int n_prompt, int n_new,
                 double temperature, int top_k, uint64_t seed, bool use_cache);

// ---------------------------------------------------------------- files

// The file: the magic "GPTCHAR\n", then little-endian uint32 version (1),
// V, T, d, h, L; V uint32 code points; n_params IEEE doubles (each
// parameter, block order); a uint32 CRC-32 (zlib's) of all before it.
#define GPT_FILE_VERSION 1

// Writes the model's configuration, vocabulary and parameters to path
// through a temporary file renamed into place. Returns 0, or -1 with the
// reason (naming the file) in err.
int gpt_save(const gpt_model *m, const char *path, char *err, size_t errlen);

// Reads a model from path, room for batches of B in shards, optimiser as
// gpt_build.
// Refuses a wrong magic, version, sizes, a file cut short or too long, a
// checksum that does not match: NULL with the reason, naming the file, in
// err.
gpt_model *gpt_load(const char *path, int B, int shards, double wd, const lr_schedule *schedule,
                    char *err, size_t errlen);

#endif
