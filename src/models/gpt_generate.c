// gpt_generate.c: the GPT writes: one position at a time with a cache of
// the keys and values of the positions before it, or the whole window
// again for every token; sampling with temperature and top-k. gpt.h says
// what each function does.
//
// Why the two agree to the bit: a position's keys and values depend only on
// the tokens up to it (the mask), so the cache holds exactly what the
// whole-window pass recomputes; and every number of the new position goes
// through the same layer functions, in the same order, as in the
// whole-window pass: the projections one row at a time (the product of a
// row does not depend on the rows beside it; the weights transposed, read
// as the whole-window product reads its transposed copy), the query's head
// against its keys by mha_head_forward, the softmax over keys 0 .. pos (the
// window's causal mask gives the later keys exactly 0, which add nothing).
// Where it could break: a matrix product that summed a row in another
// order when it has company (blocked over rows, or split among threads), or
// a softmax that skipped masked keys differently; tests/test_gpt.c checks
// the logits bit for bit and the tokens for several prompts, temperatures
// and seeds.
//
// A window's first positions (the prompt, or the tokens kept when the
// window slides) go into the cache in one whole-window pass, its keys and
// values copied out (gpt_prefill): many rows a product, as training runs.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "layers/embedding.h"
#include "layers/gelu.h"
#include "layers/layernorm.h"
#include "layers/linear.h"
#include "layers/positions.h"
#include "layers/tensor.h"
#include "models/gpt.h"

// The cache's transposed weights: block l's c_attn^T (d, 3d), then
// c_proj^T, c_fc^T and the MLP's c_proj^T; l = L: wte^T (d, V).
static real *weights_t(const gpt_model *m, int l) {
    const size_t d = m->cfg.d;
    return m->kv.wt + (size_t)l * 12 * d * d;
}

void gpt_cache_reset(gpt_model *m) {
    const int d = m->cfg.d;
    for (int l = 0; l < m->cfg.L; l++) {
        const gpt_block *p = &m->p.blocks[l];
        real *wt = weights_t(m, l);
        transpose(wt, p->attn.in_proj_weight, 3 * d, d);
        transpose(wt + 3 * d * d, p->attn.out_proj_weight, d, d);
        transpose(wt + 4 * d * d, p->fc_w, 4 * d, d);
        transpose(wt + 8 * d * d, p->proj_w, d, 4 * d);
    }
    transpose(weights_t(m, m->cfg.L), m->p.wte, m->cfg.V, d);
    m->kv.len = 0;
}

// Head i's keys (or values) of block l in the cache: (T, d_k).
static real *cached(const gpt_model *m, real *kv, int l, int i) {
    const gpt_config *c = &m->cfg;
    return kv + ((size_t)l * c->h + i) * c->T * (c->d / c->h);
}

// kv.x += the attention of block l for the new position (the cache's x),
// as mha_forward computes it for that row.
static void attention_cached(gpt_model *m, int l) {
    const int d = m->cfg.d, h = m->cfg.h, d_k = d / h, pos = m->kv.len;
    const mha_params *p = &m->p.blocks[l].attn;
    const real *wt = weights_t(m, l);
    gpt_kv_cache *kv = &m->kv;
    real *q = kv->qkv, *k = kv->qkv + d, *v = kv->qkv + 2 * d;
    linear_forward(kv->qkv, kv->ln, wt, p->in_proj_bias, 1, d, 3 * d, WEIGHT_IN_OUT);
    const real scale = (real)(1.0 / sqrt((double)d_k));  // as mha_forward scales the queries
    for (int j = 0; j < d; j++) q[j] = scale * q[j];
    for (int i = 0; i < h; i++) {
        real *keys = cached(m, kv->k, l, i), *values = cached(m, kv->v, l, i);
        memcpy(keys + (size_t)pos * d_k, k + i * d_k, d_k * sizeof(real));
        memcpy(values + (size_t)pos * d_k, v + i * d_k, d_k * sizeof(real));
        // the new query sees every cached key: no mask needed
        mha_head_forward(kv->w, kv->z + i * d_k, q + i * d_k, keys, values, NULL, false, 1,
                         pos + 1, d_k, kv->scratch);
    }
    linear_forward(kv->out, kv->z, wt + 3 * d * d, p->out_proj_bias, 1, d, d, WEIGHT_IN_OUT);
    for (int j = 0; j < d; j++) kv->x[j] = kv->x[j] + kv->out[j];
}

// kv.x += the MLP of block l for the new position.
static void mlp_cached(gpt_model *m, int l) {
    const int d = m->cfg.d;
    const gpt_block *p = &m->p.blocks[l];
    const real *wt = weights_t(m, l);
    gpt_kv_cache *kv = &m->kv;
    layernorm_forward(kv->ln, NULL, NULL, kv->x, p->ln2_w, p->ln2_b, 1, d);
    linear_forward(kv->hid, kv->ln, wt + 4 * d * d, p->fc_b, 1, d, 4 * d, WEIGHT_IN_OUT);
    gelu_forward(kv->hid, kv->hid, 4 * (size_t)d);
    linear_forward(kv->out, kv->hid, wt + 8 * d * d, p->proj_b, 1, 4 * d, d, WEIGHT_IN_OUT);
    for (int j = 0; j < d; j++) kv->x[j] = kv->x[j] + kv->out[j];
}

const real *gpt_forward_cached(gpt_model *m, int32_t id) {
    const gpt_config *c = &m->cfg;
    gpt_kv_cache *kv = &m->kv;
    embedding_forward(kv->x, &id, m->p.wte, 1, c->d);
    positions_forward(kv->x, m->p.wpe + (size_t)kv->len * c->d, NULL, 1, 1, c->d);
    for (int l = 0; l < c->L; l++) {
        const gpt_block *p = &m->p.blocks[l];
        layernorm_forward(kv->ln, NULL, NULL, kv->x, p->ln1_w, p->ln1_b, 1, c->d);
        attention_cached(m, l);
        mlp_cached(m, l);
    }
    layernorm_forward(kv->ln, NULL, NULL, kv->x, m->p.lnf_w, m->p.lnf_b, 1, c->d);
    linear_forward(kv->logits, kv->ln, weights_t(m, c->L), NULL, 1, c->d, c->V, WEIGHT_IN_OUT);
    kv->len++;
    return kv->logits;
}

const real *gpt_prefill(gpt_model *m, const int32_t *ids, int n) {
    const gpt_config *c = &m->cfg;
    const int d = c->d, d_k = d / c->h;
    const real *logits = gpt_forward_window(m, ids, n);
    for (int l = 0; l < c->L; l++) {
        const mha_params *p = &m->p.blocks[l].attn;
        for (int which = 1; which <= 2; which++) {  // the keys, then the values
            const size_t at = (size_t)which * d;    // their rows of c_attn
            linear_forward(m->kv.scratch, gpt_attention_input(m, 0, l),
                           p->in_proj_weight + at * d, p->in_proj_bias + at, n, d, d,
                           WEIGHT_OUT_IN);
            for (int i = 0; i < c->h; i++)  // head i: its columns of each row
                for (int t = 0; t < n; t++)
                    memcpy(cached(m, which == 1 ? m->kv.k : m->kv.v, l, i) + (size_t)t * d_k,
                           m->kv.scratch + (size_t)t * d + i * d_k, d_k * sizeof(real));
        }
    }
    m->kv.len = n;
    memcpy(m->kv.logits, logits, (size_t)c->V * sizeof(real));
    return m->kv.logits;
}

const real *gpt_forward_window(gpt_model *m, const int32_t *ids, int n) {
    gpt_forward(m, ids, NULL, 1, n);
    return m->a.logits + (size_t)(n - 1) * m->cfg.V;
}

int gpt_window_start(int start, int n, int T) {
    if (n - start <= T) return start;
    int keep = T / 2 > 0 ? T / 2 : 1;
    return n - keep;
}

static int descending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

// A token drawn from softmax(logits / temperature) over the top_k largest
// logits (ties with the k-th kept, as nanoGPT keeps them), with one uniform
// number from g; the most likely token when temperature <= 0.
static int32_t sample(const real *logits, int V, double temperature, int top_k, torch_rng *g,
                      double *p) {
    int best = 0;
    for (int v = 1; v < V; v++)
        if (logits[v] > logits[best]) best = v;
    if (temperature <= 0) return best;
    double floor = -INFINITY;
    if (top_k > 0 && top_k < V) {
        double *sorted = p + V;
        for (int v = 0; v < V; v++) sorted[v] = logits[v];
        qsort(sorted, V, sizeof *sorted, descending);
        floor = sorted[top_k - 1];
    }
    double sum = 0;
    for (int v = 0; v < V; v++) {
        p[v] = logits[v] >= floor ? exp((logits[v] - (double)logits[best]) / temperature) : 0;
        sum += p[v];
    }
    double u = (double)(rng_next_u64(g) >> 11) * 0x1p-53 * sum;  // uniform in [0, sum)
    int last = best;
    for (int v = 0; v < V; v++) {
        if (p[v] == 0) continue;
        last = v;
        if ((u -= p[v]) < 0) return v;
    }
    return last;  // u within rounding of sum
}

// The logits after ids[start .. n - 1] through the cache: filled anew by
// gpt_prefill when the window has moved (*cache_start is where the cached
// window starts), else fed the window's positions it lacks.
static const real *cached_logits(gpt_model *m, const int32_t *ids, int start, int n,
                                 int *cache_start) {
    if (*cache_start != start) {
        *cache_start = start;
        return gpt_prefill(m, ids + start, n - start);
    }
    const real *logits = m->kv.logits;
    while (start + m->kv.len < n) logits = gpt_forward_cached(m, ids[start + m->kv.len]);
    return logits;
}

int gpt_generate(gpt_model *m, int32_t *out, const int32_t *prompt, int n_prompt, int n_new,
                 double temperature, int top_k, uint64_t seed, bool use_cache) {
    if (n_prompt < 1 || n_new < 0) return -1;
    for (int i = 0; i < n_prompt; i++)
        if (prompt[i] < 0 || prompt[i] >= m->cfg.V) return -1;
    torch_rng g;
    rng_seed(&g, seed);
    memcpy(out, prompt, (size_t)n_prompt * sizeof *out);
    int start = 0, cache_start = -1;
    if (use_cache) gpt_cache_reset(m);
    for (int n = n_prompt; n < n_prompt + n_new; n++) {
        start = gpt_window_start(start, n, m->cfg.T);
        const real *logits = use_cache ? cached_logits(m, out, start, n, &cache_start)
                                       : gpt_forward_window(m, out + start, n - start);
        out[n] = sample(logits, m->cfg.V, temperature, top_k, &g, m->kv.probs);
    }
    return 0;
}
