// chapter5.c: the transformer's encoder and decoder layers, the notebook's
// and PyTorch's.
//
// Two parts, each printing what its source prints; the notebook's part is
// computed first (its draws continue chapter 4's) and printed second, as the
// chapter teaches the layers first:
//   part 1, cells [T25]-[T26] and [P5.8]-[P5.10]: "Transformers" of the notebook
//     "Attention and Transformers", continuing chapter 4's cells; [T25] and
//     [T26] are the notebook's, [P5.8]-[P5.10] are the program's own and show
//     where its layers differ from the paper's.
//   part 2, cells [P5.1]-[P5.7]: nn.TransformerEncoderLayer and
//     nn.TransformerDecoderLayer (d_model 32, 2 heads, dim_feedforward 64,
//     no dropout), from a fresh torch.manual_seed, so that cells [P5.2]-[P5.6]
//     print what the chapter's PyTorch twin (tests/reference/chapter5_twin.py)
//     prints.
//
// Dimension legend:
//   n_s  source tokens (N_SRC, 8): the sentence of chapters 1-4
//   n_t  target tokens (N_TGT, 10 in part 2; the notebook's target is the
//        source itself, 8)
//   d    model width (EMBEDDING_DIM, 32)
//   h    heads (HEADS, 2); d_k = d / h
//   d_ff hidden width of the feed-forward network (D_FF, 64 = 2 d)
//   V    vocabulary size (VOCAB_SIZE, 20000)
//
// Usage: ./chapter5 [--seed N] [--data DIR]
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h"
#include "notebooks/sentence.h"
#include "layers/layernorm.h"
#include "layers/linear.h"
#include "layers/mask.h"
#include "layers/transformer_layer.h"
#include "notebooks/notebook_attention.h"
#include "core/print.h"
#include "core/rng.h"
#include "layers/tensor.h"

#define PROGRAM "chapter5"
#define SOURCE "Sorry Dave, I'm afraid I can't do that."
// A second sentence for the decoder, in UTF-8, split on spaces as the
// notebook's tokenizer splits: 10 words.
#define TARGET "Désolé Dave, je crains de ne pas pouvoir faire ça."
#define VOCAB_SIZE 20000
#define EMBEDDING_DIM 32
#define N_SRC 8
#define N_TGT 10
#define HEADS 2
#define D_FF (2 * EMBEDDING_DIM)
// The notebook's n_heads in cell [T24] (chapter 4), drawn before its layers.
#define CELL_24_HEADS 3
// The random seed that draws the notebook's token ids (chapter1.c's DEFAULT_SEED).
#define DEFAULT_SEED 3570563066ULL

// ------------------------------------------------------------------ part 1
// The notebook's layers, with their weights kept apart from the forward
// pass so that a test can run them again on other inputs.

// The parameters of a layer's feed-forward part: nn.Linear(d, 2d) and
// nn.Linear(2d, d), drawn inside the layer function.
typedef struct {
    float w1[D_FF * EMBEDDING_DIM], b1[D_FF];    // linear_1
    float w2[EMBEDDING_DIM * D_FF], b2[EMBEDDING_DIM];  // linear_2
} notebook_linears;

//> notebook-pieces
// F.layer_norm(x, x.shape): x is (n, d), normalised as ONE vector of n d
// numbers, with no gain and no bias. out may be x.
static void layer_norm_whole(float *out, const float *x, int n, int d) {
    layernorm_forward(out, NULL, NULL, x, NULL, NULL, 1, n * d);
}

// x + F.relu(linear_2(linear_1(x))): no ReLU between the two linear maps,
// one after them. x and out are (n, d); update, (n, d), receives the
// part added to x.
static void notebook_feedforward(float *out, float *update,
                                 const notebook_linears *w, const float *x,
                                 int n, int d) {
    float hidden[N_TGT * D_FF];
    linear_forward(hidden, x, w->w1, w->b1, n, d, D_FF, WEIGHT_OUT_IN);
    linear_forward(update, hidden, w->w2, w->b2, n, D_FF, d, WEIGHT_OUT_IN);
    for (int e = 0; e < n * d; e++) update[e] = fmaxf(update[e], 0.0f);
    for (int e = 0; e < n * d; e++) out[e] = x[e] + update[e];
}
//< notebook-pieces

typedef struct {
    notebook_mha attn;                          // multi_head_attention's
    notebook_linears lin;
    float attn_out[N_SRC * EMBEDDING_DIM];      // (n, d)
    float normed[N_SRC * EMBEDDING_DIM];        // layer_norm(x + src)
    float update[N_SRC * EMBEDDING_DIM];        // relu(linear_2(linear_1(x)))
    float out[N_SRC * EMBEDDING_DIM];           // encoder_output
} notebook_encoder;

typedef struct {
    notebook_mha self_attn, cross_attn;
    notebook_linears lin;
    float normed1[N_SRC * EMBEDDING_DIM];       // after the first layer_norm
    float cross_weights[HEADS * N_SRC * N_SRC]; // (h, n, n) second attention
    float normed2[N_SRC * EMBEDDING_DIM];       // after the second
    float update[N_SRC * EMBEDDING_DIM];
    float out[N_SRC * EMBEDDING_DIM];           // decoder_output
} notebook_decoder;

//> notebook-encoder
// Cell [T25], the encoder layer with the weights e drew: src and e->out are
// (n, d). Returns 0, or -1 when out of memory.
static int notebook_encoder_forward(notebook_encoder *e, const float *src,
                                    int n, int d) {
    float sum[N_SRC * EMBEDDING_DIM];
    if (notebook_mha_forward(e->attn_out, NULL, NULL, &e->attn, src, src, src,
                             false) != 0)
        return -1;
    for (int i = 0; i < n * d; i++) sum[i] = e->attn_out[i] + src[i];
    layer_norm_whole(e->normed, sum, n, d);
    notebook_feedforward(e->out, e->update, &e->lin, e->normed, n, d);
    return 0;  // and no second normalisation
}
//< notebook-encoder

//> notebook-decoder
// Cell [T26], the decoder layer with the weights r drew: src, target and
// r->out are (n, d). Returns 0, or -1 when out of memory.
static int notebook_decoder_forward(notebook_decoder *r, const float *src,
                                    const float *target, int n, int d) {
    float a[N_SRC * EMBEDDING_DIM], x[N_SRC * EMBEDDING_DIM];
    // self-attention over the target, unmasked (causal_masking unused)
    if (notebook_mha_forward(a, NULL, NULL, &r->self_attn, target, target,
                             target, false) != 0)
        return -1;
    for (int i = 0; i < n * d; i++) x[i] = a[i] + target[i];
    layer_norm_whole(r->normed1, x, n, d);
    // multi_head_attention(src, src, x): queries and keys from the source,
    // values from the decoder
    if (notebook_mha_forward(a, NULL, r->cross_weights, &r->cross_attn, src,
                             src, r->normed1, false) != 0)
        return -1;
    for (int i = 0; i < n * d; i++) x[i] = r->normed1[i] + a[i];
    layer_norm_whole(r->normed2, x, n, d);
    notebook_feedforward(r->out, r->update, &r->lin, r->normed2, n, d);
    return 0;
}
//< notebook-decoder

typedef struct {
    char words[MAX_TOKENS][MAX_WORD];
    int64_t ids[N_SRC];
    float x[N_SRC * EMBEDDING_DIM];             // (n, d) embedded_tokens
    notebook_encoder enc;                       // cell [T25]
    notebook_decoder dec;                       // cell [T26]
    // [P5.8]: the mean and standard deviation of the encoder's normed sum,
    // all of it and token by token
    float normed_mean, normed_std;
    float token_means[N_SRC], token_stds[N_SRC];
    // [P5.9]: the largest difference between the two linear maps and the one
    // they make; the smallest entry of the update, and its zeros
    float one_map_diff;
    float update_low;
    int update_zeros;
    // [P5.10]: the decoder again, the last target token changed
    float changed_target_out[N_SRC * EMBEDDING_DIM];
    float changed_target_cross[HEADS * N_SRC * N_SRC];
    bool first_output_changes;                  // changed_target_out[0] differs
    bool cross_weights_kept;                    // changed_target_cross the same
} notebook_part;

static void notebook_part_free(notebook_part *p) {
    notebook_mha_free(&p->enc.attn);
    notebook_mha_free(&p->dec.self_attn);
    notebook_mha_free(&p->dec.cross_attn);
}

// nn.Linear(d, 2d) and nn.Linear(2d, d), in that order.
static void notebook_linears_draw(notebook_linears *w, torch_rng *g) {
    rng_linear_init(g, w->w1, w->b1, EMBEDDING_DIM, D_FF);
    rng_linear_init(g, w->w2, w->b2, D_FF, EMBEDDING_DIM);
}

// Mean and standard deviation (dividing by the count) of x's count values.
static void mean_std(float *mean, float *std, const float *x, int count) {
    double s = 0, sq = 0;
    for (int i = 0; i < count; i++) s += x[i];
    double m = s / count;
    for (int i = 0; i < count; i++) sq += (x[i] - m) * (x[i] - m);
    *mean = (float)m;
    *std = (float)sqrt(sq / count);
}

//> one-affine-map
// linear_2(linear_1(x)) with nothing between is x (W2 W1)^T + (W2 b1 + b2):
// one affine map from d to d, whatever the hidden width. w_eff is (d, d),
// b_eff is (d).
static void collapse_linears(float *w_eff, float *b_eff,
                             const notebook_linears *w) {
    const int d = EMBEDDING_DIM;
    matmul(w_eff, w->w2, w->w1, d, D_FF, d);           // (d, 2d) @ (2d, d)
    linear_forward(b_eff, w->b1, w->w2, w->b2, 1, D_FF, d, WEIGHT_OUT_IN);
}
//< one-affine-map

// Cells [P5.8] and [P5.9]: what the encoder's normalisation and feed-forward
// part did, from p->enc.
static void notebook_part_examine(notebook_part *p) {
    const int n = N_SRC, d = EMBEDDING_DIM;
    mean_std(&p->normed_mean, &p->normed_std, p->enc.normed, n * d);
    for (int i = 0; i < n; i++)
        mean_std(&p->token_means[i], &p->token_stds[i], p->enc.normed + i * d,
                 d);
    float w_eff[EMBEDDING_DIM * EMBEDDING_DIM], b_eff[EMBEDDING_DIM];
    float direct[N_SRC * EMBEDDING_DIM], hidden[N_SRC * D_FF];
    float through[N_SRC * EMBEDDING_DIM];
    collapse_linears(w_eff, b_eff, &p->enc.lin);
    linear_forward(direct, p->enc.normed, w_eff, b_eff, n, d, d, WEIGHT_OUT_IN);
    linear_forward(hidden, p->enc.normed, p->enc.lin.w1, p->enc.lin.b1, n, d, D_FF, WEIGHT_OUT_IN);
    linear_forward(through, hidden, p->enc.lin.w2, p->enc.lin.b2, n, D_FF, d, WEIGHT_OUT_IN);
    p->one_map_diff = max_abs_diff(direct, through, n * d);
    p->update_zeros = 0;
    p->update_low = INFINITY;
    for (int e = 0; e < n * d; e++) {
        p->update_zeros += p->enc.update[e] == 0.0f;
        p->update_low = fminf(p->update_low, p->enc.update[e]);
    }
}

// Chapter 1's cells [T3]-[T4] on the source from torch.manual_seed(seed) into
// g: its words, ids and embeddings x, (n_s, d); table receives the
// embedding table when not NULL (the caller frees it). Returns 0, or -1
// with a message on stderr.
static int embed_the_source(float *x, int64_t *ids, char words[][MAX_WORD],
                            float **table, torch_rng *g, uint64_t seed) {
    rng_seed(g, seed);
    int n = embed_sentence(x, ids, words, table, SOURCE, VOCAB_SIZE,
                           EMBEDDING_DIM, g);
    if (n == N_SRC) return 0;
    if (n == EMBED_NO_MEMORY)
        fprintf(stderr, PROGRAM ": error: out of memory\n");
    else
        fprintf(stderr, PROGRAM ": error: the source must have %d words\n",
                N_SRC);
    if (n >= 0 && table) free(*table);
    return -1;
}

// The notebook from torch.manual_seed(seed): chapter 1's cells [T3]-[T4],
// chapter 3's [T19], chapter 4's [T24] (their draws), then [T25] and [T26],
// then ours. Returns 0, or -1 with a message on stderr.
static int notebook_part_run(notebook_part *p, uint64_t seed) {
    const int n = N_SRC, d = EMBEDDING_DIM;
    memset(p, 0, sizeof *p);
    torch_rng g;
    if (embed_the_source(p->x, p->ids, p->words, NULL, &g, seed) != 0)
        return -1;
    notebook_mha cell24;
    int status = notebook_mha_alloc(&cell24, CELL_24_HEADS, n, d);
    status |= notebook_mha_alloc(&p->enc.attn, HEADS, n, d);
    status |= notebook_mha_alloc(&p->dec.self_attn, HEADS, n, d);
    status |= notebook_mha_alloc(&p->dec.cross_attn, HEADS, n, d);
    if (status == 0) {
        float u[N_SRC * N_SRC];
        for (int k = 0; k < 3; k++) rng_rand(&g, u, (size_t)n * n);  // [T19]
        notebook_mha_draw(&cell24, &g);                              // [T24]
        //> cells-25-26
        notebook_mha_draw(&p->enc.attn, &g);                    // cell [T25]
        notebook_linears_draw(&p->enc.lin, &g);
        status |= notebook_encoder_forward(&p->enc, p->x, n, d);
        notebook_mha_draw(&p->dec.self_attn, &g);               // cell [T26]
        notebook_mha_draw(&p->dec.cross_attn, &g);
        notebook_linears_draw(&p->dec.lin, &g);
        status |= notebook_decoder_forward(&p->dec, p->x, p->x, n, d);
        //< cells-25-26
    }
    notebook_mha_free(&cell24);
    if (status == 0) {
        // [P5.10] the decoder with the same weights, the last target token
        // changed
        notebook_decoder again = p->dec;
        float target[N_SRC * EMBEDDING_DIM];
        memcpy(target, p->x, sizeof target);
        for (int k = 0; k < d; k++) target[(n - 1) * d + k] += 1.0f;
        status |= notebook_decoder_forward(&again, p->x, target, n, d);
        memcpy(p->changed_target_out, again.out, sizeof again.out);
        memcpy(p->changed_target_cross, again.cross_weights,
               sizeof again.cross_weights);
        p->first_output_changes = !same_bits(p->changed_target_out, p->dec.out,
                                             d);
        p->cross_weights_kept = same_bits(p->changed_target_cross,
                                          p->dec.cross_weights, HEADS * n * n);
        notebook_part_examine(p);
    }
    if (status != 0) {
        notebook_part_free(p);
        fprintf(stderr, PROGRAM ": error: out of memory\n");
        return -1;
    }
    return 0;
}

static void notebook_part_print(const notebook_part *p, FILE *f) {
    const int n = N_SRC, d = EMBEDDING_DIM;
    const int shape_nd[] = { n, d }, shape_d[] = { d }, shape_n[] = { n };

    print_cell(f, "T25", "encoder_output = transformer_encoder_layer("
                      "embedded_tokens, n_heads=2)");
    print_size(f, 2, shape_nd);
    fputs("encoder_output[0]\n", f);
    print_tensor(f, p->enc.out, 1, shape_d);

    print_cell(f, "T26", "decoder_output = transformer_decoder_layer("
                      "embedded_tokens, embedded_tokens, n_heads=2)");
    print_size(f, 2, shape_nd);
    fputs("decoder_output[0]\n", f);
    print_tensor(f, p->dec.out, 1, shape_d);

    print_cell(f, "P5.8", "F.layer_norm(x + src, x.shape) normalises the "
                      "whole (8, 32) tensor");
    const double mean = p->normed_mean;
    fprintf(f, "mean and standard deviation of all 256 numbers: %.4f %.4f\n",
            fabs(mean) < 5e-5 ? 0.0 : mean, (double)p->normed_std);
    fputs("of each token's 32:\n", f);
    print_tensor(f, p->token_means, 1, shape_n);
    print_tensor(f, p->token_stds, 1, shape_n);

    print_cell(f, "P5.9", "linear_2(linear_1(x)) is one affine map, and "
                      "the ReLU after it");
    fprintf(f, "through both maps and through one (32, 32) map, the largest "
            "difference: %.1e\n", (double)p->one_map_diff);
    fprintf(f, "the update added to x: smallest %.4f, %d of %d entries "
            "clipped to 0\n", (double)p->update_low, p->update_zeros, n * d);

    print_cell(f, "P5.10", "the decoder with its last target token "
                      "changed, the same weights");
    fputs("decoder_output[0] changes (no causal mask): ", f);
    print_bool(f, p->first_output_changes);
    fputs("the second attention's weights keep their bits "
          "(queries and keys are the source's): ", f);
    print_bool(f, p->cross_weights_kept);
    fputs("its head 1 weights, row 0\n", f);
    print_list(f, p->dec.cross_weights, shape_n[0], 4);
}

// ------------------------------------------------------------------ part 2
typedef struct {
    char src_words[MAX_TOKENS][MAX_WORD], tgt_words[MAX_TOKENS][MAX_WORD];
    int64_t src_ids[N_SRC], tgt_ids[N_TGT];
    float src[N_SRC * EMBEDDING_DIM];            // (n_s, d)
    float tgt[N_TGT * EMBEDDING_DIM];            // (n_t, d)
    layer_dims dims;                             // d, h, d_ff, norm_first
    enc_layer_params enc;
    dec_layer_params dec;
    layer_cache enc_cache, dec_cache;            // what their forward passes keep
    float memory[N_SRC * EMBEDDING_DIM];         // (n_s, d) post-norm
    float out[N_TGT * EMBEDDING_DIM];            // (n_t, d)
    float cross[N_TGT * N_SRC];                  // (n_t, n_s)
    float memory_pre[N_SRC * EMBEDDING_DIM];     // norm_first=True
    float out_pre[N_TGT * EMBEDDING_DIM];
    float cross_pre[N_TGT * N_SRC];
    // [P5.7]: the target's tokens after CAUSAL_T changed
    float out_changed[N_TGT * EMBEDDING_DIM];
    float out_pre_changed[N_TGT * EMBEDDING_DIM];
    bool post_norm_causal, pre_norm_causal;      // outputs 0 .. CAUSAL_T kept
    float cross_sums[N_TGT];                     // (n_t) row sums of cross
} layers_part;

// [P5.7] changes the target tokens after this one.
#define CAUSAL_T 4

static void layers_part_free(layers_part *s) {
    enc_layer_free(&s->enc);
    dec_layer_free(&s->dec);
    layer_cache_free(&s->enc_cache);
    layer_cache_free(&s->dec_cache);
}

// The encoder, then the causal decoder, one sequence each; cross: the heads' mean cross weights.
static mha_status layers_forward(float *memory, float *out, float *cross, layers_part *s,
                                 const float *src, const float *tgt) {
    mha_status st = enc_layer_forward(memory, &s->enc_cache, &s->enc, src, NULL, false, &s->dims,
                                      1, N_SRC, NULL);
    if (st == MHA_OK) st = dec_layer_forward(out, &s->dec_cache, &s->dec, tgt, memory, NULL, NULL,
                                             true, &s->dims, 1, N_TGT, N_SRC, NULL, NULL);
    mha_mean_weights(cross, &s->dec_cache.cross_attn, 0, HEADS, N_TGT, N_SRC);
    return st;
}

// Do the rows of changed, (n, d), keep the bits of out's up to row t, and
// row t + 1 not?
static bool changes_after(const float *changed, const float *out, int t,
                          int d) {
    return same_bits(changed, out, (t + 1) * d) &&
           !same_bits(changed, out, (t + 2) * d);
}

// Part 2 from torch.manual_seed(seed), in the twin's order: the source's
// ids, the embedding table, the target's ids, the encoder layer, the
// decoder layer. Returns 0, or -1 with a message on stderr.
static int layers_part_run(layers_part *s, uint64_t seed) {
    const int d = EMBEDDING_DIM;
    memset(s, 0, sizeof *s);
    torch_rng g;
    float *table;
    if (embed_the_source(s->src, s->src_ids, s->src_words, &table, &g, seed)
        != 0)
        return -1;
    if (dummy_tokenize(s->tgt_ids, s->tgt_words, TARGET, VOCAB_SIZE, &g)
        != N_TGT) {
        free(table);
        fprintf(stderr, PROGRAM ": error: the target must have %d words\n",
                N_TGT);
        return -1;
    }
    embedding_forward_int64(s->tgt, table, s->tgt_ids, N_TGT, d);
    free(table);

    //> layers-run
    s->dims = (layer_dims){ .d = d, .h = HEADS, .d_ff = D_FF };
    mha_status st = enc_layer_alloc(&s->enc, &s->dims);
    if (st == MHA_OK) st = dec_layer_alloc(&s->dec, &s->dims);
    if (st == MHA_OK && (enc_layer_cache_alloc(&s->enc_cache, &s->dims, 1, N_SRC) != 0 ||
                         dec_layer_cache_alloc(&s->dec_cache, &s->dims, 1, N_TGT, N_SRC) != 0 ||
                         enc_layer_init(&g, &s->enc, &s->dims) != 0 ||
                         dec_layer_init(&g, &s->dec, &s->dims) != 0))
        st = MHA_NO_MEMORY;
    for (int pre = 0; pre < 2 && st == MHA_OK; pre++) {  // post-norm, then pre-norm:
        s->dims.norm_first = pre;                       // the same weights
        st = layers_forward(pre ? s->memory_pre : s->memory, pre ? s->out_pre : s->out,
                            pre ? s->cross_pre : s->cross, s, s->src, s->tgt);
    }
    //< layers-run
    // [P5.7] the target's tokens after CAUSAL_T changed, both placements
    float tgt[N_TGT * EMBEDDING_DIM], memory[N_SRC * EMBEDDING_DIM];
    float cross[N_TGT * N_SRC];
    memcpy(tgt, s->tgt, sizeof tgt);
    for (int i = CAUSAL_T + 1; i < N_TGT; i++)
        for (int k = 0; k < d; k++) tgt[i * d + k] += 1.0f + 0.5f * k;
    if (st == MHA_OK)
        st = layers_forward(memory, s->out_pre_changed, cross, s, s->src,
                            tgt);
    s->dims.norm_first = false;
    if (st == MHA_OK)
        st = layers_forward(memory, s->out_changed, cross, s, s->src, tgt);
    if (st != MHA_OK) {
        fprintf(stderr, PROGRAM ": error: transformer layers: %s\n",
                mha_status_text(st));
        layers_part_free(s);
        return -1;
    }
    s->post_norm_causal = changes_after(s->out_changed, s->out, CAUSAL_T, d);
    s->pre_norm_causal = changes_after(s->out_pre_changed, s->out_pre,
                                       CAUSAL_T, d);
    row_sums(s->cross_sums, s->cross, N_TGT, N_SRC);
    return 0;
}

// Parameters of a LayerNorm(d), an nn.Linear(i, o) and the layers.
static int norm_params(int d) { return 2 * d; }
static int linear_params(int i, int o) { return o * i + o; }
static int attention_params(int d) {
    return linear_params(d, 3 * d) + linear_params(d, d);
}

static void layers_part_print(const layers_part *s, FILE *f) {
    const int d = EMBEDDING_DIM;
    const int shape_s[] = { 1, N_SRC, d }, shape_t[] = { 1, N_TGT, d };
    const int shape_c[] = { 1, N_TGT, N_SRC }, shape_n[] = { N_TGT };

    char title[128];
    snprintf(title, sizeof title, "nn.TransformerEncoderLayer(%d, %d, %d) and "
             "nn.TransformerDecoderLayer(%d, %d, %d)", d, HEADS, D_FF, d, HEADS, D_FF);
    print_cell(f, "P5.1", title);
    int ff = linear_params(d, D_FF) + linear_params(D_FF, d);
    fputs("parameters     self-attention  cross-attention  feed-forward  "
          "norms  total\n", f);
    fprintf(f, "encoder layer  %14d  %15s  %12d  %5d  %5d\n", attention_params(d),
            "-", ff, 2 * norm_params(d),
            attention_params(d) + ff + 2 * norm_params(d));
    fprintf(f, "decoder layer  %14d  %15d  %12d  %5d  %5d\n", attention_params(d),
            attention_params(d), ff, 3 * norm_params(d),
            2 * attention_params(d) + ff + 3 * norm_params(d));
    fprintf(f, "source: %s (%d tokens)\ntarget: %s (%d tokens)\n", SOURCE,
            N_SRC, TARGET, N_TGT);

    print_cell(f, "P5.2", "memory = encoder(src); print(memory)");
    print_tensor_fixed(f, s->memory, 3, shape_s);

    print_cell(f, "P5.3", "print(decoder(tgt, memory, tgt_mask=tgt_mask))");
    print_tensor_fixed(f, s->out, 3, shape_t);

    print_cell(f, "P5.4", "print(cross): the decoder's cross-attention weights");
    print_tensor_fixed(f, s->cross, 3, shape_c);

    print_cell(f, "P5.5", "norm_first=True: memory = encoder(src); "
                      "print(memory)");
    print_tensor_fixed(f, s->memory_pre, 3, shape_s);

    print_cell(f, "P5.6", "norm_first=True: print(decoder(tgt, memory, "
                      "tgt_mask=tgt_mask))");
    print_tensor_fixed(f, s->out_pre, 3, shape_t);

    print_cell(f, "P5.7", "causality and the cross-attention's rows");
    fprintf(f, "target tokens after %d changed; outputs 0 to %d keep their "
            "bits\npost-norm: ", CAUSAL_T, CAUSAL_T);
    print_bool(f, s->post_norm_causal);
    fputs("pre-norm: ", f);
    print_bool(f, s->pre_norm_causal);
    fputs("row sums of the cross-attention weights, over the 8 source "
          "tokens\n", f);
    print_tensor(f, s->cross_sums, 1, shape_n);
}

// ------------------------------------------------------------------ program
typedef struct {
    notebook_part notebook;
    layers_part layers;
} chapter5;

static void chapter5_free(chapter5 *c) {
    notebook_part_free(&c->notebook);
    layers_part_free(&c->layers);
}

// Both parts from torch.manual_seed(seed). Returns 0, or -1 with a message
// on stderr.
static int chapter5_run(chapter5 *c, uint64_t seed) {
    memset(c, 0, sizeof *c);
    if (notebook_part_run(&c->notebook, seed) != 0) return -1;
    if (layers_part_run(&c->layers, seed) != 0) {
        notebook_part_free(&c->notebook);
        return -1;
    }
    return 0;
}

static void chapter5_print(const chapter5 *c, FILE *f) {
    fputs("[T25]-[T26]: cells 25 and 26, \"Transformers\", of the notebook\n"
          "\"Attention and Transformers\" (T).\n"
          "[P5.1]-[P5.10]: this program's own blocks; [P5.2]-[P5.6] print what\n"
          "tests/reference/chapter5_twin.py prints.\n", f);
    layers_part_print(&c->layers, f);
    notebook_part_print(&c->notebook, f);
}

// Figure data: the decoder's cross-attention weights, target words down,
// source words across.
static int chapter5_write_data(const chapter5 *c, const char *dir) {
    const layers_part *s = &c->layers;
    const char *rows[N_TGT], *cols[N_SRC];
    for (int i = 0; i < N_TGT; i++) rows[i] = s->tgt_words[i];
    for (int j = 0; j < N_SRC; j++) cols[j] = s->src_words[j];
    bool ok = write_heatmap(PROGRAM, dir, "chapter5-cross.dat", s->cross,
                            N_TGT, N_SRC, rows, cols);
    return ok ? 0 : -1;
}

#ifndef TESTING
int main(int argc, char **argv) {
    common_options opts = { DEFAULT_SEED, NULL };
    int done = cli_exit_status(parse_chapter_options(argc, argv, PROGRAM,
            "Transformer encoder and decoder layers: the notebook's (cells [T25]-[T26]) and\n"
            "PyTorch's nn.TransformerEncoderLayer and nn.TransformerDecoderLayer.",
            "torch.manual_seed(N) before each part; default 3570563066,\n"
            "              the random seed that draws the notebook's token ids",
            &opts));
    if (done >= 0) return done;
    chapter5 *c = malloc(sizeof *c);
    if (!c) {
        fprintf(stderr, PROGRAM ": error: out of memory\n");
        return 1;
    }
    int status = chapter5_run(c, opts.seed);
    if (status == 0) {
        chapter5_print(c, stdout);
        if (opts.data_dir) status = chapter5_write_data(c, opts.data_dir);
        chapter5_free(c);
    }
    free(c);
    return status == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
