// chapter9_attention.h: chapter 9's block on what the trained heads look
// at. One sentence of the held-out novel, found by a rule (the first
// paragraph that is a single line opening with a quotation mark, of at most
// ATTN_SENTENCE_MAX characters), goes through the model once; every head's
// weights over it are kept (gpt_attention_weights), each head is summed up
// by its mean weight on five sets of keys of each query, and the heads that
// lead two of them are drawn (figures/09-attention.gp).
//
//   n     the sentence's characters (at most ATTN_SENTENCE_MAX, below T)
//   L, h  the model's blocks and heads
#ifndef ATTN_CHAPTER9_ATTENTION_H
#define ATTN_CHAPTER9_ATTENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/real.h"
#include "models/gpt.h"
#include "tasks/austen.h"

// Short enough for the figure to label each of its rows and columns with
// the character.
#define ATTN_SENTENCE_MAX 44

// The five sets of keys of query q (q >= 2) whose weights each head is
// summed up by, none sharing a key: q - 1, q itself, the characters between
// the last space before q - 1 and q - 1 (the earlier letters of q's word;
// from 1 when there is no such space), that space, and 0, the sentence's
// first character (its opening quotation mark). A set a query lacks
// weighs 0.
enum { KEY_PREVIOUS, KEY_ITSELF, KEY_WORD, KEY_SPACE, KEY_FIRST, N_KEYS };

// The figure's heads: the one with the largest mean weight on the previous
// character, and of the others the one with the largest on the earlier
// letters.
enum { ATTN_PANELS = 2 };

typedef struct {
    int32_t ids[ATTN_SENTENCE_MAX];  // (n) the sentence
    int n;
    size_t at;                       // its first character's place in the held-out novel
    int L, h;
    real *w;                         // (L, h, n, n) each head's weights
    double *share;                   // (L, h, N_KEYS) each head's mean weight on each set
    int panel[ATTN_PANELS];          // the figure's heads, l h + i
} attention_view;

// The first paragraph of ids (n) that is one line opening with the id
// quote: it starts the text or follows a blank line (two newlines), and a
// blank line or the text's end follows it, with at most max ids and no
// newline in between. Returns its length, its first id's place in *at; or
// 0 when there is none.
int attention_sentence(const int32_t *ids, size_t n, int32_t quote, int32_t newline, int max,
                       size_t *at);

// Finds the sentence in corpus's held-out novel, runs m's forward pass over
// it alone and keeps every head's weights, their shares and the figure's
// heads in v. Returns 0, or -1 with the reason in err (no such sentence,
// out of memory).
int attention_view_make(attention_view *v, gpt_model *m, const austen_corpus *corpus, char *err,
                        size_t errlen);
void attention_view_free(attention_view *v);

// The head (l h + i) with the largest share on set key, leaving out the head
// `except` (-1: none).
int attention_leader(const attention_view *v, int key, int except);

// How many places back head's (l h + i) largest weight most often sits
// over queries 2 .. n - 1 (0: the query itself; the nearer of two as
// common), and at how many of them (*count).
int attention_distance(const attention_view *v, int head, int *count);

// Block [label]: the sentence and its rule, each head's shares, the leaders,
// the figure's heads' three largest weights at four queries, and how far
// back each one's largest weight most often sits.
void attention_print(FILE *f, const attention_view *v, const austen_vocab *vocab,
                     const char *title_novel, const char *label);

// The figure data under dir: chapter9-attention-1.dat and -2.dat, the
// figure's heads' weights (write_heatmap: the queries' characters down the
// side, the keys' across; a space as an open box, a quotation mark as an
// opening or a closing one), and chapter9-attention-heads.dat, their
// blocks and heads and how far back each most often looks. Returns false, said on stderr, when a file cannot be
// written.
bool attention_write_data(const attention_view *v, const austen_vocab *vocab,
                          const char *program, const char *dir);

#endif
