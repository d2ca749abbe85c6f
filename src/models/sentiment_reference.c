// sentiment_reference.c: chapter 7's three classifiers, forward, backward
// and a training step, written plainly. See sentiment_reference.h.
#include "models/sentiment_reference.h"

#include <string.h>

#include "layers/attention_head.h"
#include "layers/bce_loss.h"
#include "layers/embedding.h"
#include "layers/linear.h"
#include "layers/mean.h"

// The embedded tokens (B, L, d), and their gradient: the baseline's own
// arrays; the attention models', which the library fills with one row per
// distinct word, have room for a row per token.
static real *token_rows(sentiment_model *m) {
    return m->kind == MODEL_BASELINE ? m->a.x : m->a.word_x;
}

static real *token_row_grads(sentiment_model *m) {
    return m->kind == MODEL_BASELINE ? m->a.dx : m->a.word_dx;
}

//> reference-forward
int sentiment_forward_reference(sentiment_model *m, const int32_t *ids, int B) {
    if (m->kind > MODEL_SOFTMAX_ATTENTION) return -1;  // this chapter's three models only
    sentiment_acts *a = &m->a;
    const sentiment_params *p = &m->p;
    int L = m->L, d = m->d, d_k = m->d_k, n = B * L;
    bool softmax = m->kind == MODEL_SOFTMAX_ATTENTION;
    real *x = token_rows(m);                                   // room for (B, L, d)
    embedding_forward(x, ids, p->embedding, n, d);                         // (B, L, d)
    if (m->kind == MODEL_BASELINE) {
        mean_forward(a->mean, x, B, L, d);                                 // (B, d)
    } else {
        // flax's Dense, its kernel (in, out): (B, L, d_k) each
        linear_forward(a->q, x, p->wq, p->bq, n, d, d_k, WEIGHT_IN_OUT);
        linear_forward(a->k, x, p->wk, p->bk, n, d, d_k, WEIGHT_IN_OUT);
        linear_forward(a->v, x, p->wv, p->bv, n, d, d_k, WEIGHT_IN_OUT);
        attention_head_forward(a->h, a->w, a->q, a->k, a->v, B, L, d_k, softmax);
        mean_forward(a->mean, a->h, B, L, d_k);                            // (B, d_k)
    }
    linear_forward(a->z, a->mean, p->wo, p->bo, B, sentiment_classifier_width(m), 1,
                   WEIGHT_IN_OUT);                                         // (B)
    return 0;
}
//< reference-forward

//> reference-backward
real sentiment_backward_reference(sentiment_model *m, const int32_t *ids, const int32_t *labels,
                                  int B) {
    sentiment_acts *a = &m->a;
    const sentiment_params *p = &m->p;
    sentiment_params *g = &m->g;
    int L = m->L, d = m->d, d_k = m->d_k, n = B * L, w = sentiment_classifier_width(m);
    bool softmax = m->kind == MODEL_SOFTMAX_ATTENTION;
    // the backward functions add into their gradients: clear them all
    memset(m->grad_block, 0, (m->frozen ? m->n_dense : m->n_params) * sizeof(real));
    memset(a->dz, 0, (size_t)B * sizeof(real));
    memset(a->dmean, 0, (size_t)B * w * sizeof(real));
    real *x = token_rows(m), *dx = m->frozen ? NULL : token_row_grads(m);  // (B, L, d)
    if (dx) memset(dx, 0, (size_t)n * d * sizeof(real));

    real loss = bce_forward(a->z, labels, B);
    bce_backward(a->dz, a->z, labels, B);
    linear_backward(a->dmean, g->wo, g->bo, a->dz, a->mean, p->wo, B, w, 1, WEIGHT_IN_OUT);
    if (m->kind == MODEL_BASELINE) {
        if (dx) mean_backward(dx, a->dmean, B, L, d);
    } else {
        size_t bytes = (size_t)n * d_k * sizeof(real);  // of each (B, L, d_k)
        memset(a->dh, 0, bytes);
        memset(a->dq, 0, bytes);
        memset(a->dk, 0, bytes);
        memset(a->dv, 0, bytes);
        mean_backward(a->dh, a->dmean, B, L, d_k);
        attention_head_backward(a->dq, a->dk, a->dv, a->scratch, a->dh, a->w, a->q, a->k, a->v,
                                B, L, d_k, softmax);
        // a token's row feeds all three projections: its gradient is the sum
        linear_backward(dx, g->wq, g->bq, a->dq, x, p->wq, n, d, d_k, WEIGHT_IN_OUT);
        linear_backward(dx, g->wk, g->bk, a->dk, x, p->wk, n, d, d_k, WEIGHT_IN_OUT);
        linear_backward(dx, g->wv, g->bv, a->dv, x, p->wv, n, d, d_k, WEIGHT_IN_OUT);
    }
    if (dx) embedding_backward(g->embedding, dx, ids, n, d);  // into the tokens' rows
    return loss;
}
//< reference-backward

//> reference-train-step
real sentiment_train_step_reference(sentiment_model *m, double lr, const int32_t *ids,
                                    const int32_t *labels, int B, int *correct) {
    sentiment_forward_reference(m, ids, B);
    real loss = sentiment_backward_reference(m, ids, labels, B);
    *correct = sentiment_correct(m, labels, B);
    m->opt.lr = lr;
    adam_step(&m->opt, m->param_block, m->grad_block);  // all of it, or all but the embedding
    return loss;
}
//< reference-train-step
