// trainer.c: see trainer.h.
#define _POSIX_C_SOURCE 200809L
#include "models/trainer.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cli.h"
#include "core/clock.h"
#include "core/rng.h"
#include "layers/adam.h"
#include "kernels/parallel.h"

const char *embeddings_word(bool frozen) { return frozen ? "frozen" : "trained"; }

void run_result_free(run_result *r) {
    free(r->per_epoch);
    free(r->tenths);
    free(r->attention);
    r->per_epoch = NULL;
    r->tenths = NULL;
    r->attention = NULL;
}

void trainer_data_free(trainer_data *d) {
    free(d->X_train);
    free(d->Y_train);
    free(d->pool);
    free(d->X_test);
    free(d->Y_test);
    free(d->test_review);
    memset(d, 0, sizeof *d);
}

size_t *training_pool(size_t *n, size_t n_train, long limit) {
    *n = limit > 0 && (size_t)limit < n_train ? (size_t)limit : n_train;
    size_t *pool = malloc((*n ? *n : 1) * sizeof *pool);
    if (!pool) return NULL;
    for (size_t i = 0; i < *n; i++) pool[i] = (size_t)((double)i * (double)n_train / (double)*n);
    return pool;
}

bool test_review_scored(const trainer_data *d, size_t r) {
    size_t n = d->scored, R = d->reviews;
    if (n == 0 || n >= R) return true;
    // r = floor(i R / n) for some i: the first i with i R >= r n is below (r + 1) n / R
    size_t i = (r * n + R - 1) / R;
    return i * R < (r + 1) * n;
}

void keep_test_reviews(trainer_data *d, long n) {
    size_t kept = 0, L = (size_t)d->L;
    d->scored = (size_t)n < d->reviews ? (size_t)n : 0;
    for (size_t c = 0; c < d->n_test; c++) {
        if (!test_review_scored(d, (size_t)d->test_review[c])) continue;
        memmove(d->X_test + kept * L, d->X_test + c * L, L * sizeof *d->X_test);
        d->Y_test[kept] = d->Y_test[c];
        d->test_review[kept++] = d->test_review[c];
    }
    d->n_test = kept;
}

// The progress line of an epoch, on f: rewritten in place on a terminal,
// else a line every tenth of the epoch. who names the model.
static void progress(FILE *f, const char *who, int epoch, size_t step, size_t steps, double loss,
                     double t0, double *last) {
    if (!f) return;
    double t = now_seconds();
    bool tty = isatty(fileno(f));
    bool due = tty ? t - *last >= 0.5 || step == steps
                   : step == steps || (step * 10 / steps != (step - 1) * 10 / steps);
    if (!due) return;
    *last = t;
    double rate = (double)step / (t - t0 > 1e-9 ? t - t0 : 1e-9);
    fprintf(f, "%s%s  epoch %d  step %zu/%zu  loss %.4f  %.0f steps/s  %.0f s left%s", tty ? "\r" : "",
            who, epoch, step, steps, loss, rate, (double)(steps - step) / rate, tty ? "   " : "\n");
    if (tty && step == steps) fputc('\n', f);
}

size_t test_reviews_without_chunks(const trainer_data *d) {
    // the chunks come in the order of their reviews, each review's together:
    // a review with chunks starts a new run of test_review
    size_t with_chunks = 0;
    for (size_t c = 0; c < d->n_test; c++)
        with_chunks += c == 0 || d->test_review[c] != d->test_review[c - 1];
    return (d->scored ? d->scored : d->reviews) - with_chunks;
}

// The test accuracy per chunk (logit > 0 predicts positive) and per review
// (the mean logit of the review's chunks; a review without chunks is left
// out). logits holds (n_test).
int trainer_evaluate(double *chunk_accuracy, double *review_accuracy, float *logits,
                     sentiment_model *m, const trainer_data *d) {
    sentiment_catch_up(m);  // every embedding row up to date
    if (sentiment_logits(logits, m, d->X_test, d->n_test) < 0) return -1;
    size_t reviews = d->reviews, right = 0, scored = 0;
    double *sum = calloc(reviews, sizeof *sum);       // of each review's logits
    int *count = calloc(reviews, sizeof *count);      // chunks of each review
    int *label = calloc(reviews, sizeof *label);
    if (!sum || !count || !label) {
        free(sum);
        free(count);
        free(label);
        return -1;
    }
    for (size_t c = 0; c < d->n_test; c++) {
        right += (logits[c] > 0) == (d->Y_test[c] == 1);
        sum[d->test_review[c]] += logits[c];
        count[d->test_review[c]]++;
        label[d->test_review[c]] = d->Y_test[c];
    }
    size_t reviews_right = 0;
    for (size_t r = 0; r < reviews; r++) {
        if (!test_review_scored(d, r) || count[r] == 0) continue;
        scored++;
        reviews_right += (sum[r] / count[r] > 0) == (label[r] == 1);
    }
    *chunk_accuracy = d->n_test ? (double)right / (double)d->n_test : 0;
    *review_accuracy = scored ? (double)reviews_right / (double)scored : 0;
    free(sum);
    free(label);
    free(count);
    return 0;
}

// For the figure's loss curve: adds the loss of step (0 .. steps-1) of
// epoch (1 ..) to *sum, and at the end of each tenth of the epoch stores
// the tenth's mean loss in r->tenths and starts the next. An epoch of
// fewer than ten steps ends several tenths in one step: each gets its mean.
static void record_tenths(run_result *r, long epoch, size_t step, size_t steps, double loss,
                          double *sum, long *count) {
    *sum += loss;
    (*count)++;
    long done = (long)((step + 1) * 10 / steps);  // tenths of the epoch done
    long before = (long)(step * 10 / steps);
    for (long tenth = before + 1; tenth <= done; tenth++)
        r->tenths[(epoch - 1) * 10 + tenth - 1] = *sum / (double)*count;
    if (done != before) {
        *sum = 0;
        *count = 0;
    }
}

// Whether a smaller learning rate is there to try: the program takes one
// (o->lr_option) and r's is above the smallest it accepts.
static bool smaller_lr_possible(const run_result *r, const trainer_options *o) {
    return o->lr_option && r->lr > o->lr_min;
}

// Why training stopped at `step` (1 .. steps) of `epoch`, into err: a loss
// that is not finite, else a model before it in train_models failed. Returns -2, train_model's
// "err says why".
static int stopped(char *err, size_t errlen, const run_result *r, const trainer_options *o,
                   long epoch, size_t step, size_t steps, double loss) {
    if (isfinite(loss))
        snprintf(err, errlen, "the %s model stopped: a model before it failed", model_name(r->kind));
    else
        snprintf(err, errlen, "the %s model (lr %g, embeddings %s) diverged: its training loss is "
                 "%s at epoch %ld, step %zu of %zu%s%s", model_name(r->kind), r->lr,
                 embeddings_word(r->frozen), isnan(loss) ? "nan" : "infinite", epoch, step, steps,
                 smaller_lr_possible(r, o) ? "; try a smaller " : "",
                 smaller_lr_possible(r, o) ? o->lr_option : "");
    return -2;
}

// The notebook's line for each epoch of r, once training is done, so that
// the columns line up: "Epoch 9," padded to the width of "Epoch 10,", and
// the losses to the widest of them ("494.1139" beside "3.6918").
void print_epochs(FILE *out, const run_result *r) {
    int width = 0;
    for (long e = 0; e < r->epochs; e++) {
        int w = snprintf(NULL, 0, "%.4f", r->per_epoch[e].train_loss);
        if (w > width) width = w;
    }
    char label[32];
    int label_width = snprintf(NULL, 0, "Epoch %ld,", r->epochs);
    for (long e = 0; e < r->epochs; e++) {
        const epoch_result *x = &r->per_epoch[e];
        snprintf(label, sizeof label, "Epoch %ld,", e + 1);
        fprintf(out, "%-*s Train Loss: %*.4f, Train Accuracy: %.4f | chunk %.4f, "
                "review %.4f | %.1f s\n", label_width, label, width, x->train_loss, x->train_accuracy,
                x->chunk_accuracy, x->review_accuracy, x->seconds);
    }
}

// Whether the pool's chunks hold both labels.
static bool pool_has_both_labels(const trainer_data *d) {
    bool seen[2] = {false, false};
    for (size_t i = 0; i < d->n_pool; i++) seen[d->Y_train[d->pool[i]] == 1] = true;
    return seen[0] && seen[1];
}

// A model that answers 0.5 for every chunk has a loss of ln 2 = 0.6931 on
// any data. A last epoch whose mean training loss is above that learned
// less than that constant guess: the loss is finite, so training went on,
// but the steps were too large to follow the gradient. Says so under the
// model's epoch lines, with the advice that can help: a smaller rate where
// the program takes one above its smallest; none on chunks of one label,
// where no rate makes a model learn the other; more steps after a run of
// fewer than TOO_FEW_STEPS, whose mean loss is mostly the untrained start.
#define TOO_FEW_STEPS 100
static void above_constant_guess(FILE *out, const run_result *r, const trainer_data *d,
                                 const trainer_options *o) {
    if (r->epochs < 1) return;
    double loss = r->per_epoch[r->epochs - 1].train_loss;
    if (!(loss > log(2.0))) return;
    fprintf(out, "Note: the %s model (lr %g, embeddings %s) ends at a training loss\n"
            "of %.4g, above ln 2 = 0.6931, the loss of answering 0.5 for every chunk;\n",
            model_name(r->kind), r->lr, embeddings_word(r->frozen), loss);
    size_t steps = (size_t)r->epochs * (d->n_pool / (size_t)o->B);
    if (!pool_has_both_labels(d))
        fprintf(out, "the training chunks hold one label only, so no setting helps\n");
    else if (steps < TOO_FEW_STEPS)
        fprintf(out, "%zu training step%s in all are too few to judge it: train on more chunks "
                "or for more epochs\n", steps, steps == 1 ? "" : "s");
    else if (smaller_lr_possible(r, o))
        fprintf(out, "try a smaller %s\n", o->lr_option);
    else
        fprintf(out, "its learning rate is %s\n",
                o->lr_option ? "the smallest accepted" : "fixed");
}

// Batch `step` of an epoch whose order of the pool's chunks is perm: its
// chunks' ids into X (B, L) and their labels into Y (B).
void gather_batch(int32_t *X, int32_t *Y, const trainer_data *d, const int64_t *perm,
                  size_t step, int B) {
    size_t L = (size_t)d->L;
    for (int b = 0; b < B; b++) {
        size_t c = d->pool[perm[step * (size_t)B + (size_t)b]];
        memcpy(X + (size_t)b * L, d->X_train + c * L, L * sizeof *X);
        Y[b] = d->Y_train[c];
    }
}

int trainer_model(sentiment_model *m, torch_rng *g, const run_result *r, const trainer_options *o,
                  int L) {
    rng_seed(g, o->seed);
    sentiment_config cfg = {.kind = r->kind, .V = o->V, .d = o->d, .d_k = o->d_k, .L = L,
                            .B = o->B, .frozen = r->frozen};
    return sentiment_init(m, &cfg, o->embedding, g);
}

// One model of train_models, trained into its own output.
typedef struct {
    run_result *result;
    int index;                  // in results
    atomic_int *first_failed;   // the first of results that failed so far (n: none)
    char *text;       // what it prints
    size_t len;
    int rc;
    bool done;
    char err[256];
} training_job;

// Whether a model before job j in train_models' results failed, so that
// j's own output would never be printed nor its failure reported: then j
// stops. Never, for a model trained alone (j NULL).
static bool earlier_failed(const training_job *j) {
    return j && atomic_load_explicit(j->first_failed, memory_order_relaxed) < j->index;
}

// An attention model's weights over o->probe into r->attention (L, L).
// Returns 0, or -1 when out of memory.
static int keep_attention(run_result *r, sentiment_model *m, const trainer_options *o) {
    if (!o->probe || (r->kind != MODEL_NOTEBOOK_ATTENTION && r->kind != MODEL_SOFTMAX_ATTENTION))
        return 0;
    int L = m->L;
    r->attention = malloc((size_t)L * L * sizeof *r->attention);
    if (!r->attention) return -1;
    sentiment_forward(m, o->probe, 1);
    for (int i = 0; i < L * L; i++) r->attention[i] = (float)m->a.w[i];
    return 0;
}

//> cell-141
// The epochs of train_model: rc 0, -1 out of memory, -2 a failure err
// describes. perm (n_pool), X (B, L), Y (B) and logits (n_test) are room.
static int run_epochs(run_result *r, sentiment_model *m, torch_rng *g, const trainer_data *d,
                      const trainer_options *o, const training_job *job, int64_t *perm,
                      int32_t *X, int32_t *Y, float *logits, char *err, size_t errlen) {
    int B = o->B, rc = 0;
    size_t steps = d->n_pool / B;  // TRAIN_SIZE // BATCH_SIZE: a last partial batch is dropped
    for (long epoch = 1; rc == 0 && epoch <= o->epochs; epoch++) {
        double t0 = now_seconds(), last = t0, loss_sum = 0, tenth_sum = 0;
        long correct_sum = 0, tenth_steps = 0;
        rng_randperm(g, perm, d->n_pool);  // a fresh shuffle every epoch
        for (size_t step = 0; step < steps; step++) {
            gather_batch(X, Y, d, perm, step, B);
            int correct;
            double loss = sentiment_train_step(m, r->lr, X, Y, B, &correct);
            if (!isfinite(loss) || earlier_failed(job)) {
                rc = stopped(err, errlen, r, o, epoch, step + 1, steps, loss);
                break;
            }
            loss_sum += loss;
            correct_sum += correct;
            record_tenths(r, epoch, step, steps, loss, &tenth_sum, &tenth_steps);
            progress(o->progress, model_name(r->kind), (int)epoch, step + 1, steps,
                     loss_sum / (double)(step + 1), t0, &last);
        }
        if (rc != 0) break;  // nothing of an epoch cut short is kept
        epoch_result *e = &r->per_epoch[epoch - 1];
        e->train_loss = steps ? loss_sum / (double)steps : 0;
        e->train_accuracy = steps ? (double)correct_sum / ((double)steps * B) : 0;
        if (trainer_evaluate(&e->chunk_accuracy, &e->review_accuracy, logits, m, d) < 0)
            rc = -1;
        e->seconds = now_seconds() - t0;
        r->epochs = epoch;
    }
    return rc;
}
//< cell-141

// train_model, and each model of train_models (job: it stops when a model
// before it failed).
static int train_job_model(run_result *r, sentiment_model *m, torch_rng *g, const trainer_data *d,
                           const trainer_options *o, const training_job *job, FILE *out, char *err,
                           size_t errlen) {
    int B = o->B, L = d->L;
    int64_t *perm = malloc((d->n_pool ? d->n_pool : 1) * sizeof *perm);
    int32_t *X = malloc((size_t)B * L * sizeof *X), *Y = malloc((size_t)B * sizeof *Y);
    float *logits = malloc((d->n_test ? d->n_test : 1) * sizeof *logits);
    r->per_epoch = calloc((size_t)o->epochs, sizeof *r->per_epoch);
    r->tenths = calloc((size_t)o->epochs * 10, sizeof *r->tenths);
    // rc: 0, -1 out of memory, -2 a failure err already describes
    int rc = !perm || !X || !Y || !logits || !r->per_epoch || !r->tenths ? -1 : 0;
    if (rc == 0 && d->n_pool < (size_t)B) {  // not one batch: no step would be taken
        snprintf(err, errlen, "%zu training chunk%s: training needs at least %d, one batch",
                 d->n_pool, d->n_pool == 1 ? "" : "s", B);
        rc = -2;
    }
    if (rc == 0) rc = run_epochs(r, m, g, d, o, job, perm, X, Y, logits, err, errlen);
    if (rc == 0) print_epochs(out, r);
    if (rc == 0) above_constant_guess(out, r, d, o);
    if (rc == 0) rc = keep_attention(r, m, o);
    if (rc == -1) snprintf(err, errlen, "out of memory training the %s model", model_name(r->kind));
    free(perm);
    free(X);
    free(Y);
    free(logits);
    return rc < 0 ? -1 : 0;
}

int train_model(run_result *r, sentiment_model *m, torch_rng *g, const trainer_data *d,
                const trainer_options *o, FILE *out, char *err, size_t errlen) {
    return train_job_model(r, m, g, d, o, NULL, out, err, errlen);
}

static void run_job(training_job *j, const trainer_data *d, const trainer_options *o) {
    FILE *f = open_memstream(&j->text, &j->len);
    const run_result *r = j->result;
    sentiment_model m;
    torch_rng g;
    if (!f) {
        j->rc = -1;
        snprintf(j->err, sizeof j->err, "out of memory");
    } else if (trainer_model(&m, &g, r, o, d->L) < 0) {
        j->rc = -1;
        snprintf(j->err, sizeof j->err, "out of memory training the %s model", model_name(r->kind));
        fclose(f);
    } else {
        fprintf(f, "%s, lr %g, embeddings %s:\n", model_name(r->kind), r->lr, embeddings_word(r->frozen));
        j->rc = train_job_model(j->result, &m, &g, d, o, j, f, j->err, sizeof j->err);
        sentiment_free(&m);
        if (fclose(f) != 0 && j->rc == 0) {
            j->rc = -1;
            snprintf(j->err, sizeof j->err, "out of memory");
        }
    }
    if (j->rc < 0) {  // first_failed = min(first_failed, index)
        int seen = atomic_load(j->first_failed);
        while (j->index < seen && !atomic_compare_exchange_weak(j->first_failed, &seen, j->index)) {}
    }
}

int train_models(run_result *results, int n, const trainer_data *d, const trainer_options *o,
                 FILE *out, char *err, size_t errlen) {
    if (d->n_test == 0) {
        snprintf(err, errlen, "the test reviews scored give no chunk to score");
        return -1;
    }
    size_t empty = test_reviews_without_chunks(d);
    if (empty > 0)
        fprintf(out, "Note: %zu of the %zu test reviews scored give no chunk (nothing left after "
                "cleaning);\nthe review accuracy leaves %s out\n", empty,
                d->scored ? d->scored : d->reviews, empty == 1 ? "it" : "them");
    training_job *jobs = calloc(n > 0 ? (size_t)n : 1, sizeof *jobs);
    int *order = malloc((n > 0 ? (size_t)n : 1) * sizeof *order);  // attention models first
    if (!jobs || !order) {
        free(jobs);
        free(order);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    atomic_int first_failed = n;
    for (int i = 0; i < n; i++) jobs[i] = (training_job){.result = &results[i], .index = i,
                                                         .first_failed = &first_failed};
    for (int pass = 0, k = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            if ((results[i].kind == MODEL_BASELINE) == (pass == 1)) order[k++] = i;
    int next = 0;
    PARALLEL_FOR(n > 1)
    for (int k = 0; k < n; k++) {
        run_job(&jobs[order[k]], d, o);
        PARALLEL_CRITICAL {
            jobs[order[k]].done = true;
            for (; next < n && jobs[next].done && jobs[next].rc == 0; next++) {
                fwrite(jobs[next].text, 1, jobs[next].len, out);
                fflush(out);
            }
        }
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (jobs[i].rc < 0 && rc == 0) {
            snprintf(err, errlen, "%s", jobs[i].err);
            rc = -1;
        }
        free(jobs[i].text);
    }
    free(jobs);
    free(order);
    return rc;
}

long best_epoch(const run_result *r, bool reviews) {
    long best = 0;
    for (long k = 1; k < r->epochs; k++) {
        const epoch_result *e = r->per_epoch;
        if ((reviews ? e[k].review_accuracy : e[k].chunk_accuracy) >
            (reviews ? e[best].review_accuracy : e[best].chunk_accuracy))
            best = k;
    }
    return best;
}

int write_epoch_data(const run_result *r, const char *program, const char *dir) {
    char name[128];
    snprintf(name, sizeof name, "%s-train-%s-%g-%s.dat", program, model_name(r->kind), r->lr, embeddings_word(r->frozen));
    FILE *f = open_data_file(program, dir, name);
    if (!f) return -1;
    fputs("# epoch train_loss train_accuracy test_chunk_accuracy test_review_accuracy seconds\n", f);
    for (long e = 0; e < r->epochs; e++) {
        const epoch_result *x = &r->per_epoch[e];
        fprintf(f, "%ld %.6g %.6f %.6f %.6f %.2f\n", e + 1, x->train_loss, x->train_accuracy,
                x->chunk_accuracy, x->review_accuracy, x->seconds);
    }
    if (!close_data_file(program, f, dir, name)) return -1;
    snprintf(name, sizeof name, "%s-loss-%s-%g-%s.dat", program, model_name(r->kind), r->lr, embeddings_word(r->frozen));
    f = open_data_file(program, dir, name);
    if (!f) return -1;
    fputs("# epoch (at the end of each tenth) mean_training_loss_over_that_tenth\n", f);
    for (long k = 0; k < 10 * r->epochs; k++) fprintf(f, "%.1f %.6g\n", (double)(k + 1) / 10, r->tenths[k]);
    return close_data_file(program, f, dir, name) ? 0 : -1;
}
