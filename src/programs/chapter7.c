// chapter7.c: Sentiment on IMDb: the data pipeline of the notebook "How and
// Why does Self Attention Work?", cells [H60] to [H69] and [H136], and its
// models and training loop, cells [H142] and [H141].
//
//   [H60] load the 50,000 reviews, split them into train and test
//   [H62] five sample reviews with their labels
//   [H63] Punkt's English parameters (the notebook's nltk.download('punkt'))
//   [H64] clean_paragraph and word_tokenize every review; count train tokens
//   [H65] the vocabulary: the 10,000 most frequent tokens + <UNK> + <PAD>
//   [H67] the GloVe vectors
//   [H136] cosine similarity of "excellent" and "terrible"
//   [H68] the embedding matrix
//   [H69] chunks of 32 token ids
//   [H142] the models: the baseline, the notebook's attention, softmax attention
//   [H141] the training loop, one line per epoch, evaluated on the test set
//   [P7.1] the results of every run in one table (not in the notebook, whose
//         training was interrupted before it printed anything)
//
// Sizes: V vocabulary (10,002), d embedding width (100), L chunk length
// (32), C chunks, B batch (64), d_k width of queries, keys and values (32).
//
// The data pipeline is the IMDb task's (tasks/imdb_task.h): each cell
// below runs one of its stages and prints what the notebook printed. The
// program around the cells, its command line, modes and main, is
// chapter7_main.c, its figure data chapter7_figures.c; what they share,
// chapter7.h.
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/print.h"
#include "core/strmap.h"
#include "programs/chapter7.h"
#include "text/clean.h"
#include "text/glove.h"
#include "text/tokenize_documents.h"

void ch7_free(ch7_state *s) {
    imdb_task_free(&s->imdb);
    memset(s, 0, sizeof *s);
}

// Each cell_N function below runs one cell of the notebook (a stage of
// the IMDb task) and prints its block to out. They return 0, or -1 with
// the reason in err.

// [H60] the reviews and the split
static int cell_60_split(imdb_task *s, const ch7_options *o, FILE *out, char *err, size_t errlen) {
    size_t half = IMDB_REVIEWS / 2;
    if (imdb_task_split(s, o->imdb_path, err, errlen) < 0) return -1;
    print_cell(out, "H60", "split into train and test");
    fprintf(out, "%zu %zu\n", half, half);
    return 0;
}

// [H62] the first five training reviews with their labels (the notebook shows
// them whole; we show their first 300 bytes)
static int cell_62_samples(const imdb_task *s, FILE *out, char *err, size_t errlen) {
    print_cell(out, "H62", "five sample reviews");
    for (size_t i = 0; i < 5; i++) {
        size_t r = s->train[i], n = s->reviews.len[r] < 300 ? s->reviews.len[r] : 300;
        const char *text = s->reviews.arena + s->reviews.off[r];
        while (n > 0 && n < s->reviews.len[r] && (text[n] & 0xc0) == 0x80) n--;  // whole characters
        size_t blen = n + 32;
        char *excerpt = strndup(text, n), *line = excerpt ? malloc(blen) : NULL;
        if (!line) {
            free(excerpt);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (char *p = excerpt; *p; p++)
            if (*p == '\n' || *p == '\t' || *p == '\r') *p = ' ';
        snprintf(line, blen, "[%s] %s%s", s->reviews.label[r] == 1 ? "Positive" : "Negative",
                 excerpt, n < s->reviews.len[r] ? " ..." : "");
        print_wrapped(out, line, 88, 0);
        free(line);
        free(excerpt);
    }
    return 0;
}

// [H63] Punkt's parameters
static int cell_63_punkt(imdb_task *s, FILE *out, char *err, size_t errlen) {
    const char *where = s->punkt_where;
    if (imdb_task_tokenizer(s, err, errlen) < 0) return -1;
    print_cell(out, "H63", "Punkt's English parameters");
    if (s->params) {
        size_t a, c, st, or;
        punkt_sizes(s->params, &a, &c, &st, &or);
        if (strcmp(where, PUNKT_DEBIAN_JSON) == 0)
            fprintf(out, "from Debian's %s (english.json):\n", PUNKT_DEBIAN_PACKAGE);
        else
            // where is this machine's folder: the output names only the
            // files, which are the same wherever NLTK's data lives
            fprintf(out, "from NLTK's data (tokenizers/punkt_tab/english):\n");
        fprintf(out, "%zu abbreviations, %zu collocations, %zu sentence starters,\n"
                     "%zu words with orthographic context\n", a, c, st, or);
    } else {
        fprintf(out, "fallback: %s;\nsplitting sentences with Punkt's rules alone (no learned parameters)\n", where);
        fprintf(stderr, "%s: note: Punkt parameters not found, falling back to Punkt without learned parameters\n", PROGRAM);
    }
    return 0;
}

// [H64] clean and tokenize every review, and show it on the first one
static int cell_64_tokens(imdb_task *s, FILE *out, char *err, size_t errlen) {
    size_t half = IMDB_REVIEWS / 2;
    if (imdb_task_tokenize(s, err, errlen) < 0) return -1;
    print_cell(out, "H64", "clean_paragraph and word_tokenize");
    size_t first = s->train[0];
    const char *text = s->reviews.arena + s->reviews.off[first];
    size_t n = s->reviews.len[first] < 160 ? s->reviews.len[first] : 160;
    while (n > 0 && (text[n] & 0xc0) == 0x80) n--;  // whole characters
    char *excerpt = strndup(text, n);
    size_t clen;
    char *clean = excerpt ? clean_paragraph(excerpt, n, &clen) : NULL;
    token_list toks;
    token_list_init(&toks);
    if (!clean || word_tokenize(s->tok, clean, clen, &toks) < 0) {
        free(excerpt);
        free(clean);
        token_list_free(&toks);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    fprintf(out, "the first training review, its first %zu bytes:\n", n);
    print_wrapped(out, excerpt, 76, 2);
    fputs("clean_paragraph:\n", out);
    print_wrapped(out, clean, 76, 2);
    fputs("word_tokenize:\n", out);
    size_t blen = 0;
    for (size_t i = 0; i < toks.n; i++) blen += strlen(token_at(&toks, i)) + 5;
    char *line = malloc(blen + 3), *p = line;
    bool listed = line != NULL;
    if (line) {
        *p++ = '[';
        for (size_t i = 0; i < toks.n; i++) p += sprintf(p, "%s'%s'", i ? ", " : "", token_at(&toks, i));
        *p++ = ']';
        *p = '\0';
        print_wrapped(out, line, 76, 2);
    }
    free(line);
    free(excerpt);
    free(clean);
    token_list_free(&toks);
    uint64_t digest;
    if (!listed || reviews_token_digest(&digest, &s->corpus, s->train, half, s->test, half) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t train_tokens = s->corpus.doc_start[half], test_tokens = s->corpus.nids - train_tokens, distinct = 0;
    for (size_t i = 0; i < s->corpus.types.n; i++) distinct += s->corpus.count[i] > 0;
    fprintf(out, "train: %zu tokens, %zu distinct\n", train_tokens, distinct);
    fprintf(out, "test: %zu tokens\n", test_tokens);
    fprintf(out, "digest of all 50000 reviews' tokens (FNV-1a 64 of the --tokenize output): %016" PRIx64 "\n",
            digest);
    fprintf(out, "(tokenizing the 50000 reviews took %.1f s here)\n", s->tokenize_seconds);
    return 0;
}

// [H65] the vocabulary
static int cell_65_vocab(imdb_task *s, const ch7_options *o, FILE *out, char *err, size_t errlen) {
    if (imdb_task_vocab(s, err, errlen) < 0) return -1;
    print_cell(out, "H65", "the vocabulary");
    size_t V = s->vocab.words.n;
    fprintf(out, "len(vocab) = %zu\nvocab[:10] = ", V);
    print_words(out, &s->vocab.words, 0, V < 10 ? V : 10);
    fprintf(out, "vocab[-4:] = ");
    print_words(out, &s->vocab.words, V < 4 ? 0 : V - 4, V);
    if (V > 2) {  // the tie at the cut: which of the equally frequent words got in
        long last = strmap_find(&s->corpus.types, strmap_key(&s->vocab.words, V - 3), strmap_key_len(&s->vocab.words, V - 3));
        int64_t c = last >= 0 ? s->corpus.count[last] : 0;
        size_t tied = 0, in = 0;
        for (size_t i = 0; i < s->corpus.types.n; i++) {
            if (s->corpus.count[i] != c) continue;
            tied++;
            in += s->vocab.of_type[i] != s->vocab.unk;
        }
        fprintf(out, "the last word kept occurs %" PRId64 " times; %zu of the %zu words with that count\n"
                     "are kept: the first seen\n", c, in, tied);
    }
    size_t ntypes = 0;
    int64_t *by_rank = counts_by_rank(&s->corpus, &ntypes);
    if (!by_rank) { snprintf(err, errlen, "out of memory"); return -1; }
    fprintf(out, "the %d most frequent words cover %.1f%% of the training tokens\n",
            VOCAB_SIZE, 100.0 * coverage(by_rank, ntypes, VOCAB_SIZE));
    // the two ends of the Zipf figure: the few words that make up much of
    // the text, and the many that occur a handful of times
    size_t rare = 0;
    for (size_t r = 0; r < ntypes; r++) rare += by_rank[r] <= RARE_COUNT;
    fprintf(out, "the %d most frequent cover %.1f%%; %zu of the %zu distinct words occur %d times or fewer\n",
            FEW_WORDS, 100.0 * coverage(by_rank, ntypes, FEW_WORDS), rare, ntypes, RARE_COUNT);
    int zipf_status = o->data_dir ? write_zipf(by_rank, ntypes, o->data_dir) : 0;
    free(by_rank);
    if (zipf_status < 0) { snprintf(err, errlen, "cannot write the figure data into %s", o->data_dir); return -1; }
    return 0;
}

// [H67] GloVe: only the vectors we need are kept, the vocabulary's and
// the two words of [H136], whose vectors go to cosine_words (2, d) and
// whether the file has them to found; [H68] the embedding matrix
static int cell_67_glove(imdb_task *s, const ch7_options *o, float *cosine_words, bool *found,
                         FILE *out, char *err, size_t errlen) {
    const char *words[2] = {"excellent", "terrible"};
    if (imdb_task_vectors(s, o->glove_path, words, 2, cosine_words, found, err, errlen) < 0)
        return -1;
    print_cell(out, "H67", "load the GloVe vectors");
    fprintf(out, "%zu lines read, %d numbers a word\n", s->glove_words, EMBED_DIM);
    return 0;
}

// [H136] cosine similarity of the two words, w (2, d)
static int cell_136_cosine(ch7_state *s, const ch7_options *o, const float *w, const bool *found,
                           FILE *out, char *err, size_t errlen) {
    if (!found[0] || !found[1]) {
        snprintf(err, errlen, "%s: no vector for \"excellent\" or \"terrible\"", o->glove_path);
        return -1;
    }
    print_cell(out, "H136", "cosine similarity");
    s->cosine = cosine_similarity(w, w + EMBED_DIM, EMBED_DIM);
    char repr[40];  // Python's repr() of the float32 value, as numpy prints it after float()
    format_shortest(repr, sizeof repr, s->cosine);
    fprintf(out, "Cosine Similarity: %s\n", repr);
    return 0;
}

// [H68] the embedding matrix (imdb_task.c:embedding-matrix)
static void cell_68_embedding(const imdb_task *s, FILE *out) {
    size_t V = s->vocab.words.n;
    print_cell(out, "H68", "the embedding matrix");
    fprintf(out, "(%zu, %d)\n", V, EMBED_DIM);
    fprintf(out, "%zu rows are zeros: no GloVe vector for ", s->rows_without_vector);
    int shown = 0;
    for (size_t i = 0; i < V && shown < 6; i++) {
        bool zero = true;
        for (int k = 0; k < EMBED_DIM && zero; k++) zero = s->embedding[i * EMBED_DIM + k] == 0;
        if (zero) fprintf(out, "%s'%s'", shown++ ? ", " : "", strmap_key(&s->vocab.words, i));
    }
    fputs(", ...\n", out);
}

// [H69] chunks, each test chunk knowing its review
static int cell_69_chunks(imdb_task *s, FILE *out, char *err, size_t errlen) {
    if (imdb_task_chunks(s, err, errlen) < 0) return -1;
    print_cell(out, "H69", "chunks of 32 token ids");
    fprintf(out, "(%zu, %d) (%zu,)\n", s->data.n_train, SEQUENCE_LENGTH, s->data.n_train);
    fprintf(out, "(%zu, %d) (%zu,)\n", s->data.n_test, SEQUENCE_LENGTH, s->data.n_test);
    if (!s->params)
        fprintf(out, "fallback tokenizer: %+ld train and %+ld test chunks from the documented 214588 and 210023\n",
                (long)s->data.n_train - 214588L, (long)s->data.n_test - 210023L);
    return 0;
}

// The whole data pipeline, cell by cell. Returns 0, or -1 with the reason
// in err.
int run_pipeline(ch7_state *s, const ch7_options *o, FILE *out, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    imdb_task *t = &s->imdb;
    imdb_task_init(t);
    fputs("[H60]-[H142]: cells of the notebook \"How and Why does Self Attention Work?\" (H),\n"
          "in the order it runs them; [P7.1]: this program's own block.\n", out);
    float words[2 * EMBED_DIM];  // [H136]'s two words
    bool found[2];
    if (cell_60_split(t, o, out, err, errlen) < 0 || cell_62_samples(t, out, err, errlen) < 0 ||
        cell_63_punkt(t, out, err, errlen) < 0 || cell_64_tokens(t, out, err, errlen) < 0 ||
        cell_65_vocab(t, o, out, err, errlen) < 0 ||
        cell_67_glove(t, o, words, found, out, err, errlen) < 0 ||
        cell_136_cosine(s, o, words, found, out, err, errlen) < 0)
        return -1;
    cell_68_embedding(t, out);
    return cell_69_chunks(t, out, err, errlen);
}

// ---------------------------------------------------------------- training

// [H142] the models: what each one is and how many numbers it learns
void cell_142_models(const ch7_state *s, const ch7_options *o, FILE *out) {
    print_cell(out, "H142", "the models");
    int V = (int)s->imdb.vocab.words.n;
    size_t embedding = (size_t)V * EMBED_DIM;
    for (int kind = 0; kind < MODEL_KINDS; kind++) {
        bool used = false;
        for (int r = 0; r < o->nruns; r++) used |= o->runs[r].models[kind];
        if (!used) continue;
        size_t n = sentiment_param_count((model_kind)kind, V, EMBED_DIM, ATTENTION_DIM);
        fprintf(out, "%-18s %9zu parameters: embedding (%d, %d) %zu, the rest %zu\n", model_name((model_kind)kind),
                n, V, EMBED_DIM, embedding, n - embedding);
    }
}

// The first test chunk without <PAD> or <UNK>: the one whose attention the
// attention figure (07-attention) shows.
size_t heatmap_chunk(const ch7_state *s) {
    for (size_t c = 0; c < s->imdb.data.n_test; c++) {
        bool plain = true;
        for (int t = 0; t < SEQUENCE_LENGTH && plain; t++) {
            int32_t id = s->imdb.data.X_test[c * SEQUENCE_LENGTH + t];
            plain = id != s->imdb.vocab.pad && id != s->imdb.vocab.unk;
        }
        if (plain) return c;
    }
    return 0;
}

//> broadcast-loss
// The notebook's loss as written: its logits are (B, 1), nn.Dense(1)'s output,
// and its labels (B,), so optax.sigmoid_binary_cross_entropy(logits,
// labels) broadcasts them to (B, B): every logit is scored against every
// label of the batch. Returns the mean over those B * B pairs.
static double broadcast_bce(const float *z, const int32_t *y, int B) {
    double sum = 0;
    for (int i = 0; i < B; i++)      // logits[i, 0]
        for (int j = 0; j < B; j++)  // labels[j]
            sum += fmax(z[i], 0) - z[i] * y[j] + log1p(exp(-fabs(z[i])));
    return sum / ((double)B * B);
}
//< broadcast-loss

// How many distinct words the batches of an epoch hold, on average, and
// the fewest and the most: the rows the attention models project, listed
// by the models' own sentiment_batch_words. perm orders the pool's chunks
// as the epoch draws them; m and a are any model's. Says nothing when
// there is no whole batch.
static void show_batch_words(sentiment_model *m, const trainer_data *d, const int64_t *perm,
                             FILE *out) {
    int32_t X[BATCH_SIZE * SEQUENCE_LENGTH], Y[BATCH_SIZE];
    size_t batches = d->n_pool / BATCH_SIZE, total = 0;
    int fewest = 0, most = 0;
    if (batches == 0) return;
    for (size_t step = 0; step < batches; step++) {
        gather_batch(X, Y, d, perm, step, BATCH_SIZE);
        int words = sentiment_batch_words(m, X, BATCH_SIZE * SEQUENCE_LENGTH);
        total += (size_t)words;
        if (step == 0 || words < fewest) fewest = words;
        if (step == 0 || words > most) most = words;
    }
    fprintf(out, "the first epoch's batches of %d tokens hold %d to %d distinct words, "
            "%.0f on average\n", BATCH_SIZE * SEQUENCE_LENGTH, fewest, most,
            (double)total / (double)batches);
}

// What the broadcast does, shown on the first batch of the first model,
// built as the trainer builds it (opts); and the words of the first
// epoch's batches.
static int show_broadcast(const ch7_state *s, const trainer_options *opts, model_kind kind,
                          FILE *out) {
    int B = BATCH_SIZE;
    torch_rng g;
    sentiment_model m;
    size_t n_pool = s->imdb.data.n_pool;
    int64_t *perm = malloc((n_pool ? n_pool : 1) * sizeof *perm);
    run_result r = {.kind = kind};
    if (!perm || trainer_model(&m, &g, &r, opts, SEQUENCE_LENGTH) < 0) {
        free(perm);
        return -1;
    }
    rng_randperm(&g, perm, n_pool);  // as the first epoch draws it
    int32_t X[BATCH_SIZE * SEQUENCE_LENGTH], Y[BATCH_SIZE];
    float z[BATCH_SIZE];
    double share = 0, per_chunk = 0, against_share = 0;
    gather_batch(X, Y, &s->imdb.data, perm, 0, B);
    for (int b = 0; b < B; b++) share += Y[b] / (double)B;
    sentiment_forward(&m, X, B);
    for (int b = 0; b < B; b++) {
        z[b] = (float)m.a.z[b];
        double softplus = log1p(exp(-fabs(z[b]))) + fmax(z[b], 0);  // log(1 + e^z)
        per_chunk += (softplus - z[b] * Y[b]) / B;
        against_share += (softplus - z[b] * share) / B;
    }
    fprintf(out, "the loss of the untrained %s on the first batch:\n", model_name(kind));
    fprintf(out, "  the notebook's, logits (64, 1) against labels (64,), broadcast to (64, 64): %.6f\n",
            broadcast_bce(z, Y, B));
    fprintf(out, "  each logit against the batch's share of positive labels (%.4f):        %.6f\n",
            share, against_share);
    fprintf(out, "  each logit against its own chunk's label, as trained here:               %.6f\n",
            per_chunk);
    show_batch_words(&m, &s->imdb.data, perm, out);
    sentiment_free(&m);
    free(perm);
    return 0;
}

// How chapter 7 trains: the notebook's batch, the models' sizes, the
// progress lines on stderr, the attention over the figure's chunk kept.
static trainer_options training_options(const ch7_state *s, const ch7_options *o) {
    const trainer_data *d = &s->imdb.data;
    return (trainer_options){.epochs = o->epochs, .B = BATCH_SIZE, .seed = o->seed,
                             .embedding = s->imdb.embedding, .V = (int)s->imdb.vocab.words.n,
                             .d = EMBED_DIM, .d_k = ATTENTION_DIM, .progress = stderr,
                             .probe = d->X_test + heatmap_chunk(s) * SEQUENCE_LENGTH,
                             .lr_option = "--lr", .lr_min = LR_MIN};
}

// [H141] every run of o: its models, each trained on its own, side by side
// (train_models), printed in the order of the runs; then, with --data,
// their figure data. The training pool is chosen here, once for them all.
// results gets one entry per model trained; *nresults how many.
int cell_141_training(run_result *results, int *nresults, ch7_state *s,
                      const ch7_options *o, FILE *out, char *err, size_t errlen) {
    trainer_data *d = &s->imdb.data;
    // the trainer and show_broadcast's first batch need one whole batch
    if (d->n_train < BATCH_SIZE) {
        snprintf(err, errlen, "%s: the training reviews give %zu chunks of %d tokens; training "
                 "needs at least %d, one batch", o->imdb_path, d->n_train, SEQUENCE_LENGTH, BATCH_SIZE);
        return -1;
    }
    d->pool = training_pool(&d->n_pool, d->n_train, o->limit);
    if (!d->pool) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    print_cell(out, "H141", "training");
    fprintf(out, "command: %s\n", o->command);
    if (d->n_pool < d->n_train || o->epochs < NUM_EPOCHS)
        fprintf(out, "A SHORT RUN: %zu of the %zu training chunks, %ld epoch%s (the notebook: all, %d)\n",
                d->n_pool, d->n_train, o->epochs, o->epochs == 1 ? "" : "s", NUM_EPOCHS);
    fprintf(out, "batch %d, %zu steps an epoch, seed %" PRIu64 "; after each epoch, the test accuracy\n"
                 "per chunk and per review\n", BATCH_SIZE, d->n_pool / BATCH_SIZE, o->seed);
    if (d->scored > 0 && d->reviews % d->scored == 0)
        fprintf(out, "A SHORT TEST: %zu of the %zu test reviews (one in %zu), their %zu chunks\n",
                d->scored, d->reviews, d->reviews / d->scored, d->n_test);
    else if (d->scored > 0)
        fprintf(out, "A SHORT TEST: %zu of the %zu test reviews (spread evenly, one in %.2f), "
                "their %zu chunks\n", d->scored, d->reviews, (double)d->reviews / (double)d->scored,
                d->n_test);
    trainer_options opts = training_options(s, o);
    int n = 0;
    for (int r = 0; r < o->nruns; r++)
        for (int kind = 0; kind < MODEL_KINDS; kind++)
            if (o->runs[r].models[kind])
                results[n++] = (run_result){.kind = (model_kind)kind, .lr = o->runs[r].lr,
                                            .frozen = o->runs[r].frozen};
    *nresults = n;
    if (n > 0 && show_broadcast(s, &opts, results[0].kind, out) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    fflush(out);
    if (train_models(results, n, d, &opts, out, err, errlen) < 0) return -1;
    for (int i = 0; i < n && o->data_dir; i++)
        if (write_figure_data(&results[i], d, &s->imdb.vocab, heatmap_chunk(s), o->data_dir) < 0) {
            snprintf(err, errlen, "cannot write the figure data into %s", o->data_dir);
            return -1;
        }
    return 0;
}

// Appends word to a list on out: after a space when it is the first, else
// after ", ", or after ",", a line break and an indent when the line would
// run past LIST_LINE characters; *col is the column the line has reached.
static void list_word(FILE *out, const char *word, bool first, int *col) {
    int len = (int)strlen(word);
    if (first) *col += fprintf(out, " %s", word);
    else if (*col + 2 + len <= LIST_LINE) *col += fprintf(out, ", %s", word);
    else *col = fprintf(out, ",\n    %s", word) - 2;
}

// What a softmax model attends to in the figure's chunk c, from its
// weights w (L, L), a row a query: the keys whose columns sum highest (the
// weight the L queries give each, L in all), the mean weight of a word on
// itself against a uniform row's 1/L, and the queries that put nearly all
// of their weight on one key.
static void show_attended_keys(const run_result *r, const float *w, const ch7_state *s, size_t c,
                               FILE *out) {
    enum { L = SEQUENCE_LENGTH };
    const int32_t *ids = s->imdb.data.X_test + c * L;
    double received[L] = {0}, self = 0;
    bool taken[L] = {false};
    for (int i = 0; i < L; i++) {
        self += w[i * L + i] / (double)L;
        for (int j = 0; j < L; j++) received[j] += w[i * L + j];
    }
    fprintf(out, "%s, lr %g, embeddings %s, on that chunk:\n", model_name(r->kind), r->lr,
            embeddings_word(r->frozen));
    char item[160];
    int col = fprintf(out, "  most weight received (a key's column sum, of %d):", L);
    for (int k = 0; k < TOP_KEYS; k++) {
        int best = -1;  // the largest sum not yet listed, the first of a tie
        for (int j = 0; j < L; j++)
            if (!taken[j] && (best < 0 || received[j] > received[best])) best = j;
        taken[best] = true;
        snprintf(item, sizeof item, "\"%s\" %.2f", strmap_key(&s->imdb.vocab.words, (size_t)ids[best]),
                 received[best]);
        list_word(out, item, k == 0, &col);
    }
    fprintf(out, "\n  a word's weight on itself, on average: %.3f, %s a uniform row's 1/%d = %.3f\n",
            self, self < 1.0 / L ? "below" : "not below", L, 1.0 / L);
    int listed = 0;
    col = fprintf(out, "  queries with %.2f or more on one key:", ONE_KEY_WEIGHT);
    for (int i = 0; i < L; i++)
        for (int j = 0; j < L; j++)
            if (w[i * L + j] >= ONE_KEY_WEIGHT) {
                snprintf(item, sizeof item, "%s > %s", strmap_key(&s->imdb.vocab.words, (size_t)ids[i]),
                         strmap_key(&s->imdb.vocab.words, (size_t)ids[j]));
                list_word(out, item, listed++ == 0, &col);
            }
    fputs(listed ? "\n" : " none\n", out);
}

// [P7.1] the results of every model trained, one line each: the first
// epoch, the best epoch (by chunk accuracy) and the last; then what each
// softmax model attends to in the figure's chunk.
void print_results_block(const run_result *results, int n, const ch7_state *s, FILE *out) {
    print_cell(out, "P7.1", "results");
    int w = 7;  // the loss column: as wide as the widest loss and a space
    for (int i = 0; i < n; i++)
        if (results[i].epochs > 0) {
            int x = snprintf(NULL, 0, "%.4f", results[i].per_epoch[results[i].epochs - 1].train_loss) + 1;
            if (x > w) w = x;
        }
    fprintf(out, "%33s|%-*s|   test chunks    |   test reviews\n", "", w + 10, "  last epoch's");
    fprintf(out, "model              embedding lr  |%*s  accuracy | best  (ep)  last | best  (ep)  last\n",
            w - 1, "loss");
    for (int i = 0; i < n; i++) {
        const run_result *r = &results[i];
        if (r->epochs == 0) continue;
        const epoch_result *e = r->per_epoch, *last = &e[r->epochs - 1];
        long best = best_epoch(r, false), best_r = best_epoch(r, true);
        fprintf(out, "%-18s %-7s %-5g | %*.4f  %.4f | %.3f (%2ld) %.3f | %.3f (%2ld) %.3f\n",
                model_name(r->kind), embeddings_word(r->frozen), r->lr, w, last->train_loss,
                last->train_accuracy, e[best].chunk_accuracy, best + 1, last->chunk_accuracy,
                e[best_r].review_accuracy, best_r + 1, last->review_accuracy);
    }
    // attention against the baseline of the same run, in points (1/100)
    for (int i = 0; i < n; i++) {
        const run_result *att = &results[i], *base = NULL;
        for (int j = 0; j < n && att->kind != MODEL_BASELINE; j++)
            if (results[j].kind == MODEL_BASELINE && results[j].lr == att->lr && results[j].frozen == att->frozen)
                base = &results[j];
        if (!base || att->epochs == 0 || base->epochs == 0) continue;
        const epoch_result *ea = att->per_epoch, *eb = base->per_epoch;
        long la = att->epochs - 1, lb = base->epochs - 1;
        fprintf(out, "%s minus baseline (lr %g, embeddings %s), in points:\n"
                     "  chunks %+.1f (best epochs), %+.1f (last); reviews %+.1f (best), %+.1f (last)\n",
                model_name(att->kind), att->lr, embeddings_word(att->frozen),
                100 * (ea[best_epoch(att, false)].chunk_accuracy - eb[best_epoch(base, false)].chunk_accuracy),
                100 * (ea[la].chunk_accuracy - eb[lb].chunk_accuracy),
                100 * (ea[best_epoch(att, true)].review_accuracy - eb[best_epoch(base, true)].review_accuracy),
                100 * (ea[la].review_accuracy - eb[lb].review_accuracy));
    }
    bool softmax = false;
    for (int i = 0; i < n; i++) softmax |= results[i].kind == MODEL_SOFTMAX_ATTENTION;
    if (!softmax) return;
    size_t c = heatmap_chunk(s);
    fprintf(out, "(the attention figure shows the first test chunk without padding or unknown"
                 " words:\n test chunk %zu, of review %d, both counted from 0, a %s one)\n", c,
            s->imdb.data.test_review[c], s->imdb.data.Y_test[c] == 1 ? "positive" : "negative");
    for (int i = 0; i < n; i++)
        if (results[i].kind == MODEL_SOFTMAX_ATTENTION && results[i].attention)
            show_attended_keys(&results[i], results[i].attention, s, c, out);
}

