// chapter7_figures.c: the figure data chapter 7 writes with --data DIR:
// Zipf's counts by rank, and each trained model's numbers by epoch and, for
// the softmax model, its attention over one test chunk. See
// chapter7_figures.h.
#include "programs/chapter7_figures.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cli.h"
#include "core/strmap.h"

#define FIGURE_PROGRAM "chapter7"

// Figure data: rank, count and the coverage of the top `rank` words, at
// every rank up to 100 and then at ranks 2% apart (about 500 lines).
int write_zipf(const int64_t *sorted, size_t n, const char *dir) {
    FILE *f = open_data_file(FIGURE_PROGRAM, dir, "chapter7-zipf.dat");
    if (!f) return -1;
    fputs("# rank count coverage\n", f);
    double all = 0, kept = 0;
    for (size_t r = 0; r < n; r++) all += (double)sorted[r];
    size_t next = 1;
    for (size_t r = 1; r <= n; r++) {
        kept += (double)sorted[r - 1];
        if (r == next || r == n) {
            fprintf(f, "%zu %" PRId64 " %.6f\n", r, sorted[r - 1], kept / all);
            next = r < 100 ? r + 1 : (size_t)((double)r * 1.02) + 1;
        }
    }
    return close_data_file(FIGURE_PROGRAM, f, dir, "chapter7-zipf.dat") ? 0 : -1;
}

// The softmax model's attention over test chunk t->chunk: its (L, L)
// weights into w, and with t->dir, into t->dir/name.
static int chunk_attention(float *w, const sentiment_model *m, sentiment_acts *a, const figure_target *t,
                           const char *name) {
    int L = t->data->L;
    const int32_t *ids = t->data->X_test + t->chunk * (size_t)L;
    sentiment_forward(m, a, ids, 1);
    for (int i = 0; i < L * L; i++) w[i] = (float)a->w[i];
    if (!t->dir) return 0;
    const char **words = malloc((size_t)L * sizeof *words);
    if (!words) {
        fprintf(stderr, "%s: error: out of memory\n", FIGURE_PROGRAM);
        return -1;
    }
    for (int i = 0; i < L; i++) words[i] = strmap_key(&t->vocab->words, (size_t)ids[i]);
    bool ok = write_heatmap(FIGURE_PROGRAM, t->dir, name, w, L, L, words, words);
    free(words);
    return ok ? 0 : -1;
}

// What chapter 7 keeps of a model once trained (trainer_options.trained):
// with --data DIR, its figure data; a softmax model's attention over the
// chunk, in t->attention's slot for r when r is one of t->results.
int write_figure_data(const run_result *r, const sentiment_model *m, sentiment_acts *a,
                      void *ctx, char *err, size_t errlen) {
    const figure_target *t = ctx;
    int slot = -1;
    for (int k = 0; t->attention && k < t->n; k++)
        if (&t->results[k] == r) slot = k;
    int rc = t->dir ? write_epoch_data(r, FIGURE_PROGRAM, t->dir) : 0;
    if (rc == 0 && r->kind == MODEL_SOFTMAX_ATTENTION && (t->dir || slot >= 0)) {
        int L = t->data->L;
        float *w = malloc((size_t)L * (size_t)L * sizeof *w);
        char name[128];
        snprintf(name, sizeof name, "chapter7-attention-%g-%s.dat", r->lr, embeddings_word(r->frozen));
        if (!w) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        rc = chunk_attention(w, m, a, t, name);
        if (rc == 0 && slot >= 0) t->attention[slot] = w;
        else free(w);
    }
    if (rc < 0) snprintf(err, errlen, "cannot write the figure data into %s", t->dir);
    return rc;
}
