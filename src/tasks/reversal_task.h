// reversal_task.h: the toy task chapter 8's transformer learns, reversing a
// sequence of digits, as token ids a sequence-to-sequence model reads and
// writes; batches drawn as PyTorch draws them; exact-match scoring.
//
// Dimension legend:
//   B        sequences in a batch
//   n        digits of one sequence, 1 <= n <= REVERSAL_N_MAX
//   S        source length, REVERSAL_SRC_LEN = N_MAX (padded)
//   T        target length, REVERSAL_TGT_LEN = N_MAX + 1 (one more token:
//            BOS in front of the decoder's input, EOS after its output)
//
// Vocabulary (V = 13): PAD 0, BOS 1, EOS 2, digit k is id 3 + k.
// For the digits 4 7 1 (n = 3):
//   src     = 7 10  4  0  0 ...          the digits, then PAD up to S
//   tgt_in  = 1  4 10  7  0 ...          BOS, the digits reversed, PAD up to T
//   tgt_out = 4 10  7  2  0 ...          the digits reversed, EOS, PAD up to T
// tgt_in is what the decoder reads (teacher forcing: the right previous
// token at each step), tgt_out what it must predict at each position;
// the loss leaves PAD out.
#ifndef ATTN_REVERSAL_TASK_H
#define ATTN_REVERSAL_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"

enum {
    REVERSAL_PAD = 0,
    REVERSAL_BOS = 1,
    REVERSAL_EOS = 2,
    REVERSAL_DIGIT0 = 3,
    REVERSAL_VOCAB = 13,
    REVERSAL_N_MAX = 10,
    REVERSAL_SRC_LEN = REVERSAL_N_MAX,
    REVERSAL_TGT_LEN = REVERSAL_N_MAX + 1,
};

// A batch of B sequences: the digits as drawn, and the ids a model reads.
typedef struct {
    int B;
    int *lengths;        // (B) n of each sequence
    int *digits;         // (B, N_MAX) the digits; those past n are unused
    int32_t *src;        // (B, S)
    int32_t *tgt_in;     // (B, T)
    int32_t *tgt_out;    // (B, T)
} reversal_batch;

// Allocates a batch of B sequences. Returns 0, or -1 when out of memory
// (then nothing stays allocated).
int reversal_batch_alloc(reversal_batch *b, int B);
void reversal_batch_free(reversal_batch *b);

// The ids of one sequence of n digits: src (S), tgt_in (T), tgt_out (T).
void reversal_encode(int32_t *src, int32_t *tgt_in, int32_t *tgt_out,
                     const int *digits, int n);

// Fills b with B fresh sequences from g, drawing exactly what a PyTorch
// twin draws with its generator:
//   lengths = torch.randint(1, N_MAX + 1, (B,), generator=g)
//   digits  = torch.randint(0, 10, (B, N_MAX), generator=g)
// in that order (row b keeps its first lengths[b] digits), then encodes them.
void reversal_draw(reversal_batch *b, torch_rng *g);

// A sequence as one number: sum_i (digit_i + 1) 11^i, unique for every
// sequence of up to 10 digits (11^10 < 2^35), and never 0.
uint64_t reversal_key(const int *digits, int n);

// The keys of a set of sequences, sorted, each once, for "was this sequence
// ever in the training data?".
typedef struct {
    uint64_t *keys;
    size_t n, cap;
} reversal_seen;

// Adds the keys of b's sequences. Returns 0, or -1 when out of memory.
int reversal_seen_add(reversal_seen *s, const reversal_batch *b);
// Sorts the keys and keeps each once; call after the last add.
void reversal_seen_finish(reversal_seen *s);
// Whether the sequence of n digits is in s (after reversal_seen_finish).
bool reversal_seen_has(const reversal_seen *s, const int *digits, int n);
void reversal_seen_free(reversal_seen *s);

// Exact match: out (T), a decoded sequence, equals tgt_out (T) up to and
// including its EOS; what out holds after that does not count.
bool reversal_exact(const int32_t *out, const int32_t *tgt_out);

// The digits of out (T) before its first EOS, as a string of n characters
// '0' .. '9' ('?' for a token that is no digit), into text (T + 1); returns
// true if out has an EOS.
bool reversal_text(char *text, const int32_t *out);

#endif
