// chapter8_imdb.c: chapter 8's cell on IMDb: does a full encoder layer with
// positions beat chapter 7's single softmax-attention head? Dimension
// legend in chapter8_imdb.h.
//
// The data is chapter 7's, the IMDb task's (tasks/imdb_task.h): the
// notebook's split, clean_paragraph and word_tokenize, the vocabulary of
// the 10,000 most frequent training tokens plus <UNK> and <PAD>, each
// word's GloVe vector (zeros without one), the reviews cut into chunks of
// 32 ids.
#define _POSIX_C_SOURCE 200809L
#include "programs/chapter8_imdb.h"

#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "core/cli.h"
#include "core/clock.h"
#include "core/outputs.h"
#include "core/print.h"
#include "core/readfile.h"
#include "models/sentiment.h"
#include "models/trainer.h"
#include "tasks/imdb_task.h"

imdb_cell_options imdb_cell_defaults(void) {
    return (imdb_cell_options){.imdb_path = IMDB_CELL_IMDB, .glove_path = IMDB_CELL_GLOVE,
                               .epochs = 1, .limit = 0, .test_limit = 0, .lr = 1e-3,
                               .trained = true, .frozen = true, .seed = 42, .data_dir = NULL,
                               .progress = NULL};
}

// What the models are and how they are trained, before their epochs.
static void print_setup(FILE *out, const imdb_task *s, const imdb_cell_options *o,
                        double load_seconds) {
    const trainer_data *d = &s->data;
    int V = (int)s->vocab.words.n;
    fprintf(out, "chapter 7's data: %zu training chunks, %zu test chunks of %d ids, "
                 "vocabulary %d,\nGloVe vectors of %d numbers (loaded and tokenized in %.0f s)\n",
            d->n_train, d->n_test, IMDB_CHUNK, V, IMDB_EMBED_DIM, load_seconds);
    model_kind kinds[2] = {MODEL_TRANSFORMER, MODEL_SOFTMAX_ATTENTION};
    for (int k = 0; k < 2; k++) {
        size_t n = sentiment_param_count(kinds[k], V, IMDB_EMBED_DIM, IMDB_WIDTH);
        fprintf(out, "%-18s %8zu parameters: embedding %zu, the rest %zu\n", model_name(kinds[k]),
                n, (size_t)V * IMDB_EMBED_DIM, n - (size_t)V * IMDB_EMBED_DIM);
    }
    fprintf(out, "each: %zu of the %zu training chunks, %ld epoch%s, batch %d, Adam lr %g, "
                 "seed %llu,\nembeddings %s;\n",
            d->n_pool, d->n_train, o->epochs, o->epochs == 1 ? "" : "s", IMDB_BATCH, o->lr,
            (unsigned long long)o->seed,
            o->trained && o->frozen ? "trained (one pair) and frozen (the other)"
                                    : embeddings_word(o->frozen));
    fprintf(out, "scored after each epoch on %zu of the %zu test reviews (%zu chunks)\n",
            d->scored ? d->scored : d->reviews, d->reviews, d->n_test);
}

// a - b in points (1/100), for printing to the hundredth: a difference
// that rounds to nothing is +0.00, never "-0.00".
static double points(double a, double b) {
    double x = 100 * (a - b);
    return x > -0.005 && x < 0.005 ? 0 : x;
}

// A pair's test accuracies epoch by epoch, and the transformer's lead in
// points.
static void print_table(FILE *out, const run_result *t, const run_result *h) {
    fprintf(out, "with the embeddings %s:\n"
                 "       |   transformer    | softmax-attention | transformer minus head\n"
                 " epoch | chunks  reviews  | chunks  reviews   | chunks   reviews (points)\n",
            embeddings_word(t->frozen));
    long epochs = t->epochs < h->epochs ? t->epochs : h->epochs;
    for (long e = 0; e < epochs; e++) {
        const epoch_result *a = &t->per_epoch[e], *b = &h->per_epoch[e];
        fprintf(out, " %5ld | %.4f  %.4f   | %.4f  %.4f    | %+6.2f   %+6.2f\n", e + 1,
                a->chunk_accuracy, a->review_accuracy, b->chunk_accuracy, b->review_accuracy,
                points(a->chunk_accuracy, b->chunk_accuracy),
                points(a->review_accuracy, b->review_accuracy));
    }
    long bt = best_epoch(t, true), bh = best_epoch(h, true);
    double lead = points(t->per_epoch[bt].review_accuracy, h->per_epoch[bh].review_accuracy);
    fprintf(out, "best epochs by review: transformer %.4f (epoch %ld), softmax-attention %.4f "
                 "(epoch %ld):\n%+.2f points, the transformer %s\n", t->per_epoch[bt].review_accuracy,
            bt + 1, h->per_epoch[bh].review_accuracy, bh + 1, lead,
            lead > 0 ? "ahead" : lead < 0 ? "behind" : "level");
    double st = 0, sh = 0;
    for (long e = 0; e < epochs; e++) {
        st += t->per_epoch[e].seconds;
        sh += h->per_epoch[e].seconds;
    }
    fprintf(out, "training and scoring: %.0f s (transformer), %.0f s (softmax-attention)\n",
            st, sh);
}

// Each model's epochs as figure data, with a directory. Returns 0, or -1
// with the reason in err.
static int write_curves(const run_result *results, int n, const char *dir, char *err,
                        size_t errlen) {
    for (int i = 0; i < n && dir; i++)
        if (write_epoch_data(&results[i], "chapter8", dir) < 0) {
            snprintf(err, errlen, "cannot write the figure data into %s", dir);
            return -1;
        }
    return 0;
}

int imdb_cell_load(imdb_task *s, const imdb_cell_options *o, char *err, size_t errlen) {
    imdb_task_init(s);
    if (o->epochs < 1) {
        snprintf(err, errlen, "the IMDb cell needs at least one epoch, not %ld", o->epochs);
        return -1;
    }
    if (!o->trained && !o->frozen) {
        snprintf(err, errlen, "the IMDb cell needs a pair of models to train: embeddings "
                 "trained, frozen, or both");
        return -1;
    }
    if (imdb_task_load(s, o->imdb_path, o->glove_path, err, errlen) < 0) return -1;
    if (s->data.n_train < IMDB_BATCH) {
        snprintf(err, errlen, "%s gives %zu training chunks; training needs %d, one batch",
                 o->imdb_path, s->data.n_train, IMDB_BATCH);
        return -1;
    }
    if (!(s->data.pool = training_pool(&s->data.n_pool, s->data.n_train, o->limit))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (o->test_limit > 0) keep_test_reviews(&s->data, o->test_limit);
    return 0;
}

int imdb_cell_train(FILE *out, imdb_task *s, const imdb_cell_options *o, double load_seconds,
                    char *err, size_t errlen) {
    double t0 = now_seconds();
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
    print_setup(out, s, o, load_seconds);
    fflush(out);
    // chapter 8 has no option for the rate (lr_option NULL): no advice names one
    trainer_options opts = {.epochs = o->epochs, .B = IMDB_BATCH, .seed = o->seed,
                            .embedding = s->embedding, .V = (int)s->vocab.words.n,
                            .d = IMDB_EMBED_DIM, .d_k = IMDB_WIDTH, .progress = o->progress};
    int rc = train_models(results, 2 * pairs, &s->data, &opts, out, err, errlen);
    if (rc == 0) rc = write_curves(results, 2 * pairs, o->data_dir, err, errlen);
    for (int p = 0; rc == 0 && p < pairs; p++) print_table(out, &results[p], &results[pairs + p]);
    if (rc == 0)
        fprintf(out, "this block took %.0f s, loading the data included; the models train two "
                "at a time\n", load_seconds + now_seconds() - t0);
    for (int i = 0; i < 2 * pairs; i++) run_result_free(&results[i]);
    return rc;
}

int imdb_transformer_cell(FILE *out, const imdb_cell_options *o, char *err, size_t errlen) {
    imdb_task s;
    double t0 = now_seconds();
    int rc = imdb_cell_load(&s, o, err, errlen);
    if (rc == 0) rc = imdb_cell_train(out, &s, o, now_seconds() - t0, err, errlen);
    imdb_task_free(&s);
    return rc;
}

// The IMDb block's two files, before a minute of training: false, with the
// reason on stderr, when one cannot be read.
static bool imdb_inputs_readable(const imdb_cell_options *io) {
    const char *inputs[] = {io->imdb_path, io->glove_path}, *defaults[] = {IMDB_CELL_IMDB, IMDB_CELL_GLOVE};
    for (size_t i = 0; i < 2; i++) {
        if (file_readable(inputs[i])) continue;
        int why = errno;
        fprintf(stderr, "chapter8: error: cannot read %s: %s\n", inputs[i], file_error(why));
        advise_make_data("chapter8", inputs[i], defaults[i], why);
        return false;
    }
    return true;
}

// [P8.12]: the IMDb cell of chapter8_imdb.c with the command line's
// settings, on the data imdb_cell_load read before the other cells.
int imdb_block(FILE *out, imdb_task *s, const imdb_cell_options *io, double load_seconds) {
    char err[1024];
    print_cell(out, "P8.12", "a full encoder layer with positions against chapter 7's single "
                          "head, on IMDb");
    if (imdb_cell_train(out, s, io, load_seconds, err, sizeof err) == 0) return 0;
    fprintf(stderr, "chapter8: error: %s\n", err);
    return -1;
}

// The options the IMDb block alone reads, which --no-imdb leaves out: one
// given beside it is refused. Returns CLI_OK, or CLI_USAGE (said why).
cli_status imdb_refuse_with_no_imdb(int argc, char **argv, const char *usage) {
    static const char *const imdb_options[] = {"--imdb", "--glove", "--imdb-epochs",
                                               "--imdb-limit", "--imdb-test-limit"};
    for (size_t i = 0; i < sizeof imdb_options / sizeof *imdb_options; i++)
        if (refuse_together(argc, argv, "chapter8", usage, imdb_options[i], "--no-imdb") != CLI_OK)
            return CLI_USAGE;
    return CLI_OK;
}

// Before any training: the inputs, read and checked (the IMDb block's
// files), none of them a file the figure data would replace. Returns 0, or
// -1 with the reason on stderr.
int imdb_check_inputs(imdb_task *s, const imdb_cell_options *io, bool no_imdb,
                        double *load_seconds) {
    const char *inputs[] = {io->imdb_path, io->glove_path};
    if (!data_spares_inputs("chapter8", io->data_dir, inputs, no_imdb ? 0 : 2)) return -1;
    imdb_task_init(s);
    if (no_imdb) return 0;
    if (!imdb_inputs_readable(io)) return -1;
    char err[1024];
    double t0 = now_seconds();
    if (imdb_cell_load(s, io, err, sizeof err) < 0) {
        fprintf(stderr, "chapter8: error: %s\n", err);
        return -1;
    }
    *load_seconds = now_seconds() - t0;
    return 0;
}
