// additive.c: additive attention; see additive.h for the legend.
#include "notebooks/additive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/linear.h"
#include "layers/softmax.h"
#include "layers/tensor.h"

int additive_alloc(additive_attention *m, int d_q, int d_k, int d_h) {
    memset(m, 0, sizeof *m);
    m->d_q = d_q;
    m->d_k = d_k;
    m->d_h = d_h;
    m->q_weight = malloc((size_t)d_h * d_q * sizeof(float));
    m->q_bias = malloc((size_t)d_h * sizeof(float));
    m->k_weight = malloc((size_t)d_h * d_k * sizeof(float));
    m->k_bias = malloc((size_t)d_h * sizeof(float));
    m->s_weight = malloc((size_t)d_h * sizeof(float));
    m->s_bias = malloc(sizeof(float));
    if (!m->q_weight || !m->q_bias || !m->k_weight || !m->k_bias ||
        !m->s_weight || !m->s_bias) {
        additive_free(m);
        return -1;
    }
    return 0;
}

void additive_free(additive_attention *m) {
    free(m->q_weight); free(m->q_bias);
    free(m->k_weight); free(m->k_bias);
    free(m->s_weight); free(m->s_bias);
    m->q_weight = m->q_bias = m->k_weight = NULL;
    m->k_bias = m->s_weight = m->s_bias = NULL;
}

void additive_init(additive_attention *m, torch_rng *g) {
    rng_linear_init(g, m->q_weight, m->q_bias, m->d_q, m->d_h);  // self.Wq
    rng_linear_init(g, m->k_weight, m->k_bias, m->d_k, m->d_h);  // self.Wk
    rng_linear_init(g, m->s_weight, m->s_bias, m->d_h, 1);       // self.Ws
}

//> additive-loop
// The formula as written, for every pair (i, j):
//   score(q_i, k_j) = sum_t w[t] tanh((W_q q_i + b_q)[t] + (W_k k_j + b_k)[t]) + c
// queries is (n_q, d_q), keys is (n_k, d_k), scores is (n_q, n_k).
void additive_scores_loop(float *scores, const additive_attention *m,
                          const float *queries, const float *keys,
                          int n_q, int n_k) {
    const int d_q = m->d_q, d_k = m->d_k, d_h = m->d_h;
    for (int i = 0; i < n_q; i++)
        for (int j = 0; j < n_k; j++) {
            float score = 0.0f;
            for (int t = 0; t < d_h; t++) {
                float qt = dot(m->q_weight + t * d_q, queries + i * d_q, d_q) + m->q_bias[t];
                float kt = dot(m->k_weight + t * d_k, keys + j * d_k, d_k) + m->k_bias[t];
                score += m->s_weight[t] * tanhf(qt + kt);
            }
            scores[i * n_k + j] = score + m->s_bias[0];
        }
}
//< additive-loop

//> additive-scores
// Project every query and every key once, then score the pairs:
// Q is (n_q, d_h), K is (n_k, d_h), scores is (n_q, n_k).
int additive_scores(float *scores, float *Q, float *K,
                    const additive_attention *m, const float *queries,
                    const float *keys, int n_q, int n_k) {
    const int d_h = m->d_h;
    float *q_own = NULL, *k_own = NULL;
    if (!Q) Q = q_own = malloc((size_t)n_q * d_h * sizeof(float));
    if (!K) K = k_own = malloc((size_t)n_k * d_h * sizeof(float));
    if (!Q || !K) {
        free(q_own); free(k_own);
        return -1;
    }
    linear_forward(Q, queries, m->q_weight, m->q_bias, n_q, m->d_q, d_h, WEIGHT_OUT_IN);
    linear_forward(K, keys, m->k_weight, m->k_bias, n_k, m->d_k, d_h, WEIGHT_OUT_IN);
    for (int i = 0; i < n_q; i++)
        for (int j = 0; j < n_k; j++) {
            // one (d_h) slice of the (n_q, n_k, d_h) tensor tanh(Q_i + K_j),
            // used at once and never stored
            float score = 0.0f;
            for (int t = 0; t < d_h; t++)
                score += m->s_weight[t] * tanhf(Q[i * d_h + t] + K[j * d_h + t]);
            scores[i * n_k + j] = score + m->s_bias[0];
        }
    free(q_own); free(k_own);
    return 0;
}
//< additive-scores

// weights (n_q, n_k), out (n_q, d_v), values (n_k, d_v)
int additive_attention_forward(float *out, float *weights,
                               const additive_attention *m,
                               const float *queries, const float *keys,
                               const float *values, int n_q, int n_k, int d_v) {
    if (additive_scores(weights, NULL, NULL, m, queries, keys, n_q, n_k) != 0)
        return -1;
    softmax_rows(weights, n_q, n_k);          // along j, the keys
    matmul(out, weights, values, n_q, n_k, d_v);
    return 0;
}

// PyTorch's infer_size: dimensions aligned from the last, reported by their
// index in the broadcast result.
int broadcast_ok(const int *a, int ndim_a, const int *b, int ndim_b,
                 char *err, size_t errlen) {
    int ndim = ndim_a > ndim_b ? ndim_a : ndim_b;
    for (int i = ndim - 1; i >= 0; i--) {
        int offset = ndim - 1 - i;
        int da = ndim_a - 1 - offset, db = ndim_b - 1 - offset;
        int sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            snprintf(err, errlen, "The size of tensor a (%d) must match the size "
                     "of tensor b (%d) at non-singleton dimension %d", sa, sb, i);
            return 0;
        }
    }
    return 1;
}

//> additive-notebook
// The notebook's forward: Ws(tanh(Q + K)).transpose(-2, -1). Q + K adds
// row r of Q to row r of K, so score r is query r against key r alone.
// weights is (1, n), out is (1, d_v).
int additive_notebook_forward(float *out, float *weights,
                              const additive_attention *m,
                              const float *queries, const float *keys,
                              const float *values, int n_q, int n_k, int d_v,
                              char *err, size_t errlen) {
    const int d_h = m->d_h, shape_q[] = { n_q, d_h }, shape_k[] = { n_k, d_h };
    if (!broadcast_ok(shape_q, 2, shape_k, 2, err, errlen)) return -1;
    const int n = n_q > n_k ? n_q : n_k;  // rows of Q + K
    if (n != n_k) {  // (1, n) @ values (n_k, d_v)
        snprintf(err, errlen, "mat1 and mat2 shapes cannot be multiplied "
                 "(1x%d and %dx%d)", n, n_k, d_v);
        return -1;
    }
    float *Q = malloc((size_t)n_q * d_h * sizeof(float));
    float *K = malloc((size_t)n_k * d_h * sizeof(float));
    if (!Q || !K) {
        free(Q); free(K);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    linear_forward(Q, queries, m->q_weight, m->q_bias, n_q, m->d_q, d_h, WEIGHT_OUT_IN);
    linear_forward(K, keys, m->k_weight, m->k_bias, n_k, m->d_k, d_h, WEIGHT_OUT_IN);
    for (int r = 0; r < n; r++) {
        const float *q = Q + (n_q == 1 ? 0 : r) * d_h;  // a size-1 dimension
        const float *k = K + (n_k == 1 ? 0 : r) * d_h;  // is repeated
        float score = 0.0f;
        for (int t = 0; t < d_h; t++) score += m->s_weight[t] * tanhf(q[t] + k[t]);
        weights[r] = score + m->s_bias[0];
    }
    softmax_rows(weights, 1, n);
    matmul(out, weights, values, 1, n, d_v);
    free(Q); free(K);
    return 0;
}
//< additive-notebook
