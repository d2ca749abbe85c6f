// chapter4.c: multi-head attention, the notebook's form and PyTorch's.
//
// Two parts, each printing what its source prints:
//   part 1, cells [T23]-[T24] and [P4.1]-[P4.4]: "Multi-Head Attention" of the
//     notebook "Attention and Transformers", continuing chapter 3's cells
//     [T19]-[T22] on chapter 1's sentence; [T23] and [T24] are the notebook's,
//     [P4.1]-[P4.4] are the program's own and show what its functions get wrong.
//   part 2, cells [P4.5]-[P4.11]: multi-head attention as "Attention Is All You
//     Need" and torch.nn.MultiheadAttention define it, from a fresh
//     torch.manual_seed, so that cells [P4.6]-[P4.10] print what the chapter's
//     PyTorch twin (tests/reference/chapter4_twin.py) prints.
//
// Dimension legend:
//   n    tokens in the sentence (N_TOKENS, 8)
//   d    embedding width, the model width (EMBEDDING_DIM, 32)
//   h    heads: NOTEBOOK_HEADS = 3 in part 1, HEADS = 2 in part 2
//   d_k  head width: d in the notebook's form (every head is d wide),
//        d / h = 16 in part 2
//   V    vocabulary size (VOCAB_SIZE, 20000)
//
// Usage: ./chapter4 [--seed N] [--data DIR]
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    // [P4.1]: the same draws with causal_masking=True, as written and with
    // the flag passed on to the heads
    notebook_mha mh_causal;
    float mh_causal_out[N_TOKENS * EMBEDDING_DIM];
    float mh_passed_on_out[N_TOKENS * EMBEDDING_DIM];
    // [P4.2]: the same call once more, right after cell [T24]
    notebook_mha mh_again;
    float mh_again_out[N_TOKENS * EMBEDDING_DIM];
    // [P4.3]: q, k, v cut into two heads of width 16; head 0's weights divided
    // by sqrt(32), as attention() does, and by sqrt(16)
    float narrow_weights[N_TOKENS * N_TOKENS];
    float narrow_weights_dk[N_TOKENS * N_TOKENS];
    // [P4.4]: the sentence reversed, with cell [T24]'s draws
    float mh_reversed_out[N_TOKENS * EMBEDDING_DIM];
    // what [P4.1], [P4.2] and [P4.4] report
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
    // [P4.1] Draw cell [T24]'s weights again (restore the generator) and ask
    // for causal masking: nothing changes. Passing the flag on would.
    g = before_24;
    status |= notebook_multi_head_attention(p->mh_causal_out, &p->mh_causal,
                                            p->x, p->x, p->x, true, &g);
    status |= notebook_mha_forward(p->mh_passed_on_out, NULL, NULL, &p->mh,
                                   p->x, p->x, p->x, true);
    //< causal-ignored

    // [P4.2] The same call again, as running cell [T24] twice would.
    g = after_24;
    status |= notebook_multi_head_attention(p->mh_again_out, &p->mh_again,
                                            p->x, p->x, p->x, false, &g);

    //> narrow-heads
    // [P4.3] Head 0 of two heads of width 16: attention() still divides by
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

    // [P4.4] The reversed sentence through cell [T24]'s own weights.
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

    print_cell(f, "P4.1", "the same draws with causal_masking=True");
    fputs("the same bits as without it: ", f);
    print_bool(f, p->causal_flag_ignored);
    fputs("with the flag passed on to the heads, row 0 would be\n", f);
    print_tensor(f, p->mh_passed_on_out, 1, shape_d);

    print_cell(f, "P4.2", "the same call once more, on the same input");
    fputs("multi_head_attn_out[0] of the second call\n", f);
    print_tensor(f, p->mh_again_out, 1, shape_d);
    fprintf(f, "largest difference between the two calls: %.4f\n",
            (double)p->calls_differ_by);

    char title[96];
    snprintf(title, sizeof title, "attention() on a head of width %d still divides by sqrt(%d)",
             HEAD_DIM, EMBEDDING_DIM);
    print_cell(f, "P4.3", title);
    fprintf(f, "row 0 of its weights, scores / sqrt(%d)\n", EMBEDDING_DIM);
    print_tensor(f, p->narrow_weights, 1, shape_n);
    fprintf(f, "row 0 with scores / sqrt(%d), as scaled dot-product attention has it\n", HEAD_DIM);
    print_tensor(f, p->narrow_weights_dk, 1, shape_n);

    print_cell(f, "P4.4", "reverse the tokens; do the outputs just "
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
    float out_small_heads[N_TOKENS * EMBEDDING_DIM]; // (n, d) [P4.11]
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

static void standard_part_print(const standard_part *s, FILE *f) {
    const int n = N_TOKENS, d = EMBEDDING_DIM, h = HEADS;
    const int shape_1nd[] = { 1, n, d }, shape_1nn[] = { 1, n, n };
    const int shape_hnn[] = { h, n, n };
    const int shape_w[] = { 3 * d, d }, shape_b[] = { 3 * d };
    const int shape_o[] = { d, d };

    print_cell(f, "P4.5", "nn.MultiheadAttention(32, 2) and (32, 3)");
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

    print_cell(f, "P4.6", "out, weights = mha(x, x, x); print(out)");
    print_tensor_fixed(f, s->out, 3, shape_1nd);

    print_cell(f, "P4.7", "print(weights): averaged over the heads");
    print_tensor_fixed(f, s->weights, 3, shape_1nn);

    print_cell(f, "P4.8", "mha(x, x, x, average_attn_weights=False): each "
                      "head's weights");
    print_tensor_fixed(f, s->head_weights, 3, shape_hnn);

    print_cell(f, "P4.9", "out, weights = mha(x, x, x, attn_mask=causal); "
                      "print(out)");
    print_tensor_fixed(f, s->out_causal, 3, shape_1nd);

    print_cell(f, "P4.10", "print(weights): with the causal mask");
    print_tensor_fixed(f, s->weights_causal, 3, shape_1nn);

    print_cell(f, "P4.11", "heads one by one, and the cost of h heads");
    fprintf(f, "%d heads, each with its own nn.Linear(%d, %d), give the same bits: ", HEADS, d,
            HEAD_DIM);
    print_bool(f, s->small_heads_same);
    fprintf(f, "multiply-adds for n = %d, d = %d\n", n, d);
    fputs(" h  head width  nn.MultiheadAttention  notebook's form\n", f);
    for (int heads = 1; heads <= d; heads *= 2)
        fprintf(f, "%2d  %10d  %21lld  %15lld\n", heads, d / heads,
                multihead_cost(n, d, heads), notebook_cost(n, d, heads));
}

// ------------------------------------------------------------------ program
typedef struct {
    notebook_part notebook;
    standard_part standard;
} chapter4;

static void chapter4_free(chapter4 *c) {
    notebook_part_free(&c->notebook);
    standard_part_free(&c->standard);
}

// Both parts from torch.manual_seed(seed). Returns 0, or -1 with a message
// on stderr.
static int chapter4_run(chapter4 *c, uint64_t seed) {
    memset(c, 0, sizeof *c);
    if (notebook_part_run(&c->notebook, seed) != 0) return -1;
    if (standard_part_run(&c->standard, seed) != 0) {
        notebook_part_free(&c->notebook);
        return -1;
    }
    return 0;
}

static void chapter4_print(const chapter4 *c, FILE *f) {
    fputs("[T23]-[T24]: cells 23 and 24, \"Multi-Head Attention\", of the notebook\n"
          "\"Attention and Transformers\" (T).\n"
          "[P4.1]-[P4.11]: this program's own blocks; [P4.6]-[P4.10] print what\n"
          "tests/reference/chapter4_twin.py prints.\n", f);
    notebook_part_print(&c->notebook, f);
    standard_part_print(&c->standard, f);
}

// Figure data: each head's weights, their average, and the average with
// the causal mask; words as labels.
static int chapter4_write_data(const chapter4 *c, const char *dir) {
    const standard_part *s = &c->standard;
    const int n = N_TOKENS;
    const char *labels[N_TOKENS];
    for (int i = 0; i < n; i++) labels[i] = s->words[i];
    bool ok = write_heatmap(PROGRAM, dir, "chapter4-head1.dat",
                            s->head_weights, n, n, labels, labels)
           && write_heatmap(PROGRAM, dir, "chapter4-head2.dat",
                            s->head_weights + n * n, n, n, labels, labels)
           && write_heatmap(PROGRAM, dir, "chapter4-mean.dat", s->weights,
                            n, n, labels, labels)
           && write_heatmap(PROGRAM, dir, "chapter4-mean-causal.dat",
                            s->weights_causal, n, n, labels, labels);
    return ok ? 0 : -1;
}

#ifndef TESTING
int main(int argc, char **argv) {
    common_options opts = { DEFAULT_SEED, NULL };
    int done = cli_exit_status(parse_chapter_options(argc, argv, PROGRAM,
            "Multi-head attention: the notebook's form (cells [T23]-[T24]) and PyTorch's\n"
            "nn.MultiheadAttention.",
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
