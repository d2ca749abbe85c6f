// chapter8_imdb.c: chapter 8's cell on IMDb: does a full encoder layer with
// positions beat chapter 7's single softmax-attention head? Dimension
// legend in chapter8_imdb.h.
//
// The data is chapter 7's, built by the same library calls as its cells
// [H60] to [H69] (chapter7.c), without their printing: the notebook's split,
// clean_paragraph and word_tokenize, the vocabulary of the 10,000 most
// frequent training tokens plus <UNK> and <PAD>, each word's GloVe vector
// (zeros without one), the reviews cut into chunks of 32 ids.
#define _POSIX_C_SOURCE 200809L
#include "programs/chapter8_imdb.h"

#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "text/glove.h"
#include "text/imdb.h"
#include "text/punkt_params.h"
#include "text/tokenize_documents.h"
#include "text/tokenizer.h"
#include "text/vocab.h"
#include "models/sentiment.h"
#include "models/trainer.h"

#define CELL_VOCAB 10000      // chapter 7's VOCAB_SIZE: + <UNK> and <PAD>
#define CELL_EMBED 100        // GloVe's width
#define CELL_L 32             // chapter 7's SEQUENCE_LENGTH
#define CELL_B 64             // chapter 7's BATCH_SIZE
#define CELL_WIDTH 32         // the softmax head's d_k, and the transformer's width

imdb_cell_options imdb_cell_defaults(void) {
    return (imdb_cell_options){.imdb_path = IMDB_CELL_IMDB, .glove_path = IMDB_CELL_GLOVE,
                               .epochs = 1, .limit = 0, .test_limit = 0, .lr = 1e-3,
                               .trained = true, .frozen = true, .seed = 42, .data_dir = NULL,
                               .progress = NULL};
}

// What the cell loads, and frees at the end.
typedef struct {
    imdb_reviews reviews;
    size_t *train, *test;   // (25,000) review numbers each
    punkt_params *params;
    tokenizer *tok;
    corpus corpus;          // the training reviews, then the test ones
    vocab vocab;
    float *embedding;       // (V, d)
    trainer_data data;
} imdb_cell_state;

static void state_free(imdb_cell_state *s) {
    imdb_free(&s->reviews);
    free(s->train);
    free(s->test);
    tokenizer_free(s->tok);
    punkt_free(s->params);
    corpus_free(&s->corpus);
    vocab_free(&s->vocab);
    free(s->embedding);
    trainer_data_free(&s->data);
}

static int out_of_memory(char *err, size_t errlen) {
    snprintf(err, errlen, "out of memory");
    return -1;
}

// Chapter 7's cells [H60], [H63] and [H64]: the reviews, their split, every
// review tokenized.
static int load_tokens(imdb_cell_state *s, const imdb_cell_options *o, char *err, size_t errlen) {
    size_t half = IMDB_REVIEWS / 2;
    if (imdb_load(o->imdb_path, &s->reviews, err, errlen) < 0) return -1;
    s->train = malloc(half * sizeof *s->train);
    s->test = malloc(half * sizeof *s->test);
    if (!s->train || !s->test) return out_of_memory(err, errlen);
    if (imdb_split(&s->reviews, s->train, s->test, err, errlen) < 0) return -1;
    char where[4096];
    bool failed;
    s->params = punkt_load_english(getenv("NLTK_DATA"), getenv("HOME"), PUNKT_DEBIAN_JSON, where,
                                   sizeof where, err, errlen, &failed);
    if (failed) return -1;
    s->tok = tokenizer_new(s->params, err, errlen);
    if (!s->tok) return -1;
    return tokenize_reviews(&s->corpus, s->tok, &s->reviews, s->train, half, s->test, half, err,
                            errlen);
}

// Cells [H65], [H67] and [H68]: the vocabulary and its GloVe rows.
static int load_vectors(imdb_cell_state *s, const imdb_cell_options *o, char *err, size_t errlen) {
    if (!vocab_build(&s->vocab, &s->corpus, CELL_VOCAB)) return out_of_memory(err, errlen);
    size_t V = s->vocab.words.n, glove_words;
    s->embedding = calloc(V * CELL_EMBED, sizeof *s->embedding);  // zeros without a vector
    bool *found = calloc(V ? V : 1, sizeof *found);
    if (!s->embedding || !found) {
        free(found);
        return out_of_memory(err, errlen);
    }
    int rc = glove_lookup(s->embedding, found, &glove_words, o->glove_path, CELL_EMBED,
                          &s->vocab.words, err, errlen);
    free(found);
    return rc;
}

// Cell [H69]: the chunks, and which test review each test chunk comes from.
static int load_chunks(imdb_cell_state *s, char *err, size_t errlen) {
    size_t half = IMDB_REVIEWS / 2;
    trainer_data *d = &s->data;
    d->L = CELL_L;
    d->reviews = half;
    size_t *docs = malloc(half * sizeof *docs);
    int *labels = malloc(half * sizeof *labels);
    bool ok = docs && labels;
    for (int split = 0; split < 2 && ok; split++) {
        for (size_t i = 0; i < half; i++) {
            docs[i] = (size_t)split * half + i;
            labels[i] = s->reviews.label[split ? s->test[i] : s->train[i]];
        }
        ok = split == 0 ? make_chunks(&d->X_train, &d->Y_train, &d->n_train, &s->corpus,
                                      &s->vocab, docs, labels, half, CELL_L)
                        : make_chunks(&d->X_test, &d->Y_test, &d->n_test, &s->corpus,
                                      &s->vocab, docs, labels, half, CELL_L);
    }
    free(docs);
    free(labels);
    d->test_review = ok ? malloc((d->n_test ? d->n_test : 1) * sizeof *d->test_review) : NULL;
    if (!d->test_review) return out_of_memory(err, errlen);
    size_t at = 0;  // review i gives ceil(tokens / L) chunks, in order
    for (size_t i = 0; i < half; i++) {
        size_t len = s->corpus.doc_start[half + i + 1] - s->corpus.doc_start[half + i];
        for (size_t c = 0; c < (len + CELL_L - 1) / CELL_L && at < d->n_test; c++)
            d->test_review[at++] = (int32_t)i;
    }
    return 0;
}

// What the models are and how they are trained, before their epochs.
static void print_setup(FILE *out, const imdb_cell_state *s, const imdb_cell_options *o,
                        double load_seconds) {
    const trainer_data *d = &s->data;
    int V = (int)s->vocab.words.n;
    fprintf(out, "chapter 7's data: %zu training chunks, %zu test chunks of %d ids, "
                 "vocabulary %d,\nGloVe vectors of %d numbers (loaded and tokenized in %.0f s)\n",
            d->n_train, d->n_test, CELL_L, V, CELL_EMBED, load_seconds);
    model_kind kinds[2] = {MODEL_TRANSFORMER, MODEL_SOFTMAX_ATTENTION};
    for (int k = 0; k < 2; k++) {
        size_t n = sentiment_param_count(kinds[k], V, CELL_EMBED, CELL_WIDTH);
        fprintf(out, "%-18s %8zu parameters: embedding %zu, the rest %zu\n", model_name(kinds[k]),
                n, (size_t)V * CELL_EMBED, n - (size_t)V * CELL_EMBED);
    }
    fprintf(out, "each: %zu of the %zu training chunks, %ld epoch%s, batch %d, Adam lr %g, "
                 "seed %llu,\nembeddings %s;\n",
            d->n_pool, d->n_train, o->epochs, o->epochs == 1 ? "" : "s", CELL_B, o->lr,
            (unsigned long long)o->seed,
            o->trained && o->frozen ? "trained (one pair) and frozen (the other)"
                                    : embeddings_word(o->frozen));
    fprintf(out, "scored after each epoch on %zu of the %zu test reviews (%zu chunks)\n",
            d->scored ? d->scored : d->reviews, d->reviews, d->n_test);
}

// A pair's test accuracies epoch by epoch, and the transformer's lead in
// points (1/100).
static void print_table(FILE *out, const run_result *t, const run_result *h) {
    fprintf(out, "with the embeddings %s:\n"
                 "       |   transformer    | softmax-attention | transformer minus head\n"
                 " epoch | chunks  reviews  | chunks  reviews   | chunks   reviews (points)\n",
            embeddings_word(t->frozen));
    long epochs = t->epochs < h->epochs ? t->epochs : h->epochs;
    for (long e = 0; e < epochs; e++) {
        const epoch_result *a = &t->per_epoch[e], *b = &h->per_epoch[e];
        fprintf(out, " %5ld | %.4f  %.4f   | %.4f  %.4f    | %+6.1f   %+6.1f\n", e + 1,
                a->chunk_accuracy, a->review_accuracy, b->chunk_accuracy, b->review_accuracy,
                100 * (a->chunk_accuracy - b->chunk_accuracy),
                100 * (a->review_accuracy - b->review_accuracy));
    }
    long bt = best_epoch(t, true), bh = best_epoch(h, true);
    fprintf(out, "best epochs by review: transformer %.4f (epoch %ld), softmax-attention %.4f "
                 "(epoch %ld): %+.1f\n", t->per_epoch[bt].review_accuracy, bt + 1,
            h->per_epoch[bh].review_accuracy, bh + 1,
            100 * (t->per_epoch[bt].review_accuracy - h->per_epoch[bh].review_accuracy));
    double st = 0, sh = 0;
    for (long e = 0; e < epochs; e++) {
        st += t->per_epoch[e].seconds;
        sh += h->per_epoch[e].seconds;
    }
    fprintf(out, "training and scoring: %.0f s (transformer), %.0f s (softmax-attention)\n",
            st, sh);
}

// trainer_options.trained: each model's epochs as figure data, with a directory.
static int write_curves(const run_result *r, const sentiment_model *m, sentiment_acts *a,
                        void *ctx, char *err, size_t errlen) {
    (void)m;
    (void)a;
    const char *dir = ctx;
    if (!dir || write_epoch_data(r, "chapter8", dir) == 0) return 0;
    snprintf(err, errlen, "cannot write the figure data into %s", dir);
    return -1;
}

int imdb_transformer_cell(FILE *out, const imdb_cell_options *o, char *err, size_t errlen) {
    if (o->epochs < 1) {
        snprintf(err, errlen, "the IMDb cell needs at least one epoch, not %ld", o->epochs);
        return -1;
    }
    if (!o->trained && !o->frozen) {
        snprintf(err, errlen, "the IMDb cell needs a pair of models to train: embeddings "
                 "trained, frozen, or both");
        return -1;
    }
    imdb_cell_state s = {0};
    corpus_init(&s.corpus);
    double t0 = now_seconds();
    int rc = load_tokens(&s, o, err, errlen);
    if (rc == 0) rc = load_vectors(&s, o, err, errlen);
    if (rc == 0) rc = load_chunks(&s, err, errlen);
    if (rc == 0 && s.data.n_train < CELL_B) {
        snprintf(err, errlen, "%s gives %zu training chunks; training needs %d, one batch",
                 o->imdb_path, s.data.n_train, CELL_B);
        rc = -1;
    }
    if (rc == 0 && !(s.data.pool = training_pool(&s.data.n_pool, s.data.n_train, o->limit)))
        rc = out_of_memory(err, errlen);
    // the transformers first: with two threads they start together, and
    // the heads, three times as fast, follow
    run_result results[4];
    int pairs = 0;
    for (int frozen = 0; frozen < 2; frozen++)
        if (frozen ? o->frozen : o->trained) pairs++;
    for (int p = 0, frozen = 0; frozen < 2; frozen++) {
        if (!(frozen ? o->frozen : o->trained)) continue;
        results[p] = (run_result){.kind = MODEL_TRANSFORMER, .lr = o->lr, .frozen = frozen};
        results[pairs + p++] = (run_result){.kind = MODEL_SOFTMAX_ATTENTION, .lr = o->lr,
                                            .frozen = frozen};
    }
    if (rc == 0) {
        if (o->test_limit > 0) keep_test_reviews(&s.data, o->test_limit);
        print_setup(out, &s, o, now_seconds() - t0);
        fflush(out);
        trainer_options opts = {.epochs = o->epochs, .B = CELL_B, .seed = o->seed,
                                .embedding = s.embedding, .V = (int)s.vocab.words.n,
                                .d = CELL_EMBED, .d_k = CELL_WIDTH, .progress = o->progress,
                                .trained = write_curves, .ctx = (void *)o->data_dir};
        rc = train_models(results, 2 * pairs, &s.data, &opts, out, err, errlen);
    }
    for (int p = 0; rc == 0 && p < pairs; p++) print_table(out, &results[p], &results[pairs + p]);
    if (rc == 0) fprintf(out, "the IMDb cell took %.0f s\n", now_seconds() - t0);
    for (int i = 0; i < 2 * pairs; i++) {
        free(results[i].per_epoch);
        free(results[i].tenths);
    }
    state_free(&s);
    return rc;
}
