// reversal_task.c: reversing digit sequences as token ids, batches drawn as
// PyTorch draws them, exact-match scoring. See reversal_task.h.
#include "tasks/reversal_task.h"

#include <stdlib.h>
#include <string.h>

int reversal_batch_alloc(reversal_batch *b, int B) {
    memset(b, 0, sizeof *b);
    b->B = B;
    b->lengths = malloc((size_t)B * sizeof *b->lengths);
    b->digits = malloc((size_t)B * REVERSAL_N_MAX * sizeof *b->digits);
    b->src = malloc((size_t)B * REVERSAL_SRC_LEN * sizeof *b->src);
    b->tgt_in = malloc((size_t)B * REVERSAL_TGT_LEN * sizeof *b->tgt_in);
    b->tgt_out = malloc((size_t)B * REVERSAL_TGT_LEN * sizeof *b->tgt_out);
    if (!b->lengths || !b->digits || !b->src || !b->tgt_in || !b->tgt_out) {
        reversal_batch_free(b);
        return -1;
    }
    return 0;
}

void reversal_batch_free(reversal_batch *b) {
    free(b->lengths);
    free(b->digits);
    free(b->src);
    free(b->tgt_in);
    free(b->tgt_out);
    memset(b, 0, sizeof *b);
}

//> encode
void reversal_encode(int32_t *src, int32_t *tgt_in, int32_t *tgt_out,
                     const int *digits, int n) {
    for (int i = 0; i < REVERSAL_SRC_LEN; i++)
        src[i] = i < n ? REVERSAL_DIGIT0 + digits[i] : REVERSAL_PAD;
    for (int t = 0; t < REVERSAL_TGT_LEN; t++) {
        tgt_in[t] = tgt_out[t] = REVERSAL_PAD;
        int32_t reversed = t < n ? REVERSAL_DIGIT0 + digits[n - 1 - t] : 0;
        if (t < n) tgt_out[t] = reversed;
        if (t == n) tgt_out[t] = REVERSAL_EOS;
        if (t == 0) tgt_in[t] = REVERSAL_BOS;
        else if (t <= n) tgt_in[t] = tgt_out[t - 1];
    }
}
//< encode

//> draw
void reversal_draw(reversal_batch *b, torch_rng *g) {
    const int B = b->B, N = REVERSAL_N_MAX;
    int64_t v;
    for (int r = 0; r < B; r++) {            // randint(1, N + 1, (B,))
        rng_randint(g, &v, 1, 1, N + 1);
        b->lengths[r] = (int)v;
    }
    for (int e = 0; e < B * N; e++) {        // randint(0, 10, (B, N))
        rng_randint(g, &v, 1, 0, 10);
        b->digits[e] = (int)v;
    }
    for (int r = 0; r < B; r++)
        reversal_encode(b->src + r * REVERSAL_SRC_LEN,
                        b->tgt_in + r * REVERSAL_TGT_LEN,
                        b->tgt_out + r * REVERSAL_TGT_LEN, b->digits + r * N,
                        b->lengths[r]);
}
//< draw

uint64_t reversal_key(const int *digits, int n) {
    uint64_t key = 0;
    for (int i = n - 1; i >= 0; i--) key = key * 11 + (uint64_t)(digits[i] + 1);
    return key;
}

int reversal_seen_add(reversal_seen *s, const reversal_batch *b) {
    if (s->n + (size_t)b->B > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        while (cap < s->n + (size_t)b->B) cap *= 2;
        uint64_t *k = realloc(s->keys, cap * sizeof *k);
        if (!k) return -1;
        s->keys = k;
        s->cap = cap;
    }
    for (int r = 0; r < b->B; r++)
        s->keys[s->n++] = reversal_key(b->digits + r * REVERSAL_N_MAX, b->lengths[r]);
    return 0;
}

static int compare_keys(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void reversal_seen_finish(reversal_seen *s) {
    if (s->n == 0) return;
    qsort(s->keys, s->n, sizeof *s->keys, compare_keys);
    size_t kept = 1;
    for (size_t i = 1; i < s->n; i++)
        if (s->keys[i] != s->keys[kept - 1]) s->keys[kept++] = s->keys[i];
    s->n = kept;
}

bool reversal_seen_has(const reversal_seen *s, const int *digits, int n) {
    uint64_t key = reversal_key(digits, n);
    return s->n > 0 && bsearch(&key, s->keys, s->n, sizeof *s->keys, compare_keys) != NULL;
}

void reversal_seen_free(reversal_seen *s) {
    free(s->keys);
    memset(s, 0, sizeof *s);
}

bool reversal_exact(const int32_t *out, const int32_t *tgt_out) {
    for (int t = 0; t < REVERSAL_TGT_LEN; t++) {
        if (out[t] != tgt_out[t]) return false;
        if (tgt_out[t] == REVERSAL_EOS) return true;
    }
    return false;  // tgt_out without an EOS: nothing matches it
}

bool reversal_text(char *text, const int32_t *out) {
    int n = 0;
    for (int t = 0; t < REVERSAL_TGT_LEN; t++) {
        if (out[t] == REVERSAL_EOS) {
            text[n] = '\0';
            return true;
        }
        int digit = out[t] - REVERSAL_DIGIT0;
        text[n++] = digit >= 0 && digit <= 9 ? (char)('0' + digit) : '?';
    }
    text[n] = '\0';
    return false;
}
