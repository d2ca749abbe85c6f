// chapter6.c: dot-product, trainable and additive attention between two
// real sentences, the notebook "Understanding Attention".
//
// Queries come from one sentence and keys and values from another, each word
// a GloVe vector. The cells are the notebook's, numbered as it numbers them
// (its cells that never ran, "In [None]", take the number after the one
// before: [U4], [U9], [U13], [U16], [U26]); [P6.1] to [P6.4] are its own.
//
//   [U1], [U4]       the two sentences, split on whitespace
//   [U8], [U9]       their GloVe vectors; the words that have none
//   [U11], [U13]     scaled dot-product attention, and the matrix it plots
//   [U15], [U16]     trainable dot-product attention, nn.Linear(d, 256) maps
//   [U25], [U26]     the notebook's additive cells: they call the trainable module
//   [P6.1]           additive attention done right, every (query, key) pair
//   [P6.2]           what each score function costs
//   [P6.3], [P6.4]   the notebook's AdditiveAttention.forward: Q + K, refused by
//                    PyTorch unless the two sentences have the same length
//
// Dimension legend:
//   n_q  words in the query sentence (8)
//   n_k  words in the key sentence (9); the values are the keys
//   d    width of a GloVe vector (100; the notebook's file had 300)
//   d_h  width of the trainable maps, num_out_features (256)
//
// Usage: ./chapter6 [--query TEXT] [--key TEXT] [--glove FILE] [--seed N]
//                   [--data DIR]
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notebooks/additive.h"
#include "notebooks/attention_module.h"
#include "core/cli.h"
#include "core/outputs.h"
#include "core/grow.h"
#include "text/glove.h"
#include "layers/linear.h"
#include "core/print.h"
#include "core/rng.h"
#include "core/strmap.h"
#include "layers/softmax.h"
#include "layers/tensor.h"
#include "text/utf8.h"

#define PROGRAM "chapter6"
#define QUERY_SENTENCE "The teacher praised a student because she improved"
#define KEY_SENTENCE "A student asked the teacher to help her improving"
#define DEFAULT_GLOVE "data/glove/wink-sg-100d.txt"
#define HIDDEN 256        // the notebook's num_out_features
// The notebook set no seed and printed no random numbers, so any seed
// reproduces it; 0 is ours.
#define DEFAULT_SEED 0
#define SHOW_COLS 4       // columns shown of an (n, d) tensor
#define MAX_WORDS 10000   // words in a sentence
#define MAX_DIM 10000     // numbers in a GloVe vector
#define LONG_SELF_ATTENTION 512  // tokens, for cell [P6.2]'s comparison

static const char USAGE[] =
    "[--query TEXT] [--key TEXT] [--glove FILE] [--seed N] [--data DIR]\n"
    "\n"
    "Dot-product, trainable and additive attention from the words of one sentence\n"
    "(the queries) to those of another (the keys and values), each word a GloVe\n"
    "vector.\n"
    "  --query TEXT  the query sentence (default \"" QUERY_SENTENCE "\")\n"
    "  --key TEXT    the key sentence (default \"" KEY_SENTENCE "\")\n"
    "  --glove FILE  GloVe vectors in the standard text format (default\n"
    "                " DEFAULT_GLOVE ", which make data fetches;\n"
    "                glove.6B.100d.txt or any other width works too)\n"
    "  --seed N      torch.manual_seed(N) before the trainable and additive\n"
    "                modules are built (default 0)\n"
    "  --data DIR    also write the figure data (chapter6-*.dat) into DIR\n"
    "  --help        this message";

typedef struct {
    const char *query, *key, *glove;
    uint64_t seed;
} ch6_options;

//> sentence
// A sentence split as Python's str.split() splits it: on runs of
// whitespace (ASCII here), with none at either end giving an empty word.
typedef struct {
    char *text;    // a copy of the sentence, cut into words in place
    char **words;  // (n) pointers into text
    int n;
} sentence;

// Returns 0, -1 when out of memory, or -2 over MAX_WORDS words.
static int sentence_split(sentence *s, const char *text) {
    s->n = 0;
    s->words = NULL;
    s->text = strdup(text);
    if (!s->text) return -1;
    size_t cap = 0, len = strlen(s->text), i = 0, start, wlen;
    while (py_split_next(s->text, len, C_SPACE, &i, &start, &wlen)) {
        if (s->n == MAX_WORDS) return -2;
        char **w = grow_array(s->words, &cap, (size_t)s->n + 1, sizeof *w, 16);
        if (!w) return -1;
        s->words = w;
        s->words[s->n++] = s->text + start;
        s->text[start + wlen] = '\0';
    }
    return 0;
}
//< sentence

static void sentence_free(sentence *s) {
    free(s->text);
    free(s->words);
    memset(s, 0, sizeof *s);
}

// The smallest and largest of some numbers.
typedef struct {
    float lo, hi;
} value_range;

// How a word got its vector.
typedef enum { FOUND_EXACT, FOUND_LOWER, NOT_FOUND } found_how;

typedef struct {
    sentence query, key;
    size_t d;                    // vector width
    size_t glove_lines;          // lines of the GloVe file
    size_t numbers, rounded;     // numbers in the words' vectors; moved by round6
    float *q_x, *k_x;            // (n_q, d), (n_k, d) the embeddings
    found_how *q_how, *k_how;    // (n_q), (n_k)
    // [U11] dot-product attention, values = keys
    float *dot_weights;          // (n_q, n_k)
    float *dot_out;              // (n_q, d)
    // [U15] trainable dot-product attention
    attention_module trainable;  // Wq, Wk, Wv: nn.Linear(d, d_h)
    float *tr_weights;           // (n_q, n_k)
    float *tr_out;               // (n_q, d_h)
    // [U25] the notebook's "additive" cell, which runs the trainable module
    float *additive_cell_weights; // (n_q, n_k)
    // [P6.3], [P6.4] the notebook's AdditiveAttention.forward
    additive_attention additive; // Wq, Wk: nn.Linear(d, d_h); Ws: nn.Linear(d_h, 1)
    char additive_forward_error[256]; // [P6.3] PyTorch's message for Q + K
    int n_equal;                 // [P6.4] n_q, and that many key words (or 0)
    float *equal_length_weights; // (1, n_equal); room for (1, max(n_q, n_k))
    float *equal_length_out;     // (1, d)
    float *diagonal_weights;     // (1, n_equal) softmax of add_scores' diagonal
    // [P6.1] additive attention done right
    float *add_scores;           // (n_q, n_k)
    float *add_scores_loop;      // (n_q, n_k) the reference double loop
    float *add_weights;          // (n_q, n_k)
    float *add_out;              // (n_q, d)
    // what the printout says of the words without a vector: the smallest and
    // largest weight of each query's row, of each key's column
    value_range *dot_query_range, *tr_query_range, *add_query_range;  // (n_q)
    value_range *dot_key_range;  // (n_k) over the column of dot_weights
} chapter6;

static void chapter6_free(chapter6 *c) {
    sentence_free(&c->query);
    sentence_free(&c->key);
    attention_module_free(&c->trainable);
    additive_free(&c->additive);
    float *arrays[] = { c->q_x, c->k_x, c->dot_weights, c->dot_out,
                        c->tr_weights, c->tr_out, c->additive_cell_weights,
                        c->equal_length_weights, c->equal_length_out,
                        c->diagonal_weights, c->add_scores, c->add_scores_loop,
                        c->add_weights, c->add_out };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
    value_range *ranges[] = { c->dot_query_range, c->tr_query_range,
                              c->add_query_range, c->dot_key_range };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) free(ranges[i]);
    free(c->q_how);
    free(c->k_how);
    memset(c, 0, sizeof *c);
}

//> round6
// The notebook's loader keeps np.round(np.asarray(values, dtype='float32'),
// decimals=6): in float32, x * 1e6 rounded to a whole number, then / 1e6.
// Now and then it moves a number by one unit in the last place.
static float round6(float x) {
    return rintf(x * 1e6f) / 1e6f;
}
//< round6

// The word lower-cased (ASCII letters only) into out, size cap.
static void lower_word(char *out, const char *w, size_t cap) {
    size_t i = 0;
    for (; w[i] && i + 1 < cap; i++) out[i] = (char)tolower((unsigned char)w[i]);
    out[i] = '\0';
}

//> embeddings
// The notebook's get_glove_embeddings for one sentence: the word's vector,
// else its lower-cased form's, else a row of zeros. vecs holds a vector per
// word of wanted, found says which have one. x is (n, d).
static void get_glove_embeddings(float *x, found_how *how, const sentence *s,
                                 const strmap *wanted, const float *vecs,
                                 const bool *found, size_t d) {
    for (int i = 0; i < s->n; i++) {
        char lower[4096];
        lower_word(lower, s->words[i], sizeof lower);
        long exact = strmap_find(wanted, s->words[i], strlen(s->words[i]));
        long low = strmap_find(wanted, lower, strlen(lower));
        long id = -1;
        how[i] = NOT_FOUND;
        if (exact >= 0 && found[exact]) {
            id = exact;
            how[i] = FOUND_EXACT;
        } else if (low >= 0 && found[low]) {
            id = low;
            how[i] = FOUND_LOWER;
        }
        for (size_t t = 0; t < d; t++)
            x[i * d + t] = id >= 0 ? vecs[(size_t)id * d + t] : 0.0f;
    }
}
//< embeddings

// Reads the vectors of the two sentences' words (as written and
// lower-cased) from the GloVe file at path, in one pass. Returns 0, or -1
// with the reason in err.
static int load_sentence_vectors(chapter6 *c, const char *path, char *err,
                                 size_t errlen) {
    if (glove_dimension(&c->d, path, err, errlen) != 0) return -1;
    if (c->d > MAX_DIM) {
        snprintf(err, errlen, "%s: %zu numbers a word; at most %d are read",
                 path, c->d, MAX_DIM);
        return -1;
    }
    strmap wanted;
    strmap_init(&wanted);
    const sentence *both[] = { &c->query, &c->key };
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < both[s]->n; i++) {
            char lower[4096];
            const char *w = both[s]->words[i];
            lower_word(lower, w, sizeof lower);
            if (strmap_intern(&wanted, w, strlen(w), NULL) < 0 ||
                strmap_intern(&wanted, lower, strlen(lower), NULL) < 0) {
                strmap_free(&wanted);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
        }
    const size_t d = c->d, n_q = (size_t)c->query.n, n_k = (size_t)c->key.n;
    float *vecs = calloc(wanted.n * d, sizeof *vecs);
    bool *found = calloc(wanted.n, sizeof *found);
    c->q_x = malloc(n_q * d * sizeof(float));
    c->k_x = malloc(n_k * d * sizeof(float));
    c->q_how = malloc(n_q * sizeof *c->q_how);
    c->k_how = malloc(n_k * sizeof *c->k_how);
    int rc = -1;
    if (!vecs || !found || !c->q_x || !c->k_x || !c->q_how || !c->k_how) {
        snprintf(err, errlen, "out of memory for the vectors");
        goto done;
    }
    if (glove_lookup(vecs, found, &c->glove_lines, path, d, &wanted, err, errlen) != 0)
        goto done;
    for (size_t w = 0; w < wanted.n; w++) {
        if (!found[w]) continue;
        for (size_t t = 0; t < d; t++) {
            float *v = vecs + w * d + t;  // finite: glove_lookup refuses nan and inf
            c->numbers++;
            c->rounded += round6(*v) != *v;
            *v = round6(*v);
        }
    }
    get_glove_embeddings(c->q_x, c->q_how, &c->query, &wanted, vecs, found, d);
    get_glove_embeddings(c->k_x, c->k_how, &c->key, &wanted, vecs, found, d);
    rc = 0;
done:
    free(vecs);
    free(found);
    strmap_free(&wanted);
    return rc;
}

//> dot-product
// DotProductAttention.forward with values = keys:
//   weights = softmax(queries keys^T / sqrt(d)),  out = weights values.
// queries is (n_q, d), keys and values are (n_k, d), weights is (n_q, n_k),
// out is (n_q, d).
static void dot_product_attention(float *out, float *weights, const float *queries,
                                  const float *keys, const float *values,
                                  int n_q, int n_k, int d) {
    matmul_transposed(weights, queries, keys, n_q, d, n_k);
    const float root = (float)sqrt((double)d);  // keys.size(-1) ** 0.5
    for (int i = 0; i < n_q * n_k; i++) weights[i] /= root;
    softmax_rows(weights, n_q, n_k);
    matmul(out, weights, values, n_q, n_k, d);
}
//< dot-product

//> trainable
// TrainableAttention.forward: the same, on Q = Wq(queries), K = Wk(keys)
// and V = Wv(values), each an nn.Linear(d, d_h). Q is (n_q, d_h), K and V are
// (n_k, d_h), weights is (n_q, n_k), out is (n_q, d_h). Returns 0, or -1 when
// out of memory.
static int trainable_attention(float *out, float *weights, const attention_module *m,
                               const float *queries, const float *keys,
                               const float *values, int n_q, int n_k) {
    const int d = m->d_in, d_h = m->d_out;
    float *Q = malloc((size_t)n_q * d_h * sizeof(float));
    float *K = malloc((size_t)n_k * d_h * sizeof(float));
    float *V = malloc((size_t)n_k * d_h * sizeof(float));
    if (!Q || !K || !V) {
        free(Q); free(K); free(V);
        return -1;
    }
    linear_forward(Q, queries, m->q_weight, m->q_bias, n_q, d, d_h, WEIGHT_OUT_IN);
    linear_forward(K, keys, m->k_weight, m->k_bias, n_k, d, d_h, WEIGHT_OUT_IN);
    linear_forward(V, values, m->v_weight, m->v_bias, n_k, d, d_h, WEIGHT_OUT_IN);
    dot_product_attention(out, weights, Q, K, V, n_q, n_k, d_h);
    free(Q); free(K); free(V);
    return 0;
}
//< trainable

// Allocates count floats (at least one) into each of a, b, c2 and d2 that
// is not NULL. Returns false if any allocation failed.
static bool alloc_floats(size_t count, float **a, float **b, float **c2, float **d2) {
    float **all[] = { a, b, c2, d2 };
    bool ok = true;
    for (int i = 0; i < 4; i++)
        if (all[i]) ok = (*all[i] = malloc((count ? count : 1) * sizeof(float))) && ok;
    return ok;
}

// The smallest and largest entry of each row of m, (rows, cols), into
// range, (rows); with by_column, of each column, into range, (cols).
static void ranges_of(value_range *range, const float *m, int rows, int cols,
                      bool by_column) {
    int lines = by_column ? cols : rows, along = by_column ? rows : cols;
    for (int a = 0; a < lines; a++) {
        const float *first = by_column ? m + a : m + a * cols;
        const int step = by_column ? cols : 1;
        range[a].lo = range[a].hi = first[0];
        for (int b = 1; b < along; b++) {
            range[a].lo = fminf(range[a].lo, first[b * step]);
            range[a].hi = fmaxf(range[a].hi, first[b * step]);
        }
    }
}

// Runs every cell. Returns 0, or -1 with the reason in err.
static int chapter6_run(chapter6 *c, const ch6_options *o, char *err, size_t errlen) {
    memset(c, 0, sizeof *c);
    int split = sentence_split(&c->query, o->query);
    if (split == 0) split = sentence_split(&c->key, o->key);
    if (split == -2) {
        snprintf(err, errlen, "a sentence has more than %d words", MAX_WORDS);
        return -1;
    }
    if (split < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (c->query.n == 0 || c->key.n == 0) {
        snprintf(err, errlen, "the %s sentence has no words: attention needs at least "
                 "one query and one key", c->query.n == 0 ? "query" : "key");
        return -1;
    }
    if (load_sentence_vectors(c, o->glove, err, errlen) != 0) return -1;
    const int n_q = c->query.n, n_k = c->key.n, d = (int)c->d, d_h = HIDDEN;
    c->n_equal = n_q <= n_k ? n_q : 0;  // [P6.4]: the first n_q key words
    if (!alloc_floats((size_t)n_q * n_k, &c->dot_weights, &c->tr_weights,
                      &c->additive_cell_weights, &c->add_weights) ||
        !alloc_floats((size_t)n_q * n_k, &c->add_scores, &c->add_scores_loop, NULL, NULL) ||
        !alloc_floats((size_t)n_q * d, &c->dot_out, &c->add_out, NULL, NULL) ||
        !alloc_floats((size_t)n_q * d_h, &c->tr_out, NULL, NULL, NULL) ||
        !alloc_floats((size_t)d, &c->equal_length_out, NULL, NULL, NULL) ||
        !alloc_floats((size_t)(n_q > n_k ? n_q : n_k), &c->equal_length_weights,
                      &c->diagonal_weights, NULL, NULL) ||
        !(c->dot_query_range = malloc((size_t)n_q * sizeof(value_range))) ||
        !(c->tr_query_range = malloc((size_t)n_q * sizeof(value_range))) ||
        !(c->add_query_range = malloc((size_t)n_q * sizeof(value_range))) ||
        !(c->dot_key_range = malloc((size_t)n_k * sizeof(value_range))) ||
        attention_module_alloc(&c->trainable, d, d_h) != 0 ||
        additive_alloc(&c->additive, d, d, d_h) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    //> cells
    dot_product_attention(c->dot_out, c->dot_weights, c->q_x, c->k_x, c->k_x,
                          n_q, n_k, d);                               // [U11]
    torch_rng g;
    rng_seed(&g, o->seed);
    attention_module_init(&c->trainable, &g);  // [U14]: Wq, Wk, Wv in that order
    int rc = trainable_attention(c->tr_out, c->tr_weights, &c->trainable,
                                 c->q_x, c->k_x, c->k_x, n_q, n_k);   // [U15]
    additive_init(&c->additive, &g);                                  // [U25]
    // [U25] as the notebook wrote it: trainable_attention, not additive_attention
    float *scratch = malloc((size_t)n_q * d_h * sizeof(float));
    rc |= !scratch || trainable_attention(scratch, c->additive_cell_weights,
                                          &c->trainable, c->q_x, c->k_x, c->k_x,
                                          n_q, n_k);
    free(scratch);
    additive_notebook_forward(c->equal_length_out, c->equal_length_weights,
                              &c->additive, c->q_x, c->k_x, c->k_x, n_q, n_k, d,
                              c->additive_forward_error,
                              sizeof c->additive_forward_error);      // [P6.3]
    rc |= additive_scores(c->add_scores, NULL, NULL, &c->additive, c->q_x,
                          c->k_x, n_q, n_k);                          // [P6.1]
    additive_scores_loop(c->add_scores_loop, &c->additive, c->q_x, c->k_x, n_q, n_k);
    rc |= additive_attention_forward(c->add_out, c->add_weights, &c->additive,
                                     c->q_x, c->k_x, c->k_x, n_q, n_k, d);
    //< cells
    if (c->n_equal) {  // [P6.4]: the same forward on sentences of equal length
        char equal_length_error[256];
        if (additive_notebook_forward(c->equal_length_out, c->equal_length_weights,
                                      &c->additive, c->q_x, c->k_x, c->k_x, n_q,
                                      c->n_equal, d, equal_length_error,
                                      sizeof equal_length_error) != 0) {
            snprintf(err, errlen, "%s", equal_length_error);
            return -1;
        }
        // softmax of the diagonal of the full score matrix of [P6.1]
        for (int i = 0; i < c->n_equal; i++)
            c->diagonal_weights[i] = c->add_scores[i * n_k + i];
        softmax_rows(c->diagonal_weights, 1, c->n_equal);
    }
    ranges_of(c->dot_query_range, c->dot_weights, n_q, n_k, false);
    ranges_of(c->tr_query_range, c->tr_weights, n_q, n_k, false);
    ranges_of(c->add_query_range, c->add_weights, n_q, n_k, false);
    ranges_of(c->dot_key_range, c->dot_weights, n_q, n_k, true);
    if (rc != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

// ------------------------------------------------------------------ printing

// A Python string's repr: 'word', or "it's" when it holds a ' and no ".
static void put_repr(FILE *f, const char *s) {
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    fputc(q, f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\' || *p == q) fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\x%02x", *p);
        else fputc(*p, f);
    }
    fputc(q, f);
}

static void put_words(FILE *f, const sentence *s) {
    fputc('[', f);
    for (int i = 0; i < s->n; i++) {
        if (i) fputs(", ", f);
        put_repr(f, s->words[i]);
    }
    fputs("]\n", f);
}

// The matrix m (rows, cols) with the query words down the side and the key
// words across the top, as the notebook's plot_attention shows it.
static void print_labelled(FILE *f, const float *m, const sentence *rows,
                           const sentence *cols, int decimals) {
    int w0 = 0;
    for (int i = 0; i < rows->n; i++)
        if ((int)strlen(rows->words[i]) > w0) w0 = (int)strlen(rows->words[i]);
    fprintf(f, "%*s", w0, "");
    for (int j = 0; j < cols->n; j++) {
        int w = (int)strlen(cols->words[j]);
        fprintf(f, " %*s", w > decimals + 2 ? w : decimals + 2, cols->words[j]);
    }
    fputc('\n', f);
    for (int i = 0; i < rows->n; i++) {
        fprintf(f, "%-*s", w0, rows->words[i]);
        for (int j = 0; j < cols->n; j++) {
            int w = (int)strlen(cols->words[j]);
            fprintf(f, " %*.*f", w > decimals + 2 ? w : decimals + 2, decimals,
                    (double)m[i * cols->n + j]);
        }
        fputc('\n', f);
    }
}

// For each query word without a vector: what its row of weights is, from
// range, (n_q), the rows' smallest and largest weights.
static void print_zero_queries(FILE *f, const chapter6 *c, const value_range *range,
                               const char *why) {
    for (int i = 0; i < c->query.n; i++) {
        if (c->q_how[i] != NOT_FOUND) continue;
        fprintf(f, "query '%s' (a zero row): weights from %.4f to %.4f;\n  %s\n",
                c->query.words[i], (double)range[i].lo, (double)range[i].hi, why);
    }
}

// Cells [U1]-[U9]: the sentences, their words and their GloVe vectors.
static void print_words_and_vectors(const chapter6 *c, const ch6_options *o, FILE *f) {
    const int n_q = c->query.n, n_k = c->key.n, d = (int)c->d, d_h = HIDDEN;
    const int shape_qd[] = { n_q, d }, shape_kd[] = { n_k, d };

    print_cell(f, "U1", "the query and key sentences");
    fprintf(f, "query_sentence = \"%s\"\nkey_sentence = \"%s\"\n", o->query, o->key);

    print_cell(f, "U4", "print(query_tokens); print(key_tokens)");
    put_words(f, &c->query);
    put_words(f, &c->key);

    print_cell(f, "U8", "the words' GloVe vectors: the word, else its lower-cased form, "
                     "else zeros");
    fprintf(f, "%s: %zu lines, %zu number%s a word", o->glove, c->glove_lines, c->d,
            c->d == 1 ? "" : "s");
    if (c->d != 100)
        fprintf(f, " (not 100: the maps below become nn.Linear(%zu, %d))", c->d, d_h);
    fprintf(f, "\nnp.round(..., decimals=6) moved %zu of the %zu number%s of these words' "
            "vectors\n", c->rounded, c->numbers, c->numbers == 1 ? "" : "s");
    const sentence *both[] = { &c->query, &c->key };
    const found_how *hows[] = { c->q_how, c->k_how };
    const char *names[] = { "query", "key" };
    for (int s = 0; s < 2; s++) {
        int lower = 0, none = 0;
        for (int i = 0; i < both[s]->n; i++) {
            lower += hows[s][i] == FOUND_LOWER;
            none += hows[s][i] == NOT_FOUND;
        }
        fprintf(f, "%s words found lower-cased:%s", names[s], lower ? "" : " none");
        for (int i = 0; i < both[s]->n; i++)
            if (hows[s][i] == FOUND_LOWER) fprintf(f, " '%s'", both[s]->words[i]);
        fprintf(f, "\n%s words with no vector, so a row of zeros:%s", names[s],
                none ? "" : " none");
        for (int i = 0; i < both[s]->n; i++)
            if (hows[s][i] == NOT_FOUND) fprintf(f, " '%s'", both[s]->words[i]);
        fputc('\n', f);
    }

    print_cell(f, "U9", "print(query_embeddings[:, :4]); print(key_embeddings[:, :4])");
    print_tensor_columns(f, c->q_x, n_q, d, SHOW_COLS);
    print_tensor_columns(f, c->k_x, n_k, d, SHOW_COLS);
    fputs("query_embeddings.shape = ", f);
    print_size(f, 2, shape_qd);
    fputs("key_embeddings.shape = ", f);
    print_size(f, 2, shape_kd);
}

// Cells [U11]-[U16]: dot-product and trainable attention.
static void print_dot_and_trainable(const chapter6 *c, const ch6_options *o, FILE *f) {
    const int n_q = c->query.n, n_k = c->key.n, d = (int)c->d, d_h = HIDDEN;
    const int shape_w[] = { n_q, n_k }, shape_qd[] = { n_q, d };
    const int shape_qh[] = { n_q, d_h };

    print_cell(f, "U11", "dot-product attention: attn_matrix, attn_output[:, :4]");
    print_tensor(f, c->dot_weights, 2, shape_w);
    print_tensor_columns(f, c->dot_out, n_q, d, SHOW_COLS);
    print_size(f, 2, shape_qd);
    print_zero_queries(f, c, c->dot_query_range, "every score q.k is 0: uniform weights, and "
                       "the output is the plain average of the keys");
    for (int j = 0; j < n_k; j++) {
        if (c->k_how[j] != NOT_FOUND) continue;
        fprintf(f, "key '%s' (a zero row): score 0 for every query, weights from %.4f "
                "to %.4f;\n  its value adds nothing to the outputs, but its weight is "
                "taken from the other keys\n", c->key.words[j],
                (double)c->dot_key_range[j].lo, (double)c->dot_key_range[j].hi);
    }

    print_cell(f, "U13", "plot_attention(query_tokens, key_tokens, attn_matrix)");
    print_labelled(f, c->dot_weights, &c->query, &c->key, 2);

    print_cell(f, "U15", "trainable attention, torch.manual_seed(N) first: "
                      "trainable_attn_matrix, output[:, :4]");
    fprintf(f, "seed %llu; Wq, Wk, Wv = nn.Linear(%d, %d) in that order\n",
            (unsigned long long)o->seed, d, d_h);
    print_tensor(f, c->tr_weights, 2, shape_w);
    print_tensor_columns(f, c->tr_out, n_q, d_h, SHOW_COLS);
    print_size(f, 2, shape_qh);
    print_zero_queries(f, c, c->tr_query_range, "Wq maps a zero row to its bias, "
                       "so the weights are no longer uniform");

    print_cell(f, "U16", "plot_attention(..., trainable_attn_matrix)");
    print_labelled(f, c->tr_weights, &c->query, &c->key, 2);
}

// Cells [U25]-[U26] and [P6.1]-[P6.4]: the notebook's additive cells, additive
// attention done right, what each score costs, and the notebook's AdditiveAttention.
static void print_additive(const chapter6 *c, FILE *f) {
    const int n_q = c->query.n, n_k = c->key.n, d = (int)c->d, d_h = HIDDEN;
    const int shape_w[] = { n_q, n_k }, shape_qd[] = { n_q, d };

    print_cell(f, "U25", "additive_attention = AdditiveAttention(); the notebook then "
                      "calls trainable_attention");
    fprintf(f, "AdditiveAttention draws Wq, Wk = nn.Linear(%d, %d) and Ws = nn.Linear(%d, 1);\n"
            "it is never called.\n", d, d_h, d_h);
    fprintf(f, "max |additive_attn_matrix - trainable_attn_matrix| = %g\n",
            (double)max_abs_diff(c->additive_cell_weights, c->tr_weights, n_q * n_k));

    print_cell(f, "U26", "plot_attention(..., additive_attn_matrix): the trainable "
                      "matrix of [U16] again");
    print_labelled(f, c->additive_cell_weights, &c->query, &c->key, 2);

    print_cell(f, "P6.1", "additive attention done right, "
                      "w . tanh(Wq q_i + Wk k_j + b) + c");
    print_tensor(f, c->add_weights, 2, shape_w);
    print_tensor_columns(f, c->add_out, n_q, d, SHOW_COLS);
    print_size(f, 2, shape_qd);
    fprintf(f, "max |scores - scores of the plain double loop| = %.2g\n",
            (double)max_abs_diff(c->add_scores, c->add_scores_loop, n_q * n_k));
    print_zero_queries(f, c, c->add_query_range, "Wq maps a zero row to its bias");
    print_labelled(f, c->add_weights, &c->query, &c->key, 2);

    print_cell(f, "P6.2", "what the two score functions cost here");
    const long long pairs = (long long)n_q * n_k;
    fprintf(f, "projections, in both: Wq on %d queries, Wk on %d keys: %lld multiply-adds\n",
            n_q, n_k, (long long)(n_q + n_k) * d * d_h);
    fprintf(f, "dot-product scores: one (%d x %d) @ (%d x %d) product: %lld multiply-adds\n",
            n_q, d_h, d_h, n_k, pairs * d_h);
    fprintf(f, "additive scores: %lld pairs x %d: %lld additions, tanh and multiply-adds;\n"
            "  Ws(tanh(Q[:, None] + K[None])) builds a (%d, %d, %d) tensor, %lld floats\n",
            pairs, d_h, pairs * d_h, n_q, n_k, d_h, pairs * d_h);
    const long long n = LONG_SELF_ATTENTION, big = n * n * d_h;
    fprintf(f, "self-attention over %lld tokens: that tensor is (%lld, %lld, %d), %lld floats, "
            "%lld MiB,\n  where the dot-product scores are one (%lld, %lld) matrix, %lld MiB\n",
            n, n, n, d_h, big, big * 4 >> 20, n, n, n * n * 4 >> 20);

    print_cell(f, "P6.3", "the notebook's AdditiveAttention.forward, "
                      "Ws(tanh(Q + K)).transpose(-2, -1)");
    fprintf(f, "Q = Wq(query_embeddings) is (%d, %d), K = Wk(key_embeddings) is (%d, %d)\n",
            n_q, d_h, n_k, d_h);
    if (c->additive_forward_error[0])
        fprintf(f, "%s raises RuntimeError:\n  %s\n",
                strncmp(c->additive_forward_error, "mat1", 4) == 0 ? "attn_matrix @ V" : "Q + K", c->additive_forward_error);
    else
        fprintf(f, "Q + K broadcasts to (%d, %d): no error with these sentences\n",
                n_q > n_k ? n_q : n_k, d_h);

    print_cell(f, "P6.4", "the same forward when both sentences have the same length");
    if (c->n_equal) {
        fprintf(f, "queries: the %d query words\nkeys: the first %d key words,", n_q, c->n_equal);
        for (int j = 0; j < c->n_equal; j++) fprintf(f, " %s", c->key.words[j]);
        fputc('\n', f);
        const int shape_1n[] = { 1, c->n_equal }, shape_1d[] = { 1, d };
        fputs("attn_matrix, ", f);
        print_size(f, 2, shape_1n);
        print_tensor(f, c->equal_length_weights, 2, shape_1n);
        fputs("attn_output, ", f);
        print_size(f, 2, shape_1d);
        fputs("one row, not one per query: entry i scores query i against key i alone,\n"
              "and the softmax runs over the pairs. It is the softmax of the diagonal\n"
              "of the full score matrix of [P6.1]:\n", f);
        print_tensor(f, c->diagonal_weights, 2, shape_1n);
    } else {
        fputs("the key sentence is shorter than the query sentence: no example\n", f);
    }
}

static void chapter6_print(const chapter6 *c, const ch6_options *o, FILE *f) {
    fputs("[U1]-[U26]: cells of the notebook \"Understanding Attention\" (U), numbered as it\n"
          "numbers them (a cell that never ran takes the number after the one before).\n"
          "[P6.1]-[P6.4]: this program's own blocks.\n", f);
    print_words_and_vectors(c, o, f);
    print_dot_and_trainable(c, o, f);
    print_additive(c, f);
}

// The three matrices for the figures.
static int chapter6_write_data(const chapter6 *c, const char *dir) {
    const char *const *q = (const char *const *)c->query.words;
    const char *const *k = (const char *const *)c->key.words;
    const int n_q = c->query.n, n_k = c->key.n;
    bool ok = write_heatmap(PROGRAM, dir, "chapter6-dot.dat", c->dot_weights, n_q, n_k, q, k)
           && write_heatmap(PROGRAM, dir, "chapter6-trainable.dat", c->tr_weights, n_q, n_k, q, k)
           && write_heatmap(PROGRAM, dir, "chapter6-additive.dat", c->add_weights, n_q, n_k, q, k);
    return ok ? 0 : -1;
}

// Parses the options into o. Returns -1 to run, else the exit status.
static int parse_args(int argc, char **argv, ch6_options *o, const char **data_dir) {
    o->query = QUERY_SENTENCE;
    o->key = KEY_SENTENCE;
    o->glove = DEFAULT_GLOVE;
    common_options common = { DEFAULT_SEED, NULL };
    const extra_option extra[] = {
        { "--query", OPT_STRING, &o->query, 0, 0, "a sentence" },
        { "--key", OPT_STRING, &o->key, 0, 0, "a sentence" },
        { "--glove", OPT_STRING, &o->glove, 0, 0, "a GloVe file" },
    };
    int done = cli_exit_status(parse_options_with(argc, argv, PROGRAM, USAGE, &common, extra, 3));
    if (done >= 0) return done;
    o->seed = common.seed, *data_dir = common.data_dir;
    return data_spares_inputs(PROGRAM, common.data_dir, &o->glove, 1) ? -1 : 1;
}

#ifndef TESTING
int main(int argc, char **argv) {
    ch6_options o;
    const char *data_dir = NULL;
    int status = parse_args(argc, argv, &o, &data_dir);
    if (status >= 0) return status;
    chapter6 *c = malloc(sizeof *c);
    if (!c) {
        fprintf(stderr, PROGRAM ": error: out of memory\n");
        return 1;
    }
    char err[1024];
    status = chapter6_run(c, &o, err, sizeof err);
    if (status != 0) {
        fprintf(stderr, PROGRAM ": error: %s\n", err);
        if (strstr(err, DEFAULT_GLOVE))
            fprintf(stderr, PROGRAM ": make data fetches the vectors; --glove FILE "
                    "reads others\n");
    } else {
        chapter6_print(c, &o, stdout);
        if (data_dir) status = chapter6_write_data(c, data_dir);
    }
    chapter6_free(c);
    free(c);
    return status == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
