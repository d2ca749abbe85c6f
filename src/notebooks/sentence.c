// sentence.c: a sentence tokenized and embedded as the notebook's cells
// [T3]-[T4] do. Dimension legend in sentence.h.
#include "notebooks/sentence.h"

#include <stdlib.h>

#include "layers/embedding.h"

// table is (V, d), x is (n, d): one id at a time, each fits an int32_t
void embedding_forward_int64(float *x, const float *table, const int64_t *ids, int n, int d) {
    for (int i = 0; i < n; i++) {
        int32_t id = (int32_t)ids[i];
        embedding_forward(x + (long)i * d, &id, table, 1, d);
    }
}

// table is (V, d), x is (n, d)
float *draw_embedding(float *x, const int64_t *ids, int n, int vocab_size,
                      int d, torch_rng *g) {
    float *table = malloc((size_t)vocab_size * d * sizeof(float));
    if (!table) return NULL;
    rng_embedding_init(g, table, vocab_size, d);
    embedding_forward_int64(x, table, ids, n, d);
    return table;
}

// x is (n, d)
int embed_sentence(float *x, int64_t *ids, char words[][MAX_WORD],
                   float **table, const char *sentence, int vocab_size, int d,
                   torch_rng *g) {
    int n = dummy_tokenize(ids, words, sentence, vocab_size, g);
    if (n < 0) return EMBED_BAD_SENTENCE;
    float *t = draw_embedding(x, ids, n, vocab_size, d, g);
    if (!t) return EMBED_NO_MEMORY;
    if (table) *table = t;
    else free(t);
    return n;
}
