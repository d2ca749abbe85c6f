// multihead.c: multi-head attention, torch.nn.MultiheadAttention's forward
// pass. Dimension legend in multihead.h.
#include "nn/multihead.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/linear.h"
#include "layers/mask.h"
#include "layers/softmax.h"
#include "layers/tensor.h"

const char *mha_status_text(mha_status s) {
    switch (s) {
    case MHA_OK: return "no error";
    case MHA_HEADS_DO_NOT_DIVIDE:
        return "the model width is not divisible by the number of heads";
    case MHA_BAD_SIZE: return "a width, head count or token count below 1";
    case MHA_NO_MEMORY: return "out of memory";
    case MHA_FULLY_MASKED_ROW: return "the mask hides every key from a query";
    }
    return "unknown status";
}

//> multihead-alloc
// Refuses h heads that do not split d evenly: each head takes d / h
// columns, and d / h must be a whole number.
mha_status multihead_alloc(multihead_attention *m, int d, int h) {
    memset(m, 0, sizeof *m);
    if (d < 1 || h < 1) return MHA_BAD_SIZE;
    if (d % h != 0) return MHA_HEADS_DO_NOT_DIVIDE;
    //< multihead-alloc
    m->d = d;
    m->h = h;
    m->d_k = d / h;
    size_t dd = (size_t)d * d;
    m->in_proj_weight = malloc(3 * dd * sizeof(float));
    m->in_proj_bias = malloc(3 * (size_t)d * sizeof(float));
    m->out_proj_weight = malloc(dd * sizeof(float));
    m->out_proj_bias = malloc((size_t)d * sizeof(float));
    if (!m->in_proj_weight || !m->in_proj_bias || !m->out_proj_weight ||
        !m->out_proj_bias) {
        multihead_free(m);
        return MHA_NO_MEMORY;
    }
    return MHA_OK;
}

void multihead_free(multihead_attention *m) {
    free(m->in_proj_weight);
    free(m->in_proj_bias);
    free(m->out_proj_weight);
    free(m->out_proj_bias);
    memset(m, 0, sizeof *m);
}

//> multihead-init
// nn.MultiheadAttention(d, h): out_proj = nn.Linear(d, d) is built (and
// drawn) in the constructor; _reset_parameters() then draws in_proj_weight,
// (3d, d), with xavier_uniform_ and zeroes both biases.
void multihead_init(multihead_attention *m, torch_rng *g) {
    const int d = m->d;
    rng_linear_init(g, m->out_proj_weight, m->out_proj_bias, d, d);
    rng_xavier_uniform(g, m->in_proj_weight, 3 * d, d);
    memset(m->in_proj_bias, 0, 3 * (size_t)d * sizeof(float));
    memset(m->out_proj_bias, 0, (size_t)d * sizeof(float));
}
//< multihead-init

//> head-columns
// Head i's part of a projection: columns i d_k .. (i + 1) d_k - 1 of x.
// x is (n, d), x_i is (n, d_k).
static void head_columns(float *x_i, const float *x, int i, int n, int d,
                         int d_k) {
    for (int r = 0; r < n; r++)
        memcpy(x_i + r * d_k, x + r * d + i * d_k, (size_t)d_k * sizeof(float));
}

// The way back: head i's output z_i, (n, d_k), into its columns of the
// concatenation z, (n, d).
static void put_head_columns(float *z, const float *z_i, int i, int n, int d,
                             int d_k) {
    for (int r = 0; r < n; r++)
        memcpy(z + r * d + i * d_k, z_i + r * d_k, (size_t)d_k * sizeof(float));
}
//< head-columns

//> multihead-forward
// query is (n_q, d), key and value are (n_k, d), mask is (n_q, n_k) or
// NULL, out is (n_q, d); head_weights is (h, n_q, n_k), mean_weights
// (n_q, n_k), either NULL.
mha_status multihead_forward(float *out, float *head_weights,
                             float *mean_weights,
                             const multihead_attention *m, const float *query,
                             const float *key, const float *value,
                             const bool *mask, int n_q, int n_k) {
    const int d = m->d, h = m->h, d_k = m->d_k;
    if (n_q < 1 || n_k < 1) return MHA_BAD_SIZE;
    size_t nq = (size_t)n_q, nk = (size_t)n_k;
    float *q = malloc(nq * d * sizeof(float));     // (n_q, d) all heads
    float *k = malloc(nk * d * sizeof(float));     // (n_k, d)
    float *v = malloc(nk * d * sizeof(float));     // (n_k, d)
    float *z = malloc(nq * d * sizeof(float));     // (n_q, d) concatenated
    float *q_i = malloc(nq * d_k * sizeof(float)); // (n_q, d_k) one head
    float *k_i = malloc(nk * d_k * sizeof(float)); // (n_k, d_k)
    float *v_i = malloc(nk * d_k * sizeof(float)); // (n_k, d_k)
    float *z_i = malloc(nq * d_k * sizeof(float)); // (n_q, d_k)
    float *a = malloc(nq * nk * sizeof(float));    // (n_q, n_k) its weights
    mha_status status = MHA_OK;
    if (!q || !k || !v || !z || !q_i || !k_i || !v_i || !z_i || !a) {
        status = MHA_NO_MEMORY;
        goto done;
    }
    // 1. One projection each for queries, keys and values: (n, d) @ (d, d).
    const float *w = m->in_proj_weight, *b = m->in_proj_bias;
    linear_forward(q, query, w, b, n_q, d, d);
    linear_forward(k, key, w + d * d, b + d, n_k, d, d);
    linear_forward(v, value, w + 2 * d * d, b + 2 * d, n_k, d, d);
    // PyTorch divides the queries by sqrt(d_k) (a double, used as a float).
    const float root_dk = (float)sqrt((double)d_k);
    for (int i = 0; i < h; i++) {
        // 2. Head i: scaled dot-product attention on its d_k columns.
        head_columns(q_i, q, i, n_q, d, d_k);
        head_columns(k_i, k, i, n_k, d, d_k);
        head_columns(v_i, v, i, n_k, d, d_k);
        for (size_t e = 0; e < nq * d_k; e++) q_i[e] /= root_dk;
        matmul_transposed(a, q_i, k_i, n_q, d_k, n_k);  // (n_q, n_k)
        if (mask) {
            if (masked_softmax_rows(a, mask, n_q, n_k) != 0) {
                status = MHA_FULLY_MASKED_ROW;
                goto done;
            }
        } else {
            softmax_rows(a, n_q, n_k);
        }
        matmul(z_i, a, v_i, n_q, n_k, d_k);            // (n_q, d_k)
        put_head_columns(z, z_i, i, n_q, d, d_k);
        if (head_weights) memcpy(head_weights + i * nq * nk, a,
                                 nq * nk * sizeof(float));
        if (mean_weights) {
            for (size_t e = 0; e < nq * nk; e++)
                mean_weights[e] = i == 0 ? a[e] : mean_weights[e] + a[e];
        }
    }
    if (mean_weights)
        for (size_t e = 0; e < nq * nk; e++) mean_weights[e] /= (float)h;
    // 3. The heads side by side, (n_q, d), through the output projection.
    linear_forward(out, z, m->out_proj_weight, m->out_proj_bias, n_q, d, d);
done:
    free(q); free(k); free(v); free(z);
    free(q_i); free(k_i); free(v_i); free(z_i); free(a);
    return status;
}
//< multihead-forward
