// chapter4.c: multi-head attention, the notebook's form and PyTorch's, and
// two heads trained.
//
// Three parts; the first two print what their sources print:
//   part 1, cells [T23]-[T24] and [P4.5]-[P4.8]: "Multi-Head Attention" of the
//     notebook "Attention and Transformers", continuing chapter 3's cells
//     [T19]-[T22] on chapter 1's sentence; [T23] and [T24] are the notebook's,
//     [P4.5]-[P4.8] are the program's own and show what its functions get wrong.
//   part 2, cells [P4.1], [P4.4] and [P4.9]-[P4.13]: multi-head attention as
//     "Attention Is All You Need" and torch.nn.MultiheadAttention define it,
//     from a fresh torch.manual_seed, so that cells [P4.9]-[P4.13] print what
//     the chapter's PyTorch twin (tests/reference/chapter4_twin.py) prints.
//   part 3, cells [P4.2]-[P4.3]: that layer trained on a task that needs two places
//     at once, and each head's weights before and after.
// The blocks are numbered, and printed, in the order the chapter shows them:
// [P4.1]-[P4.4] of parts 2 and 3, then part 1, then the rest of part 2.
//
// Dimension legend:
//   n    tokens in the sentence (N_TOKENS, 8)
//   d    embedding width, the model width (EMBEDDING_DIM, 32)
//   h    heads: NOTEBOOK_HEADS = 3 in part 1, HEADS = 2 in parts 2 and 3
//   d_k  head width: d in the notebook's form (every head is d wide),
//        d / h = 16 in parts 2 and 3
//   B    sequences in a training batch (TRAIN_BATCH, 32), part 3
//   V    vocabulary size (VOCAB_SIZE, 20000)
//
// Usage: ./chapter4 [--seed N] [--data DIR]
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/adam.h"
#include "layers/attention_weights.h"
#include "core/cli.h"
#include "notebooks/sentence.h"
#include "layers/linear.h"
#include "layers/mask.h"
#include "layers/multihead_attention.h"
#include "notebooks/notebook_attention.h"
#include "core/print.h"
#include "core/rng.h"
#include "layers/tensor.h"
#include "notebooks/token_order.h"

#define PROGRAM "chapter4"
#define SENTENCE "Sorry Dave, I'm afraid I can't do that."
#define VOCAB_SIZE 20000
#define EMBEDDING_DIM 32
#define N_TOKENS 8
// The notebook's n_heads in cell [T24], and the heads of part 2.
#define NOTEBOOK_HEADS 3
#define HEADS 2
#define HEAD_DIM (EMBEDDING_DIM / HEADS)
// The random seed that draws the notebook's token ids (chapter1.c's DEFAULT_SEED).
#define DEFAULT_SEED 3570563066ULL

// ------------------------------------------------------------------ part 1
// The notebook's functions are in notebook_attention.c; its
// multi_head_attention reads n and d from the global embedded_tokens, and
// there they are the sizes of the weights.

typedef struct {
    char words[MAX_TOKENS][MAX_WORD];        // the sentence split on spaces
    int64_t ids[N_TOKENS];                   // (n) token ids
    float x[N_TOKENS * EMBEDDING_DIM];       // (n, d) embedded tokens
    float u_q[N_TOKENS * N_TOKENS];          // (n, n) cell [T19]
    float u_k[N_TOKENS * N_TOKENS];
    float u_v[N_TOKENS * N_TOKENS];
    float q[N_TOKENS * EMBEDDING_DIM];       // (n, d) cell [T20]: u_q @ x
    float k[N_TOKENS * EMBEDDING_DIM];
    float v[N_TOKENS * EMBEDDING_DIM];
    float head_out[N_TOKENS * EMBEDDING_DIM];     // (n, d) cell [T23]
    float head_weights[N_TOKENS * N_TOKENS];      // (n, n) its softmax
    notebook_mha mh;                         // cell [T24]'s weights
    float mh_out[N_TOKENS * EMBEDDING_DIM];  // (n, d) its output
    float mh_heads[N_TOKENS * NOTEBOOK_HEADS * EMBEDDING_DIM]; // (n, h d)
    // [P4.5]: the same draws with causal_masking=True, as written and with
    // the flag passed on to the heads
    notebook_mha mh_causal;
    float mh_causal_out[N_TOKENS * EMBEDDING_DIM];
    float mh_passed_on_out[N_TOKENS * EMBEDDING_DIM];
    // [P4.6]: the same call once more, right after cell [T24]
    notebook_mha mh_again;
    float mh_again_out[N_TOKENS * EMBEDDING_DIM];
    // [P4.7]: q, k, v cut into two heads of width 16; head 0's weights divided
    // by sqrt(32), as attention() does, and by sqrt(16)
    float narrow_weights[N_TOKENS * N_TOKENS];
    float narrow_weights_dk[N_TOKENS * N_TOKENS];
    // [P4.8]: the sentence reversed, with cell [T24]'s draws
    float mh_reversed_out[N_TOKENS * EMBEDDING_DIM];
    // what [P4.5], [P4.6] and [P4.8] report
    bool causal_flag_ignored;       // mh_causal_out has mh_out's bits
    float calls_differ_by;          // largest |mh_again_out - mh_out|
    bool reversed_follows_tokens;   // mh_reversed_out is mh_out reversed
} notebook_part;

static void notebook_part_free(notebook_part *p) {
    notebook_mha_free(&p->mh);
    notebook_mha_free(&p->mh_causal);
    notebook_mha_free(&p->mh_again);
}

// Columns first .. first + w - 1 of x, (n, d), into out, (n, w).
static void columns(float *out, const float *x, int first, int w, int n,
                    int d) {
    for (int i = 0; i < n; i++)
        memcpy(out + i * w, x + i * d + first, (size_t)w * sizeof(float));
}

// Chapter 1's cells [T3]-[T4] from torch.manual_seed(seed) into g: the
// sentence's words, ids and embeddings x, (n, d). Returns 0, or -1 with a
// message on stderr.
static int embed_the_sentence(float *x, int64_t *ids, char words[][MAX_WORD],
                              torch_rng *g, uint64_t seed) {
    rng_seed(g, seed);
    int n = embed_sentence(x, ids, words, NULL, SENTENCE, VOCAB_SIZE,
                           EMBEDDING_DIM, g);
    if (n == N_TOKENS) return 0;
    if (n == EMBED_NO_MEMORY)
        fprintf(stderr, PROGRAM ": error: out of memory for the embedding "
                "table\n");
    else
        fprintf(stderr, PROGRAM ": error: the sentence must have %d words\n",
                N_TOKENS);
    return -1;
}

// The notebook from torch.manual_seed(seed): chapter 1's cells [T3]-[T4],
// chapter 3's [T19]-[T20], then [T23] and [T24], then ours. Returns 0, or -1
// with a message on stderr.
static int notebook_part_run(notebook_part *p, uint64_t seed) {
    const int n = N_TOKENS, d = EMBEDDING_DIM, h = NOTEBOOK_HEADS;
    memset(p, 0, sizeof *p);
    torch_rng g;
    if (embed_the_sentence(p->x, p->ids, p->words, &g, seed) != 0) return -1;
    if (notebook_mha_alloc(&p->mh, h, n, d) != 0 ||
        notebook_mha_alloc(&p->mh_causal, h, n, d) != 0 ||
        notebook_mha_alloc(&p->mh_again, h, n, d) != 0) {
        notebook_part_free(p);
        fprintf(stderr, PROGRAM ": error: out of memory\n");
        return -1;
    }

    int status = 0;
    //> cells-23-24
    rng_rand(&g, p->u_q, (size_t)n * n);                  // cell [T19]
    rng_rand(&g, p->u_k, (size_t)n * n);
    rng_rand(&g, p->u_v, (size_t)n * n);
    matmul(p->q, p->u_q, p->x, n, n, d);                  // cell [T20]
    matmul(p->k, p->u_k, p->x, n, n, d);
    matmul(p->v, p->u_v, p->x, n, n, d);
    notebook_attention(p->head_out, p->head_weights, p->q, p->k, p->v,
                       false, n, d, EMBEDDING_DIM);       // cell [T23]
    torch_rng before_24 = g;
    status |= notebook_multi_head_attention(p->mh_out, &p->mh, p->x, p->x,
                                            p->x, false, &g);  // [T24]
    //< cells-23-24
    torch_rng after_24 = g;
    // the same once more, keeping the heads' outputs
    status |= notebook_mha_forward(p->mh_out, p->mh_heads, NULL, &p->mh, p->x,
                                   p->x, p->x, false);

    //> causal-ignored
    // [P4.5] Draw cell [T24]'s weights again (restore the generator) and ask
    // for causal masking: nothing changes. Passing the flag on would.
    g = before_24;
    status |= notebook_multi_head_attention(p->mh_causal_out, &p->mh_causal,
                                            p->x, p->x, p->x, true, &g);
    status |= notebook_mha_forward(p->mh_passed_on_out, NULL, NULL, &p->mh,
                                   p->x, p->x, p->x, true);
    //< causal-ignored

    // [P4.6] The same call again, as running cell [T24] twice would.
    g = after_24;
    status |= notebook_multi_head_attention(p->mh_again_out, &p->mh_again,
                                            p->x, p->x, p->x, false, &g);

    //> narrow-heads
    // [P4.7] Head 0 of two heads of width 16: attention() still divides by
    // sqrt(EMBEDDING_DIM) = sqrt(32); scaled dot-product attention divides
    // by sqrt(d_k) = sqrt(16).
    float q0[N_TOKENS * HEAD_DIM], k0[N_TOKENS * HEAD_DIM];
    float v0[N_TOKENS * HEAD_DIM], z0[N_TOKENS * HEAD_DIM];
    columns(q0, p->q, 0, HEAD_DIM, n, d);
    columns(k0, p->k, 0, HEAD_DIM, n, d);
    columns(v0, p->v, 0, HEAD_DIM, n, d);
    notebook_attention(z0, p->narrow_weights, q0, k0, v0, false, n, HEAD_DIM,
                       EMBEDDING_DIM);
    matmul_transposed(p->narrow_weights_dk, q0, k0, n, HEAD_DIM, n);
    attention_weights(p->narrow_weights_dk, p->narrow_weights_dk, n,
                      HEAD_DIM);
    //< narrow-heads

    // [P4.8] The reversed sentence through cell [T24]'s own weights.
    float x_reversed[N_TOKENS * EMBEDDING_DIM];
    reverse_rows(x_reversed, p->x, n, d);
    status |= notebook_mha_forward(p->mh_reversed_out, NULL, NULL, &p->mh,
                                   x_reversed, x_reversed, x_reversed, false);
    if (status != 0) {
        notebook_part_free(p);
        fprintf(stderr, PROGRAM ": error: out of memory\n");
        return -1;
    }
    p->causal_flag_ignored = same_bits(p->mh_causal_out, p->mh_out, n * d);
    p->calls_differ_by = max_abs_diff(p->mh_again_out, p->mh_out, n * d);
    p->reversed_follows_tokens =
        rows_follow_tokens(p->mh_reversed_out, p->mh_out, n, d);
    return 0;
}

static void notebook_part_print(const notebook_part *p, FILE *f) {
    const int n = N_TOKENS, d = EMBEDDING_DIM, h = NOTEBOOK_HEADS;
    const int shape_nd[] = { n, d }, shape_d[] = { d }, shape_n[] = { n };
    const int shape_hnn[] = { h, n, n }, shape_cat[] = { n, h * d };
    const int shape_out[] = { h * d, d };

    print_cell(f, "T23", "attn_head_out = attention(q, k, v)");
    print_size(f, 2, shape_nd);
    fputs("attn_head_out[0]\n", f);
    print_tensor(f, p->head_out, 1, shape_d);

    print_cell(f, "T24", "multi_head_attn_out = multi_head_attention(x, x, x, "
                      "n_heads=3)");
    print_size(f, 2, shape_nd);
    fputs("u_q: ", f);
    print_size(f, 3, shape_hnn);
    fputs("heads concatenated: ", f);
    print_size(f, 2, shape_cat);
    fputs("w_out: ", f);
    print_size(f, 2, shape_out);
    fputs("multi_head_attn_out[0]\n", f);
    print_tensor(f, p->mh_out, 1, shape_d);

    print_cell(f, "P4.5", "the same draws with causal_masking=True");
    fputs("the same bits as without it: ", f);
    print_bool(f, p->causal_flag_ignored);
    fputs("with the flag passed on to the heads, row 0 would be\n", f);
    print_tensor(f, p->mh_passed_on_out, 1, shape_d);

    print_cell(f, "P4.6", "the same call once more, on the same input");
    fputs("multi_head_attn_out[0] of the second call\n", f);
    print_tensor(f, p->mh_again_out, 1, shape_d);
    fprintf(f, "largest difference between the two calls: %.4f\n",
            (double)p->calls_differ_by);

    char title[96];
    snprintf(title, sizeof title, "attention() on a head of width %d still divides by sqrt(%d)",
             HEAD_DIM, EMBEDDING_DIM);
    print_cell(f, "P4.7", title);
    fprintf(f, "row 0 of its weights, scores / sqrt(%d)\n", EMBEDDING_DIM);
    print_tensor(f, p->narrow_weights, 1, shape_n);
    fprintf(f, "row 0 with scores / sqrt(%d), as scaled dot-product attention has it\n", HEAD_DIM);
    print_tensor(f, p->narrow_weights_dk, 1, shape_n);

    print_cell(f, "P4.8", "reverse the tokens; do the outputs just "
                      "reverse?");
    print_bool(f, p->reversed_follows_tokens);
}

// ------------------------------------------------------------------ part 2
typedef struct {
    char words[MAX_TOKENS][MAX_WORD];
    int64_t ids[N_TOKENS];                       // (n)
    float x[N_TOKENS * EMBEDDING_DIM];           // (n, d)
    mha_layer mha;                               // nn.MultiheadAttention(32, 2)
    mha_cache cache;                             // what its forward pass keeps
    mha_status three_heads;                      // nn.MultiheadAttention(32, 3)
    float out[N_TOKENS * EMBEDDING_DIM];         // (n, d) unmasked
    float weights[N_TOKENS * N_TOKENS];          // (n, n) averaged
    float head_weights[HEADS * N_TOKENS * N_TOKENS];  // (h, n, n)
    float out_causal[N_TOKENS * EMBEDDING_DIM];  // (n, d) with the mask
    float weights_causal[N_TOKENS * N_TOKENS];
    float head_weights_causal[HEADS * N_TOKENS * N_TOKENS];
    float out_small_heads[N_TOKENS * EMBEDDING_DIM]; // (n, d) [P4.4]
    bool small_heads_same;                       // out_small_heads has out's bits
} standard_part;

static void standard_part_free(standard_part *s) {
    mha_free(&s->mha);
    mha_cache_free(&s->cache);
}

//> small-heads
// The same layer written as h separate heads, each with its own
// nn.Linear(d, d_k) for queries, keys and values: rows i d_k .. of the
// (d, d) blocks of in_proj_weight. x is (n, d), out is (n, d).
static void heads_one_by_one(float *out, const mha_layer *m, const float *x,
                             int n) {
    const int d = m->d, d_k = m->d_k;
    float z[N_TOKENS * EMBEDDING_DIM], scratch[N_TOKENS * EMBEDDING_DIM];
    for (int i = 0; i < m->h; i++) {
        float q[N_TOKENS * EMBEDDING_DIM], k[N_TOKENS * EMBEDDING_DIM];
        float v[N_TOKENS * EMBEDDING_DIM], a[N_TOKENS * N_TOKENS];
        float z_i[N_TOKENS * EMBEDDING_DIM];
        const float *w = m->p.in_proj_weight + i * d_k * d;
        const float *b = m->p.in_proj_bias + i * d_k;
        linear_forward(q, x, w, b, n, d, d_k, WEIGHT_OUT_IN);
        linear_forward(k, x, w + d * d, b + d, n, d, d_k, WEIGHT_OUT_IN);
        linear_forward(v, x, w + 2 * d * d, b + 2 * d, n, d, d_k, WEIGHT_OUT_IN);
        for (int e = 0; e < n * d_k; e++) q[e] *= (float)(1.0 / sqrt((double)d_k));
        // softmax(q k^T) v, as the layer computes each head
        mha_head_forward(a, z_i, q, k, v, NULL, false, n, n, d_k, scratch);
        for (int t = 0; t < n; t++)
            memcpy(z + t * d + i * d_k, z_i + t * d_k,
                   (size_t)d_k * sizeof(float));
    }
    linear_forward(out, z, m->p.out_proj_weight, m->p.out_proj_bias, n, d, d,
                   WEIGHT_OUT_IN);
}
//< small-heads

//> cost
// Multiply-adds of multi-head self-attention on n tokens of width d with h
// heads of width d_k = d / h: three (n, d) @ (d, d) projections, per head
// n n d_k for the scores and n n d_k for the weighted values, and the
// (n, d) @ (d, d) output projection. h cancels: 4 n d^2 + 2 n^2 d.
static long long multihead_cost(int n, int d, int h) {
    long long d_k = d / h;
    return 3LL * n * d * d + h * (2LL * n * n * d_k) + 1LL * n * d * d;
}

// The notebook's form: per head three (n, n) @ (n, d) products, n n d for
// the scores and n n d for the weighted values; then (n, h d) @ (h d, d).
static long long notebook_cost(int n, int d, int h) {
    return h * (3LL * n * n * d + 2LL * n * n * d) + 1LL * n * h * d * d;
}
//< cost

// Part 2 from torch.manual_seed(seed): chapter 1's tokens and embedding,
// then nn.MultiheadAttention(32, 2) and self-attention without and with a
// causal mask. Returns 0, or -1 with a message on stderr.
static int standard_part_run(standard_part *s, uint64_t seed) {
    const int n = N_TOKENS, d = EMBEDDING_DIM;
    memset(s, 0, sizeof *s);
    torch_rng g;
    if (embed_the_sentence(s->x, s->ids, s->words, &g, seed) != 0) return -1;

    //> standard-run
    s->three_heads = mha_check(d, NOTEBOOK_HEADS);  // 32 / 3 columns: refused
    mha_status status = mha_alloc(&s->mha, d, HEADS);
    if (status == MHA_OK && (mha_cache_alloc(&s->cache, 1, n, n, d, HEADS) != 0 ||
                             mha_init(&g, &s->mha.p, d) != 0))
        status = MHA_NO_MEMORY;
    // one sequence, a batch of one; without the causal mask, then with it
    for (int causal = 0; causal < 2 && status == MHA_OK; causal++) {
        status = mha_forward(causal ? s->out_causal : s->out, &s->cache, &s->mha.p, s->x, s->x,
                             NULL, causal, 1, n, n, d, HEADS, NULL, NULL);
        memcpy(causal ? s->head_weights_causal : s->head_weights, s->cache.w,  // each head's
               sizeof s->head_weights);
        mha_mean_weights(causal ? s->weights_causal : s->weights, &s->cache, 0, HEADS, n, n);
    }
    //< standard-run
    if (status != MHA_OK) {
        fprintf(stderr, PROGRAM ": error: multi-head attention: %s\n",
                mha_status_text(status));
        standard_part_free(s);
        return -1;
    }
    heads_one_by_one(s->out_small_heads, &s->mha, s->x, n);
    s->small_heads_same = same_bits(s->out_small_heads, s->out, n * d);
    return 0;
}

// [P4.1]: the layer's parameters, and what three heads get
static void standard_layer_print(const standard_part *s, FILE *f) {
    const int d = EMBEDDING_DIM, h = HEADS;
    const int shape_w[] = { 3 * d, d }, shape_b[] = { 3 * d };
    const int shape_o[] = { d, d };

    print_cell(f, "P4.1", "nn.MultiheadAttention(32, 2) and (32, 3)");
    fputs("in_proj_weight: ", f);
    print_size(f, 2, shape_w);
    fputs("in_proj_bias: ", f);
    print_size(f, 1, shape_b);
    fputs("out_proj.weight: ", f);
    print_size(f, 2, shape_o);
    fprintf(f, "parameters: %d\n", 3 * d * d + 3 * d + d * d + d);
    fprintf(f, "%d heads of width %d\n", h, d / h);
    fprintf(f, "with %d heads: error: %s\n", NOTEBOOK_HEADS,
            mha_status_text(s->three_heads));
}

// [P4.9]-[P4.13]: what the twin prints
static void standard_twin_print(const standard_part *s, FILE *f) {
    const int n = N_TOKENS, d = EMBEDDING_DIM, h = HEADS;
    const int shape_1nd[] = { 1, n, d }, shape_1nn[] = { 1, n, n };
    const int shape_hnn[] = { h, n, n };

    print_cell(f, "P4.9", "out, weights = mha(x, x, x); print(out)");
    print_tensor_fixed(f, s->out, 3, shape_1nd);

    print_cell(f, "P4.10", "print(weights): averaged over the heads");
    print_tensor_fixed(f, s->weights, 3, shape_1nn);

    print_cell(f, "P4.11", "mha(x, x, x, average_attn_weights=False): each "
                      "head's weights");
    print_tensor_fixed(f, s->head_weights, 3, shape_hnn);

    print_cell(f, "P4.12", "out, weights = mha(x, x, x, attn_mask=causal); "
                      "print(out)");
    print_tensor_fixed(f, s->out_causal, 3, shape_1nd);

    print_cell(f, "P4.13", "print(weights): with the causal mask");
    print_tensor_fixed(f, s->weights_causal, 3, shape_1nn);
}

// [P4.4]: the heads one by one, and the cost of h heads
static void standard_heads_print(const standard_part *s, FILE *f) {
    const int n = N_TOKENS, d = EMBEDDING_DIM;
    print_cell(f, "P4.4", "heads one by one, and the cost of h heads");
    fprintf(f, "%d heads, each with its own nn.Linear(%d, %d), give the same bits: ", HEADS, d,
            HEAD_DIM);
    print_bool(f, s->small_heads_same);
    fprintf(f, "multiply-adds for n = %d, d = %d\n", n, d);
    fputs(" h  head width  nn.MultiheadAttention  notebook's form\n", f);
    for (int heads = 1; heads <= d; heads *= 2)
        fprintf(f, "%2d  %10d  %21lld  %15lld\n", heads, d / heads,
                multihead_cost(n, d, heads), notebook_cost(n, d, heads));
}

// ------------------------------------------------------------------ part 3
// Two heads trained. Each of n positions carries a content, CONTENT_DIM
// numbers drawn from N(0, 1), and its position, one-hot in the next n
// features (the rest are 0); the layer, causal, must output at position t
// the content of position t - 1 plus that of position 0 (position 0, which
// has no previous token, counts itself as one). One head can fetch one
// content; the task needs two places at once, so the two heads must share
// them out. The loss is the mean squared error over all d features.
#define CONTENT_DIM 16
#define TRAIN_BATCH 32
#define TRAIN_STEPS 400
#define TRAIN_LR 0.01

typedef struct {
    mha_layer mha, grad;                         // the layer and its gradient
    mha_cache cache;
    adam_state adam;
    float x[TRAIN_BATCH * N_TOKENS * EMBEDDING_DIM];      // (B, n, d) a batch
    float y[TRAIN_BATCH * N_TOKENS * EMBEDDING_DIM];      // (B, n, d) its targets
    float out[TRAIN_BATCH * N_TOKENS * EMBEDDING_DIM];    // (B, n, d)
    float dout[TRAIN_BATCH * N_TOKENS * EMBEDDING_DIM];
    float before[HEADS * N_TOKENS * N_TOKENS];   // (h, n, n) each head's weights on
    float after[HEADS * N_TOKENS * N_TOKENS];    // the evaluation sequence, untrained, trained
    float loss_first, loss_last;                 // the first and the last step's loss
    int on_previous[HEADS];   // rows 2 .. n-1 of after whose largest weight is on t - 1
    int on_first[HEADS];      // ... on position 0
} trained_part;

static void trained_part_free(trained_part *t) {
    mha_free(&t->mha);
    mha_free(&t->grad);
    mha_cache_free(&t->cache);
    adam_free(&t->adam);
}

// B sequences of the task from g: x and y are (B, n, d).
static void task_batch(float *x, float *y, torch_rng *g, int B) {
    const int n = N_TOKENS, d = EMBEDDING_DIM;
    memset(x, 0, (size_t)B * n * d * sizeof(float));
    memset(y, 0, (size_t)B * n * d * sizeof(float));
    for (int b = 0; b < B; b++) {
        float *xb = x + (size_t)b * n * d, *yb = y + (size_t)b * n * d;
        for (int t = 0; t < n; t++) {
            rng_randn(g, xb + t * d, CONTENT_DIM);
            xb[t * d + CONTENT_DIM + t] = 1;  // the position, one-hot
        }
        for (int t = 0; t < n; t++)
            for (int j = 0; j < CONTENT_DIM; j++) {
                yb[t * d + j] = xb[(t > 0 ? t - 1 : 0) * d + j];
                yb[t * d + CONTENT_DIM + j] = xb[j];
            }
    }
}

// The mean of (out - y)^2 over count numbers; dout = its gradient.
static float squared_error(float *dout, const float *out, const float *y, int count) {
    double sum = 0;
    for (int i = 0; i < count; i++) {
        float e = out[i] - y[i];
        sum += (double)e * e;
        dout[i] = 2 * e / (float)count;
    }
    return (float)(sum / count);
}

// Each head's weights, (h, n, n), on the sequence x (1, n, d), causal.
static mha_status trained_weights(float *w, trained_part *t, const float *x) {
    const int n = N_TOKENS;
    mha_status s = mha_forward(t->out, &t->cache, &t->mha.p, x, x, NULL, true, 1, n, n,
                               EMBEDDING_DIM, HEADS, NULL, NULL);
    memcpy(w, t->cache.w, (size_t)HEADS * n * n * sizeof(float));
    return s;
}

// Counts, for each head, the rows t = 2 .. n-1 (where position t - 1 is not
// position 0) whose largest weight is on t - 1, and those whose is on 0.
static void trained_places(trained_part *t) {
    const int n = N_TOKENS;
    for (int i = 0; i < HEADS; i++) {
        t->on_previous[i] = t->on_first[i] = 0;
        for (int r = 2; r < n; r++) {
            const float *row = t->after + (i * n + r) * n;
            int top = 0;
            for (int j = 1; j < n; j++)
                if (row[j] > row[top]) top = j;
            t->on_previous[i] += top == r - 1;
            t->on_first[i] += top == 0;
        }
    }
}

// nn.MultiheadAttention(32, 2) from torch.manual_seed(seed), trained with
// Adam on batches of the task; each head's weights on one more sequence
// before and after. Returns 0, or -1 with a message on stderr.
static int trained_part_run(trained_part *t, uint64_t seed) {
    const int n = N_TOKENS, d = EMBEDDING_DIM, B = TRAIN_BATCH;
    memset(t, 0, sizeof *t);
    torch_rng g;
    rng_seed(&g, seed);
    float x_eval[N_TOKENS * EMBEDDING_DIM], y_eval[N_TOKENS * EMBEDDING_DIM];
    mha_status s = mha_alloc(&t->mha, d, HEADS);
    if (s == MHA_OK) s = mha_alloc(&t->grad, d, HEADS);
    if (s == MHA_OK && (mha_cache_alloc(&t->cache, B, n, n, d, HEADS) != 0 ||
                        mha_init(&g, &t->mha.p, d) != 0 ||
                        adam_init(&t->adam, 4 * (size_t)d * d + 4 * (size_t)d, TRAIN_LR) != 0))
        s = MHA_NO_MEMORY;
    if (s == MHA_OK) {
        task_batch(x_eval, y_eval, &g, 1);
        s = trained_weights(t->before, t, x_eval);
    }
    //> train-heads
    for (int step = 0; step < TRAIN_STEPS && s == MHA_OK; step++) {
        task_batch(t->x, t->y, &g, B);  // B sequences and their targets
        s = mha_forward(t->out, &t->cache, &t->mha.p, t->x, t->x, NULL, true, B, n, n, d,
                        HEADS, NULL, NULL);
        float loss = squared_error(t->dout, t->out, t->y, B * n * d);
        if (step == 0) t->loss_first = loss;
        t->loss_last = loss;
        // the backward pass adds to the gradient: zero it (the whole block) first
        memset(t->grad.p.in_proj_weight, 0, t->adam.n * sizeof(real));
        mha_backward(NULL, NULL, &t->grad.p, &t->cache, t->dout, t->x, t->x, &t->mha.p, B, n,
                     n, d, HEADS, NULL, NULL);
        adam_step(&t->adam, t->mha.p.in_proj_weight, t->grad.p.in_proj_weight);
    }
    //< train-heads
    if (s == MHA_OK) s = trained_weights(t->after, t, x_eval);
    if (s != MHA_OK) {
        fprintf(stderr, PROGRAM ": error: multi-head attention: %s\n", mha_status_text(s));
        trained_part_free(t);
        return -1;
    }
    trained_places(t);
    return 0;
}

// Each head's weights w, (h, n, n), side by side, a query a line.
static void print_heads_side_by_side(FILE *f, const float *w) {
    const int n = N_TOKENS;
    fputs("    ", f);
    for (int i = 0; i < HEADS; i++) fprintf(f, "%*s head %d", i ? 5 * n - 5 : 0, "", i + 1);
    fputc('\n', f);
    for (int r = 0; r < n; r++) {
        fprintf(f, "t=%d ", r);
        for (int i = 0; i < HEADS; i++) {
            fputs(i ? "  " : "", f);
            for (int j = 0; j < n; j++) fprintf(f, " %4.2f", (double)w[(i * n + r) * n + j]);
        }
        fputc('\n', f);
    }
}

static void trained_part_print(const trained_part *t, FILE *f) {
    const int n = N_TOKENS;
    print_cell(f, "P4.2", "two heads trained to fetch content[t - 1] and content[0]");
    fprintf(f, "%d steps of Adam (lr %g) on batches of %d sequences of %d positions\n",
            TRAIN_STEPS, TRAIN_LR, TRAIN_BATCH, n);
    fprintf(f, "mean squared error: %.4f at the first step, %.4f at the last\n",
            (double)t->loss_first, (double)t->loss_last);
    fprintf(f, "rows 2-%d whose largest weight is on   t - 1   position 0\n", n - 1);
    for (int i = 0; i < HEADS; i++)
        fprintf(f, "head %d %34d %11d\n", i + 1, t->on_previous[i], t->on_first[i]);

    print_cell(f, "P4.3", "the weights of block P4.2's heads on one more sequence");
    fprintf(f, "causal, query t a row, key 0-%d a column; untrained:\n", n - 1);
    print_heads_side_by_side(f, t->before);
    fputs("trained:\n", f);
    print_heads_side_by_side(f, t->after);
}

// ------------------------------------------------------------------ program
typedef struct {
    notebook_part notebook;
    standard_part standard;
    trained_part trained;
} chapter4;

static void chapter4_free(chapter4 *c) {
    notebook_part_free(&c->notebook);
    standard_part_free(&c->standard);
    trained_part_free(&c->trained);
}

// The three parts, each from torch.manual_seed(seed). Returns 0, or -1 with a message
// on stderr.
static int chapter4_run(chapter4 *c, uint64_t seed) {
    memset(c, 0, sizeof *c);
    if (notebook_part_run(&c->notebook, seed) != 0) return -1;
    if (standard_part_run(&c->standard, seed) != 0) {
        notebook_part_free(&c->notebook);
        return -1;
    }
    if (trained_part_run(&c->trained, seed) != 0) {
        notebook_part_free(&c->notebook);
        standard_part_free(&c->standard);
        return -1;
    }
    return 0;
}

static void chapter4_print(const chapter4 *c, FILE *f) {
    fputs("[T23]-[T24]: cells 23 and 24, \"Multi-Head Attention\", of the notebook\n"
          "\"Attention and Transformers\" (T).\n"
          "[P4.1]-[P4.13]: this program's own blocks; [P4.9]-[P4.13] print what\n"
          "tests/reference/chapter4_twin.py prints.\n", f);
    standard_layer_print(&c->standard, f);
    trained_part_print(&c->trained, f);
    standard_heads_print(&c->standard, f);
    notebook_part_print(&c->notebook, f);
    standard_twin_print(&c->standard, f);
}

// Figure data: each head of the trained layer of part 3 on its evaluation
// sequence, untrained and trained; positions as labels.
static int chapter4_write_data(const chapter4 *c, const char *dir) {
    const trained_part *t = &c->trained;
    const int n = N_TOKENS;
    char names[N_TOKENS][12];  // room for any int
    const char *labels[N_TOKENS];
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "%d", i);
        labels[i] = names[i];
    }
    bool ok = write_heatmap(PROGRAM, dir, "chapter4-untrained1.dat", t->before, n, n, labels,
                            labels)
           && write_heatmap(PROGRAM, dir, "chapter4-untrained2.dat", t->before + n * n, n, n,
                            labels, labels)
           && write_heatmap(PROGRAM, dir, "chapter4-trained1.dat", t->after, n, n, labels,
                            labels)
           && write_heatmap(PROGRAM, dir, "chapter4-trained2.dat", t->after + n * n, n, n,
                            labels, labels);
    return ok ? 0 : -1;
}

#ifndef TESTING
int main(int argc, char **argv) {
    common_options opts = { DEFAULT_SEED, NULL };
    int done = cli_exit_status(parse_chapter_options(argc, argv, PROGRAM,
            "Multi-head attention: the notebook's form (cells [T23]-[T24]), PyTorch's\n"
            "nn.MultiheadAttention, and two of its heads trained.",
            "torch.manual_seed(N) before each part; default 3570563066,\n"
            "              the random seed that draws the notebook's token ids",
            &opts));
    if (done >= 0) return done;
    chapter4 *c = malloc(sizeof *c);
    if (!c) {
        fprintf(stderr, PROGRAM ": error: out of memory\n");
        return 1;
    }
    int status = chapter4_run(c, opts.seed);
    if (status == 0) {
        chapter4_print(c, stdout);
        if (opts.data_dir) status = chapter4_write_data(c, opts.data_dir);
        chapter4_free(c);
    }
    free(c);
    return status == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
