// embedding.c: nn.Embedding. Dimension legend in embedding.h.
#include "nn/embedding.h"

#include <stdlib.h>
#include <string.h>

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
