// step_flops.c: the operations of a training step, counted as
// step_flops.h says.
#include "models/step_flops.h"

double gpt_step_flops(const gpt_config *c, int B, int n) {
    double d = c->d, per_position = 24.0 * c->L * d * d + 2.0 * d * c->V  // the weights
                                    + 4.0 * c->L * n * d;                // the attention
    return 3.0 * per_position * B * n;  // forward, and the backward's two products for each
}

//> step-cost-product
// count products (m, k) x (k, n), each with its gradients' products
void step_cost_product(step_cost *c, double count, double m, double k, double n,
                       int gradients) {
    double times = count * (1 + gradients);
    c->flops += times * 2 * m * k * n;
    c->bytes += times * 4 * (m * k + k * n + m * n);  // two operands in, the result out
}
//< step-cost-product

// One head's attention over one sequence: n_q queries against n_k keys of
// width d_k, count times; scores q k^T, then the weighted values w v.
static void attention_cost(step_cost *c, double count, int n_q, int n_k, int d_k) {
    step_cost_product(c, count, n_q, d_k, n_k, 2);
    step_cost_product(c, count, n_q, n_k, d_k, 2);
}

step_cost sentiment_step_cost(const sentiment_config *cfg, int B, int U) {
    step_cost c = {0, 0};
    if (cfg->kind != MODEL_NOTEBOOK_ATTENTION && cfg->kind != MODEL_SOFTMAX_ATTENTION) return c;
    step_cost_product(&c, 3, U, cfg->d, cfg->d_k, cfg->frozen ? 1 : 2);  // q, k, v of the words
    attention_cost(&c, B, cfg->L, cfg->L, cfg->d_k);
    step_cost_product(&c, 1, B, cfg->d_k, 1, 2);  // Dense(1) on the means
    return c;
}

// One layer's attention block: queries from n_q rows, keys and values from
// n_k rows (the same rows for self-attention), the output projection.
static void mha_cost(step_cost *c, const seq2seq_config *cfg, int B, const int *q_len,
                     const int *k_len) {
    double N_q = 0, N_k = 0;
    for (int b = 0; b < B; b++) {
        N_q += q_len[b];
        N_k += k_len[b];
        attention_cost(c, cfg->h, q_len[b], k_len[b], cfg->d / cfg->h);
    }
    step_cost_product(c, 2, N_q, cfg->d, cfg->d, 2);  // queries, and the output
    step_cost_product(c, 2, N_k, cfg->d, cfg->d, 2);  // keys and values
}

static void ffn_cost(step_cost *c, const seq2seq_config *cfg, double N) {
    step_cost_product(c, 1, N, cfg->d, cfg->d_ff, 2);
    step_cost_product(c, 1, N, cfg->d_ff, cfg->d, 2);
}

step_cost seq2seq_step_cost(const seq2seq_config *cfg, int B, const int *src_len,
                            const int *tgt_len) {
    step_cost c = {0, 0};
    double N_s = 0, N_t = 0;
    for (int b = 0; b < B; b++) {
        N_s += src_len[b];
        N_t += tgt_len[b];
    }
    for (int l = 0; l < cfg->n_enc; l++) {
        mha_cost(&c, cfg, B, src_len, src_len);
        ffn_cost(&c, cfg, N_s);
    }
    for (int l = 0; l < cfg->n_dec; l++) {
        mha_cost(&c, cfg, B, tgt_len, tgt_len);
        mha_cost(&c, cfg, B, tgt_len, src_len);
        ffn_cost(&c, cfg, N_t);
    }
    step_cost_product(&c, 1, N_t, cfg->d, cfg->V, 2);  // the generator
    return c;
}

step_cost gpt_step_cost(const gpt_config *c, int B, int n) {
    step_cost s = {0, 0};
    double rows = (double)B * n, d = c->d;
    for (int l = 0; l < c->L; l++) {
        step_cost_product(&s, 1, rows, d, 3 * d, 2);  // c_attn: queries, keys, values
        attention_cost(&s, (double)B * c->h, n, n, c->d / c->h);
        step_cost_product(&s, 1, rows, d, d, 2);      // c_proj
        step_cost_product(&s, 1, rows, d, 4 * d, 2);  // c_fc
        step_cost_product(&s, 1, rows, 4 * d, d, 2);  // mlp's c_proj
    }
    step_cost_product(&s, 1, rows, d, c->V, 2);  // ln_f(x) wte^T
    return s;
}
