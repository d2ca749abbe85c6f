// sentiment.c: the three classifiers of the notebook "How and Why does Self Attention Work?",
// and the transformer classifier, forward, backward and a training step.
// Dimension legend in sentiment.h.
#include "models/sentiment.h"

#include <stdlib.h>
#include <string.h>

#include "core/cli.h"
#include "layers/attention_head.h"
#include "layers/bce_loss.h"
#include "layers/embedding.h"
#include "layers/linear.h"
#include "layers/mean.h"
#include "layers/positions.h"

const char *model_name(model_kind kind) {
    switch (kind) {
    case MODEL_BASELINE: return "baseline";
    case MODEL_NOTEBOOK_ATTENTION: return "notebook-attention";
    case MODEL_SOFTMAX_ATTENTION: return "softmax-attention";
    case MODEL_TRANSFORMER: return "transformer";
    }
    return "?";
}

bool model_kinds_named(bool *chosen, const char *list) {
    const char *names[MODEL_KINDS];
    for (int kind = 0; kind < MODEL_KINDS; kind++) names[kind] = model_name((model_kind)kind);
    return parse_name_list(list, names, MODEL_KINDS, chosen);
}

// The two models of one attention head, q, k and v of each word.
static bool has_attention(const sentiment_model *m) {
    return m->kind == MODEL_NOTEBOOK_ATTENTION || m->kind == MODEL_SOFTMAX_ATTENTION;
}

static bool is_transformer(const sentiment_model *m) { return m->kind == MODEL_TRANSFORMER; }

// Whether the model projects the batch's distinct words (all but the baseline).
static bool projects_words(const sentiment_model *m) { return m->kind != MODEL_BASELINE; }

int sentiment_classifier_width(const sentiment_model *m) {
    return projects_words(m) ? m->d_k : m->d;
}

int sentiment_correct(const sentiment_model *m, const int32_t *labels, int B) {
    int right = 0;
    for (int b = 0; b < B; b++) right += (m->a.z[b] > 0) == (labels[b] == 1);
    return right;
}

// Lays out the views of one block: q, k, v kernels and biases (or the
// transformer's projection and layer), the output layer, the embedding.
// Returns the number of parameters.
static size_t lay_out(sentiment_params *p, real *block, const sentiment_model *m) {
    size_t at = 0, dk = (size_t)m->d_k, d = (size_t)m->d;
    real **dense[] = {&p->wq, &p->bq, &p->wk, &p->bk, &p->wv, &p->bv};
    memset(p, 0, sizeof *p);
    if (has_attention(m))
        for (int i = 0; i < 6; i++) {
            *dense[i] = block ? block + at : NULL;
            at += i % 2 == 0 ? d * dk : dk;
        }
    if (is_transformer(m))
        at += sentiment_encoder_lay_out(&p->enc, block ? block + at : NULL, m->d, m->d_k);
    p->wo = block ? block + at : NULL;
    at += (size_t)sentiment_classifier_width(m);
    p->bo = block ? block + at : NULL;
    at += 1;
    p->embedding = block ? block + at : NULL;
    return at + (size_t)m->V * d;
}

size_t sentiment_param_count(model_kind kind, int V, int d, int d_k) {
    sentiment_model m = {.kind = kind, .V = V, .d = d, .d_k = d_k};
    sentiment_params none;
    return lay_out(&none, NULL, &m);
}

static int acts_init(sentiment_acts *a, const sentiment_model *m, int B);
static void acts_free(sentiment_acts *a);

// The parameters and their gradients; the starting values are drawn by
// sentiment_init.
static int params_alloc(sentiment_model *m) {
    int V = m->V, d = m->d;
    sentiment_params none;
    m->n_params = lay_out(&none, NULL, m);
    m->n_dense = m->n_params - (size_t)V * d;
    m->param_block = calloc(m->n_params, sizeof *m->param_block);
    // written, not calloc'd: the embedding's gradient rows are first
    // written by the training steps that first use each word, each a page
    // fault on pages calloc left unmapped
    m->grad_block = malloc(m->n_params * sizeof *m->grad_block);
    if (m->grad_block) memset(m->grad_block, 0, m->n_params * sizeof *m->grad_block);
    m->grad_rows = calloc((size_t)V, sizeof *m->grad_rows);
    m->seen = calloc((size_t)V, sizeof *m->seen);
    m->slot_of = calloc((size_t)V, sizeof *m->slot_of);
    if (is_transformer(m)) m->positions = malloc((size_t)m->L * m->d_k * sizeof *m->positions);
    if (!m->param_block || !m->grad_block || !m->grad_rows || !m->seen || !m->slot_of ||
        (is_transformer(m) && !m->positions))
        return -1;
    lay_out(&m->p, m->param_block, m);
    lay_out(&m->g, m->grad_block, m);
    return 0;
}

// Adam's state: a frozen model's covers the numbers before the embedding;
// a trained one's the whole block, the embedding's rows a lazy table that
// updates a row when a batch uses it (adam.h). The learning rate is each
// step's (sentiment_train_step).
static int optimiser_init(sentiment_model *m) {
    if (adam_init(&m->opt, m->frozen ? m->n_dense : m->n_params, 0) < 0) return -1;
    return m->frozen ? 0 : adam_lazy_rows(&m->opt, m->V, m->d);
}

// The transformer's positions and encoder layer, drawn from g between the
// q, k, v kernels (which it has none of) and the output layer's; nothing
// for the other kinds. Returns 0, or -1 when out of memory.
static int encoder_init(sentiment_model *m, torch_rng *g) {
    if (!is_transformer(m)) return 0;
    positions_sinusoidal(m->positions, m->L, m->d_k);
    return sentiment_encoder_init(&m->p.enc, g, m->d, m->d_k);
}

int sentiment_init(sentiment_model *m, const sentiment_config *cfg, const float *table,
                   torch_rng *g) {
    *m = (sentiment_model){.kind = cfg->kind, .V = cfg->V, .d = cfg->d, .d_k = cfg->d_k,
                           .L = cfg->L, .frozen = cfg->frozen};
    int V = m->V, d = m->d, d_k = m->d_k;
    if (params_alloc(m) < 0 || acts_init(&m->a, m, cfg->B) < 0 || optimiser_init(m) < 0) {
        sentiment_free(m);
        return -1;
    }
    //> model-init
    // nn.Embed(embedding_init=constant(embedding_matrix)): the GloVe rows
    for (size_t i = 0; i < (size_t)V * d; i++) m->p.embedding[i] = table[i];
    // nn.Dense: kernels lecun_normal, in the order flax creates them;
    // biases zero (calloc)
    if (has_attention(m)) {
        linear_init_lecun_normal(g, m->p.wq, d, d_k);
        linear_init_lecun_normal(g, m->p.wk, d, d_k);
        linear_init_lecun_normal(g, m->p.wv, d, d_k);
    }
    if (encoder_init(m, g) < 0) {  // chapter 8's classifier; nothing for the others
        sentiment_free(m);
        return -1;
    }
    linear_init_lecun_normal(g, m->p.wo, sentiment_classifier_width(m), 1);
    //< model-init
    return 0;
}

void sentiment_free(sentiment_model *m) {
    free(m->param_block);
    free(m->grad_block);
    free(m->grad_rows);
    free(m->seen);
    free(m->slot_of);
    free(m->positions);
    acts_free(&m->a);
    adam_free(&m->opt);
    memset(m, 0, sizeof *m);
}

//> batch-words
// The words are listed in increasing order: the order in which the
// embedding is laid out, which the processor's prefetching follows best.
// m->seen is zero before and after; m->slot_of is scratch.
int sentiment_batch_words(sentiment_model *m, const int32_t *ids, int n) {
    sentiment_acts *a = &m->a;
    int count = 0;
    for (int t = 0; t < n; t++) m->seen[ids[t]] = 1;
    for (int32_t id = 0; id < m->V; id++)
        if (m->seen[id]) {
            m->seen[id] = 0;
            m->slot_of[id] = count;
            a->rows[count++] = id;
        }
    for (int t = 0; t < n; t++) a->slot[t] = m->slot_of[ids[t]];
    return a->n_rows = count;
}
//< batch-words

static int acts_init(sentiment_acts *a, const sentiment_model *m, int B) {
    *a = (sentiment_acts){.B = B};
    size_t tokens = (size_t)B * m->L, d = (size_t)m->d, dk = (size_t)m->d_k;
    size_t att = has_attention(m) ? 1 : 0, w = (size_t)sentiment_classifier_width(m);
    size_t words = projects_words(m) ? 1 : 0;
    // a batch has at most as many distinct words as tokens
    struct { real **p; size_t n; } arrays[] = {
        {&a->x, (1 - words) * tokens * d}, {&a->dx, (1 - words) * tokens * d},
        {&a->word_x, words * tokens * d}, {&a->word_dx, words * tokens * d},
        {&a->word_q, att * tokens * dk}, {&a->word_k, att * tokens * dk}, {&a->word_v, att * tokens * dk},
        {&a->word_dq, att * tokens * dk}, {&a->word_dk, att * tokens * dk}, {&a->word_dv, att * tokens * dk},
        {&a->q, att * tokens * dk}, {&a->k, att * tokens * dk}, {&a->v, att * tokens * dk},
        {&a->dq, att * tokens * dk}, {&a->dk, att * tokens * dk}, {&a->dv, att * tokens * dk},
        {&a->w, att * tokens * (size_t)m->L}, {&a->h, att * tokens * dk},
        {&a->dh, att * tokens * dk}, {&a->scratch, att * (size_t)m->L * m->L},
        {&a->mean, (size_t)B * w}, {&a->dmean, (size_t)B * w},
        {&a->z, (size_t)B}, {&a->dz, (size_t)B},
    };
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
        if (arrays[i].n == 0) continue;
        *arrays[i].p = calloc(arrays[i].n, sizeof(real));
        if (!*arrays[i].p) {
            acts_free(a);
            return -1;
        }
    }
    a->rows = calloc(tokens ? tokens : 1, sizeof *a->rows);
    a->slot = calloc(tokens ? tokens : 1, sizeof *a->slot);
    if (!a->rows || !a->slot ||
        (is_transformer(m) && sentiment_encoder_acts_init(&a->enc, B, m->L, m->d_k) < 0)) {
        acts_free(a);
        return -1;
    }
    return 0;
}

static void acts_free(sentiment_acts *a) {
    real *all[] = {a->x, a->word_x, a->word_q, a->word_k, a->word_v, a->q, a->k, a->v, a->w,
                   a->h, a->mean, a->z, a->dx, a->word_dx, a->word_dq, a->word_dk, a->word_dv,
                   a->dq, a->dk, a->dv, a->dh, a->dmean, a->dz, a->scratch};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(all[i]);
    free(a->rows);
    free(a->slot);
    sentiment_encoder_acts_free(&a->enc);
    memset(a, 0, sizeof *a);
}

//> forward
// The forward pass once a->rows and a->slot list the batch's words.
static void forward_words(sentiment_model *m, const int32_t *ids, int B) {
    sentiment_acts *a = &m->a;
    int L = m->L, d = m->d, d_k = m->d_k, n = B * L, U = a->n_rows;
    const sentiment_params *p = &m->p;
    if (has_attention(m)) {
        // each distinct word is projected once; its tokens look it up
        embedding_forward(a->word_x, a->rows, p->embedding, U, d);     // (U, d)
        // (U, d_k) each; the weights stored (in, out), as flax, a JAX library, has them
        linear_forward(a->word_q, a->word_x, p->wq, p->bq, U, d, d_k, WEIGHT_IN_OUT);
        linear_forward(a->word_k, a->word_x, p->wk, p->bk, U, d, d_k, WEIGHT_IN_OUT);
        linear_forward(a->word_v, a->word_x, p->wv, p->bv, U, d, d_k, WEIGHT_IN_OUT);
        embedding_forward(a->q, a->slot, a->word_q, n, d_k);           // (B, L, d_k)
        embedding_forward(a->k, a->slot, a->word_k, n, d_k);
        embedding_forward(a->v, a->slot, a->word_v, n, d_k);
        attention_head_forward(a->h, a->w, a->q, a->k, a->v, B, L, d_k,
                               m->kind == MODEL_SOFTMAX_ATTENTION);
        mean_forward(a->mean, a->h, B, L, d_k);                        // (B, d_k)
    } else if (is_transformer(m)) {
        embedding_forward(a->word_x, a->rows, p->embedding, U, d);     // (U, d)
        sentiment_encoder_forward(a->mean, &a->enc, &p->enc, m->positions, a->word_x, a->slot,
                                  U, B, L, d, d_k);                    // (B, d_k)
    } else {
        embedding_forward(a->x, ids, p->embedding, n, d);              // (B, L, d)
        mean_forward(a->mean, a->x, B, L, d);                          // (B, d)
    }
    linear_forward(a->z, a->mean, p->wo, p->bo, B, sentiment_classifier_width(m), 1,
                   WEIGHT_IN_OUT);                                     // (B)
}

void sentiment_forward(sentiment_model *m, const int32_t *ids, int B) {
    sentiment_batch_words(m, ids, B * m->L);
    forward_words(m, ids, B);
}
//< forward

real sentiment_backward(sentiment_model *m, const int32_t *ids, const int32_t *labels, int B) {
    sentiment_acts *a = &m->a;
    bool train_embedding = !m->frozen;
    int L = m->L, d = m->d, d_k = m->d_k, n = B * L, U = a->n_rows;
    int w = sentiment_classifier_width(m);
    const sentiment_params *p = &m->p;
    sentiment_params *g = &m->g;
    // clear the gradients: the dense ones, and the rows of the embedding's
    // that the last backward wrote (the rest of it is zero already, or
    // held by a lazy Adam table, which clears it when it applies it)
    memset(m->grad_block, 0, m->n_dense * sizeof(real));
    if (train_embedding) {
        for (int i = 0; i < m->n_grad_rows; i++)
            memset(g->embedding + (size_t)m->grad_rows[i] * d, 0, (size_t)d * sizeof(real));
        memcpy(m->grad_rows, a->rows, (size_t)U * sizeof *a->rows);  // this batch's words
        m->n_grad_rows = U;
    }
    memset(a->dz, 0, (size_t)B * sizeof *a->dz);
    memset(a->dmean, 0, (size_t)B * w * sizeof *a->dmean);

    real loss = bce_forward(a->z, labels, B);
    bce_backward(a->dz, a->z, labels, B);
    linear_backward(a->dmean, g->wo, g->bo, a->dz, a->mean, p->wo, B, w, 1, WEIGHT_IN_OUT);
    if (has_attention(m)) {
        size_t tokens = (size_t)n * d_k * sizeof(real);  // bytes of (B, L, d_k)
        size_t words = (size_t)U * d_k * sizeof(real);   // bytes of (U, d_k)
        memset(a->dh, 0, tokens);
        memset(a->dq, 0, tokens);
        memset(a->dk, 0, tokens);
        memset(a->dv, 0, tokens);
        mean_backward(a->dh, a->dmean, B, L, d_k);
        attention_head_backward(a->dq, a->dk, a->dv, a->scratch, a->dh, a->w, a->q, a->k,
                                a->v, B, L, d_k, m->kind == MODEL_SOFTMAX_ATTENTION);
        // from the tokens back to their words: a word used twice collects both
        memset(a->word_dq, 0, words);
        memset(a->word_dk, 0, words);
        memset(a->word_dv, 0, words);
        embedding_backward(a->word_dq, a->dq, a->slot, n, d_k);
        embedding_backward(a->word_dk, a->dk, a->slot, n, d_k);
        embedding_backward(a->word_dv, a->dv, a->slot, n, d_k);
        // a word's row feeds all three projections: its gradient is the sum
        // of theirs (frozen: no gradient flows back to the rows)
        real *dx = train_embedding ? a->word_dx : NULL;
        if (dx) memset(dx, 0, (size_t)U * d * sizeof *dx);
        const real *x = a->word_x;
        linear_backward(dx, g->wq, g->bq, a->word_dq, x, p->wq, U, d, d_k, WEIGHT_IN_OUT);
        linear_backward(dx, g->wk, g->bk, a->word_dk, x, p->wk, U, d, d_k, WEIGHT_IN_OUT);
        linear_backward(dx, g->wv, g->bv, a->word_dv, x, p->wv, U, d, d_k, WEIGHT_IN_OUT);
        if (dx) embedding_backward(g->embedding, dx, a->rows, U, d);
    } else if (is_transformer(m)) {
        real *dx = train_embedding ? a->word_dx : NULL;
        if (dx) memset(dx, 0, (size_t)U * d * sizeof *dx);
        sentiment_encoder_backward(dx, &g->enc, &a->enc, a->dmean, a->word_x, &p->enc, a->slot,
                                   U, B, L, d, d_k);
        if (dx) embedding_backward(g->embedding, dx, a->rows, U, d);
    } else if (train_embedding) {
        memset(a->dx, 0, (size_t)n * d * sizeof *a->dx);
        mean_backward(a->dx, a->dmean, B, L, d);
        embedding_backward(g->embedding, a->dx, ids, n, d);
    }
    return loss;
}

//> train-step
real sentiment_train_step(sentiment_model *m, double lr, const int32_t *ids,
                          const int32_t *labels, int B, int *correct) {
    adam_state *opt = &m->opt;
    // the embedding rows this batch reads must be up to date
    int n_rows = sentiment_batch_words(m, ids, B * m->L);
    adam_catch_up(opt, m->param_block, m->grad_block, m->a.rows, n_rows);
    forward_words(m, ids, B);
    real loss = sentiment_backward(m, ids, labels, B);
    *correct = sentiment_correct(m, labels, B);
    // opt covers the whole block, or its first n_dense numbers when frozen
    opt->lr = lr;
    adam_step_rows(opt, m->param_block, m->grad_block, m->grad_rows, m->n_grad_rows);
    // a lazy table keeps the rows' gradients until it applies them, and
    // clears them then: the next backward must leave them alone
    if (opt->width > 0) m->n_grad_rows = 0;
    return loss;
}
//< train-step

void sentiment_catch_up(sentiment_model *m) {
    adam_catch_up(&m->opt, m->param_block, m->grad_block, NULL, 0);
}

//> logits-by-table
// A dense layer applied token by token to an embedding is itself an
// embedding: the row of q for a token is that token's embedding row times
// the kernel, plus the bias, whatever the chunk. So for evaluation the q, k
// and v of every vocabulary word are computed once, in (V, d_k) tables, and
// a batch looks its rows up instead of multiplying (B, L, d) by (d, d_k)
// three times. Each row is the same sum in the same order as in
// sentiment_forward, so the logits are the same to the last bit.
int sentiment_logits(float *z, sentiment_model *m, const int32_t *X, size_t n) {
    sentiment_acts *a = &m->a;
    int L = m->L, d_k = m->d_k, V = m->V;
    const sentiment_params *p = &m->p;
    real *table = NULL;
    if (has_attention(m)) {
        table = malloc((size_t)3 * V * d_k * sizeof *table);
        if (!table) return -1;
        const real *e = p->embedding;
        real *k_table = table + (size_t)V * d_k, *v_table = table + (size_t)2 * V * d_k;
        linear_forward(table, e, p->wq, p->bq, V, m->d, d_k, WEIGHT_IN_OUT);
        linear_forward(k_table, e, p->wk, p->bk, V, m->d, d_k, WEIGHT_IN_OUT);
        linear_forward(v_table, e, p->wv, p->bv, V, m->d, d_k, WEIGHT_IN_OUT);
    }
    for (size_t at = 0; at < n; at += (size_t)a->B) {
        int B = n - at < (size_t)a->B ? (int)(n - at) : a->B;
        const int32_t *ids = X + at * L;
        if (!table) {
            sentiment_forward(m, ids, B);
        } else {
            embedding_forward(a->q, ids, table, B * L, d_k);
            embedding_forward(a->k, ids, table + (size_t)V * d_k, B * L, d_k);
            embedding_forward(a->v, ids, table + (size_t)2 * V * d_k, B * L, d_k);
            attention_head_forward(a->h, a->w, a->q, a->k, a->v, B, L, d_k,
                                   m->kind == MODEL_SOFTMAX_ATTENTION);
            mean_forward(a->mean, a->h, B, L, d_k);
            linear_forward(a->z, a->mean, p->wo, p->bo, B, d_k, 1, WEIGHT_IN_OUT);
        }
        for (int b = 0; b < B; b++) z[at + b] = (float)a->z[b];
    }
    free(table);
    return 0;
}
//< logits-by-table
