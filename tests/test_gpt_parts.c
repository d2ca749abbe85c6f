// test_gpt_parts.c: the parts chapter 9's GPT is built from, held to
// PyTorch (tests/golden/gpt_parts.txt, written by
// tests/reference/gpt_parts_golden.py): GELU (layers/gelu.h), AdamW
// (layers/adamw.h; and beside optax's Adam, layers/adam.h), the
// learning-rate schedule (layers/lr_schedule.h),
// gradient clipping (layers/grad_clip.h), and the batches of the Austen
// task (tasks/austen.h). Tagged "data": the task on Jane Austen's novels
// (the vocabulary, the split, the bigram model, the compressors' figures),
// which `make data` fetches (SKIP without them; a failure in CI). GELU's
// backward against finite differences, in double, is in
// test_gpt_parts_gradients.c.
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "simd_levels.h"
#include "skip.h"
#include "suite.h"
#include "tmpfile.h"
#include "layers/adam.h"
#include "layers/adamw.h"
#include "layers/gelu.h"
#include "layers/grad_clip.h"
#include "layers/lr_schedule.h"
#include "tasks/austen.h"
#include "tasks/austen_compress.h"
#include "tasks/bigram.h"
#include "text/utf8.h"

#ifndef DATA_DIR
#define DATA_DIR "data"
#endif

#define GOLDEN "gpt_parts.txt"
#define RDB DATA_DIR "/janeaustenr/data/Rdata.rdb"

// The optimiser's tensors (gpt_parts_golden.py), flat: weight (4, 3), bias
// (4), gain (3), embedding (5, 3); the weight and the embedding decay.
enum { W_AT = 0, BIAS_AT = 12, GAIN_AT = 16, EMB_AT = 19, NPARAM = 34, OPT_STEPS = 10 };

static float *golden_f32(const char *name, size_t n) {
    float *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    golden_read_floats(x, GOLDEN, name, n);
    return x;
}

// ---------------------------------------------------------------- GELU

// To 1e-6: PyTorch's float kernel computes 0.5 x (1 + tanh(u)), ours x s
// (gelu.h); measured against PyTorch in double on these inputs, the largest
// errors are 2.2e-7 (PyTorch's forward), 2.3e-7 (ours), 8.7e-7 (PyTorch's
// backward), 2.6e-7 (ours).
START_TEST(gelu_matches_pytorch) {
    free(golden_expect_header(GOLDEN, "gpt_parts_golden.py"));
    enum { N = 64 };
    float *x = golden_f32("gelu.x", N), *dout = golden_f32("gelu.dout", N);
    simd_level lv[3];
    int nl = levels(lv);
    for (int l = 0; l < nl; l++) {  // the readable loops, then each vector kernel
        use_level(lv[l]);
        float y[N], dx[N] = {0}, in[N];
        gelu_forward(y, x, N);
        double worst = golden_expect_near(GOLDEN, "gelu.y", y, N, 1, 1e-6);
        gelu_backward(dx, dout, x, N);
        double worst_dx = golden_expect_near(GOLDEN, "gelu.dx", dx, N, 1, 1e-6);
        printf("gelu (%s): largest difference from PyTorch %.2g (forward), %.2g (backward)\n",
               simd_name(lv[l]), worst, worst_dx);
        // backward adds: a second call doubles the gradient
        gelu_backward(dx, dout, x, N);
        float twice[N];
        for (int i = 0; i < N; i++) twice[i] = dx[i] / 2;
        golden_expect_near(GOLDEN, "gelu.dx", twice, N, 1, 1e-6);
        // forward in place
        memcpy(in, x, sizeof in);
        gelu_forward(in, in, N);
        for (int i = 0; i < N; i++) ck_assert_float_eq(in[i], y[i]);
    }
    use_best_level();
    free(x);
    free(dout);
}
END_TEST

// A backward that writes (dinp = 0 + dout times the slope): the bits of
// want, whatever dinp held, and also in place (dinp = dout).
typedef void gelu_writer(real *dinp, const real *dout, const real *from, size_t n);
static void expect_writes(gelu_writer *write, const char *name, const float *want,
                          const float *dout, const float *from, float *got, int n,
                          simd_level level) {
    for (int i = 0; i < n; i++) got[i] = 1e6f + (float)i;  // what it held
    write(got, dout, from, n);
    ck_assert_msg(memcmp(got, want, n * sizeof *got) == 0, "%s, %s: not the bits of adding",
                  name, simd_name(level));
    memcpy(got, dout, n * sizeof *got);
    write(got, got, from, n);
    ck_assert_msg(memcmp(got, want, n * sizeof *got) == 0, "%s, %s: in place differs", name,
                  simd_name(level));
}

// What gelu_backward adds into a cleared array, to the bit, at every
// level: gelu_backward_write from the input, and the training step's pair,
// gelu_backward_slope from the slope gelu_forward_slope kept in place of
// the input (whose output is gelu_forward's). The inputs run past where
// exp(-2u) caps (x about -11) and where the slope rounds to 1.
START_TEST(gelu_backward_write_gives_the_bits_of_adding_to_zero) {
    enum { N = 1001 };  // not a whole number of vectors
    float *x = malloc(N * sizeof *x), *dout = malloc(N * sizeof *dout), *y = malloc(N * sizeof *y);
    float *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
    float *slope = malloc(N * sizeof *slope), *want_y = malloc(N * sizeof *want_y);
    ck_assert(x && dout && y && want && got && slope && want_y);
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i - N / 2) / 40;
        dout[i] = (float)((i * 37) % 101 - 50) / 25;
    }
    simd_level lv[3];
    int nl = levels(lv);
    for (int l = 0; l < nl; l++) {
        use_level(lv[l]);
        memset(want, 0, N * sizeof *want);
        gelu_backward(want, dout, x, N);
        expect_writes(gelu_backward_write, "gelu_backward_write", want, dout, x, got, N, lv[l]);
        gelu_forward(want_y, x, N);
        memcpy(slope, x, N * sizeof *slope);
        gelu_forward_slope(y, slope, slope, N);  // the slope in place of the input
        ck_assert_msg(memcmp(y, want_y, N * sizeof *y) == 0, "%s: not gelu_forward's output",
                      simd_name(lv[l]));
        expect_writes(gelu_backward_slope, "gelu_backward_slope", want, dout, slope, got, N,
                      lv[l]);
    }
    use_best_level();
    free(x), free(dout), free(y), free(want), free(got), free(slope), free(want_y);
}
END_TEST

// ---------------------------------------------------------------- schedule

START_TEST(schedule_matches_nanogpt_shape) {
    const lr_schedule s = {.lr_max = 6e-4, .lr_min = 6e-5, .warmup = 10, .decay_steps = 100};
    golden steps = golden_read(GOLDEN, "lr.steps", "i64");
    float got[64];
    ck_assert_uint_le(steps.n, 64);
    for (size_t k = 0; k < steps.n; k++) got[k] = (float)lr_at(&s, (long)steps.i[k]);
    golden_expect_exact(GOLDEN, "lr.values", got, steps.n);  // as floats, bit for bit
    golden_free(&steps);
    // the warm-up ends at lr_max, the cosine starts there and falls to lr_min
    ck_assert_double_eq_tol(lr_at(&s, 9), 6e-4, 1e-15);
    ck_assert_double_eq_tol(lr_at(&s, 10), 6e-4, 1e-15);
    for (long t = 1; t < 200; t++)
        if (t < 10) ck_assert(lr_at(&s, t) > lr_at(&s, t - 1));
        else if (t == 10) ck_assert(lr_at(&s, t) == lr_at(&s, t - 1));
        else if (t <= 100) ck_assert(lr_at(&s, t) < lr_at(&s, t - 1));
        else ck_assert(lr_at(&s, t) == 6e-5);
    ck_assert(lr_at(&s, 99) - 6e-5 < 1e-6);  // the last step of the cosine, near lr_min
}
END_TEST

// ---------------------------------------------------------------- clipping, AdamW

START_TEST(clipping_matches_pytorch) {
    float *grads = golden_f32("opt.grads", OPT_STEPS * NPARAM);
    float *norms = golden_f32("opt.norms", OPT_STEPS);
    for (int t = 0; t < OPT_STEPS; t++) {
        float *g = grads + t * NPARAM;
        double norm = grad_clip(g, NPARAM, 1.0);
        ck_assert_msg(fabs(norm - norms[t]) <= 1e-6 * norms[t], "step %d: norm %.9g, PyTorch %.9g",
                      t, norm, (double)norms[t]);
        // clipped: just under 1; not clipped: as it was
        ck_assert(grad_norm(g, NPARAM) <= 1.0 + 1e-6);
        if (norm < 1) ck_assert_double_eq_tol(grad_norm(g, NPARAM), norm, 1e-7);
    }
    golden_expect_near(GOLDEN, "opt.clipped", grads, OPT_STEPS * NPARAM, 1, 1e-7);
    free(grads);
    free(norms);
}
END_TEST

static void adamw_setup(adamw_state *s) {
    ck_assert_int_eq(adamw_init(s, NPARAM, 0.1), 0);
    s->b2 = 0.95;
    ck_assert_int_eq(adamw_decay(s, W_AT, BIAS_AT - W_AT), 0);
    ck_assert_int_eq(adamw_decay(s, EMB_AT, NPARAM - EMB_AT), 0);
}

// Ten steps as a training loop takes them: clip, the schedule's rate, AdamW.
START_TEST(adamw_ten_steps_match_pytorch) {
    const lr_schedule sched = {.lr_max = 1e-2, .lr_min = 1e-3, .warmup = 3, .decay_steps = 8};
    float *params = golden_f32("opt.init", NPARAM), *grads = golden_f32("opt.grads", OPT_STEPS * NPARAM);
    float *after = golden_f32("opt.after", OPT_STEPS * NPARAM), *lrs = golden_f32("opt.lr", OPT_STEPS);
    adamw_state s;
    adamw_setup(&s);
    double worst = 0;
    for (int t = 0; t < OPT_STEPS; t++) {
        double lr = lr_at(&sched, t);
        ck_assert_double_eq_tol(lr, lrs[t], 1e-9);
        grad_clip(grads + t * NPARAM, NPARAM, 1.0);
        adamw_step(&s, params, grads + t * NPARAM, lr);
        for (int i = 0; i < NPARAM; i++) {
            double want = after[t * NPARAM + i], diff = fabs(params[i] - want);
            ck_assert_msg(diff <= 1e-6, "step %d, parameter %d: %.9g, PyTorch %.9g", t + 1, i,
                          (double)params[i], want);
            if (diff > worst) worst = diff;
        }
    }
    printf("adamw: 10 steps, largest difference from PyTorch %.2g\n", worst);
    ck_assert_int_eq((int)s.t, OPT_STEPS);
    adamw_free(&s);
    free(params);
    free(grads);
    free(after);
    free(lrs);
}
END_TEST

// The step in parts, as the GPT's threads take it (models/gpt.c): the
// norm from its parts' sums in any order of computing them, and AdamW part
// by part in reverse order (parts that cut through the decayed runs), give
// the bits of grad_norm and adamw_step; the parts tile the array.
START_TEST(clipping_and_adamw_in_parts_give_the_same_bits) {
    enum { N = 1003, STEPS = 3 };
    float *p0 = malloc(N * sizeof *p0), *g0 = malloc(N * sizeof *g0);
    float *whole = malloc(N * sizeof *whole), *parts = malloc(N * sizeof *parts);
    ck_assert(p0 && g0 && whole && parts);
    for (int i = 0; i < N; i++) {
        p0[i] = (float)((i * 29) % 97 - 48) / 50;
        g0[i] = (float)((i * 37) % 101 - 50) / 40;
    }
    ck_assert_uint_eq(grad_part_start(N, 0), 0);
    ck_assert_uint_eq(grad_part_start(N, GRAD_PARTS), N);
    double squares[GRAD_PARTS], sum = 0, check = 0;
    for (int j = GRAD_PARTS - 1; j >= 0; j--) {
        ck_assert_uint_le(grad_part_start(N, j), grad_part_start(N, j + 1));
        ck_assert_uint_eq(grad_part_start(N, j) % 8, 0);  // a whole number of eight before it
        squares[j] = grad_part_squares(g0, N, j);
    }
    for (int j = 0; j < GRAD_PARTS; j++) sum += squares[j];
    for (int i = 0; i < N; i++) check += (double)g0[i] * g0[i];
    ck_assert_double_eq(sqrt(sum), grad_norm(g0, N));
    ck_assert_double_eq_tol(grad_norm(g0, N), sqrt(check), 1e-12 * sqrt(check));
    adamw_state a, b;
    ck_assert_int_eq(adamw_init(&a, N, 0.1), 0);
    ck_assert_int_eq(adamw_init(&b, N, 0.1), 0);
    ck_assert_int_eq(adamw_decay(&a, 100, 500), 0);
    ck_assert_int_eq(adamw_decay(&b, 100, 500), 0);
    memcpy(whole, p0, N * sizeof *whole);
    memcpy(parts, p0, N * sizeof *parts);
    for (int t = 0; t < STEPS; t++) {
        adamw_step(&a, whole, g0, 1e-2);
        b.t++;
        for (int j = GRAD_PARTS - 1; j >= 0; j--)
            adamw_update(&b, parts, g0, 1e-2, grad_part_start(N, j), grad_part_start(N, j + 1));
    }
    ck_assert_msg(memcmp(whole, parts, N * sizeof *whole) == 0, "AdamW in parts differs");
    ck_assert_msg(memcmp(a.m, b.m, N * sizeof *a.m) == 0 && memcmp(a.v, b.v, N * sizeof *a.v) == 0,
                  "the moments differ");
    adamw_free(&a);
    adamw_free(&b);
    free(p0), free(g0), free(whole), free(parts);
}
END_TEST

// With a zero gradient Adam does not move a parameter: only the decay does,
// and only where it was asked for.
START_TEST(adamw_decays_only_what_is_marked) {
    adamw_state s;
    adamw_setup(&s);
    float p[NPARAM], g[NPARAM] = {0};
    for (int i = 0; i < NPARAM; i++) p[i] = 1.5f;
    adamw_step(&s, p, g, 0.01);
    for (int i = 0; i < NPARAM; i++) {
        int decays = i < BIAS_AT || i >= EMB_AT;
        ck_assert_msg(p[i] == (decays ? 1.5f * (float)(1 - 0.01 * 0.1) : 1.5f), "parameter %d: %.9g",
                      i, (double)p[i]);
    }
    ck_assert_int_eq(adamw_decay(&s, NPARAM, 1), -1);
    ck_assert_int_eq(adamw_decay(&s, 30, 5), -1);
    ck_assert_int_eq(adamw_decay(&s, NPARAM, 0), 0);
    adamw_free(&s);
}
END_TEST

// Without weight decay and at a constant rate, AdamW is Adam: the same
// steps as layers/adam.h's optax Adam, up to how each rounds its constants.
START_TEST(adamw_without_decay_is_adam) {
    float *grads = golden_f32("opt.grads", OPT_STEPS * NPARAM);
    float *p = golden_f32("opt.init", NPARAM), *q = golden_f32("opt.init", NPARAM);
    adamw_state w;
    adam_state a;
    ck_assert_int_eq(adamw_init(&w, NPARAM, 0.1), 0);  // nothing marked: nothing decays
    ck_assert_int_eq(adam_init(&a, NPARAM, 1e-2), 0);
    for (int t = 0; t < OPT_STEPS; t++) {
        adamw_step(&w, p, grads + t * NPARAM, 1e-2);
        adam_step(&a, q, grads + t * NPARAM);
        for (int i = 0; i < NPARAM; i++) ck_assert_float_eq_tol(p[i], q[i], 1e-6);
    }
    adamw_free(&w);
    adam_free(&a);
    free(grads);
    free(p);
    free(q);
}
END_TEST

// ---------------------------------------------------------------- the task, without the novels

START_TEST(vocabulary_encode_decode) {
    const char *text = "It cost \xc2\xa3" "20,000.\nA truth!\n";
    austen_vocab v;
    ck_assert_int_eq(austen_vocab_build(&v, text, strlen(text)), 0);
    // \n space ! , . 0 2 A I c h o r s t u 0xA3
    static const uint32_t want[] = {'\n', ' ', '!', ',', '.', '0', '2', 'A', 'I',
                                    'c',  'h', 'o', 'r', 's', 't', 'u', 0xA3};
    ck_assert_int_eq(v.size, (int)(sizeof want / sizeof *want));
    for (int i = 0; i < v.size; i++) ck_assert_uint_eq(v.chars[i], want[i]);
    int32_t ids[64];
    long n = austen_encode(&v, ids, text, strlen(text));
    ck_assert_int_eq(n, (long)strlen(text) - 1);  // the pound sign: two bytes, one id
    ck_assert_int_eq(ids[8], 16);
    ck_assert_int_eq(ids[0], 8);
    char back[4 * 64 + 1];
    ck_assert_uint_eq(austen_decode(&v, back, ids, (size_t)n), strlen(text));
    ck_assert_str_eq(back, text);
    ck_assert_int_eq(austen_encode(&v, ids, "Ah", 2), 2);
    ck_assert_int_eq(austen_encode(&v, ids, "Zh", 2), -1);  // no 'Z' in the text
    ck_assert_int_eq(austen_id(&v, 'Z'), -1);
    int32_t odd[] = {7, -1, 17, 16};
    ck_assert_uint_eq(austen_decode(&v, back, odd, 4), 5);
    ck_assert_str_eq(back, "A??\xc2\xa3");
    ck_assert_int_eq(austen_vocab_build(&v, "a\xff", 2), -1);  // not UTF-8
}
END_TEST

// The starts of two batches in a row from one seed, equal to
// torch.randint's; each window the ids from its start.
START_TEST(batches_are_torch_randint_draws) {
    static const struct {
        uint64_t seed;
        size_t n;
        int B, T;
    } CASES[] = {{1337, 100, 16, 8}, {42, 3558174, 8, 64}};
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++) {
        size_t n = CASES[c].n;
        int B = CASES[c].B, T = CASES[c].T;
        int32_t *ids = malloc(n * sizeof *ids), *w = malloc((size_t)B * (T + 1) * sizeof *w);
        int64_t *starts = malloc(2 * (size_t)B * sizeof *starts);
        ck_assert(ids && w && starts);
        for (size_t i = 0; i < n; i++) ids[i] = (int32_t)(i * 7 % 1000003);
        torch_rng g;
        rng_seed(&g, CASES[c].seed);
        for (int k = 0; k < 2; k++) {
            austen_batch(w, starts + k * B, ids, n, B, T, &g);
            for (int b = 0; b < B; b++) {
                int64_t s = starts[k * B + b];
                ck_assert(s >= 0 && (size_t)s + T < n);
                for (int t = 0; t <= T; t++) ck_assert_int_eq(w[b * (T + 1) + t], ids[s + t]);
            }
        }
        char name[64];
        snprintf(name, sizeof name, "batch.%llu.starts", (unsigned long long)CASES[c].seed);
        golden_expect_ids(GOLDEN, name, starts, 2 * (size_t)B);
        free(ids);
        free(w);
        free(starts);
    }
}
END_TEST

START_TEST(bigram_by_hand) {
    // "abab": pairs ab, ba, ab; V = 3 (c never seen)
    int32_t ids[] = {0, 1, 0, 1};
    bigram_model m;
    ck_assert_int_eq(bigram_fit(&m, ids, 4, 3), 0);
    // P(b | a) = (2 + 1) / (2 + 3); P(a | b) = (1 + 1) / (1 + 3); P(c | c) = 1 / 3
    ck_assert_double_eq_tol(m.bits[0 * 3 + 1], -log2(3.0 / 5), 1e-12);
    ck_assert_double_eq_tol(m.bits[1 * 3 + 0], -log2(2.0 / 4), 1e-12);
    ck_assert_double_eq_tol(m.bits[2 * 3 + 2], -log2(1.0 / 3), 1e-12);
    int32_t held[] = {0, 2};  // after b: a, then c after a
    ck_assert_double_eq_tol(bigram_bits(&m, 1, held, 2), (1 - log2(1.0 / 5)) / 2, 1e-12);
    bigram_free(&m);
}
END_TEST

START_TEST(missing_compressor_named) {
    char err[512] = "";
    ck_assert_int_eq(compressed_size("no-such-compressor", "abc", 3, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no no-such-compressor program") != NULL, "%s", err);
    long long gz = compressed_size("gzip", "abc", 3, err, sizeof err);
    ck_assert_msg(gz > 18 && gz < 40, "gzip of 3 bytes: %lld (%s)", gz, err);  // header and trailer: 18
}
END_TEST

// ---------------------------------------------------------------- the novels

static austen_corpus corpus;

static void load_corpus(void) {
    char err[512] = "";
    ck_assert_msg(austen_load(&corpus, RDB, AUSTEN_HELD_OUT, err, sizeof err) == 0, "%s", err);
}

START_TEST(austen_vocabulary_and_split) {
    if (!exists(RDB)) SKIP_TEST("no %s (make data fetches it)", RDB);
    load_corpus();
    ck_assert_int_eq(corpus.vocab.size, 81);
    ck_assert_uint_eq(corpus.vocab.chars[0], '\n');
    ck_assert_uint_eq(corpus.vocab.chars[1], ' ');
    ck_assert_uint_eq(corpus.vocab.chars[80], 0xA3);  // the pound sign
    for (int i = 1; i < 80; i++) ck_assert(corpus.vocab.chars[i] >= 0x20 && corpus.vocab.chars[i] < 0x7f);
    ck_assert_str_eq(corpus.held_out, "Persuasion");
    ck_assert_uint_eq(corpus.n_train, 3558174);
    ck_assert_uint_eq(corpus.n_val, 466854);
    ck_assert_uint_eq(corpus.n_train + corpus.n_val, 4025028);
    ck_assert_uint_eq(corpus.train_bytes, 3558175);  // Mansfield Park's pound sign
    ck_assert_uint_eq(corpus.val_bytes, 466854);
    ck_assert(strncmp(corpus.text, "EMMA\n", 5) == 0);
    ck_assert(strncmp(corpus.text + corpus.train_bytes, "Persuasion\n", 11) == 0);
    // ids back to text: the corpus whole
    size_t n = corpus.n_train + corpus.n_val;
    char *back = malloc(4 * n + 1);
    ck_assert_ptr_nonnull(back);
    ck_assert_uint_eq(austen_decode(&corpus.vocab, back, corpus.ids, n),
                      corpus.train_bytes + corpus.val_bytes);
    ck_assert(strcmp(back, corpus.text) == 0);
    free(back);
    austen_free(&corpus);
    char err[512] = "";
    ck_assert_int_eq(austen_load(&corpus, RDB, "Ulysses", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no novel titled \"Ulysses\"") != NULL, "%s", err);
}
END_TEST

// The bigram's held-out bits, counted again here on code points, from the
// text rather than the ids.
START_TEST(austen_bigram_bits) {
    if (!exists(RDB)) SKIP_TEST("no %s (make data fetches it)", RDB);
    load_corpus();
    bigram_model m;
    ck_assert_int_eq(bigram_fit(&m, austen_train_ids(&corpus), corpus.n_train, corpus.vocab.size), 0);
    double bits = bigram_bits(&m, austen_train_ids(&corpus)[corpus.n_train - 1],
                              austen_val_ids(&corpus), corpus.n_val);
    bigram_free(&m);

    static double count[256][256], row[256];  // every code point of the novels is below 256
    memset(count, 0, sizeof count);
    memset(row, 0, sizeof row);
    const char *s = corpus.text;
    size_t len = corpus.train_bytes, i = 0;
    uint32_t prev = 0, cp;
    for (int first = 1; i < len; first = 0) {
        i += (size_t)utf8_decode(s + i, len - i, &cp);
        ck_assert_uint_lt(cp, 256);
        if (!first) count[prev][cp]++, row[prev]++;
        prev = cp;
    }
    double sum = 0, V = 81;
    size_t chars = 0;
    for (len += corpus.val_bytes; i < len; chars++) {  // prev: the training text's last
        i += (size_t)utf8_decode(s + i, len - i, &cp);
        sum -= log2((count[prev][cp] + 1) / (row[prev] + V));
        prev = cp;
    }
    ck_assert_uint_eq(chars, corpus.n_val);
    printf("bigram (add-one) on %s: %.4f bits per character\n", corpus.held_out, bits);
    ck_assert_double_eq_tol(bits, sum / (double)chars, 1e-9);
    ck_assert(bits > 3.45 && bits < 3.65);  // measured: 3.539
    austen_free(&corpus);
}
END_TEST

START_TEST(austen_compressors) {
    if (!exists(RDB)) SKIP_TEST("no %s (make data fetches it)", RDB);
    load_corpus();
    austen_compression z;
    char err[512] = "";
    ck_assert_msg(austen_compression_bits(&z, &corpus, err, sizeof err) == 0, "%s", err);
    printf("%s, bits per character: gzip -9 %.3f, xz -9 %.3f, xz -9 after the other five %.3f\n",
           corpus.held_out, z.gzip_bits, z.xz_bits, z.xz_fair_bits);
    ck_assert_double_eq_tol(z.xz_fair_bits, 8.0 * (z.xz_both - z.xz_train) / 466854, 1e-12);
    // measured with gzip 1.12 and xz 5.4.1: 2.928, 2.469, 2.141
    ck_assert(z.gzip_bits > 2.8 && z.gzip_bits < 3.05);
    ck_assert(z.xz_bits > 2.35 && z.xz_bits < 2.6);
    ck_assert(z.xz_fair_bits > 2.0 && z.xz_fair_bits < 2.3);
    austen_free(&corpus);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpt_parts");
    TCase *tc = tcase_create("parts");
    tcase_add_test(tc, gelu_matches_pytorch);
    tcase_add_test(tc, gelu_backward_write_gives_the_bits_of_adding_to_zero);
    tcase_add_test(tc, schedule_matches_nanogpt_shape);
    tcase_add_test(tc, clipping_matches_pytorch);
    tcase_add_test(tc, adamw_ten_steps_match_pytorch);
    tcase_add_test(tc, adamw_decays_only_what_is_marked);
    tcase_add_test(tc, clipping_and_adamw_in_parts_give_the_same_bits);
    tcase_add_test(tc, adamw_without_decay_is_adam);
    tcase_add_test(tc, vocabulary_encode_decode);
    tcase_add_test(tc, batches_are_torch_randint_draws);
    tcase_add_test(tc, bigram_by_hand);
    tcase_add_test(tc, missing_compressor_named);
    suite_add_tcase(s, tc);
    // the real novels: tagged "data", so that `make valgrind` leaves them out
    TCase *data = tcase_create("data");
    tcase_set_tags(data, "data");
    tcase_set_timeout(data, 120);
    tcase_add_test(data, austen_vocabulary_and_split);
    tcase_add_test(data, austen_bigram_bits);
    tcase_add_test(data, austen_compressors);
    suite_add_tcase(s, data);
    return run_suite(s);
}
