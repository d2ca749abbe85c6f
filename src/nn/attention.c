// attention.c: the steps of self-attention several chapters share.
// Dimension legend in attention.h.
#include "nn/attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/tensor.h"

//> tokenize
// The notebook's dummy tokenizer: one random id per space-separated word.
int dummy_tokenize(int64_t *ids, char words[][MAX_WORD], const char *text,
                   int vocab_size, torch_rng *g) {
    int n = 0;
    const char *start = text;
    if (*text == '\0') return -1;
    for (;;) {
        const char *end = strchr(start, ' ');
        size_t len = end ? (size_t)(end - start) : strlen(start);
        if (n == MAX_TOKENS || len >= MAX_WORD) return -1;
        memcpy(words[n], start, len);
        words[n][len] = '\0';
        n++;
        if (!end) break;
        start = end + 1;
    }
    rng_randint(g, ids, (size_t)n, 0, vocab_size);  // torch.randint
    return n;
}
//< tokenize

//> embed
// nn.Embedding: looking up a token is copying its row of the table.
// table is (V, d), x is (n, d).
void embed(float *x, const float *table, const int64_t *ids, int n, int d) {
    for (int i = 0; i < n; i++)
        memcpy(x + i * d, table + ids[i] * d, (size_t)d * sizeof(float));
}
//< embed

// table is (V, d), x is (n, d)
float *draw_embedding(float *x, const int64_t *ids, int n, int vocab_size,
                      int d, torch_rng *g) {
    float *table = malloc((size_t)vocab_size * d * sizeof(float));
    if (!table) return NULL;
    rng_embedding_init(g, table, vocab_size, d);
    embed(x, table, ids, n, d);
    return table;
}

//> scaled-softmax
// weights = softmax(scores / sqrt(d)) along each row.
// scores and weights are (n, n).
void attention_weights(float *weights, const float *scores, int n, int d) {
    memmove(weights, scores, (size_t)n * n * sizeof(float));
    scale(weights, 1.0f / sqrtf((float)d), n * n);
    softmax_rows(weights, n, n);
}
//< scaled-softmax
