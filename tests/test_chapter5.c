// test_chapter5.c: every number and property ./chapter5 claims, checked on
// the very functions it runs.
//
// Tolerances:
//   golden: values PyTorch 1.13 computed from the seeds of GOLDEN_SEEDS, in
//     GOLDEN_DIR/chapter5_seed<S>.txt (written by
//     tests/reference/chapter5_golden.py, which runs the chapter's twin
//     tests/reference/chapter5_twin.py): torch.rand and nn.Linear draws bit
//     for bit; normals (nn.Embedding) within 1e-6; the encoder's and
//     decoder's outputs and the cross-attention weights, post-norm and
//     pre-norm, with PyTorch's initial biases and norms and with random
//     ones, within 1e-5; the notebook's layers within 1e-5; LayerNorm alone
//     within 1e-6 (1e-5 for a row centred on 10), and a row of equal values
//     (0.75, whose mean is exact in float for PyTorch too) exactly.
//   properties: exact where the arithmetic is the same (causality, a
//     constant row), 1e-6 for sums of weights.
#define TESTING
#include "../src/programs/chapter5.c"

#include <check.h>
#include <unistd.h>

#include "capture.h"
#include "datafile.h"
#include "cells.h"
#define GOLDEN_SEED_FILE "chapter5_seed%llu.txt"
#include "golden.h"
#include "suite.h"

#define GOLDEN_TOL 1e-5
#define NORMAL_TOL 1e-6
#define N_SEEDS 3
static const uint64_t GOLDEN_SEEDS[N_SEEDS] = { DEFAULT_SEED, 0, 42 };

static chapter5 c;

static void setup(void) {
    ck_assert_int_eq(chapter5_run(&c, DEFAULT_SEED), 0);
}

static void teardown(void) {
    chapter5_free(&c);
}

// ---------------------------------------------------------------------------
// Golden values (golden.h, keyed by seed) and the printed output

static bool same(const float *a, const float *b, int n) {
    return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

static char *printed(void) {
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    chapter5_print(&c, f);
    fclose(f);
    return buf;
}

// ---------------------------------------------------------------------------
// LayerNorm

// The (4, d) LayerNorm output got against the golden section: rows 0 and 1
// within NORMAL_TOL; row 2, constant, exactly; row 3 within GOLDEN_TOL (it
// is centred on 10, where a float's last bit is 1e-6, and PyTorch's mean is
// a float).
static void expect_rows_golden(uint64_t seed, const char *section,
                               const float *got) {
    const int d = EMBEDDING_DIM;
    float want[4 * EMBEDDING_DIM];
    golden_floats(want, seed, section, 4 * d);
    for (int e = 0; e < 4 * d; e++)
        ck_assert_msg(fabsf(got[e] - want[e]) <= (e / d == 2 ? 0.0 : e / d == 3 ? GOLDEN_TOL : NORMAL_TOL),
                      "seed %llu, %s[%d]: got %.9g, PyTorch %.9g",
                      (unsigned long long)seed, section, e, (double)got[e],
                      (double)want[e]);
}

START_TEST(layernorm_equals_pytorch_and_a_constant_row_is_its_bias) {
    const int d = EMBEDDING_DIM;
    for (int s = 0; s < N_SEEDS; s++) {
        uint64_t seed = GOLDEN_SEEDS[s];
        float x[4 * EMBEDDING_DIM], gain[EMBEDDING_DIM], bias[EMBEDDING_DIM];
        float out[4 * EMBEDDING_DIM];
        golden_floats(x, seed, "layernorm_x", 4 * d);
        golden_floats(gain, seed, "layernorm_gain", d);
        golden_floats(bias, seed, "layernorm_bias", d);
        layernorm_forward(out, NULL, NULL, x, NULL, NULL, 4, d);
        expect_rows_golden(seed, "layernorm_plain", out);
        // row 2 is constant: zero variance, exactly zero out (with a value
        // whose float mean is not exact, the output would be off by up to
        // an ulp of the mean divided by sqrt(eps), PyTorch's as ours)
        for (int j = 0; j < d; j++) ck_assert(out[2 * d + j] == 0.0f);
        // each other row: mean 0, variance 1 - eps / (var + eps), about 1;
        // row 3, centred on 10, to the tolerance of the top of this file:
        // its float mean is off by up to an ulp of 10, 1e-6, and so is the
        // mean of its output, PyTorch's as ours (1.7e-6 from seed 3570563066)
        for (int i = 0; i < 4; i++) {
            if (i == 2) continue;
            float mean, std;
            mean_std(&mean, &std, out + i * d, d);
            ck_assert_float_eq_tol(mean, 0.0f, i == 3 ? GOLDEN_TOL : NORMAL_TOL);
            ck_assert_float_eq_tol(std, 1.0f, 1e-3f);
        }
        layernorm_forward(out, NULL, NULL, x, gain, bias, 4, d);
        expect_rows_golden(seed, "layernorm_affine", out);
        ck_assert(same(out + 2 * d, bias, d));
        // in place, and over the whole tensor as one vector
        layernorm_forward(x, NULL, NULL, x, NULL, NULL, 1, 4 * d);
        expect_golden(seed, "layernorm_whole", x, 4 * d, GOLDEN_TOL);
    }
}
END_TEST

// ---------------------------------------------------------------------------
// Part 1: the notebook's layers

START_TEST(notebook_layers_equal_pytorch) {
    const int nd = N_SRC * EMBEDDING_DIM;
    for (int s = 0; s < N_SEEDS; s++) {
        uint64_t seed = GOLDEN_SEEDS[s];
        notebook_part *p = malloc(sizeof *p);
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(notebook_part_run(p, seed), 0);
        expect_golden(seed, "notebook_x", p->x, nd, NORMAL_TOL);
        // the draws of cells [T19] and [T24] came first: the layers' weights
        // are PyTorch's bit for bit
        expect_golden_strided(seed, "notebook_encoder_linear_1_weight_every16",
                              p->enc.lin.w1, D_FF * EMBEDDING_DIM / 16, 16, 0);
        expect_golden(seed, "notebook_encoder_linear_2_bias", p->enc.lin.b2,
                      EMBEDDING_DIM, 0);
        expect_golden_strided(seed, "notebook_decoder_linear_2_weight_every16",
                              p->dec.lin.w2, D_FF * EMBEDDING_DIM / 16, 16, 0);
        expect_golden(seed, "notebook_encoder_output", p->enc.out, nd, GOLDEN_TOL);
        expect_golden(seed, "notebook_decoder_output", p->dec.out, nd, GOLDEN_TOL);
        notebook_part_free(p);
        free(p);
    }
}
END_TEST

START_TEST(notebook_layer_norm_is_over_the_whole_tensor) {
    const notebook_part *p = &c.notebook;
    const int n = N_SRC, d = EMBEDDING_DIM;
    float mean, std;
    mean_std(&mean, &std, p->enc.normed, n * d);
    ck_assert_float_eq_tol(mean, 0.0f, 1e-6f);
    ck_assert_float_eq_tol(std, 1.0f, 1e-3f);
    // but not token by token: some row's mean is far from 0
    float worst = 0;
    for (int i = 0; i < n; i++) {
        mean_std(&mean, &std, p->enc.normed + i * d, d);
        worst = fmaxf(worst, fabsf(mean));
    }
    ck_assert_float_gt(worst, 0.05f);
    // so one token's normalised vector depends on the other tokens: change
    // token 7's sum and token 0's normalised row moves
    float sum[N_SRC * EMBEDDING_DIM], a[N_SRC * EMBEDDING_DIM];
    for (int i = 0; i < n * d; i++) sum[i] = p->enc.attn_out[i] + p->x[i];
    for (int k = 0; k < d; k++) sum[7 * d + k] *= 3.0f;
    layer_norm_whole(a, sum, n, d);
    ck_assert(!same(a, p->enc.normed, d));
}
END_TEST

START_TEST(notebook_feedforward_is_one_affine_map_then_relu) {
    const notebook_part *p = &c.notebook;
    const int n = N_SRC, d = EMBEDDING_DIM;
    float w_eff[EMBEDDING_DIM * EMBEDDING_DIM], b_eff[EMBEDDING_DIM];
    float direct[N_SRC * EMBEDDING_DIM];
    collapse_linears(w_eff, b_eff, &p->enc.lin);
    linear_forward(direct, p->enc.normed, w_eff, b_eff, n, d, d, WEIGHT_OUT_IN);
    for (int e = 0; e < n * d; e++) {
        float relu = fmaxf(direct[e], 0.0f);
        ck_assert_float_eq_tol(p->enc.update[e], relu, 1e-5f);
        ck_assert_float_ge(p->enc.update[e], 0.0f);  // never negative
        ck_assert(p->enc.out[e] == p->enc.normed[e] + p->enc.update[e]);
    }
    // a real share of the updates are clipped, and cell [P5.9] prints how
    // many, and the smallest update: 0
    int zeros = 0;
    for (int e = 0; e < n * d; e++) zeros += p->enc.update[e] == 0.0f;
    ck_assert_int_gt(zeros, n * d / 5);
    ck_assert_int_lt(zeros, n * d);
    char *text, want[128];
    size_t len;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    notebook_part_print(p, f);
    fclose(f);
    snprintf(want, sizeof want, "the update added to x: smallest 0.0000, %d of %d entries clipped to 0\n",
             zeros, n * d);
    ck_assert_msg(strstr(text, want) != NULL, "cell [51] lacks \"%s\"", want);
    free(text);
}
END_TEST

START_TEST(notebook_decoder_sees_the_future_and_queries_the_source) {
    const notebook_part *p = &c.notebook;
    const int d = EMBEDDING_DIM;
    ck_assert(!same(p->changed_target_out, p->dec.out, d));
    ck_assert(same(p->changed_target_cross, p->dec.cross_weights,
                   HEADS * N_SRC * N_SRC));
    // rows of the second attention's weights sum to one
    float sums[HEADS * N_SRC];
    row_sums(sums, p->dec.cross_weights, HEADS * N_SRC, N_SRC);
    for (int i = 0; i < HEADS * N_SRC; i++) ck_assert_float_eq_tol(sums[i], 1.0f, 1e-6f);
}
END_TEST

START_TEST(part1_prints_the_notebooks_cells) {
    char *out = printed();
    expect_in_cell(out, "T25", "n_heads=2)\ntorch.Size([8, 32])\n");
    expect_in_cell(out, "T26", "n_heads=2)\ntorch.Size([8, 32])\n");
    expect_in_cell(out, "P5.8", "of all 256 numbers: 0.0000 1.0000\n");
    expect_in_cell(out, "P5.9", "the update added to x: smallest 0.0000, ");
    expect_in_cell(out, "P5.10", "(no causal mask): True\n");
    expect_in_cell(out, "P5.10", "are the source's): True\n");
    // heads numbered from 1 as chapter 4 numbers them; four decimals, as
    // every other frame prints weights, even where some are under 1e-3
    expect_in_cell(out, "P5.10", "its head 1 weights, row 0\n[0.");
    char *cell = cell_text(out, "P5.10");
    ck_assert_ptr_null(strstr(cell, "e-0"));
    free(cell);
    free(out);
}
END_TEST

// ---------------------------------------------------------------------------
// Part 2: the real layers

START_TEST(layers_draw_what_pytorch_draws) {
    const int d = EMBEDDING_DIM;
    for (int s = 0; s < N_SEEDS; s++) {
        uint64_t seed = GOLDEN_SEEDS[s];
        layers_part *p = malloc(sizeof *p);
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(layers_part_run(p, seed), 0);
        expect_golden_ids(seed, "twin_src_ids", p->src_ids, N_SRC);
        expect_golden_ids(seed, "twin_tgt_ids", p->tgt_ids, N_TGT);
        expect_golden(seed, "twin_src", p->src, N_SRC * d, NORMAL_TOL);
        expect_golden(seed, "twin_tgt", p->tgt, N_TGT * d, NORMAL_TOL);
        struct { const char *name; const float *w; int n; } w[] = {
            { "twin_enc_in_proj_weight_every16", p->enc.self_attn.in_proj_weight,
              3 * d * d },
            { "twin_enc_linear1_weight_every16", p->enc.ff.w1, D_FF * d },
            { "twin_dec_self_in_proj_weight_every16", p->dec.self_attn.in_proj_weight,
              3 * d * d },
            { "twin_dec_cross_in_proj_weight_every16",
              p->dec.cross_attn.in_proj_weight, 3 * d * d },
            { "twin_dec_cross_out_proj_weight_every16",
              p->dec.cross_attn.out_proj_weight, d * d },
            { "twin_dec_linear1_weight_every16", p->dec.ff.w1, D_FF * d },
        };
        for (size_t k = 0; k < sizeof w / sizeof w[0]; k++)
            expect_golden_strided(seed, w[k].name, w[k].w, (size_t)w[k].n / 16, 16, 0);
        expect_golden(seed, "twin_enc_linear2_bias", p->enc.ff.b2, d, 0);
        expect_golden(seed, "twin_dec_linear2_bias", p->dec.ff.b2, d, 0);
        // LayerNorms start at gain 1, bias 0
        for (int j = 0; j < d; j++) {
            ck_assert(p->dec.norm_weight[2][j] == 1.0f);
            ck_assert(p->dec.norm_bias[2][j] == 0.0f);
        }
        layers_part_free(p);
        free(p);
    }
}
END_TEST

// The six outputs of the layers in p, both placements, against the golden
// sections prefix_*. Returns the largest difference.
static double expect_layer_outputs(uint64_t seed, const char *prefix,
                                   layers_part *p) {
    const int d = EMBEDDING_DIM;
    float memory[N_SRC * EMBEDDING_DIM], out[N_TGT * EMBEDDING_DIM];
    float cross[N_TGT * N_SRC];
    double worst = 0;
    for (int pre = 0; pre < 2; pre++) {
        p->dims.norm_first = pre;
        ck_assert_int_eq(layers_forward(memory, out, cross, p, p->src, p->tgt), MHA_OK);
        const char *suffix = pre ? "_pre" : "";
        char name[64];
        snprintf(name, sizeof name, "%s_memory%s", prefix, suffix);
        worst = fmax(worst, expect_golden(seed, name, memory, N_SRC * d, GOLDEN_TOL));
        snprintf(name, sizeof name, "%s_out%s", prefix, suffix);
        worst = fmax(worst, expect_golden(seed, name, out, N_TGT * d, GOLDEN_TOL));
        snprintf(name, sizeof name, "%s_cross%s", prefix, suffix);
        worst = fmax(worst, expect_golden(seed, name, cross, N_TGT * N_SRC, GOLDEN_TOL));
    }
    p->dims.norm_first = false;
    return worst;
}

// Every bias and norm parameter of p from the golden section
// perturbed_params, in the order chapter5_golden.py wrote them.
static void set_perturbed(layers_part *p, uint64_t seed) {
    const int d = EMBEDDING_DIM;
    float v[704];
    golden_floats(v, seed, "perturbed_params", 704);
    const float *src = v;
    mha_params *attns[] = { &p->enc.self_attn, &p->dec.self_attn, &p->dec.cross_attn };
    float **gains[] = { p->enc.norm_weight, p->dec.norm_weight };
    float **biases[] = { p->enc.norm_bias, p->dec.norm_bias };
    for (int layer = 0; layer < 2; layer++) {
        for (int a = layer; a < (layer ? 3 : 1); a++) {
            memcpy(attns[a]->in_proj_bias, src, 3 * d * sizeof(float));
            src += 3 * d;
            memcpy(attns[a]->out_proj_bias, src, d * sizeof(float));
            src += d;
        }
        for (int k = 0; k < (layer ? 3 : 2); k++) {
            memcpy(gains[layer][k], src, d * sizeof(float));
            src += d;
            memcpy(biases[layer][k], src, d * sizeof(float));
            src += d;
        }
    }
    ck_assert_int_eq((int)(src - v), 704);
}

START_TEST(layers_equal_pytorch_both_placements) {
    for (int s = 0; s < N_SEEDS; s++) {
        uint64_t seed = GOLDEN_SEEDS[s];
        layers_part *p = malloc(sizeof *p);
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(layers_part_run(p, seed), 0);
        const int d = EMBEDDING_DIM;
        // as the program computed them
        expect_golden(seed, "twin_memory", p->memory, N_SRC * d, GOLDEN_TOL);
        expect_golden(seed, "twin_out", p->out, N_TGT * d, GOLDEN_TOL);
        expect_golden(seed, "twin_cross", p->cross, N_TGT * N_SRC, GOLDEN_TOL);
        expect_golden(seed, "twin_memory_pre", p->memory_pre, N_SRC * d, GOLDEN_TOL);
        expect_golden(seed, "twin_out_pre", p->out_pre, N_TGT * d, GOLDEN_TOL);
        expect_golden(seed, "twin_cross_pre", p->cross_pre, N_TGT * N_SRC, GOLDEN_TOL);
        expect_layer_outputs(seed, "twin", p);
        set_perturbed(p, seed);
        expect_layer_outputs(seed, "perturbed", p);
        layers_part_free(p);
        free(p);
    }
}
END_TEST

// The decoder layer of p alone on tgt (n_t, d), reading memory (n_s, d),
// with the causal mask or without; cross (n_t, n_s), or NULL, gets the
// cross-attention's weights averaged over the heads.
static mha_status run_decoder(float *out, float *cross, layers_part *p, const float *tgt,
                              const float *memory, bool causal) {
    mha_status st = dec_layer_forward(out, &p->dec_cache, &p->dec, tgt, memory, NULL, NULL,
                                      causal, &p->dims, 1, N_TGT, N_SRC, NULL, NULL);
    if (cross) mha_mean_weights(cross, &p->dec_cache.cross_attn, 0, HEADS, N_TGT, N_SRC);
    return st;
}

START_TEST(decoder_is_causal_bit_for_bit) {
    layers_part *p = &c.layers;
    const int d = EMBEDDING_DIM;
    ck_assert(same(p->out_changed, p->out, (CAUSAL_T + 1) * d));
    ck_assert(!same(p->out_changed + (CAUSAL_T + 1) * d, p->out + (CAUSAL_T + 1) * d, d));
    ck_assert(same(p->out_pre_changed, p->out_pre, (CAUSAL_T + 1) * d));
    // every t, both placements, the cross-attention weights too
    for (int pre = 0; pre < 2; pre++) {
        p->dims.norm_first = pre;
        const float *memory = pre ? p->memory_pre : p->memory;
        const float *out0 = pre ? p->out_pre : p->out;
        const float *cross0 = pre ? p->cross_pre : p->cross;
        for (int t = 0; t < N_TGT - 1; t++) {
            float tgt[N_TGT * EMBEDDING_DIM], out[N_TGT * EMBEDDING_DIM];
            float cross[N_TGT * N_SRC];
            memcpy(tgt, p->tgt, sizeof tgt);
            for (int k = 0; k < d; k++) tgt[(N_TGT - 1) * d + k] -= 2.0f;
            for (int i = t + 1; i < N_TGT; i++) tgt[i * d] += 1.5f;
            ck_assert_int_eq(run_decoder(out, cross, p, tgt, memory, true), MHA_OK);
            ck_assert(same(out, out0, (t + 1) * d));
            ck_assert(same(cross, cross0, (t + 1) * N_SRC));
            ck_assert(!same(out + (t + 1) * d, out0 + (t + 1) * d, d));
            // the control: without the mask, output 0 moves
            ck_assert_int_eq(run_decoder(out, NULL, p, tgt, memory, false), MHA_OK);
            ck_assert(!same(out, out0, d));
        }
    }
    p->dims.norm_first = false;
}
END_TEST

START_TEST(cross_attention_reads_the_memory) {
    layers_part *p = &c.layers;
    // rows sum to one over the source tokens, both placements
    float sums[N_TGT];
    row_sums(sums, p->cross, N_TGT, N_SRC);
    for (int i = 0; i < N_TGT; i++) ck_assert_float_eq_tol(sums[i], 1.0f, 1e-6f);
    row_sums(sums, p->cross_pre, N_TGT, N_SRC);
    for (int i = 0; i < N_TGT; i++) ck_assert_float_eq_tol(sums[i], 1.0f, 1e-6f);
    // every target token reads every source token: changing the last source
    // token's memory moves every output row
    const int d = EMBEDDING_DIM;
    float memory[N_SRC * EMBEDDING_DIM], out[N_TGT * EMBEDDING_DIM];
    memcpy(memory, p->memory, sizeof memory);
    for (int k = 0; k < d; k++) memory[(N_SRC - 1) * d + k] += 1.0f;
    ck_assert_int_eq(run_decoder(out, NULL, p, p->tgt, memory, true), MHA_OK);
    for (int i = 0; i < N_TGT; i++) ck_assert(!same(out + i * d, p->out + i * d, d));
    // and the encoder is not causal: the last source token moves memory 0
    float src[N_SRC * EMBEDDING_DIM];
    memcpy(src, p->src, sizeof src);
    for (int k = 0; k < d; k++) src[(N_SRC - 1) * d + k] += 1.0f;
    ck_assert_int_eq(enc_layer_forward(memory, &p->enc_cache, &p->enc, src, NULL, false, &p->dims,
                                       1, N_SRC, NULL),
                     MHA_OK);
    ck_assert(!same(memory, p->memory, d));
}
END_TEST

START_TEST(layers_refuse_bad_sizes) {
    enc_layer_params e;
    dec_layer_params dl;
    layer_dims dims = { .d = 32, .h = 3, .d_ff = 64 };
    ck_assert_int_eq(enc_layer_alloc(&e, &dims), MHA_HEADS_DO_NOT_DIVIDE);
    ck_assert_int_eq(dec_layer_alloc(&dl, &dims), MHA_HEADS_DO_NOT_DIVIDE);
    dims = (layer_dims){ .d = 32, .h = 2, .d_ff = 0 };
    ck_assert_int_eq(enc_layer_alloc(&e, &dims), MHA_BAD_SIZE);
    dims.norm_first = true;
    ck_assert_int_eq(dec_layer_alloc(&dl, &dims), MHA_BAD_SIZE);
    ck_assert_ptr_null(e.self_attn.in_proj_weight);
    ck_assert_ptr_null(dl.self_attn.in_proj_weight);
    dims = (layer_dims){ .d = 32, .h = 4, .d_ff = 16, .norm_first = true };
    ck_assert_int_eq(enc_layer_alloc(&e, &dims), MHA_OK);
    ck_assert_ptr_nonnull(e.norm_bias[1]);
    enc_layer_free(&e);
    ck_assert_ptr_null(e.self_attn.in_proj_weight);
    dims = (layer_dims){ .d = 0, .h = 1, .d_ff = 4 };  // no width
    ck_assert_int_eq(layer_dims_check(&dims), MHA_BAD_SIZE);
}
END_TEST

START_TEST(part2_prints_what_the_twin_prints) {
    char *out = printed();
    expect_in_cell(out, "P5.1", "\nencoder layer            4224                -          "
                            "4192    128   8544\n"
                            "decoder layer            4224             4224          "
                            "4192    192  12832\n");
    expect_in_cell(out, "P5.1", "(10 tokens)\n");
    expect_in_cell(out, "P5.2", "\ntensor([[[");
    expect_in_cell(out, "P5.4", "\ntensor([[[0.");
    expect_in_cell(out, "P5.7", "keep their bits\npost-norm: True\npre-norm: True\n");
    expect_in_cell(out, "P5.7", "tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, "
                            "1.0000, 1.0000, 1.0000, 1.0000,\n        1.0000])\n");
    free(out);
}
END_TEST

// The blocks in the order the chapter quotes them: the real layers first,
// then the notebook's cells and what they get wrong.
START_TEST(blocks_in_the_chapters_order) {
    char *out = printed();
    const char *labels[] = { "P5.1", "P5.2", "P5.3", "P5.4", "P5.5", "P5.6", "P5.7",
                             "T25", "T26", "P5.8", "P5.9", "P5.10" };
    expect_blocks_in_order(out, labels, sizeof labels / sizeof labels[0]);
    free(out);
}
END_TEST

// ---------------------------------------------------------------------------
// Program behaviour

START_TEST(golden_files_name_their_script_and_seed) {
    expect_golden_seed_files(GOLDEN_SEEDS, N_SEEDS, "chapter5_golden.py");
}
END_TEST

START_TEST(figure_data_file) {
    char dir[] = "/tmp/chapter5-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chapter5_write_data(&c, dir), 0);
    // target words down, source words across
    const char *rows[N_TGT], *cols[N_SRC];
    for (int i = 0; i < N_TGT; i++) rows[i] = c.layers.tgt_words[i];
    for (int j = 0; j < N_SRC; j++) cols[j] = c.layers.src_words[j];
    ck_assert_str_eq(cols[0], "Sorry");
    ck_assert_str_eq(rows[N_TGT - 1], "ça.");
    assert_heatmap_file(dir, "chapter5-cross.dat", c.layers.cross, N_TGT, N_SRC, rows, cols);
    rmdir(dir);
    stderr_capture cap;
    capture_begin(&cap);
    ck_assert_int_eq(chapter5_write_data(&c, "/nonexistent/dir"), -1);
    char *said = capture_end(&cap);
    ck_assert_ptr_nonnull(strstr(said, "chapter5: error: cannot write /nonexistent/dir/"));
    free(said);
}
END_TEST

START_TEST(seed_changes_both_parts_and_is_repeatable) {
    chapter5 *other = malloc(sizeof *other);
    ck_assert_ptr_nonnull(other);
    ck_assert_int_eq(chapter5_run(other, DEFAULT_SEED), 0);
    ck_assert(same(other->notebook.dec.out, c.notebook.dec.out, N_SRC * EMBEDDING_DIM));
    ck_assert(same(other->layers.out_pre, c.layers.out_pre, N_TGT * EMBEDDING_DIM));
    chapter5_free(other);
    ck_assert_int_eq(chapter5_run(other, 1), 0);
    ck_assert(!same(other->notebook.enc.out, c.notebook.enc.out, N_SRC * EMBEDDING_DIM));
    ck_assert(!same(other->layers.memory, c.layers.memory, N_SRC * EMBEDDING_DIM));
    chapter5_free(other);
    free(other);
}
END_TEST

static Suite *chapter5_suite(void) {
    Suite *s = suite_create("chapter5");
    TCase *tc = tcase_create("layernorm");
    tcase_add_test(tc, layernorm_equals_pytorch_and_a_constant_row_is_its_bias);
    suite_add_tcase(s, tc);

    tc = tcase_create("notebook");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, notebook_layers_equal_pytorch);
    tcase_add_test(tc, notebook_layer_norm_is_over_the_whole_tensor);
    tcase_add_test(tc, notebook_feedforward_is_one_affine_map_then_relu);
    tcase_add_test(tc, notebook_decoder_sees_the_future_and_queries_the_source);
    tcase_add_test(tc, part1_prints_the_notebooks_cells);
    suite_add_tcase(s, tc);

    tc = tcase_create("layers");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, layers_draw_what_pytorch_draws);
    tcase_add_test(tc, layers_equal_pytorch_both_placements);
    tcase_add_test(tc, decoder_is_causal_bit_for_bit);
    tcase_add_test(tc, cross_attention_reads_the_memory);
    tcase_add_test(tc, layers_refuse_bad_sizes);
    tcase_add_test(tc, part2_prints_what_the_twin_prints);
    tcase_add_test(tc, blocks_in_the_chapters_order);
    suite_add_tcase(s, tc);

    tc = tcase_create("program");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, golden_files_name_their_script_and_seed);
    tcase_add_test(tc, figure_data_file);
    tcase_add_test(tc, seed_changes_both_parts_and_is_repeatable);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(chapter5_suite());
}
