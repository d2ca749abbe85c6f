// chapter8.c: positions, and a transformer trained end to end: an
// encoder-decoder model of chapter 5's layers learns to reverse sequences
// of digits, once with sinusoidal positions and once without.
//
// Chapter 8 follows no notebook; its blocks are labelled [P8.1] to [P8.13]
// (P for the program, chapter 8, blocks 1 to 13), labels no notebook cell,
// section, figure or table can take:
//   [P8.1] reverse a source: the encoder's outputs, without and with positions
//   [P8.2] the sinusoidal encoding
//   [P8.3] the model: sizes and parameters
//   [P8.4] the first training steps' losses (what the PyTorch twin prints)
//   [P8.5] training with positions: the loss curve
//   [P8.6] exact match on held-out sequences, with positions
//   [P8.7] a few decoded examples
//   [P8.8] training without positions: the loss curve
//   [P8.9] exact match without positions
//   [P8.10] why: without positions the model cannot see the order
//   [P8.11] the trained cross-attention of one example
//   [P8.12] a transformer encoder on IMDb against chapter 7's single head
//          (chapter8_imdb.c), unless --no-imdb
//   [P8.13] time and memory
//
// Dimension legend:
//   V    vocabulary (13: PAD, BOS, EOS, ten digits)
//   d    model width (D_MODEL), h heads, d_ff feed-forward width
//   B    sequences in a training batch (BATCH)
//   S    source length (10, padded), T target length (11)
//   M    held-out test sequences (--test-size)
//
// Usage: ./chapter8 [--steps N] [--test-size N] [--seed N] [--data DIR]
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/cli.h"
#include "core/outputs.h"
#include "core/clock.h"
#include "core/print.h"
#include "core/readfile.h"
#include "core/rng.h"
#include "layers/positions.h"
#include "programs/chapter8_imdb.h"
#include "kernels/parallel.h"
#include "tasks/reversal_task.h"
#include "models/seq2seq.h"

#define PROGRAM "chapter8"
#define DEFAULT_SEED 1
#define D_MODEL 64
#define HEADS 4
#define D_FF 256
#define N_ENC 2
#define N_DEC 2
#define BATCH 64
#define LR 1e-3                // Adam's learning rate after the warm-up
#define WARMUP 100             // steps of linear warm-up
#define DEFAULT_STEPS 600
#define DEFAULT_TEST 4000
#define FIRST_STEPS 5          // the losses [P8.4] prints in full
#define N_CURVE 12             // the points of the loss curves [P8.5], [P8.8]
#define SPIKE_NEAR 10          // [P8.5], [P8.8]: the steps up to the largest loss,
#define SPIKE_GAP 20           //   and SPIKE_FAR steps that end SPIKE_GAP steps
#define SPIKE_FAR 50           //   before those: the gradient's norm over each
#define N_EXAMPLES 8           // [P8.7]
#define N_SINUSOID 64          // positions in the figure's table
#define EXAMPLE_LEN 8          // the length of the example of [P8.11]

enum { S = REVERSAL_SRC_LEN, T = REVERSAL_TGT_LEN, N_MAX = REVERSAL_N_MAX };

// ------------------------------------------------------------------ a run
// One model trained and scored: with the sinusoidal table or without.
typedef struct {
    position_kind positions;
    seq2seq_model model;
    real *losses;                  // (steps) each step's loss
    double *norms;                 // (steps) each step's gradient norm, before Adam
    int32_t *decoded;              // (M, T) greedy decoding of the test set
    bool *exact;                   // (M)
    bool *multiset;                // (M) the right digits in some order
    double seconds;                // training time
    int status;                    // 0, or -1 when out of memory
} run;

typedef struct {
    uint64_t seed;
    int steps, test_size;
    float pe[T * D_MODEL];         // the sinusoidal table the model adds
    real pe_real[T * D_MODEL];
    double reverse_gap[2];         // [P8.1] without, with positions
    int reverse_index;             // the test sequence [P8.1] reverses
    reversal_batch test;           // the held-out sequences
    reversal_seen seen;            // every training sequence
    run with, without;             // [P8.5]-[P8.7], [P8.8]-[P8.10]
    double order_gap;              // [P8.10] logits of a source and its reverse
    int32_t reverse_out[T];        // [P8.10] the reverse decoded without positions
    int example;                   // the test sequence of [P8.11]
    float cross[T * S];            // [P8.11] (n + 1, n) its cross-attention
    float cross_none[T * S];       // the same, of the model without positions
    float self[S * S];             // its encoder self-attention, (n, n)
} chapter8;

static seq2seq_config model_config(position_kind positions) {
    return (seq2seq_config){ .V = REVERSAL_VOCAB, .d = D_MODEL, .h = HEADS,
                             .d_ff = D_FF, .n_enc = N_ENC, .n_dec = N_DEC,
                             .n_pos = T, .norm_first = false,
                             .positions = positions, .pad = REVERSAL_PAD };
}

// The model from torch.manual_seed(seed): the same draws with or without
// positions (the sinusoidal table draws nothing). Returns 0 or -1.
static int model_build(seq2seq_model *m, const chapter8 *c,
                       position_kind positions) {
    torch_rng g;
    rng_seed(&g, c->seed);
    seq2seq_config cfg = model_config(positions);
    return seq2seq_init(m, &cfg, positions == POSITIONS_SINUSOIDAL ? c->pe_real : NULL,
                        BATCH, S, T, &g) == 0 ? 0 : -1;
}

//> learning-rate
// Linear warm-up over the first WARMUP steps, then constant: Adam's first
// steps rest on moment estimates from a handful of gradients, and a
// post-norm stack takes large steps badly.
static double learning_rate(int step) {
    return LR * fmin(1.0, (step + 1) / (double)WARMUP);
}
//< learning-rate

//> train
// steps steps of BATCH fresh sequences from the generator seeded seed + 1;
// seen, when not NULL, collects every sequence trained on. The model owns
// its Adam state: a step takes the batch and the learning rate.
static int train(run *r, const chapter8 *c, reversal_seen *seen) {
    torch_rng data;
    rng_seed(&data, c->seed + 1);
    reversal_batch b;
    if (reversal_batch_alloc(&b, BATCH) != 0) return -1;
    int status = 0;
    for (int step = 0; step < c->steps && status == 0; step++) {
        reversal_draw(&b, &data);
        if (seen) status = reversal_seen_add(seen, &b);
        r->losses[step] = seq2seq_train_step(&r->model, learning_rate(step), b.src, b.tgt_in,
                                             b.tgt_out, BATCH, S, T);
        r->norms[step] = r->model.grad_norm;
    }
    reversal_batch_free(&b);
    return status;
}
//< train

// Are the digits of out (T) before its EOS the n digits of src, in any
// order?
static bool same_multiset(const int32_t *out, const int32_t *src, int n) {
    int count[REVERSAL_VOCAB] = { 0 };
    for (int i = 0; i < n; i++) count[src[i]]++;
    int t = 0;
    for (; t < T && out[t] != REVERSAL_EOS; t++) {
        if (out[t] < 0 || out[t] >= REVERSAL_VOCAB || --count[out[t]] < 0)
            return false;
    }
    return t == n;
}

//> evaluate
// Greedy decoding of every test sequence, BATCH at a time, and its score.
static void evaluate(run *r, const reversal_batch *test) {
    for (int from = 0; from < test->B; from += BATCH) {
        int B = test->B - from < BATCH ? test->B - from : BATCH;
        seq2seq_greedy_decode(&r->model, r->decoded + (size_t)from * T,
                              test->src + (size_t)from * S, B, S, T,
                              REVERSAL_BOS, REVERSAL_EOS);
    }
    for (int i = 0; i < test->B; i++) {
        const int32_t *out = r->decoded + (size_t)i * T;
        r->exact[i] = reversal_exact(out, test->tgt_out + (size_t)i * T);
        r->multiset[i] = same_multiset(out, test->src + (size_t)i * S,
                                       test->lengths[i]);
    }
}
//< evaluate

static void run_free(run *r) {
    seq2seq_free(&r->model);
    free(r->losses);
    free(r->norms);
    free(r->decoded);
    free(r->exact);
    free(r->multiset);
}

// Builds, trains and scores one model. Sets r->status.
static void run_all(run *r, const chapter8 *c, reversal_seen *seen) {
    r->losses = calloc((size_t)c->steps + 1, sizeof *r->losses);
    r->norms = calloc((size_t)c->steps + 1, sizeof *r->norms);
    r->decoded = malloc((size_t)c->test_size * T * sizeof *r->decoded);
    r->exact = malloc((size_t)c->test_size * sizeof *r->exact);
    r->multiset = malloc((size_t)c->test_size * sizeof *r->multiset);
    r->status = -1;
    if (!r->losses || !r->norms || !r->decoded || !r->exact || !r->multiset) return;
    if (model_build(&r->model, c, r->positions) != 0) return;
    double started = now_seconds();
    if (train(r, c, seen) != 0) return;
    r->seconds = now_seconds() - started;
    evaluate(r, &c->test);
    r->status = 0;
}

// ------------------------------------------------------------------ order
// The largest difference between the encoder's output rows for src (n
// digits) reversed and its rows for src in reverse order: 0, to rounding,
// when the encoder cannot see the order.
static double reverse_gap(seq2seq_model *m, const int32_t *src, int n) {
    int32_t both[2 * S], tgt[2 * T];
    memcpy(both, src, S * sizeof *src);
    for (int i = 0; i < S; i++) both[S + i] = i < n ? src[n - 1 - i] : REVERSAL_PAD;
    for (int t = 0; t < 2 * T; t++) tgt[t] = t % T == 0 ? REVERSAL_BOS : REVERSAL_PAD;
    seq2seq_forward(m, both, tgt, NULL, 2, S, T);
    const real *a = m->a.memory, *b = m->a.memory + S * D_MODEL;
    double gap = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < D_MODEL; k++)
            gap = fmax(gap, fabs((double)a[(n - 1 - i) * D_MODEL + k] - b[i * D_MODEL + k]));
    return gap;
}

// The first test sequence of length n, or -1.
static int first_of_length(const reversal_batch *test, int n) {
    for (int i = 0; i < test->B; i++)
        if (test->lengths[i] == n) return i;
    return -1;
}

// [P8.1]: the untrained models, without and with positions, on the first
// ten-digit test sequence and its reverse. Returns 0 or -1.
static int order_before_training(chapter8 *c) {
    c->reverse_index = first_of_length(&c->test, N_MAX);
    if (c->reverse_index < 0) c->reverse_index = 0;
    const int32_t *src = c->test.src + (size_t)c->reverse_index * S;
    int n = c->test.lengths[c->reverse_index];
    const position_kind kinds[2] = { POSITIONS_NONE, POSITIONS_SINUSOIDAL };
    for (int k = 0; k < 2; k++) {
        seq2seq_model m;
        if (model_build(&m, c, kinds[k]) != 0) return -1;
        c->reverse_gap[k] = reverse_gap(&m, src, n);
        seq2seq_free(&m);
    }
    return 0;
}

// [P8.10]: the largest difference between the trained model's logits for a
// source and for it reversed, at every target position, teacher-forced on
// the same target: without positions nothing in the model depends on the
// source's order.
static double logits_gap(seq2seq_model *m, const reversal_batch *test, int i) {
    int32_t src[2 * S], tgt[2 * T];
    int n = test->lengths[i];
    memcpy(src, test->src + (size_t)i * S, S * sizeof *src);
    for (int k = 0; k < S; k++) src[S + k] = k < n ? src[n - 1 - k] : REVERSAL_PAD;
    memcpy(tgt, test->tgt_in + (size_t)i * T, T * sizeof *tgt);
    memcpy(tgt + T, tgt, T * sizeof *tgt);
    seq2seq_forward(m, src, tgt, NULL, 2, S, T);
    const real *a = m->a.logits, *b = a + T * REVERSAL_VOCAB;
    double gap = 0;
    for (int e = 0; e < (n + 1) * REVERSAL_VOCAB; e++) gap = fmax(gap, fabs((double)a[e] - b[e]));
    return gap;
}

// [P8.10]: the model without positions decodes the reverse of the source
// [P8.1] reversed.
static void decode_reverse(chapter8 *c) {
    int i = c->reverse_index, n = c->test.lengths[i];
    const int32_t *src = c->test.src + (size_t)i * S;
    int32_t reversed[S];
    for (int k = 0; k < S; k++) reversed[k] = k < n ? src[n - 1 - k] : REVERSAL_PAD;
    seq2seq_greedy_decode(&c->without.model, c->reverse_out, reversed, 1, S, T,
                          REVERSAL_BOS, REVERSAL_EOS);
}

// The mean over the heads of an attention array laid out (HEADS, per_head,
// S), its first rows rows and n columns: the (rows, n) table out.
static void mean_of_heads(float *out, const real *att, int per_head, int rows, int n) {
    for (int q = 0; q < rows; q++)
        for (int k = 0; k < n; k++) {
            double sum = 0;
            for (int h = 0; h < HEADS; h++) sum += att[((size_t)h * per_head + q) * S + k];
            out[q * n + k] = (float)(sum / HEADS);
        }
}

// [P8.11]: the trained models' attention on one example of EXAMPLE_LEN
// digits, averaged over the heads: the last decoder layer's
// cross-attention (n + 1, n), of the model with positions and of the one
// without, and the first encoder layer's self-attention (n, n) of the
// model with positions.
static void attention_maps(chapter8 *c) {
    c->example = first_of_length(&c->test, EXAMPLE_LEN);
    if (c->example < 0) c->example = 0;
    int n = c->test.lengths[c->example];
    seq2seq_model *models[2] = { &c->with.model, &c->without.model };
    float *cross[2] = { c->cross, c->cross_none };
    for (int r = 0; r < 2; r++) {
        seq2seq_forward(models[r], c->test.src + (size_t)c->example * S,
                        c->test.tgt_in + (size_t)c->example * T, NULL, 1, S, T);
        mean_of_heads(cross[r], seq2seq_attention(models[r], ATTN_DEC_CROSS, N_DEC - 1), T,
                      n + 1, n);
        if (r == 0)
            mean_of_heads(c->self, seq2seq_attention(models[r], ATTN_ENC_SELF, 0), S, n, n);
    }
}

// ------------------------------------------------------------------ the run
static void chapter8_free(chapter8 *c) {
    run_free(&c->with);
    run_free(&c->without);
    reversal_batch_free(&c->test);
    reversal_seen_free(&c->seen);
}

// Everything from torch.manual_seed(seed). Returns 0, or -1 when out of
// memory (the caller frees c either way).
static int chapter8_run(chapter8 *c, uint64_t seed, int steps, int test_size) {
    memset(c, 0, sizeof *c);
    c->seed = seed;
    c->steps = steps;
    c->test_size = test_size;
    c->with.positions = POSITIONS_SINUSOIDAL;
    c->without.positions = POSITIONS_NONE;
    positions_sinusoidal(c->pe, T, D_MODEL);
    for (int k = 0; k < T * D_MODEL; k++) c->pe_real[k] = (real)c->pe[k];
    if (reversal_batch_alloc(&c->test, test_size) != 0) return -1;
    torch_rng held_out;
    rng_seed(&held_out, seed + 2);
    reversal_draw(&c->test, &held_out);
    if (order_before_training(c) != 0) return -1;
    // the two models train side by side when there are threads; each on
    // one thread, so that the numbers are the same with any number
    run *runs[2] = { &c->with, &c->without };
    PARALLEL_FOR(parallel_threads() > 1)
    for (int k = 0; k < 2; k++) run_all(runs[k], c, k == 0 ? &c->seen : NULL);
    if (c->with.status != 0 || c->without.status != 0) return -1;
    reversal_seen_finish(&c->seen);
    c->order_gap = logits_gap(&c->without.model, &c->test, c->reverse_index);
    decode_reverse(c);
    attention_maps(c);
    return 0;
}

// ------------------------------------------------------------------ printing
// The digits of test sequence i as text, "4 7 1".
static void digits_text(char *text, const reversal_batch *b, int i) {
    int n = b->lengths[i], at = 0;
    for (int k = 0; k < n; k++)
        at += sprintf(text + at, k ? " %d" : "%d", b->digits[(size_t)i * N_MAX + k]);
    if (n == 0) text[0] = '\0';
}

// A decoded output as text: its digits before EOS, "4 7 1", and "(no EOS)"
// when it has none.
static void output_text(char *text, const int32_t *out) {
    char plain[T + 1];
    bool ended = reversal_text(plain, out);
    int at = 0;
    for (int k = 0; plain[k]; k++) at += sprintf(text + at, k ? " %c" : "%c", plain[k]);
    text[at] = '\0';
    if (!ended) strcpy(text + at, at ? " (no EOS)" : "(no EOS)");
}

static void print_sinusoids(const chapter8 *c, FILE *f) {
    print_cell(f, "P8.2", "the sinusoidal encoding: PE(pos, 2i) = sin(pos w_i), "
                       "PE(pos, 2i+1) = cos(pos w_i)");
    fputs("width d = 64; w_i = 10000^(-2i/64) for i = 0, 1, 2, 4, 8, 16, 31:\n", f);
    const int pairs[7] = { 0, 1, 2, 4, 8, 16, 31 };
    float w[7];
    for (int k = 0; k < 7; k++) w[k] = (float)positions_frequency(pairs[k], D_MODEL);
    print_list(f, w, 7, 6);
    fputs("positions 0 to 10 (the rows the model adds), columns 0 to 5:\n", f);
    print_tensor_columns(f, c->pe, T, D_MODEL, 6);
}

static void print_order(const chapter8 *c, FILE *f) {
    char text[3 * N_MAX];
    print_cell(f, "P8.1", "reverse a source: do the untrained encoder's outputs just "
                       "come out reversed?");
    digits_text(text, &c->test, c->reverse_index);
    fprintf(f, "the source %s and its reverse, the same weights; the largest\n"
            "difference between the encoder's outputs for the reverse and its "
            "outputs for the source,\nrows reversed:\n", text);
    fprintf(f, "  without positions  %.1e\n", c->reverse_gap[0]);
    fprintf(f, "  with positions     %.3f\n", c->reverse_gap[1]);
}

// The parameters of the tensors whose names begin with prefix.
static size_t params_named(const seq2seq_model *m, const char *prefix) {
    size_t n = 0, len = strlen(prefix);
    for (int t = 0; t < m->n_tensors; t++)
        if (strncmp(m->tensors[t].name, prefix, len) == 0) n += m->tensors[t].count;
    return n;
}

static void print_model(const chapter8 *c, FILE *f) {
    const seq2seq_model *m = &c->with.model;
    print_cell(f, "P8.3", "the model: nn.Embedding(13, 64), 2 + 2 layers (64, 4 heads, 256), "
                       "nn.Linear(64, 13)");
    fputs("parameters\n", f);
    const char *groups[] = { "embedding.", "enc.0.", "enc.1.", "dec.0.", "dec.1.", "generator." };
    for (int k = 0; k < 6; k++) {
        fprintf(f, "  %-11s ", groups[k]);
        print_grouped(f, (long long)params_named(m, groups[k]));
        fputc('\n', f);
    }
    fputs("  total       ", f);
    print_grouped(f, (long long)m->n_params);
    fputc('\n', f);
    fprintf(f, "training: %d steps of %d fresh sequences, Adam, lr %g after %d steps of "
            "linear warm-up,\nno dropout; the same weights and batches with and without "
            "positions\n", c->steps, BATCH, LR, WARMUP);
}

// n as "1st", "2nd", "3rd", "4th"...: a step's name that the comparison
// with the twin (tests/reference/pair_cells.py) does not read as a number.
static const char *ordinal(int n) {
    static char text[16];
    int tens = n % 100, ones = n % 10;
    const char *suffix = tens >= 11 && tens <= 13 ? "th"
                         : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
    snprintf(text, sizeof text, "%d%s", n, suffix);
    return text;
}

static void print_first_losses(const chapter8 *c, FILE *f) {
    print_cell(f, "P8.4", "the losses of the first steps (tests/reference/chapter8_twin.py "
                       "prints them too)");
    fputs("step  with positions  without\n", f);
    for (int s = 0; s < FIRST_STEPS && s < c->steps; s++)
        fprintf(f, "%4s  %14.6f  %7.6f\n", ordinal(s + 1), (double)c->with.losses[s],
                (double)c->without.losses[s]);
}

// The mean of x over steps from .. to-1.
static double mean_over(const double *x, int from, int to) {
    double sum = 0;
    for (int s = from; s < to; s++) sum += x[s];
    return sum / (to - from);
}

// The step of the largest loss after the warm-up, and the gradient's norm
// on the way to it: its mean over the SPIKE_NEAR steps up to that step,
// against its mean over the SPIKE_FAR steps that end SPIKE_GAP steps before
// them. Nothing when the run is too short for both.
static void print_spike(const run *r, const chapter8 *c, FILE *f) {
    int peak = WARMUP;
    if (peak >= c->steps) return;
    for (int s = WARMUP; s < c->steps; s++)
        if (r->losses[s] > r->losses[peak]) peak = s;
    int near_from = peak + 1 - SPIKE_NEAR, far_to = near_from - SPIKE_GAP, far_from = far_to - SPIKE_FAR;
    if (far_from < 0) return;
    double far = mean_over(r->norms, far_from, far_to), near = mean_over(r->norms, near_from, peak + 1);
    fprintf(f, "the largest loss of a step after the warm-up: %.4f, at step %d; the gradient's norm\n"
            "(before Adam) averaged %.2f over steps %d-%d, and %.2f over steps %d-%d: %.1f times\n",
            (double)r->losses[peak], peak + 1, far, far_from + 1, far_to, near, near_from + 1, peak + 1,
            near / far);
}

static void print_curve(const run *r, const chapter8 *c, const char *cell, FILE *f) {
    print_cell(f, cell, r->positions == POSITIONS_NONE
                            ? "training without positions: the mean loss over each stretch"
                            : "training with positions: the mean loss over each stretch");
    int every = c->steps / N_CURVE > 0 ? c->steps / N_CURVE : 1;
    fputs("steps        loss\n", f);
    for (int from = 0; from < c->steps; from += every) {
        int to = from + every < c->steps ? from + every : c->steps;
        double sum = 0;
        for (int s = from; s < to; s++) sum += r->losses[s];
        fprintf(f, "%4d-%-4d  %.4f\n", from + 1, to, sum / (to - from));
    }
    print_spike(r, c, f);
    fprintf(f, "trained in %.0f s\n", r->seconds);
}

// How many orders the digits of test sequence i have: n! / prod_k (m_k!)
// for digit k occurring m_k times. A model that cannot see the order can
// get at best one of them right.
static double orders_of(const reversal_batch *b, int i) {
    int count[10] = { 0 }, n = b->lengths[i];
    double orders = 1;
    for (int k = 0; k < n; k++) {
        int digit = b->digits[(size_t)i * N_MAX + k];
        orders *= (double)(k + 1) / ++count[digit];
    }
    return orders;
}

// A fraction as "0.9985 (1997 of 2000)".
static void print_fraction(FILE *f, int right, int total) {
    fprintf(f, "%.4f (%d of %d)", total ? (double)right / total : 0.0, right, total);
}

static void print_accuracy(const run *r, const chapter8 *c, const char *cell, FILE *f) {
    const reversal_batch *t = &c->test;
    bool blind = r->positions == POSITIONS_NONE;
    print_cell(f, cell, blind ? "exact match without positions, greedy decoding"
                              : "exact match on held-out sequences, greedy decoding");
    int right = 0, unseen = 0, unseen_right = 0, multiset = 0;
    for (int i = 0; i < t->B; i++) {
        bool fresh = !reversal_seen_has(&c->seen, t->digits + (size_t)i * N_MAX, t->lengths[i]);
        right += r->exact[i];
        multiset += r->multiset[i];
        unseen += fresh;
        unseen_right += fresh && r->exact[i];
    }
    fprintf(f, "all %d held-out sequences: ", t->B);
    print_fraction(f, right, t->B);
    fputs("\nthose never seen in training: ", f);
    print_fraction(f, unseen_right, unseen);
    fputs(blind ? "\nlength  sequences  never seen  exact  the right digits  best blind\n"
                : "\nlength  sequences  never seen  exact  exact, never seen\n", f);
    for (int n = 1; n <= N_MAX; n++) {
        int count = 0, fresh = 0, ok = 0, ok_fresh = 0, digits_ok = 0;
        double best = 0;
        for (int i = 0; i < t->B; i++) {
            if (t->lengths[i] != n) continue;
            bool is_fresh = !reversal_seen_has(&c->seen, t->digits + (size_t)i * N_MAX, n);
            count++;
            fresh += is_fresh;
            ok += r->exact[i];
            ok_fresh += is_fresh && r->exact[i];
            digits_ok += r->multiset[i];
            best += 1 / orders_of(t, i);
        }
        if (count == 0) continue;
        fprintf(f, "%6d  %9d  %10d  %5.3f", n, count, fresh, (double)ok / count);
        if (blind)
            fprintf(f, "  %16.3f  %10.3f\n", (double)digits_ok / count, best / count);
        else if (fresh)
            fprintf(f, "  %17.3f\n", (double)ok_fresh / fresh);
        else
            fprintf(f, "  %17s\n", "-");
    }
    if (blind) {
        fputs("the right digits in some order: ", f);
        print_fraction(f, multiset, t->B);
        fputc('\n', f);
    }
}

static void print_examples(const chapter8 *c, FILE *f) {
    print_cell(f, "P8.7", "a few held-out sequences, decoded greedily by both models");
    fprintf(f, "%-20s  %-20s  %s\n", "source", "with positions", "without");
    for (int i = 0; i < N_EXAMPLES && i < c->test.B; i++) {
        char src[3 * N_MAX], a[3 * T + 16], b[3 * T + 16];
        digits_text(src, &c->test, i);
        output_text(a, c->with.decoded + (size_t)i * T);
        output_text(b, c->without.decoded + (size_t)i * T);
        fprintf(f, "%-20s  %-20s  %s\n", src, a, b);
    }
}

static void print_why(const chapter8 *c, FILE *f) {
    char text[3 * N_MAX], a[3 * T + 16], b[3 * T + 16];
    int i = c->reverse_index;
    print_cell(f, "P8.10", "why: without positions the trained model cannot see the order");
    digits_text(text, &c->test, i);
    fprintf(f, "the source %s and its reverse, the same target fed in: the largest\n"
            "difference between the logits the model without positions gives them: %.1e\n",
            text, c->order_gap);
    output_text(a, c->without.decoded + (size_t)i * T);
    output_text(b, c->reverse_out);
    fprintf(f, "it decodes the source as   %s\nand its reverse as         %s\n", a, b);
    output_text(b, c->with.decoded + (size_t)i * T);
    fprintf(f, "the model with positions decodes the source as %s\n", b);
}

static void print_cross(const chapter8 *c, FILE *f) {
    int i = c->example, n = c->test.lengths[i];
    const int *digits = c->test.digits + (size_t)i * N_MAX;
    print_cell(f, "P8.11", "the trained cross-attention of one example, the last decoder "
                       "layer, mean of the heads");
    fputs("a row for each token the decoder writes (the digits reversed, then EOS), "
          "a column\nfor each source digit:\n      ", f);
    for (int k = 0; k < n; k++) fprintf(f, "     %d", digits[k]);
    fputc('\n', f);
    for (int q = 0; q <= n; q++) {
        if (q < n) fprintf(f, "%6d", digits[n - 1 - q]);
        else fputs("   EOS", f);
        for (int k = 0; k < n; k++) fprintf(f, "  %.2f", (double)c->cross[q * n + k]);
        fputc('\n', f);
    }
    fprintf(f, "%-42s", "weight on the digit the row writes:");
    for (int q = 0; q < n; q++) fprintf(f, " %.2f", (double)c->cross[q * n + n - 1 - q]);
    fprintf(f, "\n%-42s", "on it and its two neighbours, all three:");
    for (int q = 0; q < n; q++) {
        double sum = 0;
        for (int k = n - 2 - q; k <= n - q; k++)
            if (k >= 0 && k < n) sum += c->cross[q * n + k];
        fprintf(f, " %.2f", sum);
    }
    fputc('\n', f);
}

// The run's wall time and the most memory it held at once (its peak
// resident size, which Linux reports in kilobytes).
// reversal is the wall time of the two reversal models, which train side
// by side; imdb that of block [P8.12], or a negative number when it did
// not run.
static void print_time_and_memory(FILE *out, double seconds, double reversal, double imdb) {
    struct rusage use;
    double mb = getrusage(RUSAGE_SELF, &use) == 0 ? (double)use.ru_maxrss / 1024 : 0;
    print_cell(out, "P8.13", "time and memory");
    fprintf(out, "the whole run took %.0f s (threads: %d): %.0f s for the two reversal models, "
            "trained\nside by side", seconds, parallel_threads(), reversal);
    if (imdb >= 0) fprintf(out, ", %.0f s for the IMDb block", imdb);
    fprintf(out, "; peak memory %.0f MB\n", mb);
}

static void chapter8_print(const chapter8 *c, FILE *f) {
    fputs("Chapter 8 follows no notebook: its blocks are this program's own, [P8.1] to [P8.13].\n",
          f);
    print_order(c, f);
    print_sinusoids(c, f);
    print_model(c, f);
    print_first_losses(c, f);
    print_curve(&c->with, c, "P8.5", f);
    print_accuracy(&c->with, c, "P8.6", f);
    print_examples(c, f);
    print_curve(&c->without, c, "P8.8", f);
    print_accuracy(&c->without, c, "P8.9", f);
    print_why(c, f);
    print_cross(c, f);
}

// ------------------------------------------------------------------ figure data
static bool write_losses(const run *r, const chapter8 *c, const char *dir, const char *name) {
    FILE *f = open_data_file(PROGRAM, dir, name);
    if (!f) return false;
    fputs("# step loss\n", f);
    for (int s = 0; s < c->steps; s++) fprintf(f, "%d %.6f\n", s + 1, (double)r->losses[s]);
    return close_data_file(PROGRAM, f, dir, name);
}

// The sinusoidal table of N_SINUSOID positions, one row a position.
static bool write_sinusoids(const char *dir) {
    float pe[N_SINUSOID * D_MODEL];
    positions_sinusoidal(pe, N_SINUSOID, D_MODEL);
    const char *name = "chapter8-sinusoids.dat";
    FILE *f = open_data_file(PROGRAM, dir, name);
    if (!f) return false;
    for (int p = 0; p < N_SINUSOID; p++)
        for (int k = 0; k < D_MODEL; k++)
            fprintf(f, "%.6f%c", (double)pe[p * D_MODEL + k], k + 1 < D_MODEL ? ' ' : '\n');
    return close_data_file(PROGRAM, f, dir, name);
}

// The example's attention maps, labelled with its digits.
static bool write_maps(const chapter8 *c, const char *dir) {
    int i = c->example, n = c->test.lengths[i];
    char labels[T][8];
    const char *src[S], *out[T];
    for (int k = 0; k < n; k++) {
        snprintf(labels[k], sizeof labels[k], "%d", c->test.digits[(size_t)i * N_MAX + k]);
        src[k] = labels[k];
    }
    for (int t = 0; t < n; t++) out[t] = src[n - 1 - t];
    out[n] = "EOS";
    return write_heatmap(PROGRAM, dir, "chapter8-cross.dat", c->cross, n + 1, n, out, src) &&
           write_heatmap(PROGRAM, dir, "chapter8-cross-none.dat", c->cross_none, n + 1, n, out,
                         src) &&
           write_heatmap(PROGRAM, dir, "chapter8-self.dat", c->self, n, n, src, src);
}

static int chapter8_write_data(const chapter8 *c, const char *dir) {
    bool ok = write_losses(&c->with, c, dir, "chapter8-loss-positions.dat") &&
              write_losses(&c->without, c, dir, "chapter8-loss-none.dat") &&
              write_sinusoids(dir) && write_maps(c, dir);
    return ok ? 0 : -1;
}

static const char USAGE[] =
    "[--steps N] [--test-size N] [--seed N] [--data DIR] [--no-imdb]\n"
    "         [--imdb FILE] [--glove FILE] [--imdb-epochs N] [--imdb-limit N]\n"
    "         [--imdb-test-limit N]\n"
    "\n"
    "An encoder-decoder transformer (2 + 2 layers of width 64, 4 heads) learns to\n"
    "reverse sequences of 1 to 10 digits, once with sinusoidal positions and once\n"
    "without; then greedy decoding of held-out sequences, exact match by length,\n"
    "and the trained attention of one example. Then, on chapter 7's IMDb chunks, a\n"
    "classifier built on one full encoder layer with positions against chapter 7's\n"
    "single softmax-attention head, trained side by side by chapter 7's trainer.\n"
    "\n"
    "  --steps N             training steps of 64 sequences for each model\n"
    "                        (default 600)\n"
    "  --test-size N         held-out sequences to decode (default 4000)\n"
    "  --seed N              torch.manual_seed(N) before each model's\n"
    "                        initialisation; the training batches come from a\n"
    "                        generator seeded N + 1, the held-out sequences from\n"
    "                        one seeded N + 2 (default 1)\n"
    "  --data DIR            also write the figure data (chapter8-*.dat) into DIR\n"
    "  --no-imdb             leave out the IMDb block [P8.12], which needs the data\n"
    "                        that make data fetches (--imdb, --glove and the\n"
    "                        --imdb-* options are refused beside it)\n"
    "  --imdb FILE           the IMDb reviews (default " IMDB_CELL_IMDB ")\n"
    "  --glove FILE          GloVe vectors, 100 numbers a word\n"
    "                        (default " IMDB_CELL_GLOVE ")\n"
    "  --imdb-epochs N       epochs of the IMDb models (default 1)\n"
    "  --imdb-limit N        train on N of the 214,588 chunks, spread evenly\n"
    "                        (default all)\n"
    "  --imdb-test-limit N   score N of the 25,000 test reviews (default all)\n"
    "  --help                this message\n"
    "\n"
    "With two threads (OMP_NUM_THREADS) the two models train side by side; the\n"
    "output is the same with any number.";

// What chapter 8's command line sets: the common options, the reversal's
// sizes, and the IMDb block's settings (io) unless no_imdb.
typedef struct {
    common_options opts;
    long long steps, test_size;
    bool no_imdb;
    imdb_cell_options io;
} ch8_settings;

// Reads the command line into s. Returns the exit status when the program
// ends here (--help, a refused line), or -1 when it goes on.
static int parse_chapter8(int argc, char **argv, ch8_settings *s) {
    *s = (ch8_settings){.opts = {DEFAULT_SEED, NULL}, .steps = DEFAULT_STEPS,
                        .test_size = DEFAULT_TEST, .io = imdb_cell_defaults()};
    long long imdb_epochs = 1, imdb_limit = 0, imdb_test_limit = 0;
    extra_option extra[] = {
        { "--steps", OPT_INTEGER, &s->steps, 1, 1000000, "training steps" },
        { "--test-size", OPT_INTEGER, &s->test_size, 1, 1000000, "held-out sequences" },
        { "--no-imdb", OPT_FLAG, &s->no_imdb, 0, 0, "" },
        { "--imdb", OPT_STRING, &s->io.imdb_path, 0, 0, "a file" },
        { "--glove", OPT_STRING, &s->io.glove_path, 0, 0, "a file" },
        { "--imdb-epochs", OPT_INTEGER, &imdb_epochs, 1, 100, "epochs" },
        { "--imdb-limit", OPT_INTEGER, &imdb_limit, 64, 214588, "training chunks" },
        { "--imdb-test-limit", OPT_INTEGER, &imdb_test_limit, 1, 25000, "test reviews" },
    };
    int done = cli_exit_status(imdb_refuse_with_no_imdb(argc, argv, USAGE));
    if (done < 0)
        done = cli_exit_status(parse_options_with(argc, argv, PROGRAM, USAGE, &s->opts, extra,
                                                  (int)(sizeof extra / sizeof extra[0])));
    if (done >= 0) return done;
    s->io.epochs = (long)imdb_epochs;
    s->io.limit = (long)imdb_limit;
    s->io.test_limit = (long)imdb_test_limit;
    s->io.seed = s->opts.seed;
    s->io.data_dir = s->opts.data_dir;
    return -1;
}

#ifndef TESTING
int main(int argc, char **argv) {
    ch8_settings s;
    int done = parse_chapter8(argc, argv, &s);
    if (done >= 0) return done;
    s.io.progress = stderr;
    double started = now_seconds(), load_seconds = 0, imdb_seconds = -1;
    imdb_task data;
    if (imdb_check_inputs(&data, &s.io, s.no_imdb, &load_seconds) < 0) {
        imdb_task_free(&data);
        return 1;
    }
    chapter8 *c = malloc(sizeof *c);
    double reversal_started = now_seconds();
    int status = c ? chapter8_run(c, s.opts.seed, (int)s.steps, (int)s.test_size) : -1;
    double reversal_seconds = now_seconds() - reversal_started;
    if (status == 0) {
        chapter8_print(c, stdout);
        if (s.opts.data_dir) status = chapter8_write_data(c, s.opts.data_dir);
        if (status == 0 && !s.no_imdb) {
            double t0 = now_seconds();
            status = imdb_block(stdout, &data, &s.io, load_seconds);
            imdb_seconds = load_seconds + now_seconds() - t0;
        }
        if (status == 0)
            print_time_and_memory(stdout, now_seconds() - started, reversal_seconds, imdb_seconds);
    } else {
        fprintf(stderr, PROGRAM ": error: out of memory\n");
    }
    if (c) chapter8_free(c);
    free(c);
    imdb_task_free(&data);
    return status == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
