// chapter1.c: self-attention, first with loops, then with one matrix product.
//
// Reproduces cells [2]-[13] of the notebook "Attention and Transformers":
// a sentence becomes 8 random token ids, each id an embedding of width 32, and
// each embedding is replaced by a weighted average of all of them, the
// weights coming from dot products.
//
// Dimension legend:
//   n  tokens in the sentence (8)
//   d  embedding width (EMBEDDING_DIM, 32)
//   V  vocabulary size (VOCAB_SIZE, 20000)
//
// Usage: ./chapter1 [--seed N] [--data DIR]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "cli.h"
#include "print.h"
#include "rng.h"
#include "tensor.h"

#define PROGRAM "chapter1"
#define SENTENCE "Sorry Dave, I'm afraid I can't do that."
#define VOCAB_SIZE 20000
#define EMBEDDING_DIM 32
// The notebook set no seed. Of all 2^32 seeds (PyTorch keeps only the low
// 32 bits), torch.manual_seed(3570563066) is the one that draws its printed
// token ids, and with it the program prints the notebook's very numbers.
#define DEFAULT_SEED 3570563066ULL

// Everything the notebook computes, kept so that the tests can look at it.
typedef struct {
    int n;                                   // tokens
    char words[MAX_TOKENS][MAX_WORD];        // the sentence split on spaces
    int64_t ids[MAX_TOKENS];                 // (n) token ids
    float *embedding_table;                  // (V, d)
    float x[MAX_TOKENS * EMBEDDING_DIM];     // (n, d) embedded tokens
    float scores_loop[MAX_TOKENS * MAX_TOKENS];    // (n, n) dot products, loops
    float scores_matmul[MAX_TOKENS * MAX_TOKENS];  // (n, n) the same, x @ x^T
    float weights[MAX_TOKENS * MAX_TOKENS];  // (n, n) softmax(scores / sqrt(d))
    float sums[MAX_TOKENS];                  // (n) row sums of weights
    float z[MAX_TOKENS * EMBEDDING_DIM];     // (n, d) context-aware embeddings
    float z3_manual[EMBEDDING_DIM];          // (d) row 3 of z, term by term
} chapter1;

//> loop-attention
// scores[i, j] = x_i . x_j, one dot product at a time.
// x is (n, d), scores is (n, n).
static void attention_scores_loop(float *scores, const float *x, int n, int d) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            scores[i * n + j] = dot(x + i * d, x + j * d, d);
}
//< loop-attention

//> matmul-attention
// The same numbers as one matrix product: scores = x @ x^T.
// x is (n, d), scores is (n, n).
static void attention_scores_matmul(float *scores, const float *x, int n, int d) {
    matmul_transposed(scores, x, x, n, d, n);
}
//< matmul-attention

//> context
// z_i = sum_j weights[i, j] x_j for every i at once: z = weights @ x.
// weights is (n, n), x is (n, d), z is (n, d).
static void context_embeddings(float *z, const float *weights, const float *x,
                               int n, int d) {
    matmul(z, weights, x, n, n, d);
}
//< context

static void chapter1_free(chapter1 *c) {
    free(c->embedding_table);
    c->embedding_table = NULL;
}

// Runs cells [2]-[13] on a sentence. Returns 0, or -1 with a message on
// stderr.
static int chapter1_run(chapter1 *c, const char *sentence, uint64_t seed) {
    const int d = EMBEDDING_DIM;
    memset(c, 0, sizeof *c);
    torch_rng g;
    rng_seed(&g, seed);

    c->n = dummy_tokenize(c->ids, c->words, sentence, VOCAB_SIZE, &g);
    if (c->n < 0) {
        fprintf(stderr, PROGRAM ": error: the sentence must have 1 to %d words "
                "of under %d bytes\n", MAX_TOKENS, MAX_WORD);
        return -1;
    }
    const int n = c->n;

    c->embedding_table = draw_embedding(c->x, c->ids, n, VOCAB_SIZE, d, &g);
    if (!c->embedding_table) {
        fprintf(stderr, PROGRAM ": error: out of memory for the embedding table\n");
        return -1;
    }

    attention_scores_loop(c->scores_loop, c->x, n, d);
    attention_scores_matmul(c->scores_matmul, c->x, n, d);
    attention_weights(c->weights, c->scores_loop, n, d);
    row_sums(c->sums, c->weights, n, n);
    context_embeddings(c->z, c->weights, c->x, n, d);
    //> manual-z3
    // Cell [12]: z_3 written out as the sum of eight weighted embeddings.
    weighted_sum(c->z3_manual, c->weights + 3 * n, c->x, n, d);
    //< manual-z3
    return 0;
}

static void chapter1_print(const chapter1 *c, FILE *f) {
    const int n = c->n, d = EMBEDDING_DIM;
    const int shape_n[] = { n }, shape_nn[] = { n, n }, shape_nd[] = { n, d };
    const int shape_d[] = { d };

    print_cell(f, 2, "the sentence");
    fprintf(f, "%s\n", SENTENCE);

    print_cell(f, 3, "tokenized_sentence: one random id per word");
    print_int_tensor(f, c->ids, 1, shape_n);

    print_cell(f, 4, "embedded_tokens.shape");
    print_size(f, 2, shape_nd);

    print_cell(f, 5, "parameters of the embedding layer");
    fputs("number of embedding parameters = ", f);
    print_grouped(f, (long long)VOCAB_SIZE * d);
    fputc('\n', f);

    print_cell(f, 6, "attn_weights from two loops of dot products");
    print_size(f, 2, shape_nn);
    print_tensor(f, c->scores_loop, 2, shape_nn);

    print_cell(f, 8, "torch.allclose(attn_weights_matmul, attn_weights, atol=1e-6)");
    print_bool(f, allclose(c->scores_matmul, c->scores_loop, n * n, 1e-5f, 1e-6f));

    print_cell(f, 9, "attn_weights_norm = softmax(attn_weights / sqrt(32))");
    print_tensor(f, c->weights, 2, shape_nn);

    print_cell(f, 10, "attn_weights_norm.sum(dim=1)");
    print_tensor(f, c->sums, 1, shape_n);

    print_cell(f, 11, "context_weighted_embeddings.shape");
    print_size(f, 2, shape_nd);

    print_cell(f, 12, "context_weighted_embeddings_3, summed by hand");
    print_tensor(f, c->z3_manual, 1, shape_d);

    print_cell(f, 13, "torch.allclose(context_weighted_embeddings_3, "
                      "context_weighted_embeddings[3], atol=1e-6)");
    print_bool(f, allclose(c->z3_manual, c->z + 3 * d, d, 1e-5f, 1e-6f));
}

// Figure data: the scores and the weights, tokens as labels.
static int chapter1_write_data(const chapter1 *c, const char *dir) {
    const char *labels[MAX_TOKENS];
    for (int i = 0; i < c->n; i++) labels[i] = c->words[i];
    bool ok = write_heatmap(PROGRAM, dir, "chapter1-scores.dat", c->scores_loop,
                            c->n, c->n, labels, labels)
           && write_heatmap(PROGRAM, dir, "chapter1-weights.dat", c->weights,
                            c->n, c->n, labels, labels);
    return ok ? 0 : -1;
}

#ifndef TESTING
int main(int argc, char **argv) {
    common_options opts = { DEFAULT_SEED, NULL };
    int done = cli_exit_status(parse_options(argc, argv, PROGRAM, "[--seed N] [--data DIR]\n"
            "\n"
            "Self-attention with loops and with a matrix product (notebook cells [2]-[13]).\n"
            "  --seed N    torch.manual_seed(N) before the first draw; default "
            "3570563066,\n"
            "              the seed that reproduces the notebook's printed numbers\n"
            "  --data DIR  also write the figure data (chapter1-*.dat) into DIR\n"
            "  --help      this message", &opts));
    if (done >= 0) return done;
    chapter1 c;
    int status = chapter1_run(&c, SENTENCE, opts.seed);
    if (status == 0) chapter1_print(&c, stdout);
    if (status == 0 && opts.data_dir) status = chapter1_write_data(&c, opts.data_dir);
    chapter1_free(&c);
    return status == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
