// chapter9_attention.c: what the trained heads of chapter 9's GPT look at
// in one sentence of the held-out novel (chapter9_attention.h).
#include "programs/chapter9_attention.h"

#include <stdlib.h>
#include <string.h>

#include "core/cli.h"
#include "core/print.h"

int attention_sentence(const int32_t *ids, size_t n, int32_t quote, int32_t newline, int max,
                       size_t *at) {
    for (size_t i = 0; i < n; i++) {
        if (ids[i] != quote || (i > 0 && (i < 2 || ids[i - 1] != newline ||
                                          ids[i - 2] != newline)))
            continue;
        size_t end = i;  // the line's newline, or the text's end
        while (end < n && ids[end] != newline && end - i <= (size_t)max) end++;
        bool blank_after = end == n || (ids[end] == newline && (end + 1 == n ||
                                                                ids[end + 1] == newline));
        if (end - i <= (size_t)max && blank_after) {
            *at = i;
            return (int)(end - i);
        }
    }
    return 0;
}

// Head (l, i)'s weights, (n, n).
static const real *head_weights(const attention_view *v, int head) {
    return v->w + (size_t)head * v->n * v->n;
}

// The last space of the sentence before place q, or -1.
static int last_space_before(const attention_view *v, int32_t space, int q) {
    for (int j = q - 1; j >= 0; j--)
        if (v->ids[j] == space) return j;
    return -1;
}

// Each head's mean weight on the five sets of keys of queries 2 .. n - 1.
static void measure_shares(attention_view *v, int32_t space) {
    const int n = v->n;
    for (int head = 0; head < v->L * v->h; head++) {
        const real *w = head_weights(v, head);
        double *share = v->share + (size_t)head * N_KEYS;
        for (int q = 2; q < n; q++) {
            const real *row = w + q * n;
            int s = last_space_before(v, space, q - 1);
            share[KEY_PREVIOUS] += row[q - 1];
            share[KEY_ITSELF] += row[q];
            for (int j = s >= 0 ? s + 1 : 1; j < q - 1; j++) share[KEY_WORD] += row[j];
            if (s >= 0) share[KEY_SPACE] += row[s];
            share[KEY_FIRST] += row[0];
        }
        for (int key = 0; key < N_KEYS; key++) share[key] /= n - 2;
    }
}

int attention_leader(const attention_view *v, int key, int except) {
    int best = -1;
    for (int head = 0; head < v->L * v->h; head++)
        if (head != except &&
            (best < 0 || v->share[head * N_KEYS + key] > v->share[best * N_KEYS + key]))
            best = head;
    return best;
}

int attention_view_make(attention_view *v, gpt_model *m, const austen_corpus *corpus, char *err,
                        size_t errlen) {
    const austen_vocab *vocab = &corpus->vocab;
    int32_t quote = austen_id(vocab, '"'), newline = austen_id(vocab, '\n');
    int32_t space = austen_id(vocab, ' ');
    memset(v, 0, sizeof *v);
    v->n = attention_sentence(austen_val_ids(corpus), corpus->n_val, quote, newline,
                              ATTN_SENTENCE_MAX, &v->at);
    if (v->n < 3 || v->n > m->cfg.T) {
        snprintf(err, errlen, "no paragraph of %s is one line of 3 to %d characters that opens "
                 "with a quotation mark", corpus->held_out, ATTN_SENTENCE_MAX);
        return -1;
    }
    memcpy(v->ids, austen_val_ids(corpus) + v->at, (size_t)v->n * sizeof *v->ids);
    v->L = m->cfg.L, v->h = m->cfg.h;
    const size_t nn = (size_t)v->n * v->n, heads = (size_t)v->L * v->h;
    v->w = malloc(heads * nn * sizeof *v->w);
    v->share = calloc(heads * N_KEYS, sizeof *v->share);
    if (!v->w || !v->share) return snprintf(err, errlen, "out of memory"), -1;
    gpt_forward(m, v->ids, NULL, 1, v->n);
    for (size_t head = 0; head < heads; head++)
        gpt_attention_weights(m, 0, (int)head / v->h, (int)head % v->h, v->w + head * nn);
    measure_shares(v, space);
    v->panel[0] = attention_leader(v, KEY_PREVIOUS, -1);
    v->panel[1] = attention_leader(v, KEY_WORD, v->panel[0]);
    return 0;
}

void attention_view_free(attention_view *v) {
    free(v->w);
    free(v->share);
    v->w = NULL;
    v->share = NULL;
}

// ------------------------------------------------------------------ printing
// Character id as UTF-8 into out (room for 5 bytes), a space as '_'.
static const char *shown(const austen_vocab *vocab, int32_t id, char *out) {
    austen_decode(vocab, out, &id, 1);
    if (strcmp(out, " ") == 0) strcpy(out, "_");
    return out;
}

static void print_sentence(FILE *f, const attention_view *v, const austen_vocab *vocab,
                           const char *novel) {
    char c[8];
    fprintf(f, "the first paragraph of %s that is one line opening with a quotation mark,\n"
               "at most %d characters (so that the figure can label each one): %zu characters\n"
               "into the novel, %d long, a space shown as _:\n",
            novel, ATTN_SENTENCE_MAX, v->at, v->n);
    for (int q = 0; q < v->n; q++) fputs(shown(vocab, v->ids[q], c), f);
    fputc('\n', f);
    for (int q = 0; q < v->n; q += 10) fprintf(f, q + 10 < v->n ? "%-10d" : "%d", q);
    fputc('\n', f);
}

static const char *const KEY_NAMES[N_KEYS] = {
    "the previous character:", "the character itself:", "the earlier letters:",
    "the last space:", "the first character:" };

static void print_shares(FILE *f, const attention_view *v) {
    fprintf(f, "each head's mean weight over queries 2 to %d on five sets of keys: the previous\n"
               "character, the character itself, the earlier letters of its word (between the\n"
               "last space and the previous character), that space, and the first character,\n"
               "the opening quote (a set a query lacks weighs 0); blocks, heads from 1\n",
            v->n - 1);
    fputs("block  head  previous  itself  earlier letters  last space  first\n", f);
    for (int head = 0; head < v->L * v->h; head++) {
        const double *s = v->share + (size_t)head * N_KEYS;
        fprintf(f, "%5d %5d %9.3f %7.3f %16.3f %11.3f %6.3f\n", head / v->h + 1,
                head % v->h + 1, s[KEY_PREVIOUS], s[KEY_ITSELF], s[KEY_WORD], s[KEY_SPACE],
                s[KEY_FIRST]);
    }
    for (int key = 0; key < N_KEYS; key++) {
        int head = attention_leader(v, key, -1);
        fprintf(f, "most on %-24s block %d, head %d (%.3f)\n", KEY_NAMES[key], head / v->h + 1,
                head % v->h + 1, v->share[head * N_KEYS + key]);
    }
}

// The three largest weights of query q of head `head`: key, character, weight.
static void print_top3(FILE *f, const attention_view *v, const austen_vocab *vocab, int head,
                       int q) {
    const real *w = head_weights(v, head) + (size_t)q * v->n;
    bool taken[ATTN_SENTENCE_MAX] = { false };
    char c[8];
    fprintf(f, "block %d, head %d  %5d %s  ", head / v->h + 1, head % v->h + 1, q,
            shown(vocab, v->ids[q], c));
    for (int k = 0; k < 3 && k <= q; k++) {
        int best = -1;
        for (int j = 0; j <= q; j++)
            if (!taken[j] && (best < 0 || w[j] > w[best])) best = j;
        taken[best] = true;
        fprintf(f, "%4d %s %.3f", best, shown(vocab, v->ids[best], c), (double)w[best]);
    }
    fputc('\n', f);
}

int attention_distance(const attention_view *v, int head, int *count) {
    int seen[ATTN_SENTENCE_MAX] = { 0 }, best = 0;
    for (int q = 2; q < v->n; q++) {
        const real *row = head_weights(v, head) + (size_t)q * v->n;
        int top = 0;
        for (int j = 1; j <= q; j++)
            if (row[j] > row[top]) top = j;
        seen[q - top]++;
    }
    for (int back = 1; back < v->n; back++)
        if (seen[back] > seen[best]) best = back;
    *count = seen[best];
    return best;
}

void attention_print(FILE *f, const attention_view *v, const austen_vocab *vocab,
                     const char *title_novel, const char *label) {
    print_cell(f, label, "attention: what the trained heads look at in one held-out sentence");
    print_sentence(f, v, vocab, title_novel);
    print_shares(f, v);
    const int a = v->panel[0], b = v->panel[1];
    fprintf(f, "the figure draws block %d, head %d (most on the previous character) and\n"
               "block %d, head %d (of the others, most on the earlier letters); their three\n"
               "largest weights at four queries (place, character; keys: place, character,\n"
               "weight):\n",
            a / v->h + 1, a % v->h + 1, b / v->h + 1, b % v->h + 1);
    for (int p = 0; p < ATTN_PANELS; p++)
        for (int k = 1; k <= 4; k++) print_top3(f, v, vocab, v->panel[p], k * (v->n - 1) / 4);
    for (int p = 0; p < ATTN_PANELS; p++) {
        int count, back = attention_distance(v, v->panel[p], &count);
        fprintf(f, "block %d, head %d: the largest weight is %d place%s back at %d of the %d "
                   "queries\n", v->panel[p] / v->h + 1, v->panel[p] % v->h + 1, back,
                back == 1 ? "" : "s", count, v->n - 2);
    }
}

// ------------------------------------------------------------------ figure data
// The label of place q: its character, a space as an open box, a quotation
// mark as an opening one at the start or after a space, else a closing one.
static const char *label_of(const attention_view *v, const austen_vocab *vocab, int q, char *out) {
    int32_t space = austen_id(vocab, ' ');
    austen_decode(vocab, out, &v->ids[q], 1);
    if (v->ids[q] == space) strcpy(out, "\u2423");
    else if (strcmp(out, "\"") == 0)
        strcpy(out, q == 0 || v->ids[q - 1] == space ? "\u201c" : "\u201d");
    return out;
}

bool attention_write_data(const attention_view *v, const austen_vocab *vocab,
                          const char *program, const char *dir) {
    const int n = v->n;
    char labels[ATTN_SENTENCE_MAX][8];
    const char *names[ATTN_SENTENCE_MAX];
    for (int q = 0; q < n; q++) names[q] = label_of(v, vocab, q, labels[q]);
    float w[ATTN_SENTENCE_MAX * ATTN_SENTENCE_MAX];
    for (int p = 0; p < ATTN_PANELS; p++) {
        const real *from = head_weights(v, v->panel[p]);
        for (int e = 0; e < n * n; e++) w[e] = (float)from[e];
        char name[64];
        snprintf(name, sizeof name, "chapter9-attention-%d.dat", p + 1);
        if (!write_heatmap(program, dir, name, w, n, n, names, names)) return false;
    }
    const char *name = "chapter9-attention-heads.dat";
    FILE *f = open_data_file(program, dir, name);
    if (!f) return false;
    fputs("# the figure's panels: block and head (from 1), and how many places back its\n"
          "# largest weight most often sits; the first has the largest mean weight on the\n"
          "# previous character, the second, of the others, on the earlier letters of the\n"
          "# query's word\n",
          f);
    for (int p = 0; p < ATTN_PANELS; p++) {
        int count;
        fprintf(f, "%d %d %d\n", v->panel[p] / v->h + 1, v->panel[p] % v->h + 1,
                attention_distance(v, v->panel[p], &count));
    }
    return close_data_file(program, f, dir, name);
}
