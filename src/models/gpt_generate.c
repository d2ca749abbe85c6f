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
// Threads share a position's products by columns and its heads (share,
// below), never a sum.
// Where it could break: a matrix product that summed a row in another
// order when it has company (blocked over rows, or split among threads), or
// a softmax that skipped masked keys differently; tests/test_gpt.c checks
// the logits bit for bit and the tokens for several prompts, temperatures
// and seeds.
//
// A window's first positions (the prompt, or the tokens kept when the
// window slides) go into the cache in one call: the same numbers, each
// product of many rows, each query's attention on its own.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "kernels/parallel.h"
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

// A position's products are shared by the threads by columns. One thread
// alone would read all of the weights for every position (3 MB at the
// book's size, more than many a core's own cache holds) from the slower
// cache that all cores share; each of two threads reads its own half,
// which stays in its core's cache from one position to the next. Each entry is still one sum,
// taken whole by one thread in the same order. The columns [*j0, *j1) of m
// are thread t's of nt: whole panels of 32 (the product's widest: a share
// that ended inside one would compute it through a mask), the last share
// what is left, maybe nothing.
static void share(int m, int t, int nt, int *j0, int *j1) {
    int per = ((m + nt - 1) / nt + 31) / 32 * 32;
    *j0 = t * per < m ? t * per : m;
    *j1 = *j0 + per < m ? *j0 + per : m;
}

// Thread t's share of w (m, k) transposed into wt: its columns [j0, j1)
// of w^T, rows j0 .. j1 - 1 of w, as a (k, j1 - j0) matrix of their own at
// wt + k j0.
static void transpose_share(real *wt, const real *w, int m, int k, int t, int nt) {
    int j0, j1;
    share(m, t, nt, &j0, &j1);
    transpose(wt + (size_t)k * j0, w + (size_t)j0 * k, j1 - j0, k);
}

// out (n, m) = bias + inp (n, k) times the weight whose shares are in wt,
// thread t's columns, a row at a time: each entry the same sum, in the same
// order, as the whole product's.
static void product_share(real *out, const real *inp, const real *wt, const real *bias, int n,
                          int k, int m, int t, int nt) {
    int j0, j1;
    share(m, t, nt, &j0, &j1);
    for (int r = 0; r < n && j0 < j1; r++)
        linear_forward(out + (size_t)r * m + j0, inp + (size_t)r * k, wt + (size_t)k * j0,
                       bias ? bias + j0 : NULL, 1, k, j1 - j0, WEIGHT_IN_OUT);
}

// Each thread copies its own shares, which so start in its core's cache.
void gpt_cache_reset(gpt_model *m) {
    const int d = m->cfg.d, nt = parallel_threads();
    PARALLEL_REGION(nt) {
        const int t = parallel_thread();
        for (int l = 0; l < m->cfg.L; l++) {
            const gpt_block *p = &m->p.blocks[l];
            real *wt = weights_t(m, l);
            transpose_share(wt, p->attn.in_proj_weight, 3 * d, d, t, nt);
            transpose_share(wt + 3 * d * d, p->attn.out_proj_weight, d, d, t, nt);
            transpose_share(wt + 4 * d * d, p->fc_w, 4 * d, d, t, nt);
            transpose_share(wt + 8 * d * d, p->proj_w, d, 4 * d, t, nt);
        }
        transpose_share(weights_t(m, m->cfg.L), m->p.wte, m->cfg.V, d, t, nt);
    }
    m->kv.threads = nt;
    m->kv.len = 0;
}

// Head i's keys of block l in the cache, transposed, (d_k, T), or its
// values, (T, d_k).
static real *cached(const gpt_model *m, real *kv, int l, int i) {
    const gpt_config *c = &m->cfg;
    return kv + ((size_t)l * c->h + i) * c->T * (c->d / c->h);
}

// kv.out = the attention of block l for the n new positions (from kv.ln,
// their LayerNorm), as mha_forward computes it for those rows: their keys
// and values join the cache, then each query row sees the keys up to its
// own. Thread t's part: its columns of the products, and its heads, t,
// t + nt, ...
static void attention_cached(gpt_model *m, int l, int n, int t, int nt) {
    const int d = m->cfg.d, h = m->cfg.h, d_k = d / h, pos = m->kv.len;
    const mha_params *p = &m->p.blocks[l].attn;
    const real *wt = weights_t(m, l);
    gpt_kv_cache *kv = &m->kv;
    product_share(kv->qkv, kv->ln, wt, p->in_proj_bias, n, d, 3 * d, t, nt);
    PARALLEL_BARRIER;
    const real scale = (real)(1.0 / sqrt((double)d_k));  // as mha_forward scales the queries
    for (int i = t; i < h; i += nt) {
        real *keys = cached(m, kv->k, l, i), *values = cached(m, kv->v, l, i);
        for (int r = 0; r < n; r++) {
            real *q = kv->qkv + (size_t)r * 3 * d + i * d_k, *k = q + d, *v = q + 2 * d;
            for (int j = 0; j < d_k; j++) q[j] = scale * q[j];
            // the key a column, the value a row
            for (int c = 0; c < d_k; c++) keys[(size_t)c * m->cfg.T + pos + r] = k[c];
            memcpy(values + (size_t)(pos + r) * d_k, v, d_k * sizeof(real));
        }
        for (int r = 0; r < n; r++)  // query r sees keys 0 .. pos + r: no mask needed
            mha_query_forward(kv->w + (size_t)i * m->cfg.T, kv->z + (size_t)r * d + i * d_k,
                              kv->qkv + (size_t)r * 3 * d + i * d_k, keys, m->cfg.T, values,
                              pos + r + 1, d_k);
    }
    PARALLEL_BARRIER;
    product_share(kv->out, kv->z, wt + 3 * d * d, p->out_proj_bias, n, d, d, t, nt);
}

// kv.out = the MLP of block l for the n new positions (from kv.ln, their
// LayerNorm): thread t's columns.
static void mlp_cached(gpt_model *m, int l, int n, int t, int nt) {
    const int d = m->cfg.d;
    const gpt_block *p = &m->p.blocks[l];
    const real *wt = weights_t(m, l);
    gpt_kv_cache *kv = &m->kv;
    product_share(kv->hid, kv->ln, wt + 4 * d * d, p->fc_b, n, d, 4 * d, t, nt);
    int j0, j1;  // GELU on the same columns: no thread waits for another
    share(4 * d, t, nt, &j0, &j1);
    for (int r = 0; r < n && j0 < j1; r++) {
        real *row = kv->hid + (size_t)r * 4 * d + j0;
        gelu_forward(row, row, (size_t)(j1 - j0));
    }
    PARALLEL_BARRIER;
    product_share(kv->out, kv->hid, wt + 8 * d * d, p->proj_b, n, 4 * d, d, t, nt);
}

// kv.x += kv.out, n rows.
static void add_out(gpt_kv_cache *kv, int n, int d) {
    for (size_t e = 0; e < (size_t)n * d; e++) kv->x[e] = kv->x[e] + kv->out[e];
}

const real *gpt_forward_cached(gpt_model *m, const int32_t *ids, int n) {
    const gpt_config *c = &m->cfg;
    gpt_kv_cache *kv = &m->kv;
    embedding_forward(kv->x, ids, m->p.wte, n, c->d);
    positions_forward(kv->x, m->p.wpe + (size_t)kv->len * c->d, NULL, 1, n, c->d);
    const int nt = kv->threads;
    PARALLEL_REGION(nt) {
        const int t = parallel_thread();
        for (int l = 0; l < c->L; l++) {
            const gpt_block *p = &m->p.blocks[l];
            PARALLEL_SINGLE
            layernorm_forward(kv->ln, NULL, NULL, kv->x, p->ln1_w, p->ln1_b, n, c->d);
            attention_cached(m, l, n, t, nt);
            PARALLEL_BARRIER;
            PARALLEL_SINGLE
            {
                add_out(kv, n, c->d);
                layernorm_forward(kv->ln, NULL, NULL, kv->x, p->ln2_w, p->ln2_b, n, c->d);
            }
            mlp_cached(m, l, n, t, nt);
            PARALLEL_BARRIER;
            PARALLEL_SINGLE
            add_out(kv, n, c->d);
        }
        const real *last = kv->x + (size_t)(n - 1) * c->d;  // only the last position's logits
        PARALLEL_SINGLE
        layernorm_forward(kv->ln, NULL, NULL, last, m->p.lnf_w, m->p.lnf_b, 1, c->d);
        product_share(kv->logits, kv->ln, weights_t(m, c->L), NULL, 1, c->d, c->V, t, nt);
    }
    kv->len += n;
    return kv->logits;
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

// The logits after ids[start .. n - 1] through the cache: emptied when the
// window has moved (*cache_start is where the cached window starts), then
// fed the window's positions it lacks, all in one call.
static const real *cached_logits(gpt_model *m, const int32_t *ids, int start, int n,
                                 int *cache_start) {
    if (*cache_start != start) {
        m->kv.len = 0;
        *cache_start = start;
    }
    int len = m->kv.len;
    return gpt_forward_cached(m, ids + start + len, n - start - len);
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
