// test_gpt_gradients.c: the GPT's backward pass (src/models/gpt.c) against
// finite differences of its loss, for every element of every parameter
// tensor of a tiny model, in double: the library's sources compiled again
// with real = double, as test_transformer_gradients.c does. And the tied
// weight: wte's gradient is the output layer's plus the embedding's.
// The same with the attention computed a tile at a time (tiled_attention.c).
// test_gpt.c holds the float model's cache, files and training;
// test_gpt_golden.c holds it to PyTorch.
#define ATTN_REAL double
#include "../src/kernels/gemm_reference.c"
#include "../src/kernels/gemm.c"
#include "../src/layers/embedding.c"
#include "../src/layers/softmax.c"
#include "../src/layers/cross_entropy.c"
#include "../src/layers/linear.c"
#include "../src/layers/layernorm.c"
#include "../src/layers/online_softmax.c"
#include "../src/layers/tiled_attention.c"
#include "../src/layers/multihead_attention.c"
#include "../src/layers/positions.c"
#include "../src/layers/gelu.c"
#include "../src/layers/grad_clip.c"
#include "../src/layers/adamw.c"
#include "../src/layers/lr_schedule.c"
#include "../src/models/gpt.c"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "finite_diff.h"
#include "suite.h"

// A tiny model: V 7, T 5, d 8, h 2, L 2; a batch of 2 sequences of 4.
enum { V = 7, T = 5, D = 8, HEADS = 2, LAYERS = 2, B = 2, N = 4 };

static const int32_t ids[B * N] = { 1, 3, 3, 0, 6, 2, 1, 1 };
static const int32_t targets[B * N] = { 3, 3, 0, 5, 2, 1, 1, 4 };

static double loss_of(void *ctx) { return gpt_forward(ctx, ids, targets, B, N); }

// shards 1: the whole batch at once; 2: each sequence on its own, the
// gradients summed (gpt.h). attention: the weights in memory or tiled.
static gpt_model *tiny(int shards, gpt_attention attention) {
    gpt_config c = { .V = V, .T = T, .d = D, .h = HEADS, .L = LAYERS, .attention = attention };
    char err[200];
    gpt_model *m = gpt_build(&c, B, shards, 5, NULL, 0.1, NULL, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    // larger than GPT-2's 0.02 starting values, and biases and gains away
    // from 0 and 1, so that every path carries a visible gradient
    torch_rng g;
    rng_seed(&g, 11);
    fill_uniform(&g, m->param_block, m->n_params, -0.5, 0.5);
    for (int i = 0; i < m->n_tensors; i++)
        if (strstr(m->tensors[i].name, "ln_") && strstr(m->tensors[i].name, "weight"))
            for (size_t e = 0; e < m->tensors[i].count; e++)
                m->param_block[m->tensors[i].offset + e] += 1;
    return m;
}

// Each run: its shards and its attention.
static const struct {
    int shards;
    gpt_attention attention;
} runs[] = { { 1, GPT_ATTENTION_NAIVE }, { 2, GPT_ATTENTION_NAIVE }, { 1, GPT_ATTENTION_TILED } };

START_TEST(every_parameter_tensor) {
    gpt_model *m = tiny(runs[_i].shards, runs[_i].attention);
    printf("gpt: %d shard(s), %s attention\n", runs[_i].shards,
           runs[_i].attention == GPT_ATTENTION_TILED ? "tiled" : "naive");
    ck_assert_int_eq(m->n_tensors, 2 + 12 * LAYERS + 2);
    ck_assert_uint_eq(m->n_params, gpt_param_count(&m->cfg));
    loss_of(m);
    gpt_backward(m);
    double *grad = malloc(m->n_params * sizeof *grad);
    ck_assert_ptr_nonnull(grad);
    memcpy(grad, m->grad_block, m->n_params * sizeof *grad);
    for (int i = 0; i < m->n_tensors; i++) {
        const gpt_tensor *t = &m->tensors[i];
        double worst = check_gradient(t->name, m->param_block + t->offset, grad + t->offset,
                                      t->count, loss_of, m);
        printf("gpt %-22s %5zu numbers, largest error %.2g\n", t->name, t->count, worst);
    }
    free(grad);
    gpt_free(m);
}
END_TEST

// wte is used twice: as the embedding of the input ids and as the output
// layer. Its gradient is the sum: the output layer's part alone (computed
// here with linear_backward) is all of it for the rows of ids that are not
// in the input (0 .. 6 but 4 and 5 here: 4 and 5 occur only as targets),
// and the rest, for the input ids, is the embedding's.
START_TEST(tied_weight_collects_both_uses) {
    gpt_model *m = tiny(1, GPT_ATTENTION_NAIVE);
    loss_of(m);
    gpt_backward(m);
    double *out_part = calloc((size_t)V * D, sizeof *out_part);
    ck_assert_ptr_nonnull(out_part);
    linear_backward(NULL, out_part, NULL, m->a.dlogits, m->a.lnf, m->p.wte, B * N, D, V,
                    WEIGHT_OUT_IN);
    bool in_input[V] = { false };
    for (int i = 0; i < B * N; i++) in_input[ids[i]] = true;
    for (int v = 0; v < V; v++) {
        double apart = 0;
        for (int j = 0; j < D; j++)
            apart = fmax(apart, fabs(m->g.wte[v * D + j] - out_part[v * D + j]));
        if (in_input[v])
            ck_assert_msg(apart > 1e-6, "row %d: no gradient from the embedding", v);
        else
            ck_assert_msg(apart == 0, "row %d: %g beyond the output layer's part", v, apart);
    }
    free(out_part);
    gpt_free(m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpt_gradients");
    TCase *tc = tcase_create("gpt");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_parameter_tensor, 0, sizeof runs / sizeof *runs);
    tcase_add_test(tc, tied_weight_collects_both_uses);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
