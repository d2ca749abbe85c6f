// austen.h: chapter 9's task, Jane Austen's six novels as characters for a
// character-level language model: the vocabulary, text to ids and back,
// the split into training and held-out text, and random batches of windows
// drawn as PyTorch draws them.
//
// Dimension legend:
//   V        the vocabulary: the distinct characters (Unicode code points,
//            not bytes) of the six novels, sorted; id i is the i-th. 81 for
//            the package's novels (text/rdb.h): the newline, 79 printable
//            ASCII characters and the pound sign, id 80 (the one character
//            above 127, two bytes in UTF-8)
//   n        characters of a text (its ids)
//   B, T     windows in a batch, and the context: a window is T + 1
//            consecutive ids, the model reads its first T and predicts its
//            last T (each id from the ones before it)
//
// The split: one whole novel is held out for validation, so that "has the
// model seen this text?" has a plain answer; AUSTEN_HELD_OUT is the one the
// book holds out. The training text is the other five, one after the other
// in the package's order (Emma, Mansfield Park, Northanger Abbey, Pride and
// Prejudice, Sense and Sensibility), each line ending with '\n'
// (rdb_join). The held-out novel follows the training text in the corpus's
// one buffer, so that "the training text, then the held-out novel" (what
// xz reads for its fair cost, austen_compress.h) is that buffer whole.
#ifndef ATTN_AUSTEN_H
#define ATTN_AUSTEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"

#define AUSTEN_HELD_OUT "Persuasion"
#define AUSTEN_VOCAB_MAX 256

typedef struct {
    int size;                          // V
    uint32_t chars[AUSTEN_VOCAB_MAX];  // (V) the code points, ascending
} austen_vocab;

typedef struct {
    austen_vocab vocab;
    char *text;               // UTF-8, NUL-terminated: the training text, then the held-out novel
    size_t train_bytes;       // the held-out novel starts at text + train_bytes
    size_t val_bytes;
    int32_t *ids;             // (n_train + n_val) the ids of text
    size_t n_train, n_val;    // characters of each part
    const char *held_out;     // the held-out novel's title
} austen_corpus;

// Reads the six novels from the database at rdb_path (text/rdb.h) and holds
// out the one titled held_out (as rdb_austen_title writes the titles;
// AUSTEN_HELD_OUT in the book). Returns 0, or -1 with the reason in err: the
// reader's error, a vector that is none of the six novels, no novel of that
// title, out of memory. Nothing stays allocated on an error.
int austen_load(austen_corpus *c, const char *rdb_path, const char *held_out, char *err,
                size_t errlen);
void austen_free(austen_corpus *c);

// The training ids (n_train) and the held-out ids (n_val).
const int32_t *austen_train_ids(const austen_corpus *c);
const int32_t *austen_val_ids(const austen_corpus *c);

// The sorted distinct code points of the UTF-8 text (len bytes) into v.
// Returns 0, or -1 when there are more than AUSTEN_VOCAB_MAX of them or
// the text is not valid UTF-8.
int austen_vocab_build(austen_vocab *v, const char *text, size_t len);

// The id of code point cp, or -1 when it is not in the vocabulary.
int austen_id(const austen_vocab *v, uint32_t cp);

// The ids of the UTF-8 text (len bytes) into ids (room for len). Returns
// how many (the text's characters), or -1 when it holds a character that
// is not in the vocabulary.
long austen_encode(const austen_vocab *v, int32_t *ids, const char *text, size_t len);

// The text of ids (n) as UTF-8 into out (room for 4 n + 1 bytes; at most 2
// per character for the novels' vocabulary), NUL-terminated; an id outside
// the vocabulary is written '?'. Returns the bytes written, without the NUL.
size_t austen_decode(const austen_vocab *v, char *out, const int32_t *ids, size_t n);

// B random windows of T + 1 consecutive ids of ids (n > T) into windows
// (B, T + 1), their starts drawn from g exactly as nanoGPT's get_batch
// draws them:
//   ix = torch.randint(n - T, (B,), generator=g)
//   x = ids[ix[b] : ix[b] + T],  y = ids[ix[b] + 1 : ix[b] + T + 1]
// x is a window's first T ids, y its last T. starts (B) gets ix, or NULL.
void austen_batch(int32_t *windows, int64_t *starts, const int32_t *ids, size_t n, int B, int T,
                  torch_rng *g);

#endif
