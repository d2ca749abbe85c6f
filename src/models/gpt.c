// gpt.c: the GPT's parameters, activations and optimiser, forward to the
// loss, backward, and a training step. Dimension legend and layout in
// gpt.h; generation in gpt_generate.c, files in gpt_file.c.
#include "models/gpt.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "layers/cross_entropy.h"
#include "layers/embedding.h"
#include "layers/gelu.h"
#include "layers/grad_clip.h"
#include "layers/layernorm.h"
#include "layers/linear.h"
#include "layers/positions.h"

// ---------------------------------------------------------------- the parameters

// Walks the layout of gpt.h: records each tensor (when tensors is not NULL)
// and points p's views into block (when p is not NULL). Returns the number
// of parameters.
typedef struct {
    real *block;
    gpt_tensor *tensors;
    int n_tensors;
    size_t used;
} layout_walk;

static real *take(layout_walk *w, const char *name, int rows, int cols, bool decay) {
    size_t count = (size_t)rows * cols;
    if (w->tensors) {
        gpt_tensor *t = &w->tensors[w->n_tensors];
        *t = (gpt_tensor){ .offset = w->used, .count = count, .rows = rows, .cols = cols,
                           .decay = decay };
        snprintf(t->name, sizeof t->name, "%s", name);
    }
    w->n_tensors++;
    real *at = w->block ? w->block + w->used : NULL;
    w->used += count;
    return at;
}

static void walk_layout(layout_walk *w, gpt_params *p, const gpt_config *c) {
    const int d = c->d;
    char name[40];
    p->wte = take(w, "wte", c->V, d, true);
    p->wpe = take(w, "wpe", c->T, d, true);
    for (int l = 0; l < c->L; l++) {
        gpt_block *b = p->blocks ? &p->blocks[l] : &(gpt_block){ 0 };
#define TAKE(field, what, rows, cols, decay) \
    (snprintf(name, sizeof name, "h.%d.%s", l, what), b->field = take(w, name, rows, cols, decay))
        TAKE(ln1_w, "ln_1.weight", d, 1, false);
        TAKE(ln1_b, "ln_1.bias", d, 1, false);
        TAKE(attn.in_proj_weight, "attn.c_attn.weight", 3 * d, d, true);
        TAKE(attn.in_proj_bias, "attn.c_attn.bias", 3 * d, 1, false);
        TAKE(attn.out_proj_weight, "attn.c_proj.weight", d, d, true);
        TAKE(attn.out_proj_bias, "attn.c_proj.bias", d, 1, false);
        TAKE(ln2_w, "ln_2.weight", d, 1, false);
        TAKE(ln2_b, "ln_2.bias", d, 1, false);
        TAKE(fc_w, "mlp.c_fc.weight", 4 * d, d, true);
        TAKE(fc_b, "mlp.c_fc.bias", 4 * d, 1, false);
        TAKE(proj_w, "mlp.c_proj.weight", d, 4 * d, true);
        TAKE(proj_b, "mlp.c_proj.bias", d, 1, false);
#undef TAKE
    }
    p->lnf_w = take(w, "ln_f.weight", d, 1, false);
    p->lnf_b = take(w, "ln_f.bias", d, 1, false);
}

size_t gpt_param_count(const gpt_config *cfg) {
    layout_walk w = { 0 };
    gpt_params p = { 0 };
    walk_layout(&w, &p, cfg);
    return w.used;
}

const gpt_tensor *gpt_find(const gpt_model *m, const char *name) {
    for (int i = 0; i < m->n_tensors; i++)
        if (strcmp(m->tensors[i].name, name) == 0) return &m->tensors[i];
    return NULL;
}

// GPT-2's starting values (gpt.h), drawn tensor after tensor in block order.
static int init_params(gpt_model *m, uint64_t seed) {
    torch_rng g;
    rng_seed(&g, seed);
    float *draw = malloc(m->n_params * sizeof *draw);
    if (!draw) return -1;
    const double resid = 0.02 / sqrt(2.0 * m->cfg.L);
    for (int i = 0; i < m->n_tensors; i++) {
        const gpt_tensor *t = &m->tensors[i];
        real *at = m->param_block + t->offset;
        const char *dot = strrchr(t->name, '.');
        if (t->cols == 1) {  // a bias 0, a LayerNorm's gain 1
            real v = strstr(t->name, "ln_") && strcmp(dot, ".weight") == 0 ? 1 : 0;
            for (size_t e = 0; e < t->count; e++) at[e] = v;
            continue;
        }
        double std = strstr(t->name, "c_proj.weight") ? resid : 0.02;
        rng_randn(&g, draw, t->count);
        for (size_t e = 0; e < t->count; e++) at[e] = (real)(draw[e] * (float)std);
    }
    free(draw);
    return 0;
}

// ---------------------------------------------------------------- building

// Carves arrays out of one allocation: a first walk with base NULL counts.
typedef struct {
    real *base;
    size_t used;
} arena;

static real *carve(arena *a, size_t n) {
    real *at = a->base ? a->base + a->used : NULL;
    a->used += n;
    return at;
}

static void carve_acts(arena *r, gpt_model *m) {
    const gpt_config *c = &m->cfg;
    gpt_acts *a = &m->a;
    const size_t N = (size_t)a->B * c->T, d = c->d;
    a->x = carve(r, (c->L + 1) * N * d);
    for (int l = 0; l < c->L; l++) {
        gpt_block_acts *b = &a->blocks[l];
        b->ln1 = carve(r, N * d);
        b->ln1_mean = carve(r, N);
        b->ln1_rstd = carve(r, N);
        b->attn_out = carve(r, N * d);
        b->mid = carve(r, N * d);
        b->ln2 = carve(r, N * d);
        b->ln2_mean = carve(r, N);
        b->ln2_rstd = carve(r, N);
        b->fc = carve(r, N * 4 * d);
        b->gelu = carve(r, N * 4 * d);
    }
    a->lnf = carve(r, N * d);
    a->lnf_mean = carve(r, N);
    a->lnf_rstd = carve(r, N);
    a->logits = carve(r, N * c->V);
    a->dlogits = carve(r, N * c->V);
    a->dx = carve(r, N * d);
    a->dmid = carve(r, N * d);
    a->dln = carve(r, N * d);
    a->dfc = carve(r, N * 4 * d);
    a->dgelu = carve(r, N * 4 * d);
    gpt_kv_cache *kv = &m->kv;
    const size_t kv_size = (size_t)c->L * c->T * d;
    kv->k = carve(r, kv_size);
    kv->v = carve(r, kv_size);
    kv->x = carve(r, d);
    kv->ln = carve(r, d);
    kv->qkv = carve(r, 3 * d);
    kv->z = carve(r, d);
    kv->out = carve(r, d);
    kv->hid = carve(r, 4 * d);
    kv->logits = carve(r, c->V);
    kv->w = carve(r, c->T);
    kv->scratch = carve(r, (size_t)c->T * d);
}

// Everything the model owns but its parameters' values; 0, or -1 when out
// of memory.
static int alloc_model(gpt_model *m, int B) {
    const gpt_config *c = &m->cfg;
    m->n_params = gpt_param_count(c);
    m->param_block = calloc(m->n_params, sizeof(real));
    m->grad_block = calloc(m->n_params, sizeof(real));
    m->p.blocks = calloc(c->L, sizeof(gpt_block));
    m->g.blocks = calloc(c->L, sizeof(gpt_block));
    m->vocab = calloc(c->V, sizeof *m->vocab);
    m->a.blocks = calloc(c->L, sizeof(gpt_block_acts));
    m->a.B = B;
    m->a.ids = calloc((size_t)B * c->T, sizeof(int32_t));
    m->a.targets = calloc((size_t)B * c->T, sizeof(int32_t));
    m->kv.probs = calloc(2 * (size_t)c->V, sizeof(double));
    layout_walk count = { 0 };
    walk_layout(&count, &(gpt_params){ 0 }, c);
    m->tensors = calloc(count.n_tensors, sizeof *m->tensors);
    if (!m->param_block || !m->grad_block || !m->p.blocks || !m->g.blocks || !m->vocab ||
        !m->a.blocks || !m->a.ids || !m->a.targets || !m->kv.probs || !m->tensors)
        return -1;
    layout_walk wp = { .block = m->param_block, .tensors = m->tensors };
    walk_layout(&wp, &m->p, c);
    m->n_tensors = wp.n_tensors;
    layout_walk wg = { .block = m->grad_block };
    walk_layout(&wg, &m->g, c);
    arena r = { 0 };
    carve_acts(&r, m);
    if (!(r.base = malloc(r.used * sizeof(real)))) return -1;
    r.used = 0;
    carve_acts(&r, m);
    m->a.arena = r.base;
    for (int l = 0; l < c->L; l++)
        if (mha_cache_alloc(&m->a.blocks[l].attn, B, c->T, c->T, c->d, c->h) != 0) return -1;
    return 0;
}

static void say(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static bool config_ok(const gpt_config *c, int B, char *err, size_t errlen) {
    if (c->V < 1 || c->T < 1 || c->d < 1 || c->h < 1 || c->L < 1 || B < 1) {
        say(err, errlen, "a size below 1 (V %d, T %d, d %d, h %d, L %d, B %d)", c->V, c->T,
            c->d, c->h, c->L, B);
        return false;
    }
    if (c->d % c->h != 0) {
        say(err, errlen, "the width %d is not divisible by the %d heads", c->d, c->h);
        return false;
    }
    return true;
}

// Marks the matrices and embeddings for AdamW's weight decay.
static int mark_decay(gpt_model *m) {
    for (int i = 0; i < m->n_tensors; i++)
        if (m->tensors[i].decay &&
            adamw_decay(&m->opt, m->tensors[i].offset, m->tensors[i].count) != 0)
            return -1;
    return 0;
}

gpt_model *gpt_build(const gpt_config *cfg, int B, uint64_t seed, const uint32_t *vocab,
                     double wd, const lr_schedule *schedule, char *err, size_t errlen) {
    if (!config_ok(cfg, B, err, errlen)) return NULL;
    gpt_model *m = calloc(1, sizeof *m);
    if (!m) return say(err, errlen, "out of memory"), NULL;
    m->cfg = *cfg;
    m->clip = 1.0;
    if (schedule) m->schedule = *schedule;
    if (alloc_model(m, B) != 0 || init_params(m, seed) != 0 ||
        adamw_init(&m->opt, m->n_params, wd) != 0 || mark_decay(m) != 0) {
        gpt_free(m);
        say(err, errlen, "out of memory");
        return NULL;
    }
    for (int i = 0; i < cfg->V; i++) m->vocab[i] = vocab ? vocab[i] : (uint32_t)i;
    return m;
}

void gpt_free(gpt_model *m) {
    if (!m) return;
    if (m->a.blocks)
        for (int l = 0; l < m->cfg.L; l++) mha_cache_free(&m->a.blocks[l].attn);
    adamw_free(&m->opt);
    free(m->a.arena);
    free(m->a.blocks);
    free(m->a.ids);
    free(m->a.targets);
    free(m->kv.probs);
    free(m->tensors);
    free(m->vocab);
    free(m->p.blocks);
    free(m->g.blocks);
    free(m->param_block);
    free(m->grad_block);
    free(m);
}

// ---------------------------------------------------------------- forward and backward

// Stream l of the last forward pass: (B, n, d), within the room.
static real *stream(const gpt_model *m, int l) {
    return m->a.x + (size_t)l * m->a.B * m->cfg.T * m->cfg.d;
}

// x_out = mid + mlp(ln_2(mid)), mid = x_in + attn(ln_1(x_in)).
static void block_forward(gpt_model *m, int l, int B, int n) {
    const int d = m->cfg.d, N = B * n;
    const gpt_block *p = &m->p.blocks[l];
    gpt_block_acts *a = &m->a.blocks[l];
    const real *in = stream(m, l);
    real *out = stream(m, l + 1);
    layernorm_forward(a->ln1, a->ln1_mean, a->ln1_rstd, in, p->ln1_w, p->ln1_b, N, d);
    mha_forward(a->attn_out, &a->attn, &p->attn, a->ln1, a->ln1, NULL, true, B, n, n, d,
                m->cfg.h, NULL, NULL);
    for (size_t e = 0; e < (size_t)N * d; e++) a->mid[e] = in[e] + a->attn_out[e];
    layernorm_forward(a->ln2, a->ln2_mean, a->ln2_rstd, a->mid, p->ln2_w, p->ln2_b, N, d);
    linear_forward(a->fc, a->ln2, p->fc_w, p->fc_b, N, d, 4 * d, WEIGHT_OUT_IN);
    gelu_forward(a->gelu, a->fc, (size_t)N * 4 * d);
    linear_forward(out, a->gelu, p->proj_w, p->proj_b, N, 4 * d, d, WEIGHT_OUT_IN);
    for (size_t e = 0; e < (size_t)N * d; e++) out[e] = a->mid[e] + out[e];
}

real gpt_forward(gpt_model *m, const int32_t *ids, const int32_t *targets, int B, int n) {
    const gpt_config *c = &m->cfg;
    const int N = B * n, d = c->d;
    m->B = B;
    m->n = n;
    if (ids != m->a.ids) memcpy(m->a.ids, ids, (size_t)N * sizeof *ids);
    embedding_forward(stream(m, 0), ids, m->p.wte, N, d);
    positions_forward(stream(m, 0), m->p.wpe, NULL, B, n, d);
    for (int l = 0; l < c->L; l++) block_forward(m, l, B, n);
    gpt_acts *a = &m->a;
    layernorm_forward(a->lnf, a->lnf_mean, a->lnf_rstd, stream(m, c->L), m->p.lnf_w,
                      m->p.lnf_b, N, d);
    // the output layer is the token embedding: logits = ln_f(x) wte^T
    linear_forward(a->logits, a->lnf, m->p.wte, NULL, N, d, c->V, WEIGHT_OUT_IN);
    if (!targets) return 0;
    if (targets != a->targets) memcpy(a->targets, targets, (size_t)N * sizeof *targets);
    return cross_entropy_forward(a->logits, targets, N, c->V, -1);
}

// Given a->dx, the gradient of block l's output, leaves there the gradient
// of its input, and adds the block's parameters' gradients.
static void block_backward(gpt_model *m, int l) {
    const int d = m->cfg.d, B = m->B, n = m->n, N = B * n;
    const size_t nd = (size_t)N * d, nf = nd * 4;
    const gpt_block *p = &m->p.blocks[l], *g = &m->g.blocks[l];
    gpt_block_acts *b = &m->a.blocks[l];
    gpt_acts *a = &m->a;
    // out = mid + c_proj(gelu(c_fc(ln_2(mid))))
    memset(a->dgelu, 0, nf * sizeof(real));
    linear_backward(a->dgelu, g->proj_w, g->proj_b, a->dx, b->gelu, p->proj_w, N, 4 * d, d,
                    WEIGHT_OUT_IN);
    memset(a->dfc, 0, nf * sizeof(real));
    gelu_backward(a->dfc, a->dgelu, b->fc, nf);
    memset(a->dln, 0, nd * sizeof(real));
    linear_backward(a->dln, g->fc_w, g->fc_b, a->dfc, b->ln2, p->fc_w, N, d, 4 * d,
                    WEIGHT_OUT_IN);
    memcpy(a->dmid, a->dx, nd * sizeof(real));  // the residual path
    layernorm_backward(a->dmid, g->ln2_w, g->ln2_b, a->dln, b->mid, b->ln2_mean, b->ln2_rstd,
                       p->ln2_w, N, d);
    // mid = in + attn(ln_1(in))
    memset(a->dln, 0, nd * sizeof(real));
    mha_backward(a->dln, a->dln, &g->attn, &b->attn, a->dmid, b->ln1, b->ln1, &p->attn, B, n, n,
                 d, m->cfg.h, NULL, NULL);
    memcpy(a->dx, a->dmid, nd * sizeof(real));
    layernorm_backward(a->dx, g->ln1_w, g->ln1_b, a->dln, stream(m, l), b->ln1_mean,
                       b->ln1_rstd, p->ln1_w, N, d);
}

void gpt_backward(gpt_model *m) {
    const gpt_config *c = &m->cfg;
    const int N = m->B * m->n, d = c->d;
    gpt_acts *a = &m->a;
    memset(m->grad_block, 0, m->n_params * sizeof(real));
    memset(a->dlogits, 0, (size_t)N * c->V * sizeof(real));
    cross_entropy_backward(a->dlogits, a->logits, a->targets, N, c->V, -1);
    // the tied weight: its gradient as the output layer ...
    memset(a->dln, 0, (size_t)N * d * sizeof(real));
    linear_backward(a->dln, m->g.wte, NULL, a->dlogits, a->lnf, m->p.wte, N, d, c->V,
                    WEIGHT_OUT_IN);
    memset(a->dx, 0, (size_t)N * d * sizeof(real));
    layernorm_backward(a->dx, m->g.lnf_w, m->g.lnf_b, a->dln, stream(m, c->L), a->lnf_mean,
                       a->lnf_rstd, m->p.lnf_w, N, d);
    for (int l = c->L - 1; l >= 0; l--) block_backward(m, l);
    // ... and as the embedding, added to it
    embedding_backward(m->g.wte, a->dx, a->ids, N, d);
    positions_backward(m->g.wpe, a->dx, NULL, m->B, m->n, d);
}

real gpt_train_step(gpt_model *m, const int32_t *windows, int B, int n) {
    for (int b = 0; b < B; b++) {
        const int32_t *w = windows + (size_t)b * (n + 1);
        memcpy(m->a.ids + (size_t)b * n, w, (size_t)n * sizeof *w);
        memcpy(m->a.targets + (size_t)b * n, w + 1, (size_t)n * sizeof *w);
    }
    real loss = gpt_forward(m, m->a.ids, m->a.targets, B, n);
    gpt_backward(m);
    m->last_norm = grad_clip(m->grad_block, m->n_params, m->clip);
    adamw_step(&m->opt, m->param_block, m->grad_block, lr_at(&m->schedule, m->step));
    m->step++;
    return loss;
}
