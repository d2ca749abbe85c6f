// chapter3.c: queries, keys and values.
//
// Three sources, three parts, each printing what its source prints:
//   part 1, blocks [G1]-[G8] and [P3.1]-[P3.2]: the worked example of "An illustrated guide
//     to Attention Mechanism" (three inputs, three 4x3 weight matrices, every
//     number small enough to check by hand); its steps 1-8 are [G1]-[G8],
//     [P3.1] and [P3.2] are the program's own (the exact softmax, and scaling by sqrt(d_k)).
//   part 2, blocks [T19]-[T22] and [P3.3]-[P3.4]: "Parametrised Self-Attention" of the notebook
//     "Attention and Transformers", continuing chapter 1's cells; [T19]-[T22]
//     are the notebook's, [P3.3] and [P3.4] the program's own (what its U matrices mix,
//     and the standard form q = x W_q).
//   part 3, cells [S2]-[S7]: the notebook "Studying the mechanism of
//     self-attention", its cells 2 to 7: a toy tokenizer, an
//     embedding and an attention module with biased linear maps.
//
// Dimension legend:
//   n    tokens (inputs): 3 in part 1, 8 in part 2, 5 in part 3
//   d    input width: 4 in part 1, EMBEDDING_DIM = 32 in part 2,
//        HIDDEN_SIZE = 10 in part 3
//   d_k  width of queries and keys: 3 in part 1, STANDARD_DK = 16 in part 2's
//        standard form, 10 in part 3
//   d_v  width of values (and of the outputs): 3, 32 or 16, 10
//   B    batch size: 1 in part 3
//   V    vocabulary size: 20000 in part 2, 11 in part 3
//
// Usage: ./chapter3 [--seed N] [--data DIR]
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notebooks/attention_module.h"
#include "core/cli.h"
#include "notebooks/sentence.h"
#include "layers/linear.h"
#include "core/print.h"
#include "core/rng.h"
#include "layers/softmax.h"
#include "layers/tensor.h"
#include "notebooks/token_order.h"

#define PROGRAM "chapter3"
// The same random seed as chapter1.c (keep them equal): the one that draws the
// token ids the notebook "Attention and Transformers" prints, so that part 2
// continues from the notebook's own embeddings.
#define DEFAULT_SEED 3570563066ULL
// Part 3's notebook set no seed either. PyTorch keeps only the low 32 bits
// of a seed, so all 2^32 of them could be tried, as for chapter 1: seeding
// with each, drawing nn.Embedding(11, 10) and looking up the notebook's ids
// [9, 8, 4, 2, 3] gives its printed embedded tensor (cell [S4]) for this seed
// alone, and the modules drawn after it then give its cells [S5] and [S7] to
// the 4 printed decimals.
#define MODULE_DEFAULT_SEED 74104689ULL
// common_options.seed before parsing: --seed only accepts 0..INT64_MAX, so
// this value means "no --seed given".
#define SEED_NOT_GIVEN UINT64_MAX

// ------------------------------------------------------------------ part 1
// The worked example: n = 3 inputs of width d = 4, keys, queries and values
// of width d_k = d_v = 3.
#define WORKED_N 3
#define WORKED_D 4
#define WORKED_DK 3

//> worked-inputs
// Step 1: three inputs of width 4, one per row. x is (3, 4).
static const float WORKED_X[WORKED_N * WORKED_D] = {
    1, 0, 1, 0,   // Input 1
    0, 2, 0, 2,   // Input 2
    1, 1, 1, 1,   // Input 3
};

// Step 2: the weights, each (4, 3): an input row times one of them is a
// key, a query or a value.
static const float WORKED_W_KEY[WORKED_D * WORKED_DK] = {
    0, 0, 1,
    1, 1, 0,
    0, 1, 0,
    1, 1, 0,
};
static const float WORKED_W_QUERY[WORKED_D * WORKED_DK] = {
    1, 0, 1,
    1, 0, 0,
    0, 0, 1,
    0, 1, 1,
};
static const float WORKED_W_VALUE[WORKED_D * WORKED_DK] = {
    0, 2, 0,
    0, 3, 0,
    1, 0, 3,
    1, 1, 0,
};
//< worked-inputs

//> rounded-softmax
// Step 5 of the article goes on with its softmax "rounded to 1 decimal place
// for readability", typed in by hand. Its first entry is 0.0634, which
// rounds to 0.1; the article wrote 0.0.
static const float WORKED_SOFTMAX_ARTICLE[WORKED_N * WORKED_N] = {
    0.0f, 0.5f, 0.5f,
    0.0f, 1.0f, 0.0f,
    0.0f, 0.9f, 0.1f,
};
//< rounded-softmax

typedef struct {
    float keys[WORKED_N * WORKED_DK];             // (n, d_k) x @ w_key
    float queries[WORKED_N * WORKED_DK];          // (n, d_k) x @ w_query
    float values[WORKED_N * WORKED_DK];           // (n, d_v) x @ w_value
    float scores1[WORKED_N];                      // (n) query 1 against every key
    float scores[WORKED_N * WORKED_N];            // (n, n) queries @ keys^T
    float softmax[WORKED_N * WORKED_N];           // (n, n) softmax of each row
    float softmax_rounded[WORKED_N * WORKED_N];   // (n, n) rounded to 0.1
    float weighted[WORKED_N * WORKED_N * WORKED_DK]; // (n, n, d_v) step 6
    float outputs_article[WORKED_N * WORKED_DK];  // (n, d_v) with the article's
                                                  // softmax
    float outputs_exact[WORKED_N * WORKED_DK];    // (n, d_v) exact softmax
    float outputs_rounded[WORKED_N * WORKED_DK];  // (n, d_v) honest rounding
    float scores_scaled[WORKED_N * WORKED_N];     // (n, n) scores / sqrt(d_k)
    float softmax_scaled[WORKED_N * WORKED_N];    // (n, n)
    float outputs_scaled[WORKED_N * WORKED_DK];   // (n, d_v)
} worked_example;

//> project
// One projection for every input at once: out = x @ w.
// x is (n, d), w is (d, d_k), out is (n, d_k). Row i of out is input i
// times w, which is how the article writes it.
static void project(float *out, const float *x, const float *w,
                    int n, int d, int d_k) {
    matmul(out, x, w, n, d, d_k);
}
//< project

//> scores-one-query
// Step 4 for one query: its dot product with every key.
// q is (d_k), keys is (n, d_k), scores is (n).
static void scores_for_query(float *scores, const float *q, const float *keys,
                             int n, int d_k) {
    for (int j = 0; j < n; j++) scores[j] = dot(q, keys + j * d_k, d_k);
}
//< scores-one-query

//> weighted-values
// Step 6 as the article's code does it,
//   weighted_values = values[:,None] * attn_scores_softmax.T[:,:,None]
// weighted[i, j] = weights[j, i] * values[i]: value i, scaled by how much
// query j attends to input i.
// values is (n, d_v), weights is (n, n), weighted is (n, n, d_v).
static void weighted_values(float *weighted, const float *values,
                            const float *weights, int n, int d_v) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < d_v; k++)
                weighted[(i * n + j) * d_v + k] =
                    weights[j * n + i] * values[i * d_v + k];
}

// Step 7: output j is the sum over i of weighted[i, j].
// weighted is (n, n, d_v), outputs is (n, d_v).
static void sum_weighted_values(float *outputs, const float *weighted,
                                int n, int d_v) {
    for (int j = 0; j < n; j++)
        for (int k = 0; k < d_v; k++) {
            float sum = 0.0f;
            for (int i = 0; i < n; i++) sum += weighted[(i * n + j) * d_v + k];
            outputs[j * d_v + k] = sum;
        }
}
//< weighted-values

// Rounds every element to one decimal, as a person rounding by hand would:
// half away from zero. x and out have count elements.
static void round_to_tenths(float *out, const float *x, int count) {
    for (int i = 0; i < count; i++) out[i] = roundf(x[i] * 10.0f) / 10.0f;
}

static void worked_example_run(worked_example *w) {
    const int n = WORKED_N, d = WORKED_D, d_k = WORKED_DK;
    memset(w, 0, sizeof *w);
    //> worked-steps
    project(w->keys, WORKED_X, WORKED_W_KEY, n, d, d_k);        // step 3
    project(w->queries, WORKED_X, WORKED_W_QUERY, n, d, d_k);
    project(w->values, WORKED_X, WORKED_W_VALUE, n, d, d_k);
    scores_for_query(w->scores1, w->queries, w->keys, n, d_k);  // step 4
    matmul_transposed(w->scores, w->queries, w->keys, n, d_k, n);
    memcpy(w->softmax, w->scores, sizeof w->scores);    // step 5
    softmax_rows(w->softmax, n, n);
    weighted_values(w->weighted, w->values, WORKED_SOFTMAX_ARTICLE, n, d_k);
    sum_weighted_values(w->outputs_article, w->weighted, n, d_k);  // steps 6-8
    //< worked-steps

    //> exact-outputs
    // The same outputs with the exact softmax: outputs = softmax @ values.
    matmul(w->outputs_exact, w->softmax, w->values, n, n, d_k);
    //< exact-outputs
    round_to_tenths(w->softmax_rounded, w->softmax, n * n);
    matmul(w->outputs_rounded, w->softmax_rounded, w->values, n, n, d_k);

    //> scaled-scores
    // Scaled dot-product attention divides the scores by sqrt(d_k) before
    // the softmax; the article does not.
    memcpy(w->scores_scaled, w->scores, sizeof w->scores);
    scale(w->scores_scaled, 1.0f / sqrtf((float)d_k), n * n);
    memcpy(w->softmax_scaled, w->scores_scaled, sizeof w->scores);
    softmax_rows(w->softmax_scaled, n, n);
    matmul(w->outputs_scaled, w->softmax_scaled, w->values, n, n, d_k);
    //< scaled-scores
}

// A list like print_list's, without the newline, so that it can sit inside
// a line of arithmetic.
static void put_list(FILE *f, const float *x, int n, int decimals) {
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, i ? ", %.*f" : "%.*f", decimals, (double)x[i]);
    fputc(']', f);
}

static void worked_example_print(const worked_example *w, FILE *f) {
    const int n = WORKED_N, d_k = WORKED_DK;
    const int shape_nd[] = { n, WORKED_D }, shape_dk[] = { WORKED_D, d_k };
    const int shape_nk[] = { n, d_k }, shape_nn[] = { n, n };
    const int shape_nnk[] = { n, n, d_k };

    print_cell(f, "G1", "step 1: inputs, one per row");
    print_tensor(f, WORKED_X, 2, shape_nd);

    print_cell(f, "G2", "step 2: weights for key, query and value, each 4x3");
    fputs("w_key\n", f);
    print_tensor(f, WORKED_W_KEY, 2, shape_dk);
    fputs("w_query\n", f);
    print_tensor(f, WORKED_W_QUERY, 2, shape_dk);
    fputs("w_value\n", f);
    print_tensor(f, WORKED_W_VALUE, 2, shape_dk);

    print_cell(f, "G3", "step 3: keys = x @ w_key, querys = x @ w_query, "
                     "values = x @ w_value");
    fputs("keys\n", f);
    print_tensor(f, w->keys, 2, shape_nk);
    fputs("querys\n", f);
    print_tensor(f, w->queries, 2, shape_nk);
    fputs("values\n", f);
    print_tensor(f, w->values, 2, shape_nk);

    print_cell(f, "G4", "step 4: attention scores, querys @ keys.T");
    fputs("query 1 with keys 1, 2, 3: ", f);
    print_list(f, w->scores1, n, 0);
    print_tensor(f, w->scores, 2, shape_nn);

    print_cell(f, "G5", "step 5: softmax(attn_scores, dim=-1)");
    print_tensor(f, w->softmax, 2, shape_nn);
    fputs("the article goes on with these, typed in \"for readability\":\n", f);
    for (int i = 0; i < n; i++) print_list(f, WORKED_SOFTMAX_ARTICLE + i * n, n, 1);
    fputs("rounding to one decimal would give:\n", f);
    for (int i = 0; i < n; i++)
        print_list(f, w->softmax_rounded + i * n, n, 1);

    print_cell(f, "G6", "step 6: weighted values, "
                     "values[:,None] * attn_scores_softmax.T[:,:,None]");
    print_tensor(f, w->weighted, 3, shape_nnk);
    fputs("for output 1:\n", f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%d: %.1f * ", i + 1, (double)WORKED_SOFTMAX_ARTICLE[i]);
        put_list(f, w->values + i * d_k, d_k, 0);
        fputs(" = ", f);
        put_list(f, w->weighted + (i * n + 0) * d_k, d_k, 1);
        fputc('\n', f);
    }

    print_cell(f, "G7", "step 7: sum the weighted values to get output 1");
    fputs("Output 1: ", f);
    print_list(f, w->outputs_article, d_k, 1);

    print_cell(f, "G8", "step 8: repeat for inputs 2 and 3");
    for (int j = 1; j < n; j++) {
        fprintf(f, "Output %d: ", j + 1);
        print_list(f, w->outputs_article + j * d_k, d_k, 1);
    }

    print_cell(f, "P3.1", "the outputs with the exact softmax, "
                     "softmax @ values");
    print_tensor(f, w->outputs_exact, 2, shape_nk);
    for (int j = 0; j < n; j++) {
        fprintf(f, "Output %d: ", j + 1);
        print_list(f, w->outputs_exact + j * d_k, d_k, 4);
    }
    fputs("They differ from steps 7 and 8 because the article rounded the "
          "softmax to one\ndecimal before weighting the values.\n", f);
    fputs("With the softmax rounded honestly, output 1 would be ", f);
    print_list(f, w->outputs_rounded, d_k, 1);

    print_cell(f, "P3.2", "scaled by sqrt(d_k), softmax(attn_scores / "
                      "sqrt(3), dim=-1)");
    fputs("attn_scores / sqrt(3)\n", f);
    print_tensor(f, w->scores_scaled, 2, shape_nn);
    fputs("softmax\n", f);
    print_tensor(f, w->softmax_scaled, 2, shape_nn);
    fputs("outputs\n", f);
    print_tensor(f, w->outputs_scaled, 2, shape_nk);
}

// ------------------------------------------------------------------ part 2
// "Parametrised Self-Attention": chapter 1's 8 tokens and their embeddings
// of width 32, then three random (n, n) matrices U_q, U_k, U_v.
#define SENTENCE "Sorry Dave, I'm afraid I can't do that."
#define VOCAB_SIZE 20000
#define EMBEDDING_DIM 32
#define N_TOKENS 8
#define STANDARD_DK 16

typedef struct {
    int64_t ids[N_TOKENS];                      // (n) token ids
    float *embedding_table;                     // (V, d)
    float x[N_TOKENS * EMBEDDING_DIM];          // (n, d) embedded tokens
    float u_q[N_TOKENS * N_TOKENS];             // (n, n) torch.rand
    float u_k[N_TOKENS * N_TOKENS];
    float u_v[N_TOKENS * N_TOKENS];
    float q[N_TOKENS * EMBEDDING_DIM];          // (n, d) u_q @ x
    float k[N_TOKENS * EMBEDDING_DIM];
    float v[N_TOKENS * EMBEDDING_DIM];
    float scores[N_TOKENS * N_TOKENS];          // (n, n) q_i . k_j
    float weights[N_TOKENS * N_TOKENS];         // (n, n) softmax(s / sqrt(d))
    float z[N_TOKENS * EMBEDDING_DIM];          // (n, d) weights @ v
    float z3_manual[EMBEDDING_DIM];             // (d) row 3 of z, term by term
    bool z3_matches;                            // cell [T22]
    // the same sentence with its tokens in reverse order
    float z_reversed[N_TOKENS * EMBEDDING_DIM]; // (n, d) U form
    bool u_form_follows_tokens;                 // z_reversed[i] == z[n-1-i]?
    // the standard form: weights of nn.Linear(d, d_k, bias=False)
    float a_q[STANDARD_DK * EMBEDDING_DIM];     // (d_k, d), so W_q = a_q^T
    float a_k[STANDARD_DK * EMBEDDING_DIM];
    float a_v[STANDARD_DK * EMBEDDING_DIM];
    float q_std[N_TOKENS * STANDARD_DK];        // (n, d_k) x W_q
    float weights_std[N_TOKENS * N_TOKENS];     // (n, n)
    float z_std[N_TOKENS * STANDARD_DK];        // (n, d_k)
    float z_std_reversed[N_TOKENS * STANDARD_DK];
    bool standard_form_follows_tokens;
} parametrised;

//> u-projection
// The notebook's q = torch.matmul(u_q, embedded_tokens): q_i is
// sum_j U_q[i, j] x_j, a blend of all the tokens' embeddings.
// u is (n, n), x is (n, d), out is (n, d).
static void project_tokens(float *out, const float *u, const float *x,
                           int n, int d) {
    matmul(out, u, x, n, n, d);
}
//< u-projection

//> param-attention
// Cell [T21]: scores[i, j] = q_i . k_j, one dot product at a time, then
// z = softmax(scores / sqrt(d)) @ v.
// q, k, v are (n, d_k); scores and weights are (n, n); z is (n, d_k).
// scale_d is the d in sqrt(d): the notebook keeps EMBEDDING_DIM.
static void qkv_attention(float *z, float *scores, float *weights,
                          const float *q, const float *k, const float *v,
                          int n, int d_k, int scale_d) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            scores[i * n + j] = dot(q + i * d_k, k + j * d_k, d_k);
    memcpy(weights, scores, (size_t)n * n * sizeof(float));
    scale(weights, 1.0f / sqrtf((float)scale_d), n * n);
    softmax_rows(weights, n, n);
    matmul(z, weights, v, n, n, d_k);
}
//< param-attention

// The U form from embeddings x, (n, d): q = u_q x, k = u_k x, v = u_v x; z (n, d).
static void u_form_attention(float *z, float *weights, const float *u_q,
                             const float *u_k, const float *u_v,
                             const float *x, int n, int d) {
    float q[N_TOKENS * EMBEDDING_DIM], k[N_TOKENS * EMBEDDING_DIM];
    float v[N_TOKENS * EMBEDDING_DIM], scores[N_TOKENS * N_TOKENS];
    project_tokens(q, u_q, x, n, d);
    project_tokens(k, u_k, x, n, d);
    project_tokens(v, u_v, x, n, d);
    qkv_attention(z, scores, weights, q, k, v, n, d, d);
}

//> standard-form
// The standard form: q = x W_q, k = x W_k, v = x W_v with W of shape
// (d, d_k), here the transpose of nn.Linear(d, d_k, bias=False)'s weight
// a, (d_k, d). Each token's query depends on that token alone.
// x is (n, d); q is (n, d_k); weights is (n, n); z is (n, d_k).
static void standard_attention(float *z, float *q, float *weights,
                               const float *a_q, const float *a_k,
                               const float *a_v, const float *x,
                               int n, int d, int d_k) {
    float k[N_TOKENS * STANDARD_DK], v[N_TOKENS * STANDARD_DK];
    float scores[N_TOKENS * N_TOKENS];
    linear_forward(q, x, a_q, NULL, n, d, d_k, WEIGHT_OUT_IN);
    linear_forward(k, x, a_k, NULL, n, d, d_k, WEIGHT_OUT_IN);
    linear_forward(v, x, a_v, NULL, n, d, d_k, WEIGHT_OUT_IN);
    qkv_attention(z, scores, weights, q, k, v, n, d_k, d_k);
}
//< standard-form

static void parametrised_free(parametrised *p) {
    free(p->embedding_table);
    p->embedding_table = NULL;
}

// Runs the notebook from torch.manual_seed(seed): chapter 1's token ids and
// embedding table, then cells [T19]-[T22], then our two additions. Returns 0,
// or -1 with a message on stderr.
static int parametrised_run(parametrised *p, uint64_t seed) {
    const int n = N_TOKENS, d = EMBEDDING_DIM, d_k = STANDARD_DK;
    memset(p, 0, sizeof *p);
    torch_rng g;
    rng_seed(&g, seed);
    // chapter 1, cells [T3] and [T4]
    char words[MAX_TOKENS][MAX_WORD];
    int got = embed_sentence(p->x, p->ids, words, &p->embedding_table,
                             SENTENCE, VOCAB_SIZE, d, &g);
    if (got != n) {
        if (got >= 0) parametrised_free(p);
        if (got == EMBED_NO_MEMORY)
            fprintf(stderr, PROGRAM ": error: out of memory for the embedding "
                    "table\n");
        else
            fprintf(stderr, PROGRAM ": error: the sentence must have %d "
                    "words\n", n);
        return -1;
    }

    //> cells-19-22
    rng_rand(&g, p->u_q, (size_t)n * n);                // cell [T19]
    rng_rand(&g, p->u_k, (size_t)n * n);
    rng_rand(&g, p->u_v, (size_t)n * n);
    project_tokens(p->q, p->u_q, p->x, n, d);           // cell [T20]
    project_tokens(p->k, p->u_k, p->x, n, d);
    project_tokens(p->v, p->u_v, p->x, n, d);
    qkv_attention(p->z, p->scores, p->weights, p->q, p->k, p->v,
                  n, d, d);                             // cell [T21]
    weighted_sum(p->z3_manual, p->weights + 3 * n, p->v, n, d);  // [T22]
    p->z3_matches = allclose(p->z3_manual, p->z + 3 * d, d, 1e-5f, 1e-8f);
    //< cells-19-22

    //> reverse-tokens
    // Reverse the sentence. Attention that treats tokens alike gives the
    // same outputs in reverse order; the U form does not.
    float x_reversed[N_TOKENS * EMBEDDING_DIM], w[N_TOKENS * N_TOKENS];
    reverse_rows(x_reversed, p->x, n, d);
    u_form_attention(p->z_reversed, w, p->u_q, p->u_k, p->u_v, x_reversed,
                     n, d);
    p->u_form_follows_tokens = rows_follow_tokens(p->z_reversed, p->z, n, d);
    //< reverse-tokens

    //> standard-draws
    // W_q = nn.Linear(32, 16, bias=False).weight.T, and so on, continuing
    // the generator.
    rng_linear_init(&g, p->a_q, NULL, d, d_k);
    rng_linear_init(&g, p->a_k, NULL, d, d_k);
    rng_linear_init(&g, p->a_v, NULL, d, d_k);
    //< standard-draws
    float q_rev[N_TOKENS * STANDARD_DK];
    standard_attention(p->z_std, p->q_std, p->weights_std, p->a_q, p->a_k,
                       p->a_v, p->x, n, d, d_k);
    standard_attention(p->z_std_reversed, q_rev, w, p->a_q, p->a_k, p->a_v,
                       x_reversed, n, d, d_k);
    p->standard_form_follows_tokens =
        rows_follow_tokens(p->z_std_reversed, p->z_std, n, d_k);
    return 0;
}

static void parametrised_print(const parametrised *p, FILE *f) {
    const int n = N_TOKENS, d = EMBEDDING_DIM, d_k = STANDARD_DK;
    const int shape_nn[] = { n, n }, shape_nd[] = { n, d };
    const int shape_dk[] = { d, d_k }, shape_nk[] = { n, d_k };

    print_cell(f, "T19", "u_q = torch.rand(n_tokens, n_tokens) "
                      "(then u_k and u_v)");
    print_tensor(f, p->u_q, 2, shape_nn);

    print_cell(f, "T20", "q.shape == k.shape == v.shape == "
                      "embedded_tokens.shape");
    print_bool(f, true);  // q, k and v are (n, d) by construction

    print_cell(f, "T21", "context_weighted_embeddings_param.shape");
    print_size(f, 2, shape_nd);

    print_cell(f, "T22", "torch.allclose(z_3 summed by hand, "
                      "context_weighted_embeddings_param[3])");
    print_bool(f, p->z3_matches);

    print_cell(f, "P3.3", "reverse the tokens; do the outputs just "
                      "reverse?");
    fputs("U form, q = U_q x: ", f);
    print_bool(f, p->u_form_follows_tokens);
    fputs("row 0 of z for the reversed sentence, and row 7 of z:\n", f);
    const int shape_5[] = { 5 };
    fputs("z_reversed[0][:5] ", f);
    print_tensor(f, p->z_reversed, 1, shape_5);
    fputs("z[7][:5]          ", f);
    print_tensor(f, p->z + (n - 1) * d, 1, shape_5);

    print_cell(f, "P3.4", "the standard form, q = x W_q with W_q of shape "
                      "(d, d_k)");
    fputs("W_q: ", f);
    print_size(f, 2, shape_dk);
    fputs("q: ", f);
    print_size(f, 2, shape_nk);
    fputs("z: ", f);
    print_size(f, 2, shape_nk);
    fputs("reverse the tokens; do the outputs just reverse? ", f);
    print_bool(f, p->standard_form_follows_tokens);
}

// ------------------------------------------------------------------ part 3
// "Studying the mechanism of self-attention": a toy tokenizer, an embedding
// of width 10 and the Attention module (three nn.Linear with bias).
#define TEXT "How are you doing ? I am good and you ?"
#define QUESTION "How are you doing ?"
#define BOS_TOKEN 0
#define EOS_TOKEN 1
#define MAX_VOCAB 32
#define MAX_SENTENCE 16
#define HIDDEN_SIZE 10

typedef struct {
    int size;                          // number of words, BOS and EOS included
    char words[MAX_VOCAB][MAX_WORD];   // index2word
} vocabulary;

// Cell [S2]: BOS = 0, EOS = 1, then every distinct word of the lower-cased
// text split on " ", in the order of a Python set. That order changes from
// run to run (strings hash with a salt Python draws afresh in every
// process), so we keep the order the notebook printed, and check it.
static const char *const NOTEBOOK_SET_ORDER[] = {
    "doing", "?", "you", "am", "i", "good", "are", "how", "and",
};
#define NOTEBOOK_SET_SIZE \
    (int)(sizeof NOTEBOOK_SET_ORDER / sizeof NOTEBOOK_SET_ORDER[0])

// word2index[word]: the index of word in voc, or -1 if it is not there.
static int word_index(const vocabulary *voc, const char *word) {
    for (int i = 0; i < voc->size; i++)
        if (strcmp(voc->words[i], word) == 0) return i;
    return -1;
}

// Builds index2word with the words of order (count) after BOS and EOS.
// Lower-casing is ASCII. Returns 0, or -1 if order is not exactly the
// distinct lower-cased words of text, each once (or a word is too long,
// or there are too many).
static int vocabulary_build(vocabulary *voc, const char *text,
                            const char *const *order, int count) {
    vocabulary seen = { 0 };  // the distinct words of text
    memset(voc, 0, sizeof *voc);
    for (const char *start = text;;) {
        const char *end = strchr(start, ' ');
        size_t len = end ? (size_t)(end - start) : strlen(start);
        char word[MAX_WORD];
        if (len >= MAX_WORD) return -1;
        for (size_t i = 0; i < len; i++)
            word[i] = (char)tolower((unsigned char)start[i]);
        word[len] = '\0';
        if (word_index(&seen, word) < 0) {
            if (seen.size == MAX_VOCAB - 2) return -1;
            strcpy(seen.words[seen.size++], word);
        }
        if (!end) break;
        start = end + 1;
    }
    // order holds every distinct word once and nothing else
    if (count != seen.size) return -1;
    strcpy(voc->words[BOS_TOKEN], "BOS");
    strcpy(voc->words[EOS_TOKEN], "EOS");
    voc->size = 2;
    for (int i = 0; i < count; i++) {
        if (word_index(&seen, order[i]) < 0 || word_index(voc, order[i]) >= 0) {
            memset(voc, 0, sizeof *voc);
            return -1;
        }
        strcpy(voc->words[voc->size++], order[i]);
    }
    return 0;
}

// Cell [S3], convert2tensor: the ids of the lower-cased words of sentence.
// ids is (max). Returns the number of words, or -1 if a word is not in the
// vocabulary (Python raises KeyError) or there are more than max.
static int convert2tensor(int64_t *ids, const vocabulary *voc,
                          const char *sentence, int max) {
    int n = 0;
    for (const char *start = sentence;;) {
        const char *end = strchr(start, ' ');
        size_t len = end ? (size_t)(end - start) : strlen(start);
        char word[MAX_WORD];
        if (len >= MAX_WORD || n == max) return -1;
        for (size_t i = 0; i < len; i++)
            word[i] = (char)tolower((unsigned char)start[i]);
        word[len] = '\0';
        int id = word_index(voc, word);
        if (id < 0) return -1;
        ids[n++] = id;
        if (!end) break;
        start = end + 1;
    }
    return n;
}

// convert2sentence: the words of ids (n) joined by spaces, then Python's
// str.capitalize(): first letter upper case, the rest lower case. Returns 0,
// or -1 if an id is out of range or out (cap bytes) is too small.
static int convert2sentence(char *out, size_t cap, const vocabulary *voc,
                            const int64_t *ids, int n) {
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= voc->size) return -1;
        const char *w = voc->words[ids[i]];
        size_t wl = strlen(w);
        if (len + (i > 0) + wl + 1 > cap) return -1;  // space, word, NUL
        if (i > 0) out[len++] = ' ';
        memcpy(out + len, w, wl);
        len += wl;
    }
    if (cap == 0) return -1;  // n == 0 needs one byte too
    out[len] = '\0';
    for (size_t i = 0; i < len; i++)
        out[i] = (char)(i == 0 ? toupper((unsigned char)out[i])
                               : tolower((unsigned char)out[i]));
    return 0;
}

typedef struct {
    vocabulary voc;
    int n;                                        // words in QUESTION (5)
    int64_t ids[MAX_SENTENCE];                    // (1, n) input_tensor
    char round_trip[MAX_SENTENCE * MAX_WORD];     // convert2sentence(ids)
    float table[MAX_VOCAB * HIDDEN_SIZE];         // (V, d) nn.Embedding
    float embedded[MAX_SENTENCE * HIDDEN_SIZE];   // (1, n, d)
    attention_module module;                      // cell [S4]'s Attention
    float hidden[MAX_SENTENCE * HIDDEN_SIZE];     // (1, n, d) cell [S5]
    float weights[MAX_SENTENCE * MAX_SENTENCE];   // (1, n, n) cell [S5]
    attention_module fresh;                       // cell [S6]'s Q, K, V
    float queries[MAX_SENTENCE * HIDDEN_SIZE];    // (1, n, d) cell [S6]
    float keys[MAX_SENTENCE * HIDDEN_SIZE];
    float values[MAX_SENTENCE * HIDDEN_SIZE];
    float scores[MAX_SENTENCE * MAX_SENTENCE];    // (1, n, n) scaled
    float attention[MAX_SENTENCE * MAX_SENTENCE]; // (1, n, n) cell [S7]
    float sums[MAX_SENTENCE];                     // (1, n)
    float hidden7[MAX_SENTENCE * HIDDEN_SIZE];    // (1, n, d) cell [S7]
} module_example;

static void module_example_free(module_example *m) {
    attention_module_free(&m->module);
    attention_module_free(&m->fresh);
}

// Runs cells [S2]-[S7] from torch.manual_seed(seed). Returns 0, or -1 with a
// message on stderr.
static int module_example_run(module_example *m, uint64_t seed) {
    const int d = HIDDEN_SIZE;
    memset(m, 0, sizeof *m);
    if (vocabulary_build(&m->voc, TEXT, NOTEBOOK_SET_ORDER,
                         NOTEBOOK_SET_SIZE) != 0) {
        fprintf(stderr, PROGRAM ": error: the vocabulary order is not the "
                "distinct words of '%s'\n", TEXT);
        return -1;
    }
    m->n = convert2tensor(m->ids, &m->voc, QUESTION, MAX_SENTENCE);
    if (m->n < 0 || convert2sentence(m->round_trip, sizeof m->round_trip,
                                     &m->voc, m->ids, m->n) != 0) {
        fprintf(stderr, PROGRAM ": error: cannot tokenize '%s'\n", QUESTION);
        return -1;
    }
    const int n = m->n;
    if (attention_module_alloc(&m->module, d, d) != 0 ||
        attention_module_alloc(&m->fresh, d, d) != 0) {
        module_example_free(m);
        fprintf(stderr, PROGRAM ": error: out of memory for the attention "
                "module\n");
        return -1;
    }
    torch_rng g;
    rng_seed(&g, seed);
    //> cells-4-7
    rng_embedding_init(&g, m->table, m->voc.size, d);   // cell [S4]
    attention_module_init(&m->module, &g);
    embedding_forward_int64(m->embedded, m->table, m->ids, n, d);
    int status = attention_module_forward(m->hidden, m->weights, NULL, NULL,
                                          NULL, NULL, &m->module,
                                          m->embedded, 1, n);  // cell [S5]
    attention_module_init(&m->fresh, &g);               // cell [S6]
    if (status == 0)
        status = attention_module_forward(m->hidden7, m->attention,
                                          m->queries, m->keys, m->values,
                                          m->scores, &m->fresh, m->embedded,
                                          1, n);        // cell [S7]
    row_sums(m->sums, m->attention, n, n);
    //< cells-4-7
    if (status != 0) {
        module_example_free(m);
        fprintf(stderr, PROGRAM ": error: out of memory in the attention "
                "module\n");
        return -1;
    }
    return 0;
}

static void module_example_print(const module_example *m, FILE *f) {
    const int n = m->n, d = HIDDEN_SIZE;
    const int shape_1n[] = { 1, n }, shape_1nd[] = { 1, n, d };
    const int shape_1nn[] = { 1, n, n };

    print_cell(f, "S2", "index2word and word2index "
                      "(words in the set order the notebook printed)");
    for (int i = 0; i < m->voc.size; i++)
        fprintf(f, "(%d, '%s')\n", i, m->voc.words[i]);
    fputs("\n\n", f);
    for (int i = 0; i < m->voc.size; i++)
        fprintf(f, "('%s', %d)\n", m->voc.words[i], i);

    print_cell(f, "S3", "convert2tensor and convert2sentence");
    fputs("Input tensor: ", f);
    print_int_tensor(f, m->ids, 2, shape_1n);
    fputs("Tensor size: ", f);
    print_size(f, 2, shape_1n);
    fprintf(f, "Output sentence: %s\n", m->round_trip);

    print_cell(f, "S4", "embedded = embedding(input_tensor)");
    print_tensor(f, m->embedded, 3, shape_1nd);
    fputs("Tensor size: ", f);
    print_size(f, 3, shape_1nd);

    print_cell(f, "S5", "hidden_states = attention(embedded)");
    print_tensor(f, m->hidden, 3, shape_1nd);
    print_size(f, 3, shape_1nd);

    print_cell(f, "S6", "queries, keys, values from fresh Q, K, V");
    for (int i = 0; i < 3; i++) print_size(f, 3, shape_1nd);

    print_cell(f, "S7", "scores, softmax and hidden states, step by step");
    print_size(f, 3, shape_1nn);
    fputs("\n", f);
    print_size(f, 3, shape_1nn);
    fputs("Sum of the rows of the last dimension:\n\t", f);
    print_tensor(f, m->sums, 2, shape_1n);
    print_tensor(f, m->attention, 3, shape_1nn);
    fputs("\n", f);
    print_size(f, 3, shape_1nd);
    print_tensor(f, m->hidden7, 3, shape_1nd);
}

// ------------------------------------------------------------------ program
typedef struct {
    worked_example worked;
    parametrised param;
    module_example module;
} chapter3;

static void chapter3_free(chapter3 *c) {
    parametrised_free(&c->param);
    module_example_free(&c->module);
}

// Runs all three parts, part 2 from torch.manual_seed(param_seed) and part 3
// (another notebook) from torch.manual_seed(module_seed). Returns 0, or -1
// with a message on stderr.
static int chapter3_run(chapter3 *c, uint64_t param_seed,
                        uint64_t module_seed) {
    memset(c, 0, sizeof *c);
    worked_example_run(&c->worked);
    if (parametrised_run(&c->param, param_seed) != 0) return -1;
    if (module_example_run(&c->module, module_seed) != 0) {
        parametrised_free(&c->param);
        return -1;
    }
    return 0;
}

static void chapter3_print(const chapter3 *c, FILE *f) {
    fputs("[G1]-[G8]: steps 1 to 8 of the worked example of \"An illustrated guide to\n"
          "Attention Mechanism in Sequence Models with PyTorch code\" (G).\n"
          "[T19]-[T22]: cells 19 to 22, \"Parametrised Self-Attention\", of the notebook\n"
          "\"Attention and Transformers\" (T).\n"
          "[S2]-[S7]: cells 2 to 7 of the notebook \"Studying the mechanism of\n"
          "self-attention\" (S).\n"
          "[P3.1]-[P3.4]: this program's own blocks.\n", f);
    worked_example_print(&c->worked, f);
    parametrised_print(&c->param, f);
    module_example_print(&c->module, f);
}

// Figure data: the worked example's scores and weights (inputs as labels)
// and part 3's attention over the five words.
static int chapter3_write_data(const chapter3 *c, const char *dir) {
    const char *inputs[] = { "Input 1", "Input 2", "Input 3" };
    const char *words[MAX_SENTENCE];
    for (int i = 0; i < c->module.n; i++)
        words[i] = c->module.voc.words[c->module.ids[i]];
    const int n = c->module.n;
    bool ok = write_heatmap(PROGRAM, dir, "chapter3-scores.dat",
                            c->worked.scores, WORKED_N, WORKED_N, inputs, inputs)
           && write_heatmap(PROGRAM, dir, "chapter3-softmax.dat",
                            c->worked.softmax, WORKED_N, WORKED_N, inputs, inputs)
           && write_heatmap(PROGRAM, dir, "chapter3-softmax-scaled.dat",
                            c->worked.softmax_scaled, WORKED_N, WORKED_N, inputs,
                            inputs)
           && write_heatmap(PROGRAM, dir, "chapter3-module.dat",
                            c->module.attention, n, n, words, words);
    return ok ? 0 : -1;
}

// The random seeds of parts 2 and 3 from --seed: N for both if it was given
// (seed != SEED_NOT_GIVEN), else the one that reproduces each notebook's
// printed numbers.
static void chapter3_seeds(uint64_t seed, uint64_t *param_seed,
                           uint64_t *module_seed) {
    *param_seed = seed == SEED_NOT_GIVEN ? DEFAULT_SEED : seed;
    *module_seed = seed == SEED_NOT_GIVEN ? MODULE_DEFAULT_SEED : seed;
}

#ifndef TESTING
int main(int argc, char **argv) {
    common_options opts = { SEED_NOT_GIVEN, NULL };
    int done = cli_exit_status(parse_chapter_options(argc, argv, PROGRAM,
            "Queries, keys and values: a worked example by hand, the notebook's\n"
            "parametrised attention, and an attention module with biased linear maps.",
            "torch.manual_seed(N) before part 2 and again before part 3;\n"
            "              without it, each part uses the random seed its notebook\n"
            "              ran with: 3570563066 for part 2 (chapter 1's), 74104689 for\n"
            "              part 3",
            &opts));
    if (done >= 0) return done;
    chapter3 *c = malloc(sizeof *c);
    if (!c) {
        fprintf(stderr, PROGRAM ": error: out of memory\n");
        return 1;
    }
    uint64_t param_seed, module_seed;
    chapter3_seeds(opts.seed, &param_seed, &module_seed);
    int status = chapter3_run(c, param_seed, module_seed);
    if (status == 0) {
        chapter3_print(c, stdout);
        if (opts.data_dir) status = chapter3_write_data(c, opts.data_dir);
        chapter3_free(c);
    }
    free(c);
    return status == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
