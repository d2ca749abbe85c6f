// test_gpt_golden.c: chapter 9's GPT (src/models/gpt.h) held to PyTorch,
// as llm.c's test_gpt2.c holds its GPT-2: from the same starting
// parameters and batches (tests/golden/gpt.txt, written by
// tests/reference/chapter9_golden.py), the logits and the loss of a batch,
// the gradient of every parameter tensor, and ten steps of AdamW with
// clipping: the loss before each, the gradient norm, and every parameter
// after them.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "models/gpt.h"
#include "suite.h"

#define FILE_ "gpt.txt"
enum { STEPS = 10 };

// The tolerance, |C - PyTorch| <= TOL_ABS + TOL_REL |PyTorch|, as the
// transformer's golden suite holds its layers (test_transformer_golden.c):
// float on both sides, the sums in other orders.
#define TOL_ABS 1e-5
#define TOL_REL 1e-5

typedef struct {
    gpt_model *m;
    int B, n;
    int32_t *windows;  // (STEPS, B, n + 1)
} golden_case;

static golden_case load_case(void) {
    golden_case c;
    free(golden_expect_header(FILE_, "chapter9_golden.py"));
    double *cfg = golden_doubles(FILE_, "config", "i64", 7);
    gpt_config g = { .V = (int)cfg[0], .T = (int)cfg[1], .d = (int)cfg[2], .h = (int)cfg[3],
                     .L = (int)cfg[4] };
    c.B = (int)cfg[5];
    c.n = (int)cfg[6];
    free(cfg);
    lr_schedule s = { .lr_max = 1e-2, .lr_min = 1e-3, .warmup = 3, .decay_steps = 8 };
    char err[200];
    c.m = gpt_build(&g, c.B, 1, 1, NULL, 0.1, &s, err, sizeof err);
    ck_assert_msg(c.m != NULL, "%s", err);
    c.m->opt.b2 = 0.95;
    double *init = golden_doubles(FILE_, "init", "f32", c.m->n_params);
    for (size_t i = 0; i < c.m->n_params; i++) c.m->param_block[i] = (real)init[i];
    free(init);
    size_t nw = (size_t)STEPS * c.B * (c.n + 1);
    double *w = golden_doubles(FILE_, "windows", "i64", nw);
    c.windows = malloc(nw * sizeof *c.windows);
    ck_assert_ptr_nonnull(c.windows);
    for (size_t i = 0; i < nw; i++) c.windows[i] = (int32_t)w[i];
    free(w);
    return c;
}

static void free_case(golden_case *c) {
    gpt_free(c->m);
    free(c->windows);
}

// The largest relative difference of the values above 1e-6 seen by
// expect_close: the starting values are small (0.02), and so are many
// gradients, for which TOL_ABS alone would be lax; the suite prints it.
static double worst_relative;

// got (n) against section name; returns the largest difference relative
// to TOL_ABS + TOL_REL |PyTorch| (at most 1 when it passes).
static double expect_close(const real *got, const char *name, size_t n) {
    double *want = golden_doubles(FILE_, name, "f32", n), worst = 0;
    for (size_t i = 0; i < n; i++) {
        double diff = fabs((double)got[i] - want[i]), allowed = TOL_ABS + TOL_REL * fabs(want[i]);
        ck_assert_msg(diff <= allowed, "%s[%zu]: C %.9g, PyTorch %.9g", name, i, (double)got[i],
                      want[i]);
        worst = fmax(worst, diff / allowed);
        if (fabs(want[i]) > 1e-6) worst_relative = fmax(worst_relative, diff / fabs(want[i]));
    }
    free(want);
    return worst;
}

START_TEST(logits_loss_and_every_gradient) {
    golden_case c = load_case();
    gpt_model *m = c.m;
    // step 0's windows split as gpt_train_step splits them
    for (int b = 0; b < c.B; b++) {
        memcpy(m->a.ids + b * c.n, c.windows + b * (c.n + 1), c.n * sizeof(int32_t));
        memcpy(m->a.targets + b * c.n, c.windows + b * (c.n + 1) + 1, c.n * sizeof(int32_t));
    }
    real loss = gpt_forward(m, m->a.ids, m->a.targets, c.B, c.n);
    double worst = expect_close(m->a.logits, "logits", (size_t)c.B * c.n * m->cfg.V);
    worst = fmax(worst, expect_close(&loss, "loss", 1));
    printf("gpt golden: logits and loss within %.2f of the tolerance\n", worst);
    gpt_backward(m);
    worst = 0;
    for (int i = 0; i < m->n_tensors; i++) {
        const gpt_tensor *t = &m->tensors[i];
        char name[64];
        snprintf(name, sizeof name, "grad.%s", t->name);
        worst = fmax(worst, expect_close(m->grad_block + t->offset, name, t->count));
    }
    printf("gpt golden: %d gradients within %.2f of the tolerance; the largest relative "
           "difference of a value above 1e-6 %.2g\n", m->n_tensors, worst, worst_relative);
    ck_assert_double_le(worst_relative, 1e-3);
    free_case(&c);
}
END_TEST

// The key rows of c_attn.bias add q . b_k to every score of a query, which
// the softmax does not see: their gradient is rounding noise on both sides
// (0 in exact arithmetic), and AdamW turns noise of either sign into steps
// of up to the learning rate. They must stay within the sum of the rates
// (0.0595 over these ten steps) of where they started, and apart from them
// the parameters agree to the tolerance.
static bool is_key_bias(const gpt_model *m, size_t i) {
    for (int l = 0; l < m->cfg.L; l++) {
        size_t at = (size_t)(m->p.blocks[l].attn.in_proj_bias - m->param_block) + m->cfg.d;
        if (i >= at && i < at + (size_t)m->cfg.d) return true;
    }
    return false;
}

START_TEST(ten_steps_of_adamw) {
    golden_case c = load_case();
    gpt_model *m = c.m;
    real *start = malloc(m->n_params * sizeof *start);
    ck_assert_ptr_nonnull(start);
    memcpy(start, m->param_block, m->n_params * sizeof *start);
    real losses[STEPS], norms[STEPS];
    double rates = 0;
    for (int k = 0; k < STEPS; k++) {
        rates += lr_at(&m->schedule, k);
        losses[k] = gpt_train_step(m, c.windows + (size_t)k * c.B * (c.n + 1), c.B, c.n);
        norms[k] = (real)m->last_norm;
    }
    double worst = fmax(expect_close(losses, "steps.loss", STEPS),
                        expect_close(norms, "steps.norm", STEPS));
    double *after = golden_doubles(FILE_, "after", "f32", m->n_params);
    double worst_p = 0;
    for (size_t i = 0; i < m->n_params; i++) {
        double got = m->param_block[i];
        if (is_key_bias(m, i)) {
            ck_assert_msg(fabs(got - start[i]) <= rates * (1 + 1e-5) &&
                              fabs(after[i] - start[i]) <= rates * (1 + 1e-5),
                          "key bias [%zu] moved from %.9g to %.9g, PyTorch to %.9g", i,
                          (double)start[i], got, after[i]);
            continue;
        }
        double diff = fabs(got - after[i]), allowed = TOL_ABS + TOL_REL * fabs(after[i]);
        ck_assert_msg(diff <= allowed, "parameter %zu after %d steps: C %.9g, PyTorch %.9g", i,
                      STEPS, got, after[i]);
        worst_p = fmax(worst_p, diff / allowed);
    }
    printf("gpt golden: losses and norms of %d steps within %.2f of the tolerance, the "
           "parameters after them within %.2f\n", STEPS, worst, worst_p);
    free(after);
    free(start);
    free_case(&c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpt_golden");
    TCase *tc = tcase_create("gpt");
    tcase_add_test(tc, logits_loss_and_every_gradient);
    tcase_add_test(tc, ten_steps_of_adamw);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
