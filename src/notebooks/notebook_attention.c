// notebook_attention.c: the notebook's attention and multi-head attention,
// as written. Dimension legend in notebook_attention.h.
#include "notebooks/notebook_attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mask.h"
#include "layers/softmax.h"
#include "layers/tensor.h"

// The notebook's stand-in for minus infinity.
#define NOTEBOOK_MASK_VALUE -1e10f

//> notebook-attention
// Cell [T23]: query, keys, values and z are (n, d_k), weights is (n, n).
// It divides by sqrt(embedding_dim), the global EMBEDDING_DIM, whatever
// d_k is.
void notebook_attention(float *z, float *weights, const float *query,
                        const float *keys, const float *values,
                        bool causal_masking, int n, int d_k,
                        int embedding_dim) {
    matmul_transposed(weights, query, keys, n, d_k, n);
    scale(weights, 1.0f / sqrtf((float)embedding_dim), n * n);
    if (causal_masking) {
        // mask = torch.triu(torch.full((n, n), True), diagonal=1)
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                weights[i * n + j] = NOTEBOOK_MASK_VALUE;
    }
    softmax_rows(weights, n, n);
    matmul(z, weights, values, n, n, d_k);
}
//< notebook-attention

int notebook_mha_alloc(notebook_mha *m, int h, int n, int d) {
    memset(m, 0, sizeof *m);
    if (h < 1 || n < 1 || d < 1) return -1;
    m->h = h;
    m->n = n;
    m->d = d;
    size_t hnn = (size_t)h * n * n;
    m->u_q = malloc(hnn * sizeof(float));
    m->u_k = malloc(hnn * sizeof(float));
    m->u_v = malloc(hnn * sizeof(float));
    m->w_out = malloc((size_t)h * d * d * sizeof(float));
    if (!m->u_q || !m->u_k || !m->u_v || !m->w_out) {
        notebook_mha_free(m);
        return -1;
    }
    return 0;
}

void notebook_mha_free(notebook_mha *m) {
    free(m->u_q);
    free(m->u_k);
    free(m->u_v);
    free(m->w_out);
    memset(m, 0, sizeof *m);
}

void notebook_mha_draw(notebook_mha *m, torch_rng *g) {
    size_t hnn = (size_t)m->h * m->n * m->n;
    rng_rand(g, m->u_q, hnn);
    rng_rand(g, m->u_k, hnn);
    rng_rand(g, m->u_v, hnn);
    rng_rand(g, m->w_out, (size_t)m->h * m->d * m->d);
}

//> notebook-heads
// Head i: attention(u_q[i] @ x_q, u_k[i] @ x_k, u_v[i] @ x_v), d wide, into
// columns i d .. (i + 1) d - 1 of the concatenation (n, h d); then
// out = concatenation @ w_out. x_q, x_k, x_v and out are (n, d); heads
// (n, h d) and weights (h, n, n) are NULL or receive what they say.
int notebook_mha_forward(float *out, float *heads, float *weights,
                         const notebook_mha *m, const float *x_q,
                         const float *x_k, const float *x_v,
                         bool heads_causal) {
    const int h = m->h, n = m->n, d = m->d;
    size_t nd = (size_t)n * d;
    float *q = malloc(nd * sizeof(float)), *k = malloc(nd * sizeof(float));
    float *v = malloc(nd * sizeof(float)), *z = malloc(nd * sizeof(float));
    float *a = malloc((size_t)n * n * sizeof(float));
    float *cat = malloc((size_t)h * nd * sizeof(float));
    int status = 0;
    if (!q || !k || !v || !z || !a || !cat) {
        status = -1;
        goto done;
    }
    for (int i = 0; i < h; i++) {
        matmul(q, m->u_q + i * n * n, x_q, n, n, d);  // u_q[h] @ x_q
        matmul(k, m->u_k + i * n * n, x_k, n, n, d);
        matmul(v, m->u_v + i * n * n, x_v, n, n, d);
        notebook_attention(z, a, q, k, v, heads_causal, n, d, d);
        if (weights)
            memcpy(weights + i * n * n, a, (size_t)n * n * sizeof(float));
        for (int t = 0; t < n; t++)                   // torch.concat(dim=1)
            memcpy(cat + t * h * d + i * d, z + t * d,
                   (size_t)d * sizeof(float));
    }
    matmul(out, cat, m->w_out, n, h * d, d);
    if (heads) memcpy(heads, cat, (size_t)h * nd * sizeof(float));
done:
    free(q); free(k); free(v); free(z); free(a); free(cat);
    return status;
}

// Cell [T24]: every call draws new weights, and causal_masking is accepted
// and never passed on to the heads.
int notebook_multi_head_attention(float *out, notebook_mha *m,
                                  const float *x_q, const float *x_k,
                                  const float *x_v, bool causal_masking,
                                  torch_rng *g) {
    (void)causal_masking;
    notebook_mha_draw(m, g);
    return notebook_mha_forward(out, NULL, NULL, m, x_q, x_k, x_v, false);
}
//< notebook-heads
