// text.c: clean_paragraph, Punkt sentence splitting and the NLTK word
// tokenizer, written from their documented behaviour (NLTK's API
// documentation, the Penn Treebank tokenizer conventions, and Kiss and
// Strunk 2006) and checked token for token against NLTK 3.8 on the 50,000
// IMDb reviews (tests/reference/nltk_golden.py).
//
// Sizes: len is a text's length in bytes; n a count of tokens or sentences.
#define _POSIX_C_SOURCE 200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text.h"

#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strmap.h"

// ---------------------------------------------------------------- Unicode
//> py-isspace
// Python's str.isspace(), which is also what \s matches in a str pattern and
// where str.split() splits: more than C's isspace() knows about.
bool py_isspace(uint32_t cp) {
    if (cp < 0x80)
        return cp == ' ' || (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f);
    return cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202f || cp == 0x205f || cp == 0x3000;
}
//< py-isspace

// The same set as a regular-expression class body, for PCRE2 in UTF mode.
#define PYSPACE "\\t\\n\\x{0b}\\x{0c}\\r\\x{1c}-\\x{1f} \\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"
#define S "[" PYSPACE "]"
#define NS "[^" PYSPACE "]"

int utf8_decode(const char *str, size_t len, uint32_t *cp) {
    const unsigned char *s = (const unsigned char *)str;
    if (len == 0) { *cp = 0xfffd; return 1; }
    unsigned c = s[0];
    if (c < 0x80) { *cp = c; return 1; }
    int n;
    uint32_t v, min;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; v = c & 0x1f; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; v = c & 0x0f; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; v = c & 0x07; min = 0x10000; }
    else { *cp = 0xfffd; return 1; }
    if ((size_t)n > len) { *cp = 0xfffd; return 1; }
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) { *cp = 0xfffd; return 1; }
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) { *cp = 0xfffd; return 1; }
    *cp = v;
    return n;
}

static size_t utf8_encode(char *out, uint32_t cp) {
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xc0 | (cp >> 6)); o[1] = (unsigned char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | (cp >> 12)); o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f)); return 3;
    }
    o[0] = (unsigned char)(0xf0 | (cp >> 18)); o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

// True if s is valid UTF-8 (what PCRE2 needs before we skip its own check).
static bool utf8_valid(const char *s, size_t len) {
    for (size_t i = 0; i < len;) {
        if ((unsigned char)s[i] < 0x80) { i++; continue; }
        uint32_t cp;
        int k = utf8_decode(s + i, len - i, &cp);
        if (cp == 0xfffd && !(k == 3 && (unsigned char)s[i] == 0xef)) return false;
        i += (size_t)k;
    }
    return true;
}

// Python's str.lower() for the scripts Punkt's type lookups can meet in
// practice (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic, the Kelvin
// and Angstrom signs); other code points are left alone. On clean_paragraph's
// output, which is ASCII apart from whitespace, this is exact. (clean_paragraph's own lower-casing is exact: it
// only has to know which characters become a-z.)
static uint32_t py_lower(uint32_t c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c < 0xc0) return c;
    if (c <= 0xde) return c == 0xd7 ? c : c + 32;
    if (c >= 0x100 && c <= 0x17f) {
        if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e)) return (c & 1) ? c + 1 : c;
        if (c == 0x178) return 0xff;
        if (c == 0x138 || c == 0x149 || c == 0x17f) return c;
        return (c & 1) ? c : c + 1;
    }
    if (c == 0x212a) return 'k';   // KELVIN SIGN
    if (c == 0x212b) return 0xe5;  // ANGSTROM SIGN
    if (c >= 0x391 && c <= 0x3ab && c != 0x3a2) return c + 32;
    if (c >= 0x410 && c <= 0x42f) return c + 32;
    if (c >= 0x400 && c <= 0x40f) return c + 80;
    return c;
}

// ---------------------------------------------------------------- clean_paragraph
//> clean-paragraph
// Seed 000's clean_paragraph in one pass. The Python runs five steps:
//   text.lower()
//   re.sub(r'<br\s*/?>', ' ', ...)          line breaks become spaces
//   re.sub(r'[-]', ' ', ...)                dashes become spaces
//   re.sub(r'[.]', '. ', ...)               every period gets a space after it
//   re.sub(r'[^a-z0-9\s\.,!?;:-]', '', ...) everything else goes
// None of the later patterns can match what an earlier step wrote, so one
// left-to-right pass that does whichever applies at each character is the
// same function. Two Python details matter: lower() is Unicode (the Kelvin
// sign becomes "k", a dotted capital I becomes "i" plus a combining dot that
// the last step drops), and \s is Unicode whitespace, which survives.
char *clean_paragraph(const char *text, size_t len, size_t *out_len) {
    char *out = malloc(2 * len + 1);  // a period grows to two bytes
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t c;
        int k = utf8_decode(text + i, len - i, &c);
        if (c == '<' && i + 2 < len && (text[i + 1] | 0x20) == 'b' &&
            (text[i + 2] | 0x20) == 'r') {
            size_t j = i + 3;  // <br, then \s*, then an optional /, then >
            uint32_t d;
            int m;
            while (j < len && (m = utf8_decode(text + j, len - j, &d), py_isspace(d)))
                j += (size_t)m;
            if (j < len && text[j] == '/') j++;
            if (j < len && text[j] == '>') {
                out[o++] = ' ';
                i = j + 1;
                continue;
            }
        }
        i += (size_t)k;
        if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
        else if (c == 0x212a) c = 'k';    // KELVIN SIGN lower-cases to k
        else if (c == 0x130) c = 'i';     // capital I with dot: "i\u0307"
        if (c == '-') {
            out[o++] = ' ';
        } else if (c == '.') {
            out[o++] = '.';
            out[o++] = ' ';
        } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ',' ||
                   c == '!' || c == '?' || c == ';' || c == ':') {
            out[o++] = (char)c;
        } else if (py_isspace(c)) {
            memcpy(out + o, text + i - (size_t)k, (size_t)k);  // kept as it was
            o += (size_t)k;
        }
    }
    out[o] = '\0';
    if (out_len) *out_len = o;
    return out;
}
//< clean-paragraph

// ---------------------------------------------------------------- token lists
void token_list_init(token_list *t) { memset(t, 0, sizeof *t); }
void token_list_clear(token_list *t) { t->len = 0; t->n = 0; }
void token_list_free(token_list *t) {
    free(t->buf);
    free(t->off);
    memset(t, 0, sizeof *t);
}

bool token_list_push(token_list *t, const char *s, size_t len) {
    if (t->len + len + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + len + 1) cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b) return false;
        t->buf = b;
        t->cap = cap;
    }
    if (t->n == t->ncap) {
        size_t ncap = t->ncap ? t->ncap * 2 : 256;
        size_t *off = realloc(t->off, ncap * sizeof *off);
        if (!off) return false;
        t->off = off;
        t->ncap = ncap;
    }
    memcpy(t->buf + t->len, s, len);
    t->buf[t->len + len] = '\0';
    t->off[t->n++] = t->len;
    t->len += len + 1;
    return true;
}

void span_list_free(span_list *s) {
    free(s->start);
    free(s->end);
    memset(s, 0, sizeof *s);
}

static bool span_push(span_list *s, size_t a, size_t b) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        size_t *st = realloc(s->start, cap * sizeof *st);
        if (!st) return false;
        s->start = st;
        size_t *en = realloc(s->end, cap * sizeof *en);
        if (!en) return false;
        s->end = en;
        s->cap = cap;
    }
    s->start[s->n] = a;
    s->end[s->n] = b;
    s->n++;
    return true;
}

// ---------------------------------------------------------------- Punkt parameters
// Orthographic context flags, as Punkt records them for each word type.
enum {
    ORTHO_BEG_UC = 1 << 1,  // upper case at the beginning of a sentence
    ORTHO_MID_UC = 1 << 2,  // upper case in the middle
    ORTHO_UNK_UC = 1 << 3,  // upper case, position unknown
    ORTHO_BEG_LC = 1 << 4,
    ORTHO_MID_LC = 1 << 5,
    ORTHO_UNK_LC = 1 << 6,
    ORTHO_UC = ORTHO_BEG_UC | ORTHO_MID_UC | ORTHO_UNK_UC,
    ORTHO_LC = ORTHO_BEG_LC | ORTHO_MID_LC | ORTHO_UNK_LC,
};

struct punkt_params {
    strmap abbrev;       // abbreviation types, without their final period
    strmap colloc;       // "type1\ttype2": pairs that are not split
    strmap starters;     // frequent sentence starters
    strmap ortho;        // type -> index into ortho_flags
    int *ortho_flags;
    size_t ortho_cap;
};

punkt_params *punkt_empty(void) {
    punkt_params *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    strmap_init(&p->abbrev);
    strmap_init(&p->colloc);
    strmap_init(&p->starters);
    strmap_init(&p->ortho);
    return p;
}

void punkt_free(punkt_params *p) {
    if (!p) return;
    strmap_free(&p->abbrev);
    strmap_free(&p->colloc);
    strmap_free(&p->starters);
    strmap_free(&p->ortho);
    free(p->ortho_flags);
    free(p);
}

void punkt_sizes(const punkt_params *p, size_t *abbrevs, size_t *collocations,
                 size_t *starters, size_t *ortho) {
    *abbrevs = p->abbrev.n;
    *collocations = p->colloc.n;
    *starters = p->starters.n;
    *ortho = p->ortho.n;
}

char *read_whole_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        cap *= 2;
        char *b = realloc(buf, cap + 1);
        if (!b) { free(buf); buf = NULL; break; }
        buf = b;
    }
    if (buf && ferror(f)) { free(buf); buf = NULL; errno = EIO; }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}

typedef enum { PT_SET, PT_PAIR, PT_ORTHO } punkt_file_kind;

// One parameter file: one entry a line (the newline, and a \r before it,
// are not part of the entry); blank lines are skipped.
static bool load_punkt_file(punkt_params *p, const char *dir, const char *name,
                            punkt_file_kind kind, strmap *set, char *err, size_t errlen) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *buf = read_whole_file(path, &len);
    if (!buf) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    if (!utf8_valid(buf, len)) {
        snprintf(err, errlen, "%s: not valid UTF-8", path);
        free(buf);
        return false;
    }
    size_t line = 0;
    for (char *s = buf; s < buf + len;) {
        char *nl = memchr(s, '\n', (size_t)(buf + len - s));
        char *e = nl ? nl : buf + len;
        line++;
        size_t n = (size_t)(e - s);
        if (n > 0 && s[n - 1] == '\r') n--;
        bool blank = true;
        for (size_t i = 0; i < n && blank; i++) blank = s[i] == ' ' || s[i] == '\t';
        if (!(n == 0 || (kind != PT_SET && blank))) {
            char *tab = memchr(s, '\t', n);
            bool ok = true;
            if (kind == PT_SET) {
                ok = strmap_intern(set, s, n, NULL) >= 0;
            } else if (!tab || memchr(tab + 1, '\t', n - (size_t)(tab + 1 - s))) {
                snprintf(err, errlen, "%s:%zu: expected two tab-separated fields", path, line);
                free(buf);
                return false;
            } else if (kind == PT_PAIR) {
                ok = strmap_intern(set, s, n, NULL) >= 0;
            } else {
                char *end;
                errno = 0;
                long v = strtol(tab + 1, &end, 10);
                if (end == tab + 1 || end != s + n || errno || v < 0 || v > 0xffff) {
                    snprintf(err, errlen, "%s:%zu: expected a small whole number after the tab", path, line);
                    free(buf);
                    return false;
                }
                long id = strmap_intern(set, s, (size_t)(tab - s), NULL);
                ok = id >= 0;
                if (ok && (size_t)id >= p->ortho_cap) {
                    size_t cap = p->ortho_cap ? p->ortho_cap * 2 : 1024;
                    while (cap <= (size_t)id) cap *= 2;
                    int *f = realloc(p->ortho_flags, cap * sizeof *f);
                    if (!f) ok = false;
                    else { p->ortho_flags = f; p->ortho_cap = cap; }
                }
                if (ok) p->ortho_flags[id] = (int)v;  // a repeated type: the last line wins
            }
            if (!ok) {
                snprintf(err, errlen, "out of memory reading %s", path);
                free(buf);
                return false;
            }
        }
        s = e + 1;
    }
    free(buf);
    return true;
}

punkt_params *punkt_load(const char *dir, char *err, size_t errlen) {
    punkt_params *p = punkt_empty();
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!load_punkt_file(p, dir, "abbrev_types.txt", PT_SET, &p->abbrev, err, errlen) ||
        !load_punkt_file(p, dir, "collocations.tab", PT_PAIR, &p->colloc, err, errlen) ||
        !load_punkt_file(p, dir, "sent_starters.txt", PT_SET, &p->starters, err, errlen) ||
        !load_punkt_file(p, dir, "ortho_context.tab", PT_ORTHO, &p->ortho, err, errlen)) {
        punkt_free(p);
        return NULL;
    }
    return p;
}

static bool punkt_dir_ok(const char *root, char *out, size_t outlen) {
    if (!root || !*root) return false;
    int n = snprintf(out, outlen, "%s/tokenizers/punkt_tab/english", root);
    if (n < 0 || (size_t)n >= outlen) return false;
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/abbrev_types.txt", out);
    struct stat st;
    return stat(probe, &st) == 0 && S_ISREG(st.st_mode);
}

bool punkt_find(const char *nltk_data_path, const char *home, char *out, size_t outlen) {
    char root[4096];
    if (nltk_data_path) {
        for (const char *s = nltk_data_path; *s;) {
            const char *e = strchr(s, ':');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            if (n < sizeof root) {
                memcpy(root, s, n);
                root[n] = '\0';
                if (punkt_dir_ok(root, out, outlen)) return true;
            }
            s += n + (e ? 1 : 0);
        }
    }
    if (home) {
        snprintf(root, sizeof root, "%s/nltk_data", home);
        if (punkt_dir_ok(root, out, outlen)) return true;
    }
    const char *sys[] = {"/usr/share/nltk_data", "/usr/local/share/nltk_data",
                         "/usr/lib/nltk_data", "/usr/local/lib/nltk_data"};
    for (size_t i = 0; i < sizeof sys / sizeof *sys; i++)
        if (punkt_dir_ok(sys[i], out, outlen)) return true;
    return false;
}

// ---------------------------------------------------------------- the rules
// A rewrite rule of the word tokenizer: every match of pattern becomes
// replacement ($1 is group 1, $0 the whole match). trigger lists bytes of
// which any match must contain at least one, so that a sentence without them
// skips the rule (a speed-up only).
typedef struct {
    const char *pattern, *replacement, *trigger;
} rule;

//> treebank-rules
// The NLTK word tokenizer: Penn Treebank conventions, applied as rewrites of
// the sentence in this order; then the sentence is split at whitespace.
static const rule STARTING_QUOTES[] = {
    // opening guillemet and curly quotes, and backticks
    {"([\\x{ab}\\x{201c}\\x{2018}\\x{201e}]|`+)", " $1 ", "`\xc2\xe2"},
    {"^\"", "``", "\""},                           // an opening " becomes ``
    {"(``)", " $1 ", "`"},
    {"([ (\\[{<])(\"|'{2})", "$1 `` ", "\"'"},  // " or '' after a space or bracket
    {"(?i)(')(?!re|ve|ll|m|t|s|d|n)(\\w)\\b", "$1 $2", "'"},
};
static const rule PUNCTUATION[] = {
    // the sentence's final period, before any closing brackets, quotes and spaces
    {"([^.])(\\.)([\\])}>\"'\\x{bb}\\x{201d}\\x{2019} ]*)" S "*$", "$1 $2 $3 ", "."},
    {"([:,])([^\\d])", " $1 $2", ":,"},            // , and : unless a digit follows
    {"([:,])$", " $1 ", ":,"},
    {"\\.{2,}", " $0 ", "."},                      // an ellipsis of periods
    {"[;@#$%&]", " $0 ", ";@#$%&"},
    {"([^.])(\\.)([\\])}>\"']*)" S "*$", "$1 $2$3 ", "."},
    {"[?!]", " $0 ", "?!"},
    {"([^'])' ", "$1 ' ", "'"},
    {"[*]", " $0 ", "*"},
    {"[\\]\\[(){}<>]", " $0 ", "[](){}<>"},        // brackets
    {"--", " -- ", "-"},                           // double dashes
};
// (here the sentence gets a space added at each end)
static const rule ENDING_QUOTES[] = {
    // closing guillemet and curly quotes
    {"([\\x{bb}\\x{201d}\\x{2019}])", " $1 ", "\xc2\xe2"},
    {"''", " '' ", "'"},
    {"\"", " '' ", "\""},                          // a closing " becomes ''
    {"([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 ", "'"},  // clitics: 's 'm 'd
    {"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 ", "'"},
    // contractions split in two: cannot, d'ye, gimme, gonna, gotta, lemme,
    // more'n, wanna; 'tis, 'twas
    {"(?i)\\b(can)(not)\\b", " $1 $2 ", "nN"},
    {"(?i)\\b(d)('ye)\\b", " $1 $2 ", "'"},
    {"(?i)\\b(gim)(me)\\b", " $1 $2 ", "mM"},
    {"(?i)\\b(gon)(na)\\b", " $1 $2 ", "nN"},
    {"(?i)\\b(got)(ta)\\b", " $1 $2 ", "tT"},
    {"(?i)\\b(lem)(me)\\b", " $1 $2 ", "mM"},
    {"(?i)\\b(more)('n)\\b", " $1 $2 ", "'"},
    {"(?i)\\b(wan)(na)(?=" S ")", " $1 $2 ", "nN"},
    {"(?i) ('t)(is)\\b", " $1 $2 ", "'"},
    {"(?i) ('t)(was)\\b", " $1 $2 ", "'"},
};
//< treebank-rules

#define N_START (sizeof STARTING_QUOTES / sizeof *STARTING_QUOTES)
#define N_PUNCT (sizeof PUNCTUATION / sizeof *PUNCTUATION)
#define N_END (sizeof ENDING_QUOTES / sizeof *ENDING_QUOTES)
#define N_RULES (N_START + N_PUNCT + N_END)

//> punkt-patterns
// Punkt's own view of words, used to read the context around a candidate
// sentence end. Characters that cannot be inside a word:
#define NONWORD "[)\";}\\]*:@'({\\[?!]"
// multi-character punctuation: --, .. or longer, and spaced ". . ."
#define MULTI "(?:-{2,}|\\.{2,}|(?:\\." S "){2,}\\.)"
// a word cannot start with one of these
#define WORDSTART "[^(\"`{\\[:;&#*@)}\\]\\-,]"
// A token: multi-character punctuation; or a word, which runs lazily up to
// whitespace, the end, a non-word character, multi-character punctuation,
// or a comma that ends the word; or any other single character.
static const char PUNKT_WORD[] =
    MULTI
    "|(?=" WORDSTART ")" NS "+?"
        "(?=" S "|$|" NONWORD "|" MULTI "|,(?=$|" S "|" NONWORD "|" MULTI "))"
    "|" NS;
// A candidate sentence end: . ? or !, followed either by a non-word
// character, or by whitespace and a next token (groups: 1 after_tok,
// 2 next_tok).
static const char PUNKT_PERIOD[] = "[.?!](?=(" NONWORD "|" S "+(" NS "+)))";
// Closing quotes and brackets that belong to the previous sentence.
static const char PUNKT_REALIGN[] = "[\"')\\]}]+?(?:" S "+|(?=--)|$)";
// Numbers become the type ##number##.
static const char PUNKT_NUMBER[] = "^-?[.,]?\\d[\\d,.-]*\\.?$";
//< punkt-patterns

struct tokenizer {
    const punkt_params *p;
    punkt_params *owned;         // the empty parameters, when p was NULL
    pcre2_code *rules[N_RULES];
    bool trigger[N_RULES][256];
    pcre2_code *word, *period, *realign, *number, *initial, *upper, *lower_re;
    pcre2_match_data *md;
    char *a, *b;                 // scratch for the rewrites
    size_t acap, bcap;
    span_list spans;             // scratch for word_tokenize
    char *clean;                 // scratch: text with invalid UTF-8 replaced
    size_t clean_cap;
    char *typebuf;               // scratch for Punkt's token types
    size_t typecap;
    char *scratch;               // scratch for lower-casing and pair keys
    size_t scratch_cap;
    struct ptoken *toks;         // scratch for Punkt's tokens
    size_t toks_cap;
};

static pcre2_code *compile(const char *pat, uint32_t flags, char *err, size_t errlen) {
    int code;
    PCRE2_SIZE at;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP | flags, &code, &at, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        snprintf(err, errlen, "cannot compile /%s/ at %zu: %s", pat, (size_t)at, (char *)msg);
        return NULL;
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  // if JIT is unavailable, it still works
    return re;
}

static const rule *rule_at(size_t i) {
    if (i < N_START) return &STARTING_QUOTES[i];
    if (i < N_START + N_PUNCT) return &PUNCTUATION[i - N_START];
    return &ENDING_QUOTES[i - N_START - N_PUNCT];
}

tokenizer *tokenizer_new(const punkt_params *params, char *err, size_t errlen) {
    tokenizer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!params) {
        t->owned = punkt_empty();
        if (!t->owned) { free(t); snprintf(err, errlen, "out of memory"); return NULL; }
        params = t->owned;
    }
    t->p = params;
    for (size_t i = 0; i < N_RULES; i++) {
        const rule *r = rule_at(i);
        if (!(t->rules[i] = compile(r->pattern, 0, err, errlen))) goto fail;
        for (const char *c = r->trigger; *c; c++) t->trigger[i][(unsigned char)*c] = true;
    }
    if (!(t->word = compile(PUNKT_WORD, 0, err, errlen)) ||
        !(t->period = compile(PUNKT_PERIOD, 0, err, errlen)) ||
        !(t->realign = compile(PUNKT_REALIGN, PCRE2_MULTILINE | PCRE2_ANCHORED, err, errlen)) ||
        !(t->number = compile(PUNKT_NUMBER, 0, err, errlen)) ||
        !(t->initial = compile("^[^\\W\\d]\\.$", 0, err, errlen)) ||
        !(t->upper = compile("\\A\\p{Lu}", 0, err, errlen)) ||
        !(t->lower_re = compile("\\A\\p{Ll}", 0, err, errlen)))
        goto fail;
    t->md = pcre2_match_data_create(8, NULL);
    if (!t->md) { snprintf(err, errlen, "out of memory"); goto fail; }
    return t;
fail:
    tokenizer_free(t);
    return NULL;
}

void tokenizer_free(tokenizer *t) {
    if (!t) return;
    for (size_t i = 0; i < N_RULES; i++) pcre2_code_free(t->rules[i]);
    pcre2_code_free(t->word);
    pcre2_code_free(t->period);
    pcre2_code_free(t->realign);
    pcre2_code_free(t->number);
    pcre2_code_free(t->initial);
    pcre2_code_free(t->upper);
    pcre2_code_free(t->lower_re);
    pcre2_match_data_free(t->md);
    free(t->a);
    free(t->b);
    free(t->clean);
    free(t->typebuf);
    free(t->scratch);
    free(t->toks);
    span_list_free(&t->spans);
    punkt_free(t->owned);
    free(t);
}

static bool reserve(char **buf, size_t *cap, size_t need) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    char *b = realloc(*buf, c);
    if (!b) return false;
    *buf = b;
    *cap = c;
    return true;
}

// ---------------------------------------------------------------- word tokenizer
// Applies rule i to t->a (alen bytes, NUL-terminated). Returns false when out
// of memory.
static bool apply_rule(tokenizer *t, size_t i, size_t *alen) {
    const char *a = t->a;
    size_t k = 0;
    while (k < *alen && !t->trigger[i][(unsigned char)a[k]]) k++;
    if (k == *alen) return true;  // cannot match
    const rule *r = rule_at(i);
    for (;;) {
        PCRE2_SIZE blen = t->bcap;
        int rc = pcre2_substitute(t->rules[i], (PCRE2_SPTR)t->a, *alen, 0,
                                  PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH |
                                      PCRE2_SUBSTITUTE_UNSET_EMPTY | PCRE2_NO_UTF_CHECK,
                                  t->md, NULL, (PCRE2_SPTR)r->replacement, PCRE2_ZERO_TERMINATED,
                                  (PCRE2_UCHAR *)t->b, &blen);
        if (rc == PCRE2_ERROR_NOMEMORY) {
            if (!reserve(&t->b, &t->bcap, blen + 1)) return false;
            continue;
        }
        if (rc < 0) return false;  // cannot happen with valid patterns and UTF-8
        if (rc > 0) {
            char *tmp = t->a; t->a = t->b; t->b = tmp;
            size_t c = t->acap; t->acap = t->bcap; t->bcap = c;
            *alen = blen;
        }
        return true;
    }
}

// Appends the pieces of s[0..len) between runs of Python whitespace.
static bool split_whitespace(const char *s, size_t len, token_list *out) {
    size_t i = 0;
    while (i < len) {
        uint32_t c;
        int k;
        while (i < len && (k = utf8_decode(s + i, len - i, &c), py_isspace(c))) i += (size_t)k;
        size_t start = i;
        while (i < len && (k = utf8_decode(s + i, len - i, &c), !py_isspace(c))) i += (size_t)k;
        if (i > start && !token_list_push(out, s + start, i - start)) return false;
    }
    return true;
}

//> treebank-tokenize
static int treebank_valid(tokenizer *t, const char *sent, size_t len,
                          token_list *out) {
    if (!reserve(&t->a, &t->acap, len + 3) || !reserve(&t->b, &t->bcap, len + 3))
        return -1;
    memcpy(t->a, sent, len);
    t->a[len] = '\0';
    size_t alen = len;
    for (size_t i = 0; i < N_START + N_PUNCT; i++)
        if (!apply_rule(t, i, &alen)) return -1;
    // " " + text + " ": the ending-quote and contraction rules look for
    // spaces around words
    if (!reserve(&t->a, &t->acap, alen + 3)) return -1;
    memmove(t->a + 1, t->a, alen);
    t->a[0] = ' ';
    t->a[alen + 1] = ' ';
    t->a[alen + 2] = '\0';
    alen += 2;
    for (size_t i = N_START + N_PUNCT; i < N_RULES; i++)
        if (!apply_rule(t, i, &alen)) return -1;
    return split_whitespace(t->a, alen, out) ? 0 : -1;
}
//< treebank-tokenize

// Text as PCRE2 may read it without checking: valid UTF-8. Invalid bytes
// become U+FFFD in a scratch copy.
static const char *valid_text(tokenizer *t, const char *text, size_t *len) {
    if (utf8_valid(text, *len)) return text;
    if (!reserve(&t->clean, &t->clean_cap, 3 * *len + 1)) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < *len;) {
        uint32_t c;
        int k = utf8_decode(text + i, *len - i, &c);
        o += utf8_encode(t->clean + o, c);
        i += (size_t)k;
    }
    t->clean[o] = '\0';
    *len = o;
    return t->clean;
}

int treebank_tokenize(tokenizer *t, const char *sent, size_t len, token_list *out) {
    const char *s = valid_text(t, sent, &len);
    if (!s) return -1;
    return treebank_valid(t, s, len, out);
}

// ---------------------------------------------------------------- Punkt
// What Punkt knows about one token of the context around a candidate end.
typedef struct ptoken {
    const char *tok;       // the token itself
    size_t len;
    char *type;            // lower-cased, numbers as ##number## (in typebuf)
    size_t type_len;
    bool sentbreak, abbr, ellipsis;
} ptoken;

static bool is_upper_first(tokenizer *t, const char *s, size_t len) {
    unsigned char c = (unsigned char)s[0];
    if (c < 0x80) return c >= 'A' && c <= 'Z';
    return pcre2_match(t->upper, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, t->md, NULL) >= 0;
}
static bool is_lower_first(tokenizer *t, const char *s, size_t len) {
    unsigned char c = (unsigned char)s[0];
    if (c < 0x80) return c >= 'a' && c <= 'z';
    return pcre2_match(t->lower_re, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, t->md, NULL) >= 0;
}

// Python's str.lower() of s into out (at most 3 * len / 2 bytes).
static size_t lower_into(char *out, const char *s, size_t len) {
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t c;
        int k = utf8_decode(s + i, len - i, &c);
        if (c == 0x130) {  // U+0130 lower-cases to two code points: i, U+0307
            out[o++] = 'i';
            c = 0x307;
        } else {
            c = py_lower(c);
        }
        o += utf8_encode(out + o, c);
        i += (size_t)k;
    }
    return o;
}

// A "word character that is not a digit" ([^\W\d]) followed by a period:
// an initial such as "j."
static bool is_initial(tokenizer *t, const char *s, size_t len) {
    if (len < 2 || s[len - 1] != '.') return false;
    if (len == 2) {
        unsigned char c = (unsigned char)s[0];
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }
    return pcre2_match(t->initial, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, t->md, NULL) >= 0;
}

static long ortho_of(const punkt_params *p, const char *type, size_t len) {
    long id = strmap_find(&p->ortho, type, len);
    return id < 0 ? 0 : p->ortho_flags[id];
}

// type_no_period: the type without a final period (unless that is all it is);
// type_no_sentperiod: the same, but only for a token marked as a sentence break.
static size_t type_no_period_len(const ptoken *k) {
    return (k->type_len > 1 && k->type[k->type_len - 1] == '.') ? k->type_len - 1 : k->type_len;
}
static size_t type_no_sentperiod_len(const ptoken *k) {
    return k->sentbreak ? type_no_period_len(k) : k->type_len;
}

//> punkt-ortho
// The orthographic heuristic: does the evidence say the token starts a
// sentence? 1 yes, 0 no, -1 unknown.
static int ortho_heuristic(tokenizer *t, const ptoken *k) {
    // sentences do not start with punctuation (NLTK tests whether the token
    // occurs in the string ";:,.!?", so runs such as "!?" count too)
    static const char PUNCT[] = ";:,.!?";
    for (size_t i = 0; k->len > 0 && i + k->len <= 6; i++)
        if (memcmp(PUNCT + i, k->tok, k->len) == 0) return 0;
    long ortho = ortho_of(t->p, k->type, type_no_sentperiod_len(k));
    // capitalised here, seen lower-case somewhere, never capitalised
    // inside a sentence: a sentence starter
    if (is_upper_first(t, k->tok, k->len) && (ortho & ORTHO_LC) &&
        !(ortho & ORTHO_MID_UC))
        return 1;
    // lower-case here, and seen capitalised, or never seen lower-case at
    // the start of a sentence: not a starter
    if (is_lower_first(t, k->tok, k->len) &&
        ((ortho & ORTHO_UC) || !(ortho & ORTHO_BEG_LC)))
        return 0;
    return -1;
}
//< punkt-ortho

static bool pair_in(const strmap *m, const char *a, size_t alen, const char *b, size_t blen, char *buf) {
    memcpy(buf, a, alen);
    buf[alen] = '\t';
    memcpy(buf + alen + 1, b, blen);
    return strmap_find(m, buf, alen + 1 + blen) >= 0;
}

static bool all_periods(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (s[i] != '.') return false;
    return true;
}

//> punkt-annotate
// First pass: each token on its own. A lone . ? or ! is a sentence break;
// a run of periods an ellipsis; a word ending in one period is an
// abbreviation if the parameters know it (or the part after its last
// hyphen), otherwise a sentence break.
static void first_pass(tokenizer *t, ptoken *k, char *scratch) {
    if (k->len == 1 && (k->tok[0] == '.' || k->tok[0] == '?' || k->tok[0] == '!')) {
        k->sentbreak = true;
    } else if (k->len >= 2 && all_periods(k->tok, k->len)) {
        k->ellipsis = true;
    } else if (k->tok[k->len - 1] == '.' &&
               !(k->len >= 2 && k->tok[k->len - 2] == '.')) {
        size_t n = lower_into(scratch, k->tok, k->len - 1);
        const char *last = scratch;
        for (size_t i = 0; i < n; i++)
            if (scratch[i] == '-') last = scratch + i + 1;
        if (strmap_find(&t->p->abbrev, scratch, n) >= 0 ||
            strmap_find(&t->p->abbrev, last, (size_t)(scratch + n - last)) >= 0)
            k->abbr = true;
        else
            k->sentbreak = true;
    }
}

// Second pass: a token ending in a period, looked at with the next one
// (Kiss and Strunk's token-based stage).
static void second_pass(tokenizer *t, ptoken *k1, const ptoken *k2, char *scratch) {
    if (k1->tok[k1->len - 1] != '.') return;
    const char *typ = k1->type;
    size_t typ_len = type_no_period_len(k1);
    size_t next_len = type_no_sentperiod_len(k2);
    bool initial = is_initial(t, k1->tok, k1->len);
    // a known collocation across the period: an abbreviation, no break
    if (pair_in(&t->p->colloc, typ, typ_len, k2->type, next_len, scratch)) {
        k1->sentbreak = false;
        k1->abbr = true;
        return;
    }
    // an abbreviation or ellipsis is also a break if the next word looks
    // like a sentence start: by its orthography, or by being a capitalised
    // frequent sentence starter
    if ((k1->abbr || k1->ellipsis) && !initial) {
        if (ortho_heuristic(t, k2) == 1) {
            k1->sentbreak = true;
            return;
        }
        if (is_upper_first(t, k2->tok, k2->len) &&
            strmap_find(&t->p->starters, k2->type, next_len) >= 0) {
            k1->sentbreak = true;
            return;
        }
    }
    // initials and ordinal numbers are abbreviations unless the next word
    // looks like a sentence start
    if (initial || (typ_len == 10 && memcmp(typ, "##number##", 10) == 0)) {
        int starter = ortho_heuristic(t, k2);
        if (starter == 0) {
            k1->sentbreak = false;
            k1->abbr = true;
            return;
        }
        if (starter == -1 && initial && is_upper_first(t, k2->tok, k2->len) &&
            !(ortho_of(t->p, k2->type, next_len) & ORTHO_LC)) {
            k1->sentbreak = false;
            k1->abbr = true;
        }
    }
}
//< punkt-annotate

// Does the context hold a sentence break that some token follows?
static int contains_sentbreak(tokenizer *t, const char *ctx, size_t len) {
    // room for every token (at most one per byte) and its type (a number's
    // type, ##number##, can be longer than the number)
    if (!reserve(&t->typebuf, &t->typecap, 12 * len + 16) ||
        !reserve(&t->scratch, &t->scratch_cap, 4 * len + 64))
        return -1;
    if (len + 1 > t->toks_cap) {
        ptoken *k = realloc(t->toks, (len + 1) * sizeof *k);
        if (!k) return -1;
        t->toks = k;
        t->toks_cap = len + 1;
    }
    ptoken *toks = t->toks;
    size_t n = 0, tbo = 0;
    // the tokens, line by line, with their types
    for (size_t ls = 0; ls <= len;) {
        const char *nl = memchr(ctx + ls, '\n', len - ls);
        size_t le = nl ? (size_t)(nl - ctx) : len;
        PCRE2_SIZE off = 0;
        for (;;) {
            int rc = pcre2_match(t->word, (PCRE2_SPTR)(ctx + ls), le - ls, off, PCRE2_NO_UTF_CHECK, t->md, NULL);
            if (rc < 0) break;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->md);
            ptoken *k = &toks[n++];
            memset(k, 0, sizeof *k);
            k->tok = ctx + ls + ov[0];
            k->len = ov[1] - ov[0];
            off = ov[1];
            // type: lower-cased; a number becomes ##number##
            k->type = t->typebuf + tbo;
            size_t tl = lower_into(k->type, k->tok, k->len);
            if (pcre2_match(t->number, (PCRE2_SPTR)k->type, tl, 0, PCRE2_NO_UTF_CHECK, t->md, NULL) >= 0) {
                memcpy(k->type, "##number##", 10);
                tl = 10;
            }
            k->type_len = tl;
            tbo += tl + 1;
        }
        if (!nl) break;
        ls = le + 1;
    }
    for (size_t i = 0; i < n; i++) first_pass(t, &toks[i], t->scratch);
    for (size_t i = 0; i + 1 < n; i++) {
        second_pass(t, &toks[i], &toks[i + 1], t->scratch);
        if (toks[i].sentbreak) return 1;  // and toks[i + 1] follows it
    }
    return 0;
}

// Python's str.rstrip(): the length of s without trailing whitespace.
static size_t rstrip_len(const char *s, size_t len) {
    size_t end = 0, i = 0;
    while (i < len) {
        uint32_t c;
        int k = utf8_decode(s + i, len - i, &c);
        i += (size_t)k;
        if (!py_isspace(c)) end = i;
    }
    return end;
}

//> punkt-slices
// Candidate ends in order; each one's context is the word before it (back
// to the last ASCII whitespace, as NLTK looks for it), the end character,
// and what follows. A candidate whose word reaches back over the previous
// candidate replaces it ("wow!!!" is judged once, at its last "!").
// If the context holds a break, a sentence ends after the candidate, and the
// next starts at the following token.
static int punkt_slices(tokenizer *t, const char *text, size_t len, span_list *raw) {
    size_t last_break = 0;
    bool have_prev = false;
    size_t prev_start = 0, prev_stop = 0;        // the previous candidate's word
    size_t pm_end = 0, pm_after_end = 0, pm_next = 0;
    bool pm_has_next = false;
    PCRE2_SIZE off = 0;
    for (;;) {
        int rc = off > len ? -1
                           : pcre2_match(t->period, (PCRE2_SPTR)text, len, off,
                                         PCRE2_NO_UTF_CHECK, t->md, NULL);
        bool done = rc < 0;
        size_t m_start = 0, m_end = 0, after_end = 0, next_start = 0;
        bool has_next = false;
        size_t word_start = 0;
        if (!done) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->md);
            m_start = ov[0];
            m_end = ov[1];
            after_end = ov[3];
            has_next = rc > 2 && ov[4] != PCRE2_UNSET;
            next_start = has_next ? ov[4] : 0;
            off = m_end;
            size_t idx = 0;  // last ASCII whitespace in text[prev_stop, m_start)
            for (size_t i = m_start; i > prev_stop; i--) {
                char c = text[i - 1];
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
                    c == '\f') {
                    idx = i - 1 - prev_stop;
                    break;
                }
            }
            word_start = idx ? prev_stop + idx + 1 : prev_start;
        }
        if (have_prev && (done || prev_stop <= word_start)) {
            int br = contains_sentbreak(t, text + prev_start,
                                        pm_after_end - prev_start);
            if (br < 0) return -1;
            if (br) {
                if (!span_push(raw, last_break, pm_end)) return -1;
                last_break = pm_has_next ? pm_next : pm_end;
            }
        }
        if (done) break;
        have_prev = true;
        prev_start = word_start;
        prev_stop = m_start;
        pm_end = m_end;
        pm_after_end = after_end;
        pm_has_next = has_next;
        pm_next = next_start;
    }
    // the last sentence ends at the last non-whitespace character
    return span_push(raw, last_break, rstrip_len(text, len)) ? 0 : -1;
}
//< punkt-slices

int sent_tokenize(tokenizer *t, const char *text, size_t len, span_list *out) {
    const char *s = valid_text(t, text, &len);
    if (!s) return -1;
    span_list raw = {0};
    if (punkt_slices(t, s, len, &raw) < 0) { span_list_free(&raw); return -1; }
    // Realign: closing quotes or brackets at the start of a sentence move
    // back to the end of the previous one. Empty sentences are dropped.
    size_t realign = 0;
    int rc = 0;
    for (size_t i = 0; i < raw.n && rc == 0; i++) {
        size_t s1 = raw.start[i] + realign, e1 = raw.end[i];
        if (i + 1 == raw.n) {
            if (s1 < e1 && !span_push(out, s1, e1)) rc = -1;
            continue;
        }
        size_t s2 = raw.start[i + 1], e2 = raw.end[i + 1];
        int m = s2 < e2 ? pcre2_match(t->realign, (PCRE2_SPTR)(s + s2), e2 - s2, 0, PCRE2_NO_UTF_CHECK, t->md, NULL) : -1;
        if (m >= 0) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->md);
            size_t mend = ov[1];
            if (!span_push(out, s1, s2 + rstrip_len(s + s2, mend))) rc = -1;
            realign = mend;
        } else {
            realign = 0;
            if (s1 < e1 && !span_push(out, s1, e1)) rc = -1;
        }
    }
    span_list_free(&raw);
    return rc;
}

//> word-tokenize
int word_tokenize(tokenizer *t, const char *text, size_t len, token_list *out) {
    const char *s = valid_text(t, text, &len);
    if (!s) return -1;
    t->spans.n = 0;
    if (sent_tokenize(t, s, len, &t->spans) < 0) return -1;
    for (size_t i = 0; i < t->spans.n; i++)
        if (treebank_valid(t, s + t->spans.start[i],
                           t->spans.end[i] - t->spans.start[i], out) < 0)
            return -1;
    return 0;
}
//< word-tokenize
