// bigram.h: the bigram model of a text of ids, counted: the probability of
// each id given the one before it, the simplest language model there is,
// and what a trained transformer must beat.
//
//   V     the vocabulary: ids 0 .. V - 1
//   n     ids of a text
//
// Counted on a training text: c(a, b) how often b follows a, c(a) how often
// a is followed by anything. Smoothed by adding one to every count
// (Laplace's add-one), so that a pair the training text never shows still
// has a probability:
//
//   P(b | a) = (c(a, b) + 1) / (c(a) + V)
//
// Add-one has nothing to tune, so nothing is tuned on the held-out text; on
// a training text of millions of characters and V = 81 it moves little
// probability (it matters most for characters that are rare after one
// another).
//
// Its cost of a held-out text is the mean of -log2 P(b | a) over the text's
// characters, in bits per character: the number of bits an arithmetic coder
// driven by the model would spend per character.
#ifndef ATTN_BIGRAM_H
#define ATTN_BIGRAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int V;
    double *bits;  // (V, V) bits[a V + b] = -log2 P(b | a)
} bigram_model;

// Counts the n - 1 pairs of ids (n, each in 0 .. V - 1). Returns 0, or -1
// when out of memory.
int bigram_fit(bigram_model *m, const int32_t *ids, size_t n, int V);
void bigram_free(bigram_model *m);

// The mean of -log2 P(ids[i] | ids[i - 1]) over the n ids, in bits per
// character, with prev the id before ids[0] (the last one of the text they
// follow).
double bigram_bits(const bigram_model *m, int32_t prev, const int32_t *ids, size_t n);

#endif
