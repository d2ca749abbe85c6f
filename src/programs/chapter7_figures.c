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

// The softmax model's attention over a test chunk, w (L, L), a row a
// query, into dir/name: for each position of the chunk, its word (ids, L)
// and the weight its key receives from the L queries, its column's sum
// (1 for each key under uniform rows; L in all). After the mean over the
// chunk, a word's value counts in proportion to that sum.
static int write_attention(const float *w, const int32_t *ids, int L, const vocab *v,
                           const char *dir, const char *name) {
    FILE *f = open_data_file(FIGURE_PROGRAM, dir, name);
    if (!f) return -1;
    fprintf(f, "# position word received (a key's column sum, of %d)\n", L);
    for (int j = 0; j < L; j++) {
        double received = 0;
        for (int i = 0; i < L; i++) received += w[(long)i * L + j];
        fprintf(f, "%d %s %.6f\n", j + 1, strmap_key(&v->words, (size_t)ids[j]), received);
    }
    return close_data_file(FIGURE_PROGRAM, f, dir, name) ? 0 : -1;
}

int write_figure_data(const run_result *r, const trainer_data *d, const vocab *v, size_t chunk,
                      const char *dir) {
    if (write_epoch_data(r, FIGURE_PROGRAM, dir) < 0) return -1;
    if (r->kind != MODEL_SOFTMAX_ATTENTION || !r->attention) return 0;
    char name[128];
    snprintf(name, sizeof name, "chapter7-attention-%g-%s.dat", r->lr, embeddings_word(r->frozen));
    return write_attention(r->attention, d->X_test + chunk * (size_t)d->L, d->L, v, dir, name);
}
