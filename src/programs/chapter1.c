// chapter1.c: self-attention, first with loops, then with one matrix product.
//
// Reproduces cells [T2]-[T13] of the notebook "Attention and Transformers":
// a sentence becomes 8 random token ids, each id an embedding of width 32, and
// each embedding is replaced by a weighted average of all of them, the
// weights coming from dot products.
//
// Dimension legend:
//   n  tokens in the sentence (8)
//   d  embedding width (EMBEDDING_DIM, 32)
//   V  vocabulary size (VOCAB_SIZE, 20000)
//
// --timing: instead of the notebook's cells, time self-attention of
// n = 8 ... 2048 random tokens computed three ways (see "timing" below).
// --scaling: instead, block [P1.1], what dividing the scores by sqrt(d)
// does to them and to the softmax, measured for widths 4 to 1024.
//
// Usage: ./chapter1 [--seed N] [--data DIR] [--timing | --scaling]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/attention_weights.h"
#include "layers/attention_head.h"
#include "layers/softmax.h"
#include "core/cli.h"
#include "core/clock.h"
#include "notebooks/sentence.h"
#include "kernels/gemm_reference.h"
#include "core/print.h"
#include "core/rng.h"
#include "kernels/simd.h"
#include "layers/tensor.h"

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
    bool matmul_matches_loops;               // cell [T8]: allclose, atol=1e-6
    bool z3_matches;                         // cell [T13]: allclose, atol=1e-6
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

// Runs cells [T2]-[T13] on a sentence. Returns 0, or -1 with a message on
// stderr.
static int chapter1_run(chapter1 *c, const char *sentence, uint64_t seed) {
    const int d = EMBEDDING_DIM;
    memset(c, 0, sizeof *c);
    torch_rng g;
    rng_seed(&g, seed);

    c->n = embed_sentence(c->x, c->ids, c->words, &c->embedding_table,
                          sentence, VOCAB_SIZE, d, &g);
    if (c->n == EMBED_BAD_SENTENCE) {
        fprintf(stderr, PROGRAM ": error: the sentence must have 1 to %d words "
                "of under %d bytes\n", MAX_TOKENS, MAX_WORD);
        return -1;
    }
    if (c->n == EMBED_NO_MEMORY) {
        fprintf(stderr, PROGRAM ": error: out of memory for the embedding table\n");
        return -1;
    }
    const int n = c->n;

    attention_scores_loop(c->scores_loop, c->x, n, d);
    attention_scores_matmul(c->scores_matmul, c->x, n, d);
    attention_weights(c->weights, c->scores_loop, n, d);
    row_sums(c->sums, c->weights, n, n);
    context_embeddings(c->z, c->weights, c->x, n, d);
    //> manual-z3
    // Cell [T12]: z_3 written out as the sum of eight weighted embeddings.
    weighted_sum(c->z3_manual, c->weights + 3 * n, c->x, n, d);
    //< manual-z3
    c->matmul_matches_loops =
        allclose(c->scores_matmul, c->scores_loop, n * n, 1e-5f, 1e-6f);
    c->z3_matches = allclose(c->z3_manual, c->z + 3 * d, d, 1e-5f, 1e-6f);
    return 0;
}

static void chapter1_print(const chapter1 *c, FILE *f) {
    const int n = c->n, d = EMBEDDING_DIM;
    const int shape_n[] = { n }, shape_nn[] = { n, n }, shape_nd[] = { n, d };
    const int shape_d[] = { d };

    fputs("[T2]-[T13]: cells 2 to 13 of the notebook \"Attention and Transformers\" (T).\n", f);
    print_cell(f, "T2", "the sentence");
    fprintf(f, "%s\n", SENTENCE);

    print_cell(f, "T3", "tokenized_sentence: one random id per word");
    print_int_tensor(f, c->ids, 1, shape_n);

    print_cell(f, "T4", "embedded_tokens.shape");
    print_size(f, 2, shape_nd);

    print_cell(f, "T5", "parameters of the embedding layer");
    fputs("number of embedding parameters = ", f);
    print_grouped(f, (long long)VOCAB_SIZE * d);
    fputc('\n', f);

    print_cell(f, "T6", "attn_weights from two loops of dot products");
    print_size(f, 2, shape_nn);
    print_tensor(f, c->scores_loop, 2, shape_nn);

    print_cell(f, "T8", "torch.allclose(attn_weights_matmul, attn_weights, atol=1e-6)");
    print_bool(f, c->matmul_matches_loops);

    print_cell(f, "T9", "attn_weights_norm = softmax(attn_weights / sqrt(32))");
    print_tensor(f, c->weights, 2, shape_nn);

    print_cell(f, "T10", "attn_weights_norm.sum(dim=1)");
    print_tensor(f, c->sums, 1, shape_n);

    print_cell(f, "T11", "context_weighted_embeddings.shape");
    print_size(f, 2, shape_nd);

    print_cell(f, "T12", "context_weighted_embeddings_3, summed by hand");
    print_tensor(f, c->z3_manual, 1, shape_d);

    print_cell(f, "T13", "torch.allclose(context_weighted_embeddings_3, "
                      "context_weighted_embeddings[3], atol=1e-6)");
    print_bool(f, c->z3_matches);
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

// ---------------------------------------------------------------- scaling

// Block [P1.1]: for each width d, SCALING_ROWS queries, each scored against
// SCALING_KEYS keys, every entry of both a standard normal draw.
enum { SCALING_WIDTHS = 5, SCALING_ROWS = 4000, SCALING_KEYS = 8 };
static const int SCALING_D[SCALING_WIDTHS] = { 4, 16, 64, 256, 1024 };

typedef struct {
    int d;
    double var_raw, var_scaled;            // the variance of s and of s / sqrt(d)
    double entropy[2], largest[2];         // means over the rows: [0] softmax(s),
                                           // [1] softmax(s / sqrt(d)); entropy in nats
} scaling_row;

//> entropy
// The entropy of a distribution w over n outcomes, in nats: ln n when it
// is uniform, 0 when one outcome has it all.
static double entropy(const float *w, int n) {
    double h = 0;
    for (int j = 0; j < n; j++)
        if (w[j] > 0) h -= w[j] * log(w[j]);
    return h;
}
//< entropy

// One width's row of block [P1.1], drawn from g: q (d) and keys (SCALING_KEYS, d).
static void scaling_measure(scaling_row *r, int d, float *q, float *keys, torch_rng *g) {
    const int n = SCALING_KEYS;
    double sum = 0, squares = 0;
    *r = (scaling_row){ .d = d };
    for (int row = 0; row < SCALING_ROWS; row++) {
        rng_randn(g, q, (size_t)d);
        rng_randn(g, keys, (size_t)n * d);
        float s[2][SCALING_KEYS];
        matmul_transposed(s[0], q, keys, 1, d, n);  // the scores q . k_j
        for (int j = 0; j < n; j++) {
            sum += s[0][j];
            squares += (double)s[0][j] * s[0][j];
            s[1][j] = s[0][j] / sqrtf((float)d);
        }
        for (int k = 0; k < 2; k++) {  // unscaled, then scaled
            softmax_rows(s[k], 1, n);
            float top = 0;
            for (int j = 0; j < n; j++) top = s[k][j] > top ? s[k][j] : top;
            r->entropy[k] += entropy(s[k], n) / SCALING_ROWS;
            r->largest[k] += (double)top / SCALING_ROWS;
        }
    }
    double count = (double)SCALING_ROWS * n, mean = sum / count;
    r->var_raw = squares / count - mean * mean;
    r->var_scaled = r->var_raw / d;
}

// Measures every width of block [P1.1] into rows; 0, or -1 when out of memory.
static int scaling_run(scaling_row *rows, torch_rng *g) {
    const int d_max = SCALING_D[SCALING_WIDTHS - 1];
    float *q = malloc(sizeof *q * d_max), *keys = malloc(sizeof *keys * SCALING_KEYS * d_max);
    int rc = q && keys ? 0 : -1;
    for (int w = 0; rc == 0 && w < SCALING_WIDTHS; w++)
        scaling_measure(&rows[w], SCALING_D[w], q, keys, g);
    free(q);
    free(keys);
    return rc;
}

static void scaling_print(FILE *f, const scaling_row *rows) {
    print_cell(f, "P1.1", "why the scores are divided by sqrt(d)");
    fprintf(f, "%d queries of width d, each against %d keys; every entry a standard normal draw.\n"
               "Means over the queries: a row's entropy in nats (ln %d = %.3f when its weights\n"
               "are even, 0 when one weight is 1), and its largest weight.\n",
            SCALING_ROWS, SCALING_KEYS, SCALING_KEYS, log((double)SCALING_KEYS));
    fprintf(f, "%6s | %-22s | %-17s | %s\n", "", "variance of", "softmax(s)", "softmax(s / sqrt(d))");
    fprintf(f, "%6s | %8s | %11s | %8s %8s | %8s %8s\n", "d", "s", "s / sqrt(d)", "entropy",
            "largest", "entropy", "largest");
    for (int w = 0; w < SCALING_WIDTHS; w++) {
        const scaling_row *r = &rows[w];
        fprintf(f, "%6d | %8.2f | %11.3f | %8.3f %8.3f | %8.3f %8.3f\n", r->d, r->var_raw,
                r->var_scaled, r->entropy[0], r->largest[0], r->entropy[1], r->largest[1]);
    }
}

static bool scaling_write_data(const scaling_row *rows, const char *dir) {
    FILE *data = open_data_file(PROGRAM, dir, "chapter1-scaling.dat");
    if (!data) return false;
    fputs("# d var_s var_scaled entropy largest entropy_scaled largest_scaled\n", data);
    for (int w = 0; w < SCALING_WIDTHS; w++) {
        const scaling_row *r = &rows[w];
        fprintf(data, "%d %.6g %.6g %.6g %.6g %.6g %.6g\n", r->d, r->var_raw, r->var_scaled,
                r->entropy[0], r->largest[0], r->entropy[1], r->largest[1]);
    }
    return close_data_file(PROGRAM, data, dir, "chapter1-scaling.dat");
}

// ---------------------------------------------------------------- timing

//> three-ways
// Self-attention of n tokens, z = softmax(x x^T / sqrt(d)) x, three ways.
// x is (n, d), z is (n, d), w is (n, n) and ends up holding the weights.
typedef void attention_way(float *z, float *w, const float *x, int n, int d);

// The loops of this chapter: n^2 dot products, one number at a time, then
// each z_i as a weighted sum of the rows of x.
static void attention_by_loops(float *z, float *w, const float *x, int n, int d) {
    attention_scores_loop(w, x, n, d);
    attention_weights(w, w, n, d);
    for (int i = 0; i < n; i++) weighted_sum(z + i * d, w + i * n, x, n, d);
}

// Two matrix products, written plainly (gemm_reference): loops in the
// order memory is laid out, short blocks the compiler vectorises.
static void attention_by_plain_products(float *z, float *w, const float *x, int n, int d) {
    memset(w, 0, (size_t)n * n * sizeof *w);
    gemm_reference(w, x, x, n, d, n, GEMM_ABT);  // x x^T
    attention_weights(w, w, n, d);
    memset(z, 0, (size_t)n * d * sizeof *z);
    gemm_reference(z, w, x, n, n, d, GEMM_AB);   // w x
}

// The library's attention layer (layers/attention_head.c): the products
// with explicit vector instructions and a block of results kept in
// registers (gemm_fast.c), the softmax a vector at a time.
static void attention_by_fast_products(float *z, float *w, const float *x, int n, int d) {
    attention_head_forward(z, w, x, x, x, 1, n, d, true);
}
//< three-ways

enum { TIMING_REPEATS = 5, TIMING_WAYS = 3 };
static attention_way *const WAYS[TIMING_WAYS] = {attention_by_loops, attention_by_plain_products,
                                                 attention_by_fast_products};

// Milliseconds per call of way on n tokens: the fastest of TIMING_REPEATS
// runs of as many calls as take about 20 ms (at least one).
static double time_way(attention_way *way, float *z, float *w, const float *x, int n, int d) {
    double t0 = now_seconds();
    way(z, w, x, n, d);
    double once = now_seconds() - t0;
    int calls = once < 0.02 ? (int)(0.02 / (once > 1e-7 ? once : 1e-7)) + 1 : 1;
    double best = once;
    for (int r = 0; r < TIMING_REPEATS; r++) {
        t0 = now_seconds();
        for (int c = 0; c < calls; c++) way(z, w, x, n, d);
        double t = (now_seconds() - t0) / calls;
        if (t < best) best = t;
    }
    return best * 1e3;
}

// Times the three ways for n = 8, 16, ..., max_n tokens of width d drawn
// from g; prints the table to f, and writes chapter1-timing.dat into dir
// when dir is not NULL. Returns 0, or -1 after saying why on stderr (out
// of memory, or the data file).
static int chapter1_timing(FILE *f, const char *dir, int max_n, int d, torch_rng *g) {
    float *x = malloc((size_t)max_n * d * sizeof *x), *z = malloc((size_t)max_n * d * sizeof *z);
    float *w = malloc((size_t)max_n * max_n * sizeof *w);
    int rc = x && z && w ? 0 : -1;
    if (rc < 0) fprintf(stderr, PROGRAM ": error: out of memory\n");
    FILE *data = rc == 0 && dir ? open_data_file(PROGRAM, dir, "chapter1-timing.dat") : NULL;
    if (dir && !data) rc = -1;  // open_data_file said why
    if (rc == 0) {
        rng_randn(g, x, (size_t)max_n * d);
        fprintf(f, "self-attention of n random tokens of width d = %d: scores, softmax, weighted sums\n", d);
        fprintf(f, "milliseconds per call, the fastest of %d runs, one thread (%s vectors)\n",
                TIMING_REPEATS, simd_name(simd_best()));
        fprintf(f, "%6s %12s %16s %16s %12s\n", "n", "loops", "plain products", "fast products",
                "loops/fast");
        if (data) fputs("# n loops_ms plain_products_ms fast_products_ms\n", data);
        double ms[TIMING_WAYS] = {0}, half[TIMING_WAYS] = {0};
        for (int n = 8; n <= max_n; n *= 2) {
            for (int k = 0; k < TIMING_WAYS; k++) {
                half[k] = ms[k];
                ms[k] = time_way(WAYS[k], z, w, x, n, d);
            }
            fprintf(f, "%6d %12.4g %16.4g %16.4g %12.1f\n", n, ms[0], ms[1], ms[2], ms[0] / ms[2]);
            if (data) fprintf(data, "%d %.6g %.6g %.6g\n", n, ms[0], ms[1], ms[2]);
        }
        if (max_n >= 16) {
            // 2 n^2 d multiply-adds in the two products, 4 n^2 d operations
            double flop = 4.0 * max_n * max_n * d;
            fprintf(f, "from n = %d to %d the times grow %.1f, %.1f and %.1f times (n^2 d: 4 times)\n",
                    max_n / 2, max_n, ms[0] / half[0], ms[1] / half[1], ms[2] / half[2]);
            fprintf(f, "at n = %d: %.1f, %.1f and %.1f billion operations a second\n", max_n,
                    flop / ms[0] * 1e-6, flop / ms[1] * 1e-6, flop / ms[2] * 1e-6);
        }
    }
    if (data && rc < 0) discard_data_file(data, dir, "chapter1-timing.dat");  // no part of a table
    else if (data && !close_data_file(PROGRAM, data, dir, "chapter1-timing.dat")) rc = -1;
    free(x);
    free(z);
    free(w);
    return rc;
}

#ifndef TESTING
int main(int argc, char **argv) {
    common_options opts = { DEFAULT_SEED, NULL };
    bool timing = false, scaling = false;
    extra_option extra[] = {{"--timing", OPT_FLAG, &timing, 0, 0, ""},
                            {"--scaling", OPT_FLAG, &scaling, 0, 0, ""}};
    int done = cli_exit_status(parse_options_with(argc, argv, PROGRAM, "[--seed N] [--data DIR] [--timing | --scaling]\n"
            "\n"
            "Self-attention with loops and with a matrix product (notebook cells [T2]-[T13]).\n"
            "  --seed N    torch.manual_seed(N) before the first draw; default "
            "3570563066,\n"
            "              the random seed that reproduces the notebook's printed numbers\n"
            "  --data DIR  also write the figure data (chapter1-*.dat) into DIR\n"
            "  --timing    instead, time self-attention of 8 to 2048 random tokens three\n"
            "              ways: loops, plain matrix products, fast ones (a few seconds)\n"
            "  --scaling   instead, block [P1.1]: the scores and the softmax of random\n"
            "              queries and keys of widths 4 to 1024, with and without the\n"
            "              division by sqrt(d)\n"
            "  --help      this message", &opts, extra, 2));
    if (done >= 0) return done;
    if (timing && scaling) {
        fprintf(stderr, PROGRAM ": error: --timing and --scaling are two runs; give one\n");
        return 2;
    }
    if (scaling) {
        torch_rng g;
        rng_seed(&g, opts.seed);
        scaling_row rows[SCALING_WIDTHS];
        if (scaling_run(rows, &g) < 0) {
            fprintf(stderr, PROGRAM ": error: out of memory\n");
            return 1;
        }
        scaling_print(stdout, rows);
        if (opts.data_dir && !scaling_write_data(rows, opts.data_dir)) return 1;
        return finish_output(PROGRAM) ? 0 : 1;
    }
    if (timing) {
        torch_rng g;
        rng_seed(&g, opts.seed);
        if (chapter1_timing(stdout, opts.data_dir, 2048, EMBEDDING_DIM, &g) < 0) return 1;
        return finish_output(PROGRAM) ? 0 : 1;
    }
    chapter1 c;
    int status = chapter1_run(&c, SENTENCE, opts.seed);
    if (status == 0) chapter1_print(&c, stdout);
    if (status == 0 && opts.data_dir) status = chapter1_write_data(&c, opts.data_dir);
    chapter1_free(&c);
    return status == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
