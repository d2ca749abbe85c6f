// dummy_tokenizer.h: the notebook "Attention and Transformers"'s dummy
// tokenizer, which gives every word a random token id.
//
// Dimension legend (as in layers/tensor.h):
//   n  tokens
//   V  vocabulary size
#ifndef ATTN_DUMMY_TOKENIZER_H
#define ATTN_DUMMY_TOKENIZER_H

#include <stdint.h>

#include "core/rng.h"

enum { MAX_TOKENS = 64, MAX_WORD = 64 };

// The notebook's dummy tokenizer: split text on single spaces, as Python's
// text.split(" ") does (two spaces make an empty word), and draw one id in
// [0, vocab_size) per word with torch.randint. ids is (MAX_TOKENS), words
// receives the words. Returns the number of tokens n, or -1 if the text is
// empty, has more than MAX_TOKENS words or a word of MAX_WORD bytes or more.
int dummy_tokenize(int64_t *ids, char words[][MAX_WORD], const char *text,
                   int vocab_size, torch_rng *g);

#endif
