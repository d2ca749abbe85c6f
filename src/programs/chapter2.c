// chapter2.c: causal masking, so that no token looks at the tokens after it.
//
// Reproduces cells [T14]-[T18] of the notebook "Attention and Transformers" on
// chapter 1's sentence: the same 8 token ids and embeddings (cells [T3]-[T4],
// drawn again from the same seed), the same dot-product scores, but every
// score of a query with a later key is replaced by -1e10 before the softmax,
// so that each context-aware embedding z_i depends on x_0 .. x_i only.
//
// Dimension legend:
//   n  tokens in the sentence (8)
//   d  embedding width (EMBEDDING_DIM, 32)
//   V  vocabulary size (VOCAB_SIZE, 20000)
//
// Usage: ./chapter2 [--seed N] [--data DIR]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/attention_weights.h"
#include "core/cli.h"
#include "notebooks/sentence.h"
#include "layers/mask.h"
#include "core/print.h"
#include "core/rng.h"
#include "layers/tensor.h"

#define PROGRAM "chapter2"
#define SENTENCE "Sorry Dave, I'm afraid I can't do that."
#define VOCAB_SIZE 20000
#define EMBEDDING_DIM 32
// The same default as chapter 1: the random seed that draws the notebook's token
// ids, so that both chapters start from the notebook's tokens and print its
// numbers.
#define DEFAULT_SEED 3570563066ULL
// The notebook's stand-in for minus infinity, cell [T15].
#define NOTEBOOK_MASK_VALUE -1e10f
// The figure's temperature: its weights are the softmax of the scores
// divided by this and by sqrt(d). At 1 each row of this sentence puts most
// of its weight on its own token, and masking barely changes it; at 4 the
// rows spread their weight, so that the rescaling by the mask shows.
#define FIGURE_TEMPERATURE 4

// Everything the notebook computes, kept so that the tests can look at it.
typedef struct {
    int n;                                   // tokens
    char words[MAX_TOKENS][MAX_WORD];        // the sentence split on spaces
    int64_t ids[MAX_TOKENS];                 // (n) token ids, chapter 1's
    float x[MAX_TOKENS * EMBEDDING_DIM];     // (n, d) embedded tokens
    float scores[MAX_TOKENS * MAX_TOKENS];   // (n, n) x @ x^T, chapter 1's
    float weights[MAX_TOKENS * MAX_TOKENS];  // (n, n) chapter 1's unmasked
                                             // softmax(scores / sqrt(d))
    bool mask[MAX_TOKENS * MAX_TOKENS];      // (n, n) true above the diagonal
    float masked_scores[MAX_TOKENS * MAX_TOKENS];  // (n, n) -1e10 where masked
    float causal_weights[MAX_TOKENS * MAX_TOKENS]; // (n, n) their softmax
    float causal_sums[MAX_TOKENS];           // (n) row sums of causal_weights
    float library_weights[MAX_TOKENS * MAX_TOKENS]; // (n, n) the same, by
                                             // masked_softmax_rows
    int fully_masked_rows;                   // what masked_softmax_rows said
    float z[MAX_TOKENS * EMBEDDING_DIM];     // (n, d) causal context-aware
                                             // embeddings
    float z3_manual[EMBEDDING_DIM];          // (d) row 3 of z, from x_0 .. x_3
    bool z3_matches;                         // allclose to row 3 of z
    // the figure's, the scores divided by FIGURE_TEMPERATURE first:
    float tempered[MAX_TOKENS * MAX_TOKENS];        // (n, n) unmasked weights
    float tempered_causal[MAX_TOKENS * MAX_TOKENS]; // (n, n) causal weights
} chapter2;

//> notebook-mask
// Cell [T15]: the scores with -1e10 wherever the mask is true.
// scores, mask and masked are (n, n).
static void causal_scores(float *masked, const float *scores, const bool *mask,
                          int n) {
    masked_fill(masked, scores, mask, NOTEBOOK_MASK_VALUE, n * n);
}
//< notebook-mask

//> library-weights
// The library's way: scale, then a softmax that skips the masked entries
// instead of relying on exp(-1e10) being 0. Returns the number of rows with
// nothing to attend to (zero for a causal mask). scores, mask and weights
// are (n, n).
static int masked_attention_weights(float *weights, const float *scores,
                                    const bool *mask, int n, int d) {
    memcpy(weights, scores, (size_t)n * n * sizeof(float));
    scale(weights, 1.0f / sqrtf((float)d), n * n);
    return masked_softmax_rows(weights, mask, n, n);
}
//< library-weights

// Cells [T6], [T9] and [T14]-[T18] on the embeddings c->x of c->n tokens: every
// number below depends on nothing else, so a test can change x and call this
// again.
static void chapter2_attend(chapter2 *c) {
    const int n = c->n, d = EMBEDDING_DIM;
    matmul_transposed(c->scores, c->x, c->x, n, d, n);
    attention_weights(c->weights, c->scores, n, d);
    //> causal-attention
    causal_mask(c->mask, n);                                      // [T14]
    causal_scores(c->masked_scores, c->scores, c->mask, n);       // [T15]
    attention_weights(c->causal_weights, c->masked_scores, n, d); // [T16]
    row_sums(c->causal_sums, c->causal_weights, n, n);
    matmul(c->z, c->causal_weights, c->x, n, n, d);               // [T17]
    //< causal-attention
    c->fully_masked_rows =
        masked_attention_weights(c->library_weights, c->scores, c->mask, n, d);
    //> manual-z3
    // Cell [T18]: z_3 from the four tokens it may see, x_0 .. x_3.
    weighted_sum(c->z3_manual, c->causal_weights + 3 * n, c->x, 4, d);
    //< manual-z3
    // torch.allclose's defaults: rtol=1e-5, atol=1e-8.
    c->z3_matches = allclose(c->z3_manual, c->z + 3 * d, d, 1e-5f, 1e-8f);
    // The figure's weights, unmasked and causal, at FIGURE_TEMPERATURE.
    float tempered_scores[MAX_TOKENS * MAX_TOKENS];
    memcpy(tempered_scores, c->scores, (size_t)n * n * sizeof(float));
    scale(tempered_scores, 1.0f / FIGURE_TEMPERATURE, n * n);
    attention_weights(c->tempered, tempered_scores, n, d);
    masked_attention_weights(c->tempered_causal, tempered_scores, c->mask, n, d);
}

// Runs cells [T2]-[T4] (chapter 1's draws, in chapter 1's order) and then
// chapter2_attend. Returns 0, or -1 with a message on stderr.
static int chapter2_run(chapter2 *c, const char *sentence, uint64_t seed) {
    const int d = EMBEDDING_DIM;
    memset(c, 0, sizeof *c);
    torch_rng g;
    rng_seed(&g, seed);

    c->n = embed_sentence(c->x, c->ids, c->words, NULL, sentence, VOCAB_SIZE,
                          d, &g);
    if (c->n == EMBED_NO_MEMORY) {
        fprintf(stderr, PROGRAM ": error: out of memory for the embedding table\n");
        return -1;
    }
    if (c->n < 4) {
        fprintf(stderr, PROGRAM ": error: the sentence must have 4 to %d words "
                "of under %d bytes\n", MAX_TOKENS, MAX_WORD);
        return -1;
    }

    chapter2_attend(c);
    return 0;
}

static void chapter2_print(const chapter2 *c, FILE *f) {
    const int n = c->n, d = EMBEDDING_DIM;
    const int shape_n[] = { n }, shape_nn[] = { n, n }, shape_nd[] = { n, d };
    const int shape_d[] = { d };

    fputs("[T14]-[T18]: cells 14 to 18 of the notebook \"Attention and Transformers\" (T).\n",
          f);
    print_cell(f, "T14", "causal_mask: True above the diagonal");
    print_bool_tensor(f, c->mask, 2, shape_nn);

    print_cell(f, "T15", "causal_attn_weights[0]: masked_fill with -1e10");
    print_tensor(f, c->masked_scores, 1, shape_n);

    print_cell(f, "T16", "causal_attn_weights_norm and its row sums");
    print_tensor(f, c->causal_weights, 2, shape_nn);
    print_tensor(f, c->causal_sums, 1, shape_n);

    print_cell(f, "T17", "causal_context_weighted_embeddings.shape");
    print_size(f, 2, shape_nd);

    print_cell(f, "T18", "causal_context_weighted_embeddings_3 from tokens 0..3, "
                      "allclose to row 3");
    print_tensor(f, c->z3_manual, 1, shape_d);
    print_bool(f, c->z3_matches);
}

// Figure data: the weights at FIGURE_TEMPERATURE, unmasked and causal, and
// the temperature, which the figure's titles print.
static int chapter2_write_data(const chapter2 *c, const char *dir) {
    const char *labels[MAX_TOKENS];
    for (int i = 0; i < c->n; i++) labels[i] = c->words[i];
    bool ok = write_heatmap(PROGRAM, dir, "chapter2-tempered-weights.dat", c->tempered,
                            c->n, c->n, labels, labels)
           && write_heatmap(PROGRAM, dir, "chapter2-tempered-causal-weights.dat",
                            c->tempered_causal, c->n, c->n, labels, labels);
    const char *name = "chapter2-temperature.dat";
    FILE *f = ok ? open_data_file(PROGRAM, dir, name) : NULL;
    if (!f) return -1;
    fprintf(f, "%d\n", FIGURE_TEMPERATURE);
    return close_data_file(PROGRAM, f, dir, name) ? 0 : -1;
}

#ifndef TESTING
int main(int argc, char **argv) {
    common_options opts = { DEFAULT_SEED, NULL };
    int done = cli_exit_status(parse_chapter_options(argc, argv, PROGRAM,
            "Causal masking of self-attention (notebook cells [T14]-[T18]).",
            "torch.manual_seed(N) before the first draw; default 3570563066,\n"
            "              the random seed that reproduces the notebook's printed numbers",
            &opts));
    if (done >= 0) return done;
    chapter2 c;
    int status = chapter2_run(&c, SENTENCE, opts.seed);
    if (status == 0) chapter2_print(&c, stdout);
    if (status == 0 && opts.data_dir)
        status = chapter2_write_data(&c, opts.data_dir);
    return status == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
