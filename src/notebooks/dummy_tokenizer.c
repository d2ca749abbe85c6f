// dummy_tokenizer.c: the notebook's dummy tokenizer. Dimension legend in
// dummy_tokenizer.h.
#include "notebooks/dummy_tokenizer.h"

#include <string.h>

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
