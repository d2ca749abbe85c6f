// chapter9.c: a GPT in C that writes like Jane Austen. A character-level
// decoder-only transformer (models/gpt.h) is trained on five of her novels
// with the sixth, Persuasion, held out (tasks/austen.h); its held-out loss
// is drawn against a bigram model and the compressors gzip and xz; then it
// writes text, with and without its cache of keys and values.
//
// Chapter 9 follows no notebook; its blocks are the program's own:
//   [P9.1] the data: the novels, the vocabulary, the split
//   [P9.2] the model: sizes and parameters
//   [P9.3] the yardsticks: bigram, gzip -9, xz -9 and fair xz, bits per character
//   [P9.4] training: the held-out loss at regular steps
//   [P9.5] the whole held-out novel, against fair xz
//   [P9.6] the first losses (what tests/reference/chapter9_twin.py prints)
//   [P9.7] attention: each head over one held-out sentence (chapter9_attention.c)
//   [P9.8] samples at three temperatures, each with its words counted
//          against the training novels' (tasks/austen_words.h)
//   [P9.9] generation with and without the cache
//   [P9.10] time
// With --load FILE the model is read instead of trained: [P9.4] and [P9.6]
// are left out.
//
// Dimension legend:
//   V    vocabulary (81 characters), T context (64), d width (128),
//   h    heads (4), L blocks (4), B sequences in a batch (32)
//
// Usage: ./chapter9 [--steps N] [--seed N] [--data DIR] [--load FILE] ...
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h"
#include "core/outputs.h"
#include "core/clock.h"
#include "core/print.h"
#include "core/readfile.h"
#include "core/rng.h"
#include "kernels/parallel.h"
#include "models/gpt.h"
#include "programs/chapter9_attention.h"
#include "tasks/austen.h"
#include "tasks/austen_compress.h"
#include "tasks/austen_words.h"
#include "tasks/bigram.h"

#define PROGRAM "chapter9"
#define RDB_PATH "data/janeaustenr/data/Rdata.rdb"
#define DEFAULT_SEED 1337
#define DEFAULT_STEPS 1500
#define LR 4e-3           // AdamW's peak learning rate, after WARMUP steps
#define WARMUP 50
#define WEIGHT_DECAY 0.1
#define BETA2 0.99        // nanoGPT's for its small character models
#define MAX_TOKENS 4096   // --tokens at most
#define MAX_PROMPT 1024   // bytes of --prompt at most
#define WRAP 78           // sample lines longer than this are broken at a space

enum { B = 32, T = 64, D = 128, HEADS = 4, LAYERS = 4, SHARDS = 6,
       EVAL_BATCHES = 20, FIRST_LOSSES = 20, N_EVALS = 5 };  // EVAL_BATCHES: the default

typedef struct {
    uint64_t seed;
    long steps;               // 0: --load, no training
    long eval_chars;          // characters of the held-out novel [P9.5] scores (0: all)
    int eval_batches;         // random held-out batches each loss of [P9.4] averages
    const char *rdb, *load, *save, *prompt;
    long tokens, top_k;
    double temperature;       // < 0: the three of TEMPERATURES
    bool compressors;         // run gzip and xz for [P9.3]
} settings;

static const double TEMPERATURES[3] = { 0.5, 0.8, 1.0 };

typedef struct {
    settings s;
    austen_corpus corpus;
    gpt_model *m;
    lr_schedule schedule;
    double bigram_bits;         // [P9.3] the bigram's cost of the held-out novel
    austen_compression comp;    // [P9.3], when s.compressors
    double *losses;             // (steps) each step's training loss, nats
    int n_evals;
    long eval_step[N_EVALS + 2];
    double eval_nats[N_EVALS + 2];  // the held-out loss on s.eval_batches batches
    double held_out;            // [P9.5] nats per character of the held-out novel
    long held_out_count;        // characters it scored
    size_t held_out_n;          // of the first held_out_n of the held-out novel
    double train_seconds;
    double gen_seconds[2];      // [P9.9] without, with the cache
    bool same_tokens;           // [P9.9] both gave the same tokens
    attention_view att;         // [P9.7] the heads over one held-out sentence
} chapter9;

static double bits(double nats) { return nats / log(2.0); }

// ------------------------------------------------------------------ losses
//> batch-loss
// The mean loss over `batches` random batches of the ids (n), windows
// drawn from g: the model scores all B T positions of a batch in one
// forward pass, each position seeing only the ones before it.
static double sampled_loss(gpt_model *m, const int32_t *ids, size_t n, int batches,
                           torch_rng *g) {
    int32_t windows[B * (T + 1)];
    double sum = 0;
    for (int k = 0; k < batches; k++) {
        austen_batch(windows, NULL, ids, n, B, T, g);
        for (int b = 0; b < B; b++) {  // inputs, targets: each window's first T, last T
            memcpy(m->a.ids + b * T, windows + b * (T + 1), T * sizeof *ids);
            memcpy(m->a.targets + b * T, windows + b * (T + 1) + 1, T * sizeof *ids);
        }
        sum += gpt_forward(m, m->a.ids, m->a.targets, B, T);
    }
    return sum / batches;
}
//< batch-loss

// -log p of the target under the logits z (V), in double.
static double nll(const real *z, int V, int32_t target) {
    double max = z[0], s = 0;
    for (int v = 1; v < V; v++) max = fmax(max, z[v]);
    for (int v = 0; v < V; v++) s += exp(z[v] - max);
    return max + log(s) - z[target];
}

//> held-out
// The loss over the first n ids of the held-out novel, in windows of T
// that overlap by T / 2: each character is scored once, with at least
// T / 2 characters before it in its window (but the first T / 2).
static double held_out_loss(gpt_model *m, const int32_t *ids, size_t n, long *count) {
    const int stride = T / 2;
    double sum = 0;
    *count = 0;
    for (size_t at = 0; at + T + 1 <= n; at += (size_t)stride * B) {
        int rows = 0;
        for (; rows < B && at + (size_t)rows * stride + T + 1 <= n; rows++) {
            memcpy(m->a.ids + rows * T, ids + at + rows * stride, T * sizeof *ids);
            memcpy(m->a.targets + rows * T, ids + at + rows * stride + 1, T * sizeof *ids);
        }
        gpt_forward(m, m->a.ids, NULL, rows, T);
        for (int r = 0; r < rows; r++)
            for (int t = (at == 0 && r == 0) ? 0 : stride; t < T; t++) {
                const real *z = m->a.logits + ((size_t)r * T + t) * m->cfg.V;
                sum += nll(z, m->cfg.V, m->a.targets[r * T + t]);
                ++*count;
            }
    }
    return *count ? sum / *count : 0;
}
//< held-out

// ------------------------------------------------------------------ training
// Whether the held-out loss is measured before step `step` (of steps): at
// 0, every steps / N_EVALS, and after the last.
static bool eval_due(long step, long steps) {
    long every = steps / N_EVALS > 0 ? steps / N_EVALS : 1;
    return step % every == 0 || step == steps;
}

//> train
// Trains for c->s.steps steps, each on B random windows of the training novels;
// the batches come from a generator seeded with the random seed (as the twin
// draws them), the held-out batches from one seeded seed + 1.
static int train(chapter9 *c) {
    const austen_corpus *a = &c->corpus;
    torch_rng g, ge;
    rng_seed(&g, c->s.seed);
    rng_seed(&ge, c->s.seed + 1);
    int32_t windows[B * (T + 1)];
    double started = now_seconds();
    for (long step = 0; step <= c->s.steps; step++) {
        if (eval_due(step, c->s.steps) && c->n_evals < N_EVALS + 2) {
            c->eval_step[c->n_evals] = step;
            c->eval_nats[c->n_evals++] = sampled_loss(c->m, austen_val_ids(a), a->n_val,
                                                       c->s.eval_batches, &ge);
            fprintf(stderr, PROGRAM ": step %ld of %ld, %.0f s\n", step, c->s.steps,
                    now_seconds() - started);
        }
        if (step == c->s.steps) break;
        austen_batch(windows, NULL, austen_train_ids(a), a->n_train, B, T, &g);
        c->losses[step] = gpt_train_step(c->m, windows, B, T);
    }
    c->train_seconds = now_seconds() - started;
    return 0;
}
//< train

// ------------------------------------------------------------------ the run
// The model: read from s.load (its vocabulary must be the corpus's), or
// built from the random seed. Returns 0, or -1 with the reason in err.
static int model_setup(chapter9 *c, char *err, size_t errlen) {
    const austen_vocab *v = &c->corpus.vocab;
    long steps = c->s.steps > 0 ? c->s.steps : 1;
    c->schedule = (lr_schedule){ .lr_max = LR, .lr_min = LR / 10, .warmup = WARMUP,
                                 .decay_steps = steps };
    if (c->s.load) {
        c->m = gpt_load(c->s.load, B, SHARDS, WEIGHT_DECAY, &c->schedule, err, errlen);
        if (c->m && (c->m->cfg.V != v->size || c->m->cfg.T != T ||
                     memcmp(c->m->vocab, v->chars, v->size * sizeof *v->chars) != 0)) {
            snprintf(err, errlen, "%s: a model of another vocabulary or context (V %d, T %d; "
                     "this program's: V %d, T %d)", c->s.load, c->m->cfg.V, c->m->cfg.T,
                     v->size, T);
            return -1;
        }
    } else {
        gpt_config cfg = { .V = v->size, .T = T, .d = D, .h = HEADS, .L = LAYERS };
        c->m = gpt_build(&cfg, B, SHARDS, c->s.seed, v->chars, WEIGHT_DECAY, &c->schedule,
                         err, errlen);
    }
    if (!c->m) return -1;
    c->m->opt.b2 = BETA2;
    return 0;
}

// The yardsticks of [P9.3]: the bigram counted on the training novels, and
// the compressors unless s.compressors is false. 0, or -1 with err.
static int yardsticks(chapter9 *c, char *err, size_t errlen) {
    const austen_corpus *a = &c->corpus;
    bigram_model bg;
    if (bigram_fit(&bg, austen_train_ids(a), a->n_train, a->vocab.size) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->bigram_bits = bigram_bits(&bg, austen_train_ids(a)[a->n_train - 1], austen_val_ids(a),
                                 a->n_val);
    bigram_free(&bg);
    return c->s.compressors ? austen_compression_bits(&c->comp, a, err, errlen) : 0;
}

// Loads the novels, measures the yardsticks, builds or loads the model and
// trains it, and scores the held-out novel. 0, or -1 with the reason in err.
static int chapter9_run(chapter9 *c, const settings *s, char *err, size_t errlen) {
    memset(c, 0, sizeof *c);
    c->s = *s;
    if (s->load) c->s.steps = 0;
    if (austen_load(&c->corpus, s->rdb, AUSTEN_HELD_OUT, err, errlen) != 0) return -1;
    if (yardsticks(c, err, errlen) != 0 || model_setup(c, err, errlen) != 0) return -1;
    if (c->s.steps > 0) {
        c->losses = calloc((size_t)c->s.steps, sizeof *c->losses);
        if (!c->losses) return snprintf(err, errlen, "out of memory"), -1;
        train(c);
    }
    size_t n = c->corpus.n_val;
    if (s->eval_chars > 0 && (size_t)s->eval_chars < n) n = (size_t)s->eval_chars;
    c->held_out_n = n;
    c->held_out = held_out_loss(c->m, austen_val_ids(&c->corpus), n, &c->held_out_count);
    return attention_view_make(&c->att, c->m, &c->corpus, err, errlen);
}

static void chapter9_free(chapter9 *c) {
    if (c->m) gpt_free(c->m);
    free(c->losses);
    austen_free(&c->corpus);
    attention_view_free(&c->att);
    c->m = NULL;
    c->losses = NULL;
}

// ------------------------------------------------------------------ printing
static void print_data(const chapter9 *c, FILE *f) {
    const austen_corpus *a = &c->corpus;
    print_cell(f, "P9.1", "the data: Jane Austen's six novels, one held out");
    fprintf(f, "training text: the five others, %zu characters\n", a->n_train);
    fprintf(f, "held out: %s, %zu characters\n", a->held_out, a->n_val);
    fprintf(f, "vocabulary: %d characters (ids 0 to %d)\n", a->vocab.size, a->vocab.size - 1);
}

static void print_yardsticks(const chapter9 *c, FILE *f) {
    const austen_compression *k = &c->comp;
    print_cell(f, "P9.3",
               "the yardsticks: what each costs the held-out novel, bits per character");
    fprintf(f, "uniform over %d characters  %.3f\n", c->corpus.vocab.size,
            log2((double)c->corpus.vocab.size));
    fprintf(f, "bigram (add-one)            %.3f\n", c->bigram_bits);
    if (!c->s.compressors) {
        fputs("gzip and xz: not run (--no-compressors)\n", f);
        return;
    }
    fprintf(f, "gzip -9 alone               %.3f  (%lld bytes)\n", k->gzip_bits, k->gzip_val);
    fprintf(f, "xz -9 alone                 %.3f  (%lld bytes)\n", k->xz_bits, k->xz_val);
    fprintf(f, "xz -9 after the training    %.3f  (%lld - %lld bytes): fair xz\n",
            k->xz_fair_bits, k->xz_both, k->xz_train);
}

static void print_model(const chapter9 *c, FILE *f) {
    const gpt_config *g = &c->m->cfg;
    print_cell(f, "P9.2", "the model: a character-level GPT");
    fprintf(f, "V %d, context T %d, width d %d, heads %d, blocks %d, MLP %d\n", g->V, g->T,
            g->d, g->h, g->L, 4 * g->d);
    fprintf(f, "parameters: %zu (the output layer is the token embedding)\n", c->m->n_params);
    if (c->s.load)
        fprintf(f, "read from %s\n", c->s.load);
    else
        fprintf(f, "AdamW: lr %g after %d steps of warm-up, cosine decay to %g at step %ld,\n"
                   "weight decay %g, betas (0.9, %g), gradients clipped to norm 1; batch %d\n",
                LR, WARMUP, LR / 10, c->s.steps, WEIGHT_DECAY, BETA2, B);
}

static void print_first_losses(const chapter9 *c, FILE *f) {
    long n = c->s.steps < FIRST_LOSSES ? c->s.steps : FIRST_LOSSES;
    print_cell(f, "P9.6", "the first steps' training losses, nats");
    for (long i = 0; i < n; i++)
        fprintf(f, "%2ld %.6f%s", i + 1, c->losses[i], i % 5 == 4 || i == n - 1 ? "\n" : "   ");
}

static void print_training(const chapter9 *c, FILE *f) {
    char title[96];
    snprintf(title, sizeof title,
             "training: the held-out loss on %d random batch%s of the held-out novel",
             c->s.eval_batches, c->s.eval_batches == 1 ? "" : "es");
    print_cell(f, "P9.4", title);
    fputs(" step    nats  bits per character\n", f);
    for (int i = 0; i < c->n_evals; i++)
        fprintf(f, "%5ld  %.4f  %.4f\n", c->eval_step[i], c->eval_nats[i],
                bits(c->eval_nats[i]));
    fprintf(f, "beside it: bigram %.3f", c->bigram_bits);
    if (c->s.compressors)
        fprintf(f, ", gzip %.3f, xz %.3f, fair xz %.3f", c->comp.gzip_bits, c->comp.xz_bits,
                c->comp.xz_fair_bits);
    fputs(" bits per character\n", f);
    // the first measurement below each yardstick, as both are printed (four
    // decimals and three)
    const char *name[] = { "bigram", "gzip", "xz", "fair xz" };
    double bar[] = { c->bigram_bits, c->comp.gzip_bits, c->comp.xz_bits, c->comp.xz_fair_bits };
    fputs("first step below", f);
    for (int y = 0; y < (c->s.compressors ? 4 : 1); y++) {
        int i = 0;
        while (i < c->n_evals && round(1e4 * bits(c->eval_nats[i])) >= 10 * round(1e3 * bar[y]))
            i++;
        if (i < c->n_evals) fprintf(f, "%s %s %ld", y ? "," : ":", name[y], c->eval_step[i]);
        else fprintf(f, "%s %s none", y ? "," : ":", name[y]);
    }
    fputs("\n", f);
}

//> verdict
// How the model's held-out bits per character compare with fair xz's, to
// the thousandth of a bit that is printed: -1 below, 0 level, 1 above.
static int versus(double model_bits, double xz_fair_bits) {
    double gap = round(1000 * model_bits) - round(1000 * xz_fair_bits);
    return (gap > 0) - (gap < 0);
}
//< verdict

static void print_held_out(const chapter9 *c, FILE *f) {
    double b = bits(c->held_out), fair = c->comp.xz_fair_bits;
    print_cell(f, "P9.5", "the held-out novel, each character scored once");
    fprintf(f, "%s: characters 2 to %ld of %s%zu, each scored once\n"
               "(the first has no past to predict it from; the last %zu fill no whole window)\n",
            c->corpus.held_out, c->held_out_count + 1,
            c->held_out_n < c->corpus.n_val ? "the first " : "its ", c->held_out_n,
            c->held_out_n - 1 - (size_t)c->held_out_count);
    fprintf(f, "%ld characters: %.4f nats, %.3f bits per character\n", c->held_out_count,
            c->held_out, b);
    if (!c->s.compressors) return;
    static const char *const words[3] = { "below", "level with", "above" };
    fprintf(f, "%s fair xz (%.3f bits per character) by %.3f\n", words[versus(b, fair) + 1],
            fair, fabs(round(1000 * b) - round(1000 * fair)) / 1000);
}

// text, each line longer than WRAP broken at its last space before it.
static void print_lines(FILE *f, const char *text) {
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (len > WRAP) {
            size_t cut = WRAP;
            while (cut > 0 && line[cut] != ' ') cut--;
            len = cut > 0 ? cut : len;
        }
        fprintf(f, "%.*s\n", (int)len, line);
        line += len + (line[len] != '\0');
    }
}

// ------------------------------------------------------------------ generation
// Samples s.tokens characters after the prompt at temperature t, with the
// cache or without, into text (room for 4 (n_prompt + tokens) + 1 bytes).
static int sample(chapter9 *c, char *text, const int32_t *prompt, int n_prompt, double t,
                  bool cache, int32_t *out) {
    if (gpt_generate(c->m, out, prompt, n_prompt, (int)c->s.tokens, t, (int)c->s.top_k,
                     c->s.seed, cache) != 0)
        return -1;
    austen_decode(&c->corpus.vocab, text, out, (size_t)n_prompt + c->s.tokens);
    return 0;
}

// [P9.8] and [P9.9]. Returns 0, or -1 with the reason in err.
static int generate(chapter9 *c, FILE *f, char *err, size_t errlen) {
    int32_t prompt[MAX_PROMPT];
    long n = austen_encode(&c->corpus.vocab, prompt, c->s.prompt, strlen(c->s.prompt));
    if (n <= 0) return snprintf(err, errlen, "the prompt holds a character the novels never use"), -1;
    size_t room = (size_t)n + c->s.tokens;
    int32_t *out = malloc(2 * room * sizeof *out);
    char *text = malloc(4 * room + 1);
    if (!out || !text) return free(out), free(text), snprintf(err, errlen, "out of memory"), -1;
    austen_words words;  // the training novels' words, to count the samples' against
    if (austen_words_build(&words, c->corpus.text, c->corpus.train_bytes) != 0)
        return free(out), free(text), snprintf(err, errlen, "out of memory"), -1;
    bool one = c->s.temperature >= 0;
    print_cell(f, "P9.8", "samples, each from the prompt and the random seed");
    fprintf(f, "prompt \"%s\", seed %llu, drawn among ", c->s.prompt,
            (unsigned long long)c->s.seed);
    if (c->s.top_k > 0 && c->s.top_k < c->m->cfg.V) fprintf(f, "the %ld likeliest\n", c->s.top_k);
    else fputs("all the characters\n", f);
    for (int k = 0; k < (one ? 1 : 3); k++) {
        double t = one ? c->s.temperature : TEMPERATURES[k];
        sample(c, text, prompt, (int)n, t, true, out);
        fprintf(f, "--- temperature %g:\n", t);
        print_lines(f, text);
        long total, known;  // the words drawn, after the prompt's
        const char *drawn = text + strlen(c->s.prompt);
        austen_words_count(&words, drawn, strlen(drawn), &total, &known);
        fprintf(f, "(%ld words drawn, %ld of them words of the training novels: %.0f%%)\n",
                total, known, total ? 100.0 * known / total : 0.0);
    }
    austen_words_free(&words);
    print_cell(f, "P9.9", "the last sample again, with the cache and without");
    for (int cache = 1; cache >= 0; cache--) {
        double a = now_seconds();
        sample(c, text, prompt, (int)n, one ? c->s.temperature : TEMPERATURES[2], cache,
               out + cache * room);
        c->gen_seconds[cache] = now_seconds() - a;
        fprintf(f, "%s the cache: %ld tokens in %.3f s, %.0f tokens/s\n",
                cache ? "with" : "without", c->s.tokens, c->gen_seconds[cache],
                c->s.tokens / c->gen_seconds[cache]);
    }
    c->same_tokens = memcmp(out, out + room, room * sizeof *out) == 0;
    fprintf(f, "the same %zu tokens (the prompt's %ld and the %ld drawn): %s\n", room, n,
            c->s.tokens, c->same_tokens ? "yes" : "no");
    free(out);
    free(text);
    return 0;
}

// ------------------------------------------------------------------ figure data
static bool write_losses(const chapter9 *c, const char *dir) {
    const char *name = "chapter9-training.dat";
    FILE *f = open_data_file(PROGRAM, dir, name);
    if (!f) return false;
    fputs("# steps taken, the next step's training loss and the held-out loss on 20\n"
          "# batches, in nats (? where there is none)\n", f);
    for (long s = 0, e = 0; s <= c->s.steps; s++) {
        bool eval = e < c->n_evals && c->eval_step[e] == s;
        if (s < c->s.steps) fprintf(f, "%ld %.6f ", s, c->losses[s]);
        else fprintf(f, "%ld ? ", s);
        if (eval) fprintf(f, "%.6f\n", c->eval_nats[e++]);
        else fputs("?\n", f);
    }
    return close_data_file(PROGRAM, f, dir, name);
}

// The yardsticks, one a line: its name and bits per character.
static bool write_lines(const chapter9 *c, const char *dir) {
    const char *name = "chapter9-lines.dat";
    FILE *f = open_data_file(PROGRAM, dir, name);
    if (!f) return false;
    fprintf(f, "# yardstick, bits per character\nbigram %.6f\n", c->bigram_bits);
    if (c->s.compressors)
        fprintf(f, "gzip %.6f\nxz %.6f\nxz-fair %.6f\n", c->comp.gzip_bits, c->comp.xz_bits,
                c->comp.xz_fair_bits);
    return close_data_file(PROGRAM, f, dir, name);
}

static int chapter9_write_data(const chapter9 *c, const char *dir) {
    return (c->s.steps == 0 || write_losses(c, dir)) && write_lines(c, dir) &&
           attention_write_data(&c->att, &c->corpus.vocab, PROGRAM, dir) ? 0 : -1;
}

#ifndef TESTING
static const char USAGE[] =
    "[--steps N] [--seed N] [--data DIR] [--save PATH] [--load FILE]\n"
    "         [--prompt TEXT] [--tokens N] [--temperature T] [--top-k K]\n"
    "         [--eval-chars N] [--eval-batches N] [--no-compressors] [--rdb FILE]\n"
    "\n"
    "A character-level GPT (4 blocks of width 128, 4 heads, context 64) learns from\n"
    "five of Jane Austen's novels; Persuasion is held out. Its held-out loss is\n"
    "printed beside a bigram model's and gzip's and xz's; then it writes text, with\n"
    "its cache of keys and values and without.\n"
    "\n"
    "  --steps N          training steps of 32 windows (default 1500)\n"
    "  --seed N           the model's starting values, the training batches and\n"
    "                     the samples (default 1337); the held-out batches come\n"
    "                     from a generator seeded N + 1\n"
    "  --data DIR         also write the figure data (chapter9-*.dat) into DIR\n"
    "  --save PATH        write the trained model into PATH\n"
    "  --load FILE        read the model from FILE instead of training one\n"
    "  --prompt TEXT      what the samples start from (default \"It is a truth\")\n"
    "  --tokens N         characters each sample adds (default 300)\n"
    "  --temperature T    one sample at T (0: the most likely character each time)\n"
    "                     instead of three at 0.5, 0.8 and 1\n"
    "  --top-k K          draw among the K most likely characters (default 0: all)\n"
    "  --eval-chars N     score only the first N characters of the held-out novel\n"
    "                     (default all)\n"
    "  --eval-batches N   random held-out batches each loss of [P9.4] averages\n"
    "                     (default 20)\n"
    "  --no-compressors   leave out gzip and xz (they take seconds)\n"
    "  --rdb FILE         the novels (default " RDB_PATH ")\n"
    "  --help             this message\n"
    "\n"
    "The output is the same with any number of threads (OMP_NUM_THREADS).";

// The files the run reads, --rdb and --load, before any work: false, with
// the reason on stderr, when one cannot be read or the figure data under
// data_dir would replace it.
static bool inputs_readable(const settings *s, const char *data_dir) {
    const char *inputs[2] = { s->rdb, s->load };
    if (!data_spares_inputs(PROGRAM, data_dir, inputs, 2)) return false;
    for (int i = 0; i < 2; i++) {
        if (!inputs[i] || file_readable(inputs[i])) continue;
        fprintf(stderr, PROGRAM ": error: cannot read %s: %s\n", inputs[i], file_error(errno));
        return false;
    }
    return true;
}

static void chapter9_print_run(const chapter9 *c, FILE *f) {
    fputs("Chapter 9 follows no notebook: its blocks are this program's own, [P9.1] to [P9.10].\n",
          f);
    print_data(c, f);
    print_model(c, f);
    print_yardsticks(c, f);
    if (c->s.steps > 0) print_training(c, f);
    print_held_out(c, f);
    if (c->s.steps > 0) print_first_losses(c, f);
    attention_print(f, &c->att, &c->corpus.vocab, c->corpus.held_out, "P9.7");
}

int main(int argc, char **argv) {
    common_options opts = { DEFAULT_SEED, NULL };
    settings s = { .steps = DEFAULT_STEPS, .rdb = RDB_PATH, .prompt = "It is a truth",
                   .tokens = 300, .temperature = -1, .compressors = true };
    long long steps = s.steps, tokens = s.tokens, top_k = 0, eval_chars = 0;
    long long eval_batches = EVAL_BATCHES;
    bool no_compressors = false;
    extra_option extra[] = {
        { "--steps", OPT_INTEGER, &steps, 1, 1000000, "training steps" },
        { "--save", OPT_STRING, &s.save, 0, 0, "a file" },
        { "--load", OPT_STRING, &s.load, 0, 0, "a file" },
        { "--prompt", OPT_STRING, &s.prompt, 0, 0, "some text" },
        { "--tokens", OPT_INTEGER, &tokens, 1, MAX_TOKENS, "characters" },
        { "--temperature", OPT_NUMBER, &s.temperature, 0, 10, "" },
        { "--top-k", OPT_INTEGER, &top_k, 0, AUSTEN_VOCAB_MAX, "0: all" },
        { "--eval-chars", OPT_INTEGER, &eval_chars, 1000, 100000000, "characters" },
        { "--eval-batches", OPT_INTEGER, &eval_batches, 1, 1000, "batches" },
        { "--no-compressors", OPT_FLAG, &no_compressors, 0, 0, "" },
        { "--rdb", OPT_STRING, &s.rdb, 0, 0, "a file" },
    };
    int done = cli_exit_status(parse_options_with(argc, argv, PROGRAM, USAGE, &opts, extra,
                                                  (int)(sizeof extra / sizeof extra[0])));
    if (done >= 0) return done;
    if (strlen(s.prompt) > MAX_PROMPT) {
        fprintf(stderr, PROGRAM ": error: --prompt is longer than %d bytes\n", MAX_PROMPT);
        return 2;
    }
    s.seed = opts.seed;
    s.steps = (long)steps, s.tokens = (long)tokens, s.top_k = (long)top_k;
    s.eval_chars = (long)eval_chars, s.compressors = !no_compressors;
    s.eval_batches = (int)eval_batches;
    if (!inputs_readable(&s, opts.data_dir)) return 1;
    double started = now_seconds();
    char err[1024];
    chapter9 *c = malloc(sizeof *c);
    if (!c) return fprintf(stderr, PROGRAM ": error: out of memory\n"), 1;
    int status = chapter9_run(c, &s, err, sizeof err);
    if (status == 0) {
        chapter9_print_run(c, stdout);
        status = generate(c, stdout, err, sizeof err);
    }
    if (status == 0 && s.save) status = gpt_save(c->m, s.save, err, sizeof err);
    if (status == 0 && opts.data_dir && chapter9_write_data(c, opts.data_dir) != 0) status = -2;
    if (status == 0) {
        print_cell(stdout, "P9.10", "time");
        fprintf(stdout, "training %.0f s, the whole run %.0f s (threads: %d)\n",
                c->train_seconds, now_seconds() - started, parallel_threads());
    } else if (status == -1) {
        fprintf(stderr, PROGRAM ": error: %s\n", err);
    }
    chapter9_free(c);
    free(c);
    return status == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
