// test_gpt.c: the float GPT of src/models/gpt.h: generation with the cache
// of keys and values gives the same logits, bit for bit, and the same
// tokens as recomputing the whole window, for several prompts,
// temperatures, top-k and seeds, also after the window slides, and on one
// thread or several; sampling is reproducible for a seed; a model saved
// and loaded is the same model, and every damaged file is refused by name; a short training run's loss
// falls; trained with tiled attention, the model gives the same losses and
// parameters to tiled attention's tolerance, and the same bits on one
// thread or two; the attention weights it hands out are each head's own;
// the arrays its vector kernels sweep start on cache lines.
// test_gpt_gradients.c holds the backward pass to finite
// differences, test_gpt_golden.c the model to PyTorch.
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rng.h"
#include "kernels/parallel.h"
#include "layers/grad_clip.h"
#include "models/gpt.h"
#include "models/step_flops.h"
#include "suite.h"

enum { V = 20, T = 16, D = 32, HEADS = 4, LAYERS = 2 };

// A model whose parameters are larger than GPT-2's starting values, so that
// its distributions over the next token are far from uniform.
static gpt_model *small_model(uint64_t seed) {
    gpt_config c = { .V = V, .T = T, .d = D, .h = HEADS, .L = LAYERS };
    char err[200];
    gpt_model *m = gpt_build(&c, 2, 1, seed, NULL, 0.1, NULL, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    for (size_t i = 0; i < m->n_params; i++) m->param_block[i] *= 15;
    return m;
}

START_TEST(cached_logits_are_the_windows) {
    gpt_model *m = small_model(1);
    int32_t ids[T];
    for (int i = 0; i < T; i++) ids[i] = (i * 7 + 3) % V;
    gpt_cache_reset(m);
    for (int n = 1; n <= T; n++) {
        real cached[V];
        memcpy(cached, gpt_forward_cached(m, &ids[n - 1], 1), sizeof cached);
        const real *window = gpt_forward_window(m, ids, n);
        ck_assert_msg(memcmp(cached, window, sizeof cached) == 0,
                      "position %d: cached logit[0] %.9g, whole window %.9g", n - 1, cached[0],
                      window[0]);
    }
    gpt_free(m);
}
END_TEST

// A window's first n positions fed to the cache in one call leave the keys
// and values that n positions fed one at a time leave, to the bit, and the
// same logits after them and after the position fed next.
START_TEST(many_positions_at_once_are_one_at_a_time) {
    gpt_model *m = small_model(2);
    int32_t ids[T];
    for (int i = 0; i < T; i++) ids[i] = (i * 5 + 1) % V;
    const size_t kv_size = (size_t)LAYERS * T * D;
    real *k = calloc(kv_size, sizeof *k), *v = calloc(kv_size, sizeof *v), fed[V];
    ck_assert_ptr_nonnull(k);
    ck_assert_ptr_nonnull(v);
    for (int n = 1; n < T; n += 5) {
        gpt_cache_reset(m);
        for (int i = 0; i < n; i++) memcpy(fed, gpt_forward_cached(m, &ids[i], 1), sizeof fed);
        memcpy(k, m->kv.k, kv_size * sizeof *k);
        memcpy(v, m->kv.v, kv_size * sizeof *v);
        gpt_cache_reset(m);
        memset(m->kv.k, 0, kv_size * sizeof *k);
        memset(m->kv.v, 0, kv_size * sizeof *v);
        const real *all = gpt_forward_cached(m, ids, n);
        ck_assert_int_eq(m->kv.len, n);
        ck_assert_msg(memcmp(all, fed, sizeof fed) == 0, "n = %d: logits", n);
        const int d_k = D / HEADS;
        for (int l = 0; l < LAYERS; l++)
            for (int i = 0; i < HEADS; i++) {  // head i of block l: its first n positions
                size_t at = ((size_t)l * HEADS + i) * T * d_k;
                for (int c = 0; c < d_k; c++)  // the keys are columns, T apart
                    ck_assert_msg(memcmp(m->kv.k + at + c * T, k + at + c * T, n * sizeof *k) == 0,
                                  "n %d keys", n);
                ck_assert_msg(memcmp(m->kv.v + at, v + at, n * d_k * sizeof *v) == 0, "n %d values", n);
            }
        real next[V];  // and a position fed after them
        memcpy(next, gpt_forward_cached(m, &ids[n], 1), sizeof next);
        ck_assert_msg(memcmp(next, gpt_forward_window(m, ids, n + 1), sizeof next) == 0,
                      "n = %d: the position after", n);
    }
    free(k);
    free(v);
    gpt_free(m);
}
END_TEST

// The threads share a position's products by columns and its heads
// (gpt_generate.c): on one thread, two or three, the cached logits are the
// whole window's, bit for bit, a position at a time and a window at once.
START_TEST(cache_same_on_any_threads) {
    gpt_model *m = small_model(3);
    for (size_t i = 0; i < m->n_params; i++)  // the biases too, which start at 0
        m->param_block[i] += (real)(0.05 * (double)(i % 7) - 0.15);
    int32_t ids[T];
    for (int i = 0; i < T; i++) ids[i] = (i * 11 + 2) % V;
    static real window[T][V];
    parallel_set_threads(1);
    for (int n = 1; n <= T; n++)
        memcpy(window[n - 1], gpt_forward_window(m, ids, n), sizeof window[0]);
    for (int threads = 1; threads <= 3; threads++) {
        parallel_set_threads(threads);
        gpt_cache_reset(m);
        ck_assert_int_eq(m->kv.threads, parallel_threads());
        for (int n = 1; n <= T; n++)
            ck_assert_msg(memcmp(gpt_forward_cached(m, &ids[n - 1], 1), window[n - 1],
                                 sizeof window[0]) == 0,
                          "%d thread(s), position %d", threads, n - 1);
        gpt_cache_reset(m);
        ck_assert_msg(memcmp(gpt_forward_cached(m, ids, T), window[T - 1], sizeof window[0]) == 0,
                      "%d thread(s), the window at once", threads);
    }
    parallel_set_threads(1);
    gpt_free(m);
}
END_TEST

START_TEST(window_slides_by_half) {
    ck_assert_int_eq(gpt_window_start(0, 16, 16), 0);   // full: still from 0
    ck_assert_int_eq(gpt_window_start(0, 17, 16), 9);   // one more: the last 8
    ck_assert_int_eq(gpt_window_start(9, 24, 16), 9);
    ck_assert_int_eq(gpt_window_start(9, 26, 16), 18);
    ck_assert_int_eq(gpt_window_start(0, 40, 16), 32);  // a long prompt
    ck_assert_int_eq(gpt_window_start(0, 2, 1), 1);
}
END_TEST

// Several prompts (one token, a few, longer than the context), temperatures
// (greedy, cool, 1, hot), top-k and seeds; 50 tokens each, so the window
// slides (and the cache is rebuilt) a few times.
START_TEST(cache_gives_the_same_tokens) {
    gpt_model *m = small_model(2);
    const int32_t prompts[3][24] = { { 5 }, { 1, 2, 3, 4, 5 },
                                     { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 19, 18, 17, 16, 15, 14, 13,
                                       12, 11, 10, 1, 1, 2, 3 } };
    const int lengths[3] = { 1, 5, 24 };
    const double temperatures[4] = { 0, 0.7, 1.0, 1.5 };
    const int top_ks[2] = { 0, 5 };
    for (int p = 0; p < 3; p++)
        for (int t = 0; t < 4; t++)
            for (int k = 0; k < 2; k++)
                for (uint64_t seed = 1; seed <= 3; seed++) {
                    int32_t with[80], without[80];
                    int n = lengths[p], total = n + 50;
                    gpt_generate(m, with, prompts[p], n, 50, temperatures[t], top_ks[k], seed,
                                 true);
                    gpt_generate(m, without, prompts[p], n, 50, temperatures[t], top_ks[k],
                                 seed, false);
                    for (int i = 0; i < total; i++)
                        ck_assert_msg(with[i] == without[i],
                                      "prompt %d, temperature %g, top-k %d, seed %d: token %d "
                                      "is %d with the cache, %d without",
                                      p, temperatures[t], top_ks[k], (int)seed, i, with[i],
                                      without[i]);
                    ck_assert_int_le(m->kv.len, T);
                }
    gpt_free(m);
}
END_TEST

START_TEST(sampling_is_reproducible) {
    gpt_model *m = small_model(3);
    const int32_t prompt[2] = { 4, 2 };
    int32_t a[42], b[42], c[42];
    gpt_generate(m, a, prompt, 2, 40, 1.0, 0, 7, true);
    gpt_generate(m, b, prompt, 2, 40, 1.0, 0, 7, true);
    gpt_generate(m, c, prompt, 2, 40, 1.0, 0, 8, true);
    ck_assert_mem_eq(a, b, sizeof a);
    ck_assert_msg(memcmp(a, c, sizeof a) != 0, "seeds 7 and 8 gave the same 40 tokens");
    const int32_t bad[2] = { 4, V };
    ck_assert_int_eq(gpt_generate(m, a, bad, 2, 5, 1.0, 0, 7, true), -1);
    ck_assert_int_eq(gpt_generate(m, a, prompt, 0, 5, 1.0, 0, 7, true), -1);
    // top-k 1 is greedy whatever the temperature
    gpt_generate(m, a, prompt, 2, 40, 1.5, 1, 7, true);
    gpt_generate(m, b, prompt, 2, 40, 0, 0, 9, true);
    ck_assert_mem_eq(a, b, sizeof a);
    gpt_free(m);
}
END_TEST

// ---------------------------------------------------------------- files

static char *tmp_path(void) {
    char tmpl[] = "/tmp/attn_gpt.XXXXXX";
    int fd = mkstemp(tmpl);
    ck_assert_int_ge(fd, 0);
    close(fd);
    return strdup(tmpl);
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    unsigned char *buf = malloc(*len + 16);
    ck_assert_uint_eq(fread(buf, 1, *len, f), *len);
    fclose(f);
    return buf;
}

static void spill(const char *path, const unsigned char *buf, size_t len) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
}

START_TEST(save_and_load_round_trip) {
    gpt_model *m = small_model(4);
    for (int v = 0; v < V; v++) m->vocab[v] = 'a' + v;
    m->vocab[V - 1] = 0xA3;  // the pound sign
    char *path = tmp_path(), err[300], tmp[300];
    ck_assert_msg(gpt_save(m, path, err, sizeof err) == 0, "%s", err);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    ck_assert_msg(access(tmp, F_OK) != 0, "%s left behind", tmp);
    gpt_model *back = gpt_load(path, 1, 1, 0.1, NULL, err, sizeof err);
    ck_assert_msg(back != NULL, "%s", err);
    ck_assert_mem_eq(&back->cfg, &m->cfg, sizeof m->cfg);
    ck_assert_uint_eq(back->n_params, m->n_params);
    ck_assert_mem_eq(back->param_block, m->param_block, m->n_params * sizeof(real));
    ck_assert_mem_eq(back->vocab, m->vocab, V * sizeof *m->vocab);
    const int32_t prompt[3] = { 1, 2, 3 };
    int32_t a[33], b[33];
    gpt_generate(m, a, prompt, 3, 30, 0.8, 0, 5, true);
    gpt_generate(back, b, prompt, 3, 30, 0.8, 0, 5, true);
    ck_assert_mem_eq(a, b, sizeof a);
    remove(path);
    free(path);
    gpt_free(back);
    gpt_free(m);
}
END_TEST

// The file damaged by change, then gpt_load's message: it names the file
// and says what is wrong.
static void expect_refused(const char *path, const unsigned char *buf, size_t len,
                           const char *says) {
    spill(path, buf, len);
    char err[300] = "";
    gpt_model *m = gpt_load(path, 1, 1, 0.1, NULL, err, sizeof err);
    ck_assert_msg(m == NULL, "a file that should say \"%s\" was loaded", says);
    ck_assert_msg(strstr(err, path) == err, "the message does not start with the file: %s", err);
    ck_assert_msg(strstr(err, says) != NULL, "\"%s\" is not in: %s", says, err);
}

static void put_u32(unsigned char *b, uint32_t v) {
    for (int i = 0; i < 4; i++) b[i] = (unsigned char)(v >> (8 * i));
}

START_TEST(damaged_files_are_refused) {
    gpt_model *m = small_model(5);
    char *path = tmp_path(), err[300];
    ck_assert_msg(gpt_save(m, path, err, sizeof err) == 0, "%s", err);
    size_t len;
    unsigned char *good = slurp(path, &len), *bad = malloc(len + 16);
    memcpy(bad, good, len);
    bad[0] = 'X';
    expect_refused(path, bad, len, "not a GPT model file");
    memcpy(bad, good, len);
    put_u32(bad + 8, 2);
    expect_refused(path, bad, len, "version 2");
    memcpy(bad, good, len);
    put_u32(bad + 24, 3);  // 3 heads do not split the width 32
    expect_refused(path, bad, len, "sizes out of range");
    memcpy(bad, good, len);
    put_u32(bad + 12, 0);  // V 0
    expect_refused(path, bad, len, "sizes out of range");
    expect_refused(path, good, len - 9, "truncated");
    expect_refused(path, good, 20, "truncated");
    memcpy(bad, good, len);
    memset(bad + len, 0, 8);
    expect_refused(path, bad, len + 8, "bytes after the end");
    memcpy(bad, good, len);
    bad[len / 2] ^= 0x10;  // one bit of a parameter
    expect_refused(path, bad, len, "checksum mismatch");
    remove(path);
    gpt_model *none = gpt_load(path, 1, 1, 0.1, NULL, err, sizeof err);
    ck_assert_ptr_null(none);
    ck_assert_msg(strstr(err, path) == err && strstr(err, "No such file"), "%s", err);
    // a folder that does not exist: refused by name, nothing left behind
    ck_assert_int_eq(gpt_save(m, "/nonexistent-folder/model.gpt", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "/nonexistent-folder/model.gpt") == err, "%s", err);
    free(good);
    free(bad);
    free(path);
    gpt_free(m);
}
END_TEST

// ---------------------------------------------------------------- training

// A small text as ids (its characters numbered in order of appearance):
// their count, returned, the characters in vocab (64), the ids in ids (256).
static const char small_text[] = "it is a truth universally acknowledged, that a single man in "
                                 "possession of a good fortune, must be in want of a wife. ";
enum { SMALL_TEXT_LEN = sizeof small_text - 1 };

static int small_text_ids(uint32_t *vocab, int *ids) {
    int Vt = 0;
    for (int i = 0; i < SMALL_TEXT_LEN; i++) {
        int v = 0;
        while (v < Vt && vocab[v] != (uint32_t)small_text[i]) v++;
        if (v == Vt) vocab[Vt++] = (uint32_t)small_text[i];
        ids[i] = v;
    }
    return Vt;
}

// B windows of n + 1 ids of the small text, from random starts drawn from g.
static void small_text_windows(int32_t *windows, const int *ids, int B, int n, torch_rng *g) {
    int64_t starts[16];
    ck_assert_int_le(B, 16);
    rng_randint(g, starts, B, 0, SMALL_TEXT_LEN - n);
    for (int b = 0; b < B; b++)
        for (int i = 0; i <= n; i++) windows[b * (n + 1) + i] = ids[starts[b] + i];
}

// A short run on a small text learns it: the loss of the last steps is far
// below the first (the uniform guess, log V).
START_TEST(training_loss_falls) {
    uint32_t vocab[64];
    int ids[256], Vt = small_text_ids(vocab, ids);
    gpt_config c = { .V = Vt, .T = T, .d = D, .h = HEADS, .L = LAYERS };
    lr_schedule s = { .lr_max = 1e-2, .lr_min = 1e-3, .warmup = 10, .decay_steps = 150 };
    char err[200];
    gpt_model *m = gpt_build(&c, 8, 2, 1, vocab, 0.1, &s, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    torch_rng g;
    rng_seed(&g, 3);
    int32_t windows[8 * (T + 1)];
    double first = 0, last = 0;
    for (int step = 0; step < 150; step++) {
        small_text_windows(windows, ids, 8, T, &g);
        double loss = gpt_train_step(m, windows, 8, T);
        if (step == 0) first = loss;
        if (step >= 140) last += loss / 10;
    }
    printf("gpt: a short run's loss %.3f -> %.3f (log V = %.3f)\n", first, last, log(Vt));
    ck_assert_double_eq_tol(first, log(Vt), 0.1);
    ck_assert_msg(last < 0.3 * first, "loss %g -> %g", first, last);
    gpt_free(m);
}
END_TEST

// A batch in two shards: the same numbers on one thread or two (each shard
// computed alike, the gradients summed in order), and within rounding of
// the batch in one piece.
START_TEST(shards_and_threads) {
    gpt_config c = { .V = V, .T = T, .d = D, .h = HEADS, .L = LAYERS };
    char err[200];
    gpt_model *one = gpt_build(&c, 4, 1, 6, NULL, 0.1, NULL, err, sizeof err);
    gpt_model *two = gpt_build(&c, 4, 2, 6, NULL, 0.1, NULL, err, sizeof err);
    ck_assert(one && two);
    int32_t windows[4 * (T + 1)];
    for (int i = 0; i < 4 * (T + 1); i++) windows[i] = (i * 13 + i / 5) % V;
    size_t size = two->n_params * sizeof(real);
    real *grads[2] = { malloc(size), malloc(size) };
    ck_assert(grads[0] && grads[1]);
    for (int threads = 1; threads <= 2; threads++) {
        parallel_set_threads(threads);
        gpt_forward(two, windows, windows + 1, 1, T);  // B 1: shard 0 is empty
        for (int b = 0; b < 4; b++) {
            memcpy(two->a.ids + b * T, windows + b * (T + 1), T * sizeof(int32_t));
            memcpy(two->a.targets + b * T, windows + b * (T + 1) + 1, T * sizeof(int32_t));
        }
        gpt_forward(two, two->a.ids, two->a.targets, 4, T);
        gpt_backward(two);
        memcpy(grads[threads - 1], two->grad_block, size);
    }
    parallel_set_threads(1);
    ck_assert_mem_eq(grads[0], grads[1], size);
    free(grads[0]);
    free(grads[1]);
    memcpy(one->a.ids, two->a.ids, 4 * T * sizeof(int32_t));
    memcpy(one->a.targets, two->a.targets, 4 * T * sizeof(int32_t));
    gpt_forward(one, one->a.ids, one->a.targets, 4, T);
    gpt_backward(one);
    double worst = 0;
    for (size_t i = 0; i < one->n_params; i++)
        worst = fmax(worst, fabs(one->grad_block[i] - two->grad_block[i]));
    ck_assert_msg(worst < 1e-6, "one shard and two differ by %g", worst);
    gpt_free(one);
    gpt_free(two);
    // a training step, whose clipping and AdamW the threads share by parts
    // (clip_and_step): the same parameters and norm on one thread or two,
    // and the gradients it leaves clipped to the norm 1
    gpt_model *step[2];
    for (int threads = 1; threads <= 2; threads++) {
        parallel_set_threads(threads);
        step[threads - 1] = gpt_build(&c, 4, 2, 6, NULL, 0.1, NULL, err, sizeof err);
        ck_assert(step[threads - 1]);
        gpt_train_step(step[threads - 1], windows, 4, T);
    }
    parallel_set_threads(1);
    ck_assert_double_eq(step[0]->last_norm, step[1]->last_norm);
    ck_assert_mem_eq(step[0]->param_block, step[1]->param_block, size);
    ck_assert_double_gt(step[0]->last_norm, 1);  // clipped: the norm is now just under 1
    ck_assert_double_eq_tol(grad_norm(step[0]->grad_block, step[0]->n_params), 1, 1e-5);
    gpt_free(step[0]);
    gpt_free(step[1]);
}
END_TEST

// A batch of 32 in six shards, the last two small (7, 7, 7, 7, 2, 2
// sequences: gpt.h): the same gradients on one thread or two, within
// rounding of the batch in one piece, and each sequence's attention
// weights those of the sequence alone; the first shards hold more
// sequences than an equal sixth, and their caches have room for them.
START_TEST(unequal_shards) {
    enum { B = 32, N = 6 };
    gpt_config c = { .V = V, .T = T, .d = D, .h = HEADS, .L = LAYERS };
    char err[200];
    gpt_model *one = gpt_build(&c, B, 1, 8, NULL, 0.1, NULL, err, sizeof err);
    gpt_model *six = gpt_build(&c, B, 6, 8, NULL, 0.1, NULL, err, sizeof err);
    ck_assert(one && six);
    static const int ends[] = { 0, 7, 14, 21, 28, 30, 32 };
    for (int k = -1; k < 6; k++) ck_assert_int_eq(gpt_shard_end(B, 6, k), ends[k + 1]);
    static const int thirds[] = { 10, 21, 32 };  // fewer than four parts: equal
    for (int k = 0; k < 3; k++) ck_assert_int_eq(gpt_shard_end(B, 3, k), thirds[k]);
    int32_t ids[B * N], targets[B * N];
    for (int i = 0; i < B * N; i++) ids[i] = (i * 7 + i / 3) % V, targets[i] = (i * 5 + 1) % V;
    size_t size = six->n_params * sizeof(real);
    real *grads[2] = { malloc(size), malloc(size) };
    ck_assert(grads[0] && grads[1]);
    for (int threads = 1; threads <= 2; threads++) {
        parallel_set_threads(threads);
        gpt_forward(six, ids, targets, B, N);
        gpt_backward(six);
        memcpy(grads[threads - 1], six->grad_block, size);
    }
    parallel_set_threads(1);
    ck_assert_mem_eq(grads[0], grads[1], size);
    gpt_forward(one, ids, targets, B, N);
    gpt_backward(one);
    double worst = 0;
    for (size_t i = 0; i < one->n_params; i++)
        worst = fmax(worst, fabs(one->grad_block[i] - grads[0][i]));
    ck_assert_msg(worst < 1e-6, "one shard and six differ by %g", worst);
    real w[N * N], alone[N * N];
    for (int b = 0; b < B; b++) {
        gpt_forward(six, ids, targets, B, N);
        ck_assert_int_eq(gpt_attention_weights(six, b, LAYERS - 1, 1, w), 0);
        gpt_forward(one, ids + b * N, NULL, 1, N);
        ck_assert_int_eq(gpt_attention_weights(one, 0, LAYERS - 1, 1, alone), 0);
        ck_assert_msg(memcmp(w, alone, sizeof w) == 0, "sequence %d's weights", b);
    }
    free(grads[0]);
    free(grads[1]);
    gpt_free(one);
    gpt_free(six);
}
END_TEST

// ---------------------------------------------------------------- tiled attention

// Windows longer than a tile (ATTN_TILE, 64): two query blocks, the second
// cut short, and a tile above the diagonal that the causal mask skips.
enum { TILED_T = 80, TILED_B = 4, TILED_STEPS = 20 };

// steps steps of a model with that attention, built from seed 1, on
// windows of the small text drawn from seed 3, on that many threads: each
// step's loss into losses; the trained model, returned.
static gpt_model *train_small(gpt_attention attention, int threads, int steps, double *losses) {
    uint32_t vocab[64];
    int ids[256], Vt = small_text_ids(vocab, ids);
    gpt_config c = { .V = Vt, .T = TILED_T, .d = D, .h = HEADS, .L = LAYERS,
                     .attention = attention };
    lr_schedule s = { .lr_max = 1e-2, .lr_min = 1e-3, .warmup = 5, .decay_steps = TILED_STEPS };
    char err[200];
    gpt_model *m = gpt_build(&c, TILED_B, 1, 1, vocab, 0.1, &s, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    torch_rng g;
    rng_seed(&g, 3);
    int32_t windows[TILED_B * (TILED_T + 1)];
    parallel_set_threads(threads);
    for (int step = 0; step < steps; step++) {
        small_text_windows(windows, ids, TILED_B, TILED_T, &g);
        losses[step] = gpt_train_step(m, windows, TILED_B, TILED_T);
    }
    parallel_set_threads(1);
    return m;
}

// The tolerance test_tiled_attention.c holds tiled attention to (its TOL):
// each result within TILED_TOL (|reference| + 1) of the reference, a few
// hundred float roundings. Trained alike, the models' losses and
// parameters are held to it too: the two attentions differ by rounding
// alone, and 20 steps do not grow that into more than a few hundred
// roundings (measured: losses within 1e-7 relative, parameters within
// 4e-7), while a wrong scale, mask or gradient moves the loss in its
// third digit.
#define TILED_TOL 2e-5

// Whether a parameter is one of the attention's key biases (c_attn.bias's
// second third). Their gradient is 0 but for rounding: a key bias adds
// q . b_k to every score of a query alike, which its softmax does not see.
// AdamW divides each gradient by its own root mean square, so it moves
// these by steps of about the learning rate in directions that rounding
// decides, differently in the two models, without changing any loss.
static bool is_key_bias(const gpt_model *m, size_t i) {
    for (int l = 0; l < m->cfg.L; l++) {
        const real *kb = m->p.blocks[l].attn.in_proj_bias + m->cfg.d;
        if (m->param_block + i >= kb && m->param_block + i < kb + m->cfg.d) return true;
    }
    return false;
}

// The chapter 9 model trained with tiled attention (chapter 10) gives the
// losses and parameters it gives with the weights in memory, to TILED_TOL.
START_TEST(tiled_attention_trains_alike) {
    double naive[TILED_STEPS], tiled[TILED_STEPS], worst_loss = 0, worst_param = 0;
    gpt_model *a = train_small(GPT_ATTENTION_NAIVE, 1, TILED_STEPS, naive);
    gpt_model *b = train_small(GPT_ATTENTION_TILED, 1, TILED_STEPS, tiled);
    for (int step = 0; step < TILED_STEPS; step++) {
        ck_assert_msg(fabs(tiled[step] - naive[step]) <= TILED_TOL * (fabs(naive[step]) + 1),
                      "step %d: loss %.9g tiled, %.9g naive", step, tiled[step], naive[step]);
        worst_loss = fmax(worst_loss, fabs(tiled[step] - naive[step]) / naive[step]);
    }
    for (size_t i = 0; i < a->n_params; i++) {
        if (is_key_bias(a, i)) continue;
        double want = a->param_block[i], got = b->param_block[i];
        ck_assert_msg(fabs(got - want) <= TILED_TOL * (fabs(want) + 1),
                      "parameter %zu: %.9g tiled, %.9g naive", i, got, want);
        worst_param = fmax(worst_param, fabs(got - want));
    }
    printf("gpt: tiled against naive attention, %d steps: losses within %.2g relative, "
           "parameters within %.2g\n", TILED_STEPS, worst_loss, worst_param);
    gpt_free(a);
    gpt_free(b);
}
END_TEST

// Tiled attention's threads share its blocks of queries (and of keys, for
// dk and dv), each row's sums in one order: the same bits on one thread or
// two (tiled_attention.h), and so the same model. One shard, so that the
// two threads share the kernels' blocks (80 positions: two of them). A few
// steps: threads that wait for each other hundreds of times a step are
// slow on a busy machine.
START_TEST(tiled_attention_same_on_any_threads) {
    double one[5], two[5];
    gpt_model *a = train_small(GPT_ATTENTION_TILED, 1, 5, one);
    gpt_model *b = train_small(GPT_ATTENTION_TILED, 2, 5, two);
    ck_assert_mem_eq(one, two, sizeof one);
    ck_assert_mem_eq(a->param_block, b->param_block, a->n_params * sizeof(real));
    gpt_free(a);
    gpt_free(b);
}
END_TEST

// Head i of block l's weights over sequence b, recomputed from the
// block's LayerNorm output (ln_1) and c_attn: the query and key columns of
// head i, q k^T / sqrt(d_k), softmax over keys 0 .. t; w (n, n).
static void weights_from_ln1(double *w, const gpt_model *m, int b, int l, int i, int n) {
    const int d = m->cfg.d, dk = d / m->cfg.h;
    const real *x = m->a.blocks[l].ln1 + (size_t)b * n * d;
    const mha_params *p = &m->p.blocks[l].attn;
    double q[T][D], k[T][D];
    for (int t = 0; t < n; t++)
        for (int c = 0; c < dk; c++) {
            int rq = i * dk + c, rk = d + i * dk + c;  // rows of in_proj_weight
            q[t][c] = p->in_proj_bias[rq];
            k[t][c] = p->in_proj_bias[rk];
            for (int e = 0; e < d; e++) {
                q[t][c] += (double)p->in_proj_weight[(size_t)rq * d + e] * x[t * d + e];
                k[t][c] += (double)p->in_proj_weight[(size_t)rk * d + e] * x[t * d + e];
            }
        }
    for (int t = 0; t < n; t++) {
        double sum = 0, max = -INFINITY, *row = w + t * n;
        for (int j = 0; j < n; j++) {
            row[j] = 0;
            if (j > t) continue;
            for (int c = 0; c < dk; c++) row[j] += q[t][c] * k[j][c];
            row[j] /= sqrt(dk);
            max = fmax(max, row[j]);
        }
        for (int j = 0; j <= t; j++) sum += row[j] = exp(row[j] - max);
        for (int j = 0; j <= t; j++) row[j] /= sum;
    }
}

// gpt_attention_weights: each head's rows sum to 1 with 0 above the
// diagonal; they are the head's own (recomputed from ln_1 and c_attn) for
// each sequence of a batch in two shards, and a sequence's weights do not
// depend on the batch around it (alone, it is in the second shard: the
// first is empty). To 1e-4: the parameters are 15 times GPT-2's, so that
// the weights are far from uniform, and the scores' float rounding grows
// with them.
START_TEST(attention_weights_are_each_heads) {
    gpt_config c = { .V = V, .T = T, .d = D, .h = HEADS, .L = LAYERS };
    char err[200];
    gpt_model *m = gpt_build(&c, 3, 2, 4, NULL, 0.1, NULL, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    for (size_t i = 0; i < m->n_params; i++) m->param_block[i] *= 15;
    real w[T * T], alone[T * T];
    double want[T * T];
    ck_assert_int_eq(gpt_attention_weights(m, 0, 0, 0, w), -1);  // no forward pass yet
    enum { N = T - 3 };
    int32_t ids[3 * N];
    for (int i = 0; i < 3 * N; i++) ids[i] = (i * 11 + i / 4) % V;
    for (int b = 0; b < 3; b++)
        for (int l = 0; l < LAYERS; l++)
            for (int i = 0; i < HEADS; i++) {
                gpt_forward(m, ids, NULL, 3, N);
                ck_assert_int_eq(gpt_attention_weights(m, b, l, i, w), 0);
                weights_from_ln1(want, m, b, l, i, N);
                for (int t = 0; t < N; t++) {
                    double sum = 0;
                    for (int j = 0; j < N; j++) {
                        if (j > t) ck_assert_msg(w[t * N + j] == 0, "above the diagonal");
                        ck_assert_msg(fabs(w[t * N + j] - want[t * N + j]) < 1e-4,
                                      "sequence %d, block %d, head %d, query %d, key %d: "
                                      "%.7f, recomputed %.7f", b, l, i, t, j, w[t * N + j],
                                      want[t * N + j]);
                        sum += w[t * N + j];
                    }
                    ck_assert_msg(fabs(sum - 1) < 1e-5, "a row sums to %.7f", sum);
                }
                gpt_forward(m, ids + b * N, NULL, 1, N);
                ck_assert_int_eq(gpt_attention_weights(m, 0, l, i, alone), 0);
                ck_assert_mem_eq(w, alone, N * N * sizeof *w);
            }
    ck_assert_int_eq(gpt_attention_weights(m, 1, 0, 0, w), -1);  // B is 1 now
    ck_assert_int_eq(gpt_attention_weights(m, 0, LAYERS, 0, w), -1);
    ck_assert_int_eq(gpt_attention_weights(m, 0, 0, HEADS, w), -1);
    m->cfg.attention = GPT_ATTENTION_TILED;  // as if built tiled: no weights to hand out
    ck_assert_int_eq(gpt_attention_weights(m, 0, 0, 0, w), -1);
    m->cfg.attention = GPT_ATTENTION_NAIVE;
    gpt_free(m);
}
END_TEST

START_TEST(bad_sizes_are_refused) {
    char err[200];
    gpt_config c = { .V = 10, .T = 8, .d = 30, .h = 4, .L = 1 };
    ck_assert_ptr_null(gpt_build(&c, 1, 1, 1, NULL, 0, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "not divisible"), "%s", err);
    c.h = 3;
    ck_assert_ptr_null(gpt_build(&c, 2, 3, 1, NULL, 0, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "3 shards of a batch of 2"), "%s", err);
    c.h = 3;
    c.L = 0;
    ck_assert_ptr_null(gpt_build(&c, 1, 1, 1, NULL, 0, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "below 1"), "%s", err);
    c.L = 1;
    c.attention = 7;
    ck_assert_ptr_null(gpt_build(&c, 1, 1, 1, NULL, 0, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "no attention of kind 7"), "%s", err);
}
END_TEST

// Every array the step sweeps with vectors starts on a 64-byte cache line
// (kernels/aligned.h), for sizes whose arrays are not whole lines long: the
// parameters, gradients and AdamW's moments, each shard's gradients, the
// activations carved from one block, and the attention's caches.
static void assert_on_a_line(const void *p, const char *what, int l) {
    ck_assert_msg((uintptr_t)p % 64 == 0, "%s (block %d) starts %d bytes past a cache line",
                  what, l, (int)((uintptr_t)p % 64));
}

START_TEST(arrays_start_on_cache_lines) {
    gpt_config c = { .V = 9, .T = 5, .d = 12, .h = 3, .L = 2 };
    char err[200];
    gpt_model *m = gpt_build(&c, 3, 3, 1, NULL, 0.1, NULL, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_msg(m->n_params % 16 != 0, "n_params %zu: a whole number of lines", m->n_params);
    assert_on_a_line(m->param_block, "param_block", -1);
    assert_on_a_line(m->grad_block, "grad_block", -1);
    assert_on_a_line(m->opt.m, "AdamW's first moments", -1);
    assert_on_a_line(m->opt.v, "AdamW's second moments", -1);
    for (int k = 1; k < m->shards; k++)
        assert_on_a_line(m->gs[k].wte, "a shard's gradients", k);
    const gpt_acts *a = &m->a;
    const real *top[] = { a->x, a->lnf, a->lnf_mean, a->lnf_rstd, a->logits, a->dlogits, a->dx,
                          a->dln, a->dh, m->kv.k, m->kv.v, m->kv.wt, m->kv.x, m->kv.hid };
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        assert_on_a_line(top[i], "an activation", (int)i);
    for (int l = 0; l < c.L; l++) {
        const gpt_block_acts *b = &a->blocks[l];
        const real *each[] = { b->ln1, b->ln1_mean, b->ln1_rstd, b->mid, b->ln2, b->ln2_mean,
                               b->ln2_rstd, b->fc, b->gelu };
        for (size_t i = 0; i < sizeof each / sizeof *each; i++)
            assert_on_a_line(each[i], "a block's activation", l);
        for (int k = 0; k < m->shards; k++) {
            const mha_cache *h = &b->attn[k];
            const real *cache[] = { h->q, h->k, h->v, h->z, h->proj, h->dz, h->dq, h->dk, h->dv,
                                    h->w, h->dw };
            for (size_t i = 0; i < sizeof cache / sizeof *cache; i++)
                assert_on_a_line(cache[i], "the attention's cache", l);
        }
    }
    gpt_free(m);
}
END_TEST

// The step's operations, product by product: each of a position's
// products with a weight matrix (in, out) is 2 in out operations, each
// head's scores and weighted values 2 n d_k each; the backward twice the
// forward. And the book's model, worked by hand: 10,596,384,768.
START_TEST(step_flops_count_every_product) {
    gpt_config c = { .V = 81, .T = 64, .d = 128, .h = 4, .L = 4 };
    const int B = 32, n = 64, d = c.d, d_k = c.d / c.h;
    const int shapes[][2] = { {d, 3 * d}, {d, d}, {d, 4 * d}, {4 * d, d} };
    double forward = 0;
    for (int l = 0; l < c.L; l++) {
        for (int s = 0; s < 4; s++) forward += 2.0 * shapes[s][0] * shapes[s][1];
        for (int i = 0; i < c.h; i++) forward += 2 * (2.0 * n * d_k);  // q k^T, then w v
    }
    forward += 2.0 * d * c.V;  // ln_f(x) wte^T
    ck_assert_double_eq_tol(gpt_step_flops(&c, B, n), 3 * forward * B * n, 1);
    ck_assert_double_eq_tol(gpt_step_flops(&c, B, n), 10596384768.0, 1);
    c.L = 1;  // one block: the projections and attention of one
    double one_block = 24.0 * d * d + 2.0 * d * 81 + 4.0 * 8 * d;  // a position of a window of 8
    ck_assert_double_eq_tol(gpt_step_flops(&c, 2, 8), 3 * one_block * 2 * 8, 1);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpt");
    TCase *gen = tcase_create("generation");
    tcase_add_test(gen, cached_logits_are_the_windows);
    tcase_add_test(gen, many_positions_at_once_are_one_at_a_time);
    tcase_add_test(gen, cache_same_on_any_threads);
    tcase_add_test(gen, window_slides_by_half);
    tcase_add_test(gen, cache_gives_the_same_tokens);
    tcase_add_test(gen, sampling_is_reproducible);
    suite_add_tcase(s, gen);
    TCase *files = tcase_create("files");
    tcase_add_test(files, save_and_load_round_trip);
    tcase_add_test(files, damaged_files_are_refused);
    suite_add_tcase(s, files);
    TCase *train = tcase_create("training");
    tcase_set_timeout(train, 60);
    tcase_add_test(train, training_loss_falls);
    tcase_add_test(train, shards_and_threads);
    tcase_add_test(train, unequal_shards);
    tcase_add_test(train, attention_weights_are_each_heads);
    tcase_add_test(train, bad_sizes_are_refused);
    tcase_add_test(train, arrays_start_on_cache_lines);
    tcase_add_test(train, step_flops_count_every_product);
    tcase_add_test(train, tiled_attention_trains_alike);
    tcase_add_test(train, tiled_attention_same_on_any_threads);
    suite_add_tcase(s, train);
    return run_suite(s);
}
