// imdb_task.c: the IMDb task, stage by stage. See imdb_task.h.
#define _POSIX_C_SOURCE 200809L
#include "tasks/imdb_task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/strmap.h"
#include "text/glove.h"
#include "text/tokenize_documents.h"

static int out_of_memory(char *err, size_t errlen) {
    snprintf(err, errlen, "out of memory");
    return -1;
}

void imdb_task_init(imdb_task *t) {
    memset(t, 0, sizeof *t);
    corpus_init(&t->corpus);
}

void imdb_task_free(imdb_task *t) {
    imdb_free(&t->reviews);
    free(t->train);
    free(t->test);
    tokenizer_free(t->tok);
    punkt_free(t->params);
    corpus_free(&t->corpus);
    vocab_free(&t->vocab);
    free(t->embedding);
    trainer_data_free(&t->data);
    memset(t, 0, sizeof *t);
}

punkt_params *imdb_punkt(char *where, size_t wlen, char *err, size_t errlen, bool *failed) {
    return punkt_load_english(getenv("NLTK_DATA"), getenv("HOME"), PUNKT_DEBIAN_JSON, where, wlen,
                              err, errlen, failed);
}

int imdb_task_split(imdb_task *t, const char *path, char *err, size_t errlen) {
    size_t half = IMDB_REVIEWS / 2;
    t->path = path;
    if (imdb_load(path, &t->reviews, err, errlen) < 0) return -1;
    t->train = malloc(half * sizeof *t->train);
    t->test = malloc(half * sizeof *t->test);
    if (!t->train || !t->test) return out_of_memory(err, errlen);
    if (imdb_split(&t->reviews, t->train, t->test, err, errlen) < 0) {
        char e2[1024];
        snprintf(e2, sizeof e2, "%.1000s", err);
        snprintf(err, errlen, "%.500s: %.1000s", path, e2);
        return -1;
    }
    return 0;
}

int imdb_task_tokenizer(imdb_task *t, char *err, size_t errlen) {
    bool failed;
    t->params = imdb_punkt(t->punkt_where, sizeof t->punkt_where, err, errlen, &failed);
    if (failed) return -1;
    t->tok = tokenizer_new(t->params, err, errlen);
    return t->tok ? 0 : -1;
}

int imdb_task_tokenize(imdb_task *t, char *err, size_t errlen) {
    size_t half = IMDB_REVIEWS / 2;
    double t0 = now_seconds();
    if (tokenize_reviews(&t->corpus, t->tok, &t->reviews, t->train, half, t->test, half, err,
                         errlen) < 0)
        return -1;
    t->tokenize_seconds = now_seconds() - t0;
    return 0;
}

int imdb_task_vocab(imdb_task *t, char *err, size_t errlen) {
    return vocab_build(&t->vocab, &t->corpus, IMDB_VOCAB_WORDS) ? 0 : out_of_memory(err, errlen);
}

int imdb_embedding_matrix(imdb_task *t, const float *vecs, const bool *found, char *err,
                          size_t errlen) {
    size_t V = t->vocab.words.n;
    //> embedding-matrix
    // [H68] the embedding matrix: a word's GloVe vector, or zeros. (The notebook
    // first fills the matrix with normal random numbers, then overwrites
    // every row, so none of them survive.)
    t->embedding = calloc(V * IMDB_EMBED_DIM, sizeof *t->embedding);
    if (!t->embedding) return out_of_memory(err, errlen);
    for (size_t i = 0; i < V; i++) {
        if (found[i])
            memcpy(t->embedding + i * IMDB_EMBED_DIM, vecs + i * IMDB_EMBED_DIM,
                   IMDB_EMBED_DIM * sizeof *vecs);
        else
            t->rows_without_vector++;
    }
    //< embedding-matrix
    if (t->rows_without_vector == V) {
        snprintf(err, errlen, "%s: no word of the vocabulary has a vector in it (GloVe text, "
                 "%d numbers a word)", t->glove_path ? t->glove_path : "the GloVe file",
                 IMDB_EMBED_DIM);
        return -1;
    }
    return 0;
}

int imdb_task_vectors(imdb_task *t, const char *glove_path, const char *const *also, int n_also,
                      float *also_vecs, bool *also_found, char *err, size_t errlen) {
    // [H67] only the vectors we need are kept: the vocabulary's, then also's
    size_t V = t->vocab.words.n, d = IMDB_EMBED_DIM;
    t->glove_path = glove_path;
    strmap wanted;
    strmap_init(&wanted);
    bool ok = true;
    for (size_t i = 0; i < V && ok; i++)
        ok = strmap_intern(&wanted, strmap_key(&t->vocab.words, i),
                           strmap_key_len(&t->vocab.words, i), NULL) >= 0;
    long *row = malloc((n_also > 0 ? (size_t)n_also : 1) * sizeof *row);
    for (int k = 0; k < n_also && ok && row; k++)
        ok = (row[k] = strmap_intern(&wanted, also[k], strlen(also[k]), NULL)) >= 0;
    float *vecs = calloc(wanted.n * d + 1, sizeof *vecs);
    bool *found = calloc(wanted.n + 1, sizeof *found);
    int rc = ok && row && vecs && found ? 0 : out_of_memory(err, errlen);
    if (rc == 0)
        rc = glove_lookup(vecs, found, &t->glove_words, glove_path, d, &wanted, err, errlen);
    for (int k = 0; k < n_also && rc == 0; k++) {
        also_found[k] = found[row[k]];
        memcpy(also_vecs + (size_t)k * d, vecs + (size_t)row[k] * d, d * sizeof *vecs);
    }
    if (rc == 0) rc = imdb_embedding_matrix(t, vecs, found, err, errlen);
    strmap_free(&wanted);
    free(row);
    free(vecs);
    free(found);
    return rc;
}

int imdb_task_chunks(imdb_task *t, char *err, size_t errlen) {
    // the training reviews are documents 0 .. 24999 of the corpus, the
    // test reviews 25000 .. 49999
    size_t half = IMDB_REVIEWS / 2;
    trainer_data *d = &t->data;
    d->L = IMDB_CHUNK;
    d->reviews = half;
    size_t *docs = malloc(half * sizeof *docs);
    int *labels = malloc(half * sizeof *labels);
    bool ok = docs && labels;
    for (int split = 0; split < 2 && ok; split++) {
        for (size_t i = 0; i < half; i++) {
            docs[i] = (size_t)split * half + i;
            labels[i] = t->reviews.label[split ? t->test[i] : t->train[i]];
        }
        ok = split == 0 ? make_chunks(&d->X_train, &d->Y_train, NULL, &d->n_train, &t->corpus,
                                      &t->vocab, docs, labels, half, IMDB_CHUNK)
                        : make_chunks(&d->X_test, &d->Y_test, &d->test_review, &d->n_test,
                                      &t->corpus, &t->vocab, docs, labels, half, IMDB_CHUNK);
    }
    free(docs);
    free(labels);
    if (!ok) return out_of_memory(err, errlen);
    if (d->n_test == 0) {
        snprintf(err, errlen, "%s: the test reviews give no chunk (every one is empty after "
                 "cleaning); there is nothing to score", t->path ? t->path : "the reviews");
        return -1;
    }
    return 0;
}

int imdb_task_load(imdb_task *t, const char *imdb_path, const char *glove_path, char *err,
                   size_t errlen) {
    if (imdb_task_split(t, imdb_path, err, errlen) < 0 || imdb_task_tokenizer(t, err, errlen) < 0 ||
        imdb_task_tokenize(t, err, errlen) < 0 || imdb_task_vocab(t, err, errlen) < 0 ||
        imdb_task_vectors(t, glove_path, NULL, 0, NULL, NULL, err, errlen) < 0)
        return -1;
    return imdb_task_chunks(t, err, errlen);
}
