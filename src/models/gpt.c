// gpt.c: the GPT's parameters, activations and optimiser, forward to the
// loss, backward, and a training step. Dimension legend and layout in
// gpt.h; generation in gpt_generate.c, files in gpt_file.c.
#include "models/gpt.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "kernels/aligned.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"
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
// Each array starts on a cache line (kernels/aligned.h), as the block does.
typedef struct {
    real *base;
    size_t used;
} arena;

static real *carve(arena *a, size_t n) {
    real *at = a->base ? a->base + a->used : NULL;
    a->used += aligned_count(n, sizeof(real));
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
    a->dln = carve(r, N * d);
    a->dh = carve(r, N * 4 * d);
    gpt_kv_cache *kv = &m->kv;
    const size_t kv_size = (size_t)c->L * c->T * d;
    kv->k = carve(r, kv_size);
    kv->v = carve(r, kv_size);
    kv->wt = carve(r, (size_t)c->L * 12 * d * d + d * c->V);
    const size_t Td = (size_t)c->T * d;
    kv->x = carve(r, Td);
    kv->ln = carve(r, Td);
    kv->qkv = carve(r, 3 * Td);
    kv->z = carve(r, Td);
    kv->out = carve(r, Td);
    kv->hid = carve(r, 4 * Td);
    kv->logits = carve(r, c->V);
    kv->w = carve(r, (size_t)c->h * c->T);
    kv->scratch = carve(r, (size_t)c->T * d);
}

// The large shards first, then the two small ones (gpt.h).
int gpt_shard_end(int B, int shards, int k) {
    if (k < 0) return 0;
    int small = shards < 4 || B < 4 ? 0 : B / 16 > 0 ? B / 16 : 1;
    int large = shards - (small ? 2 : 0);
    int rest = B - 2 * small;  // the large shards'
    if (k < large) return (int)((long)rest * (k + 1) / large);
    return rest + small * (k - large + 1);
}

// The most sequences any shard of a batch of B holds.
static int largest_shard(int B, int shards) {
    int most = 0;
    for (int k = 0; k < shards; k++) {
        int size = gpt_shard_end(B, shards, k) - gpt_shard_end(B, shards, k - 1);
        most = size > most ? size : most;
    }
    return most;
}

// The distance between two shards' gradients in shard_grads: the parameters'
// count, rounded up to whole cache lines.
static size_t shard_stride(const gpt_model *m) {
    return aligned_count(m->n_params, sizeof(real));
}

// Everything the model owns but its parameters' values; 0, or -1 when out
// of memory.
static int alloc_model(gpt_model *m, int B) {
    const gpt_config *c = &m->cfg;
    m->n_params = gpt_param_count(c);
    m->param_block = ALIGNED_CALLOC(m->n_params, sizeof(real));
    m->grad_block = ALIGNED_CALLOC(m->n_params, sizeof(real));
    m->p.blocks = calloc(c->L, sizeof(gpt_block));
    m->g.blocks = calloc(c->L, sizeof(gpt_block));
    m->vocab = calloc(c->V, sizeof *m->vocab);
    m->a.blocks = calloc(c->L, sizeof(gpt_block_acts));
    m->gs = calloc(m->shards, sizeof *m->gs);
    if (m->shards > 1)
        m->shard_grads = ALIGNED_CALLOC((m->shards - 1) * shard_stride(m), sizeof(real));
    m->a.B = B;
    m->a.ids = calloc((size_t)B * c->T, sizeof(int32_t));
    m->a.targets = calloc((size_t)B * c->T, sizeof(int32_t));
    m->a.lse = calloc((size_t)B * c->T, sizeof(double));
    m->a.loss = calloc((size_t)B * c->T, sizeof(double));
    m->kv.probs = calloc(2 * (size_t)c->V, sizeof(double));
    layout_walk count = { 0 };
    walk_layout(&count, &(gpt_params){ 0 }, c);
    m->tensors = calloc(count.n_tensors, sizeof *m->tensors);
    if (!m->param_block || !m->grad_block || !m->p.blocks || !m->g.blocks || !m->vocab ||
        !m->a.blocks || !m->a.ids || !m->a.targets || !m->a.lse || !m->a.loss || !m->kv.probs ||
        !m->tensors || !m->gs || (m->shards > 1 && !m->shard_grads))
        return -1;
    layout_walk wp = { .block = m->param_block, .tensors = m->tensors };
    walk_layout(&wp, &m->p, c);
    m->n_tensors = wp.n_tensors;
    layout_walk wg = { .block = m->grad_block };
    walk_layout(&wg, &m->g, c);
    m->gs[0] = m->g;
    for (int k = 1; k < m->shards; k++) {
        if (!(m->gs[k].blocks = calloc(c->L, sizeof(gpt_block)))) return -1;
        layout_walk w = { .block = m->shard_grads + (k - 1) * shard_stride(m) };
        walk_layout(&w, &m->gs[k], c);
    }
    arena r = { 0 };
    carve_acts(&r, m);
    if (!(r.base = ALIGNED_MALLOC(r.used, sizeof(real)))) return -1;
    r.used = 0;
    carve_acts(&r, m);
    m->a.arena = r.base;
    m->kv.threads = 1;  // until gpt_cache_reset shares the weights out
    for (int l = 0; l < c->L; l++) {
        gpt_block_acts *b = &m->a.blocks[l];
        if (!(b->attn = calloc(m->shards, sizeof *b->attn))) return -1;
        // room for the largest shard of any batch of up to B sequences
        int most = 0;
        for (int batch = 1; batch <= B; batch++) {
            int size = largest_shard(batch, m->shards);
            most = size > most ? size : most;
        }
        for (int k = 0; k < m->shards; k++)
            if ((c->attention == GPT_ATTENTION_TILED
                     ? mha_tiled_cache_alloc(&b->attn[k], most, c->T, c->d, c->h)
                     : mha_cache_alloc(&b->attn[k], most, c->T, c->T, c->d, c->h)) != 0)
                return -1;
    }
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
    if (c->attention != GPT_ATTENTION_NAIVE && c->attention != GPT_ATTENTION_TILED) {
        say(err, errlen, "no attention of kind %d", (int)c->attention);
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

gpt_model *gpt_build(const gpt_config *cfg, int B, int shards, uint64_t seed,
                     const uint32_t *vocab, double wd, const lr_schedule *schedule, char *err,
                     size_t errlen) {
    if (!config_ok(cfg, B, err, errlen)) return NULL;
    if (shards < 1 || shards > B) {
        say(err, errlen, "%d shards of a batch of %d sequences", shards, B);
        return NULL;
    }
    gpt_model *m = calloc(1, sizeof *m);
    if (!m) return say(err, errlen, "out of memory"), NULL;
    m->cfg = *cfg;
    m->shards = shards;
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
    for (int l = 0; m->a.blocks && l < m->cfg.L; l++) {
        for (int k = 0; m->a.blocks[l].attn && k < m->shards; k++)
            mha_cache_free(&m->a.blocks[l].attn[k]);
        free(m->a.blocks[l].attn);
    }
    for (int k = 1; m->gs && k < m->shards; k++) free(m->gs[k].blocks);
    free(m->gs);
    free(m->shard_grads);
    adamw_free(&m->opt);
    free(m->a.arena);
    free(m->a.blocks);
    free(m->a.ids);
    free(m->a.targets);
    free(m->a.lse);
    free(m->a.loss);
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

// Sequences b0 .. b0 + B - 1 of the batch (shard k), n positions each: the
// rows from r0 = b0 n on of every (B, n, ...) array, and the parameters'
// gradients into g.
typedef struct {
    int k, B, n;
    size_t r0;
    const gpt_params *g;
} shard;

// Stream l of the last forward pass, (B, n, d) within the room, from
// shard s's first row.
static real *stream(const gpt_model *m, int l, const shard *s) {
    return m->a.x + (size_t)l * m->a.B * m->cfg.T * m->cfg.d + s->r0 * m->cfg.d;
}

// Row r0 of an array of rows of width w.
#define ROWS(array, w) ((array) + s->r0 * (size_t)(w))

// x_out = mid + mlp(ln_2(mid)), mid = x_in + attn(ln_1(x_in)), for shard s.
static void block_forward(gpt_model *m, int l, const shard *s) {
    const int d = m->cfg.d, N = s->B * s->n;
    const size_t nd = (size_t)N * d;
    const gpt_block *p = &m->p.blocks[l];
    gpt_block_acts *a = &m->a.blocks[l];
    const real *in = stream(m, l, s);
    real *out = stream(m, l + 1, s), *ln1 = ROWS(a->ln1, d), *ln2 = ROWS(a->ln2, d);
    real *mid = ROWS(a->mid, d), *fc = ROWS(a->fc, 4 * d);
    real *gelu = ROWS(a->gelu, 4 * d);
    layernorm_forward(ln1, ROWS(a->ln1_mean, 1), ROWS(a->ln1_rstd, 1), in, p->ln1_w, p->ln1_b,
                      N, d);
    // the attention's output goes into mid, and the stream is added to it
    if (m->cfg.attention == GPT_ATTENTION_TILED)  // keeps no weights: attn[k].w stays NULL
        mha_tiled_forward(mid, &a->attn[s->k], &p->attn, ln1, true, s->B, s->n, d, m->cfg.h);
    else
        mha_forward(mid, &a->attn[s->k], &p->attn, ln1, ln1, NULL, true, s->B, s->n, s->n, d,
                    m->cfg.h, NULL, NULL);
    sum_arrays(mid, in, mid, (long)nd);
    layernorm_forward(ln2, ROWS(a->ln2_mean, 1), ROWS(a->ln2_rstd, 1), mid, p->ln2_w, p->ln2_b,
                      N, d);
    linear_forward(fc, ln2, p->fc_w, p->fc_b, N, d, 4 * d, WEIGHT_OUT_IN);
    gelu_forward_slope(gelu, fc, fc, nd * 4);  // fc now holds GELU's slope, for the backward
    linear_forward(out, gelu, p->proj_w, p->proj_b, N, 4 * d, d, WEIGHT_OUT_IN);
    sum_arrays(out, mid, out, (long)nd);
}

// Shard s's logits: the embedding, the blocks, ln_f and the tied output
// layer; when scored, each position's loss against a->targets (and the
// log-sum-exp its gradient needs).
static void shard_forward(gpt_model *m, const shard *s, bool scored) {
    const gpt_config *c = &m->cfg;
    const int N = s->B * s->n, d = c->d;
    gpt_acts *a = &m->a;
    embedding_forward(stream(m, 0, s), ROWS(a->ids, 1), m->p.wte, N, d);
    positions_forward(stream(m, 0, s), m->p.wpe, NULL, s->B, s->n, d);
    for (int l = 0; l < c->L; l++) block_forward(m, l, s);
    layernorm_forward(ROWS(a->lnf, d), ROWS(a->lnf_mean, 1), ROWS(a->lnf_rstd, 1),
                      stream(m, c->L, s), m->p.lnf_w, m->p.lnf_b, N, d);
    // the output layer is the token embedding: logits = ln_f(x) wte^T
    linear_forward(ROWS(a->logits, c->V), ROWS(a->lnf, d), m->p.wte, NULL, N, d, c->V,
                   WEIGHT_OUT_IN);
    if (scored)
        cross_entropy_rows(a->loss + s->r0, a->lse + s->r0, ROWS(a->logits, c->V),
                           ROWS(a->targets, 1), N, c->V);
}

// Shard k of the last forward pass.
static shard shard_of(const gpt_model *m, int k) {
    int b0 = gpt_shard_end(m->B, m->shards, k - 1), b1 = gpt_shard_end(m->B, m->shards, k);
    return (shard){ .k = k, .B = b1 - b0, .n = m->n, .r0 = (size_t)b0 * m->n, .g = &m->gs[k] };
}

static void shard_backward(gpt_model *m, const shard *s);

// Shard k's gradients: grad_block for shard 0, a block of shard_grads for
// the others.
static real *shard_grads(const gpt_model *m, int k) {
    return k == 0 ? m->grad_block : m->shard_grads + (size_t)(k - 1) * shard_stride(m);
}

// The shards of the batch of m->B sequences of m->n positions, which the
// threads share: with forward, each one's forward pass (scored: each
// position's loss); with backward, its gradients from the loss down into
// its own block, cleared first (even an empty shard's: the blocks are
// summed). A shard's backward pass follows its own forward pass at once.
static void run_shards(gpt_model *m, bool forward, bool scored, bool backward) {
    PARALLEL_FOR(m->shards > 1)
    for (int k = 0; k < m->shards; k++) {
        shard s = shard_of(m, k);
        if (backward) memset(shard_grads(m, k), 0, m->n_params * sizeof(real));
        if (s.B > 0 && forward) shard_forward(m, &s, scored);
        if (s.B > 0 && backward) shard_backward(m, &s);
    }
}

// The mean loss of a scored pass, as cross_entropy_forward takes it: the
// positions' losses added in order, in double.
static real mean_loss(const gpt_model *m) {
    const int N = m->B * m->n;
    double sum = 0;
    for (int r = 0; r < N; r++) sum += m->a.loss[r];
    return (real)(sum / N);
}

real gpt_forward(gpt_model *m, const int32_t *ids, const int32_t *targets, int B, int n) {
    const int N = B * n;
    m->B = B;
    m->n = n;
    if (ids != m->a.ids) memcpy(m->a.ids, ids, (size_t)N * sizeof *ids);
    if (targets && targets != m->a.targets)
        memcpy(m->a.targets, targets, (size_t)N * sizeof *targets);
    run_shards(m, true, targets != NULL, false);
    return targets ? mean_loss(m) : 0;
}

int gpt_attention_weights(const gpt_model *m, int b, int l, int head, real *w) {
    if (b < 0 || b >= m->B || l < 0 || l >= m->cfg.L || head < 0 || head >= m->cfg.h) return -1;
    if (m->cfg.attention != GPT_ATTENTION_NAIVE) return -1;  // tiled: no weights kept
    int k = 0;  // the shard that computed sequence b
    while (b >= gpt_shard_end(m->B, m->shards, k)) k++;
    const int b0 = gpt_shard_end(m->B, m->shards, k - 1);
    const size_t nn = (size_t)m->n * m->n;
    const real *from = m->a.blocks[l].attn[k].w + ((size_t)(b - b0) * m->cfg.h + head) * nn;
    memcpy(w, from, nn * sizeof *w);
    return 0;
}

// Given shard s's rows of a->dx, the gradient of block l's output, leaves
// there the gradient of its input, and adds the block's parameters'
// gradients into s->g.
static void block_backward(gpt_model *m, int l, const shard *s) {
    const int d = m->cfg.d, N = s->B * s->n;
    const size_t nd = (size_t)N * d, nf = nd * 4;
    const gpt_block *p = &m->p.blocks[l], *g = &s->g->blocks[l];
    gpt_block_acts *b = &m->a.blocks[l];
    gpt_acts *a = &m->a;
    real *dx = ROWS(a->dx, d), *dln = ROWS(a->dln, d);
    real *dh = ROWS(a->dh, 4 * d), *ln1 = ROWS(b->ln1, d);
    // out = mid + c_proj(gelu(c_fc(ln_2(mid)))); dh (the gradient of gelu's output, then of
    // its input, in place) and dln written, not cleared and added to
    linear_backward_write(dh, g->proj_w, g->proj_b, dx, ROWS(b->gelu, 4 * d), p->proj_w, N,
                          4 * d, d, WEIGHT_OUT_IN);
    gelu_backward_slope(dh, dh, ROWS(b->fc, 4 * d), nf);
    linear_backward_write(dln, g->fc_w, g->fc_b, dh, ROWS(b->ln2, d), p->fc_w, N, d, 4 * d,
                          WEIGHT_OUT_IN);
    // the residual path: dx, the gradient of out, is mid's too, and collects ln_2's
    layernorm_backward(dx, g->ln2_w, g->ln2_b, dln, ROWS(b->mid, d), ROWS(b->ln2_mean, 1),
                       ROWS(b->ln2_rstd, 1), p->ln2_w, N, d);
    // mid = in + attn(ln_1(in)): dx, mid's gradient, is in's too, and collects ln_1's
    memset(dln, 0, nd * sizeof(real));
    if (m->cfg.attention == GPT_ATTENTION_TILED)
        mha_tiled_backward(dln, &g->attn, &b->attn[s->k], dx, ln1, &p->attn, true, s->B, s->n,
                           d, m->cfg.h);
    else
        mha_backward(dln, dln, &g->attn, &b->attn[s->k], dx, ln1, ln1, &p->attn, s->B, s->n,
                     s->n, d, m->cfg.h, NULL, NULL);
    layernorm_backward(dx, g->ln1_w, g->ln1_b, dln, stream(m, l, s), ROWS(b->ln1_mean, 1),
                       ROWS(b->ln1_rstd, 1), p->ln1_w, N, d);
}

// Shard s's gradients, from the loss (its rows of a->dlogits) down to the
// embedding.
static void shard_backward(gpt_model *m, const shard *s) {
    const gpt_config *c = &m->cfg;
    const int N = s->B * s->n, d = c->d, V = c->V;
    gpt_acts *a = &m->a;
    real *dln = ROWS(a->dln, d), *dx = ROWS(a->dx, d), *dlogits = ROWS(a->dlogits, V);
    // the mean over all the batch's positions
    cross_entropy_rows_backward(dlogits, ROWS(a->logits, V), ROWS(a->targets, 1),
                                a->lse + s->r0, N, V, m->B * m->n);
    // the tied weight: its gradient as the output layer ...
    linear_backward_write(dln, s->g->wte, NULL, dlogits, ROWS(a->lnf, d), m->p.wte, N, d, V,
                          WEIGHT_OUT_IN);
    memset(dx, 0, (size_t)N * d * sizeof(real));
    layernorm_backward(dx, s->g->lnf_w, s->g->lnf_b, dln, stream(m, c->L, s),
                       ROWS(a->lnf_mean, 1), ROWS(a->lnf_rstd, 1), m->p.lnf_w, N, d);
    for (int l = c->L - 1; l >= 0; l--) block_backward(m, l, s);
    // ... and as the embedding, added to it
    embedding_backward(s->g->wte, dx, ROWS(a->ids, 1), N, d);
    positions_backward(s->g->wpe, dx, NULL, s->B, s->n, d);
}

// The shards' gradients added to shard 0's in order, each parameter's sum
// the same with any threads, which share the parameters' slices.
static void sum_shard_grads(gpt_model *m) {
    enum { SLICES = 16 };
    PARALLEL_FOR(m->shards > 1)
    for (int j = 0; j < SLICES; j++) {
        size_t i0 = m->n_params * j / SLICES, i1 = m->n_params * (j + 1) / SLICES;
        for (int k = 1; k < m->shards; k++)
            sum_arrays(m->grad_block + i0, m->grad_block + i0, shard_grads(m, k) + i0,
                       (long)(i1 - i0));
    }
}

void gpt_backward(gpt_model *m) {
    run_shards(m, false, false, true);
    sum_shard_grads(m);
}

#undef ROWS

// grad_clip and adamw_step on the summed gradients, their parts shared by
// the threads as the shards are: the same bits (grad_clip.h, adamw.h).
static void clip_and_step(gpt_model *m, double lr) {
    const size_t n = m->n_params;
    double squares[GRAD_PARTS], sum = 0;
    PARALLEL_FOR(m->shards > 1)
    for (int j = 0; j < GRAD_PARTS; j++) squares[j] = grad_part_squares(m->grad_block, n, j);
    for (int j = 0; j < GRAD_PARTS; j++) sum += squares[j];
    m->last_norm = sqrt(sum);  // grad_norm's number
    const double factor = grad_clip_factor(m->last_norm, m->clip);
    m->opt.t++;  // the step, counted once
    PARALLEL_FOR(m->shards > 1)
    for (int j = 0; j < GRAD_PARTS; j++) {
        size_t first = grad_part_start(n, j), last = grad_part_start(n, j + 1);
        for (size_t i = first; factor < 1 && i < last; i++) m->grad_block[i] *= (real)factor;
        adamw_update(&m->opt, m->param_block, m->grad_block, lr, first, last);
    }
}

real gpt_train_step(gpt_model *m, const int32_t *windows, int B, int n) {
    for (int b = 0; b < B; b++) {
        const int32_t *w = windows + (size_t)b * (n + 1);
        memcpy(m->a.ids + (size_t)b * n, w, (size_t)n * sizeof *w);
        memcpy(m->a.targets + (size_t)b * n, w + 1, (size_t)n * sizeof *w);
    }
    m->B = B;
    m->n = n;
    run_shards(m, true, true, true);  // gpt_forward and gpt_backward, a shard at a time
    real loss = mean_loss(m);
    sum_shard_grads(m);
    clip_and_step(m, lr_at(&m->schedule, m->step));
    m->step++;
    return loss;
}
