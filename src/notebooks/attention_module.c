// attention_module.c: the attention module with three biased linear maps.
// Dimension legend in attention_module.h.
#include "notebooks/attention_module.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/linear.h"
#include "layers/softmax.h"
#include "layers/tensor.h"

int attention_module_alloc(attention_module *m, int d_in, int d_out) {
    size_t w = (size_t)d_out * d_in, b = (size_t)d_out;
    memset(m, 0, sizeof *m);
    m->d_in = d_in;
    m->d_out = d_out;
    m->q_weight = malloc(w * sizeof(float));
    m->k_weight = malloc(w * sizeof(float));
    m->v_weight = malloc(w * sizeof(float));
    m->q_bias = malloc(b * sizeof(float));
    m->k_bias = malloc(b * sizeof(float));
    m->v_bias = malloc(b * sizeof(float));
    if (!m->q_weight || !m->k_weight || !m->v_weight || !m->q_bias ||
        !m->k_bias || !m->v_bias) {
        attention_module_free(m);
        return -1;
    }
    return 0;
}

void attention_module_free(attention_module *m) {
    free(m->q_weight); free(m->q_bias);
    free(m->k_weight); free(m->k_bias);
    free(m->v_weight); free(m->v_bias);
    m->q_weight = m->q_bias = m->k_weight = NULL;
    m->k_bias = m->v_weight = m->v_bias = NULL;
}

void attention_module_init(attention_module *m, torch_rng *g) {
    rng_linear_init(g, m->q_weight, m->q_bias, m->d_in, m->d_out);
    rng_linear_init(g, m->k_weight, m->k_bias, m->d_in, m->d_out);
    rng_linear_init(g, m->v_weight, m->v_bias, m->d_in, m->d_out);
}

//> attention-module
// x is (B, n, d_in), hidden is (B, n, d_out), weights is (B, n, n); the
// optional queries, keys, values are (B, n, d_out), scores (B, n, n)
int attention_module_forward(float *hidden, float *weights, float *queries,
                             float *keys, float *values, float *scores,
                             const attention_module *m, const float *x,
                             int B, int n) {
    const int d_in = m->d_in, d_out = m->d_out;
    size_t qkv = (size_t)n * d_out;
    float *q = malloc(qkv * sizeof(float)), *k = malloc(qkv * sizeof(float));
    float *v = malloc(qkv * sizeof(float));
    if (!q || !k || !v) {
        free(q); free(k); free(v);
        return -1;
    }
    for (int b = 0; b < B; b++) {
        const float *xb = x + (size_t)b * n * d_in;
        float *wb = weights + (size_t)b * n * n;
        linear_forward(q, xb, m->q_weight, m->q_bias, n, d_in, d_out, WEIGHT_OUT_IN);
        linear_forward(k, xb, m->k_weight, m->k_bias, n, d_in, d_out, WEIGHT_OUT_IN);
        linear_forward(v, xb, m->v_weight, m->v_bias, n, d_in, d_out, WEIGHT_OUT_IN);
        matmul_transposed(wb, q, k, n, d_out, n);      // (n, n)
        // d_out ** -0.5 is a Python float (a double), then rounded to float
        scale(wb, (float)pow((double)d_out, -0.5), n * n);
        if (scores)
            memcpy(scores + (size_t)b * n * n, wb,
                   (size_t)n * n * sizeof(float));
        softmax_rows(wb, n, n);
        matmul(hidden + (size_t)b * qkv, wb, v, n, n, d_out);
        if (queries) memcpy(queries + (size_t)b * qkv, q, qkv * sizeof(float));
        if (keys) memcpy(keys + (size_t)b * qkv, k, qkv * sizeof(float));
        if (values) memcpy(values + (size_t)b * qkv, v, qkv * sizeof(float));
    }
    free(q); free(k); free(v);
    return 0;
}
//< attention-module
