// punkt.c: Punkt sentence splitting, written from its documented behaviour
// (Kiss and Strunk 2006, NLTK's API documentation) and checked against NLTK
// 3.8 on the 50,000 IMDb reviews (tests/reference/nltk_golden.py).
#define _POSIX_C_SOURCE 200809L
#include "text/punkt.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "text/buffer.h"
#include "text/pyregex.h"
#include "text/utf8.h"

#define S "[" PYSPACE "]"
#define NS "[^" PYSPACE "]"

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

struct punkt_splitter {
    const punkt_params *p;
    pcre2_code *word, *period, *realign, *number, *initial, *upper, *lower_re;
    pcre2_match_data *md;
    char *typebuf[2];            // scratch for the types of two tokens
    size_t typecap[2];
    char *scratch;               // scratch for lower-casing and pair keys
    size_t scratch_cap;
};

punkt_splitter *punkt_splitter_new(const punkt_params *params, char *err, size_t errlen) {
    punkt_splitter *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->p = params;
    if (!(t->word = regex_compile(PUNKT_WORD, 0, err, errlen)) ||
        !(t->period = regex_compile(PUNKT_PERIOD, 0, err, errlen)) ||
        !(t->realign = regex_compile(PUNKT_REALIGN, PCRE2_MULTILINE | PCRE2_ANCHORED, err, errlen)) ||
        !(t->number = regex_compile(PUNKT_NUMBER, 0, err, errlen)) ||
        !(t->initial = regex_compile("^[^\\W\\d]\\.$", 0, err, errlen)) ||
        !(t->upper = regex_compile("\\A\\p{Lu}", 0, err, errlen)) ||
        !(t->lower_re = regex_compile("\\A\\p{Ll}", 0, err, errlen))) {
        punkt_splitter_free(t);
        return NULL;
    }
    t->md = pcre2_match_data_create(8, NULL);
    if (!t->md) {
        snprintf(err, errlen, "out of memory");
        punkt_splitter_free(t);
        return NULL;
    }
    return t;
}

void punkt_splitter_free(punkt_splitter *t) {
    if (!t) return;
    pcre2_code_free(t->word);
    pcre2_code_free(t->period);
    pcre2_code_free(t->realign);
    pcre2_code_free(t->number);
    pcre2_code_free(t->initial);
    pcre2_code_free(t->upper);
    pcre2_code_free(t->lower_re);
    pcre2_match_data_free(t->md);
    free(t->typebuf[0]);
    free(t->typebuf[1]);
    free(t->scratch);
    free(t);
}

// What Punkt knows about one token of the context around a candidate end.
typedef struct ptoken {
    const char *tok;       // the token itself
    size_t len;
    char *type;            // lower-cased, numbers as ##number## (in typebuf)
    size_t type_len;
    bool sentbreak, abbr, ellipsis;
} ptoken;

static bool is_upper_first(punkt_splitter *t, const char *s, size_t len) {
    unsigned char c = (unsigned char)s[0];
    if (c < 0x80) return c >= 'A' && c <= 'Z';
    return pcre2_match(t->upper, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, t->md, NULL) >= 0;
}
static bool is_lower_first(punkt_splitter *t, const char *s, size_t len) {
    unsigned char c = (unsigned char)s[0];
    if (c < 0x80) return c >= 'a' && c <= 'z';
    return pcre2_match(t->lower_re, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, t->md, NULL) >= 0;
}


// A "word character that is not a digit" ([^\W\d]) followed by a period:
// an initial such as "j."
static bool is_initial(punkt_splitter *t, const char *s, size_t len) {
    if (len < 2 || s[len - 1] != '.') return false;
    if (len == 2) {
        unsigned char c = (unsigned char)s[0];
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }
    return pcre2_match(t->initial, (PCRE2_SPTR)s, len, 0, PCRE2_NO_UTF_CHECK, t->md, NULL) >= 0;
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
static int ortho_heuristic(punkt_splitter *t, const ptoken *k) {
    // sentences do not start with punctuation (NLTK tests whether the token
    // occurs in the string ";:,.!?", so runs such as "!?" count too)
    static const char PUNCT[] = ";:,.!?";
    for (size_t i = 0; k->len > 0 && i + k->len <= 6; i++)
        if (memcmp(PUNCT + i, k->tok, k->len) == 0) return 0;
    long ortho = punkt_ortho(t->p, k->type, type_no_sentperiod_len(k));
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
static void first_pass(punkt_splitter *t, ptoken *k, char *scratch) {
    if (k->len == 1 && (k->tok[0] == '.' || k->tok[0] == '?' || k->tok[0] == '!')) {
        k->sentbreak = true;
    } else if (k->len >= 2 && all_periods(k->tok, k->len)) {
        k->ellipsis = true;
    } else if (k->tok[k->len - 1] == '.' &&
               !(k->len >= 2 && k->tok[k->len - 2] == '.')) {
        size_t n = py_lower_into(scratch, k->tok, k->len - 1);
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
static void second_pass(punkt_splitter *t, ptoken *k1, const ptoken *k2, char *scratch) {
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
            !(punkt_ortho(t->p, k2->type, next_len) & ORTHO_LC)) {
            k1->sentbreak = false;
            k1->abbr = true;
        }
    }
}
//< punkt-annotate

// Does the context hold a sentence break that some token follows? The
// first pass looks at each token alone, the second at a token and the next
// one, and only the first token changes; so the tokens are read one at a
// time and two are kept, whatever the length of the context.
static int contains_sentbreak(punkt_splitter *t, const char *ctx, size_t len) {
    ptoken toks[2];
    size_t n = 0;
    // the tokens, line by line, with their types
    for (size_t ls = 0; ls <= len;) {
        const char *nl = memchr(ctx + ls, '\n', len - ls);
        size_t le = nl ? (size_t)(nl - ctx) : len;
        PCRE2_SIZE off = 0;
        for (;;) {
            int rc = pcre2_match(t->word, (PCRE2_SPTR)(ctx + ls), le - ls, off, PCRE2_NO_UTF_CHECK, t->md, NULL);
            if (rc < 0) break;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->md);
            size_t cur = n & 1;
            ptoken *k = &toks[cur];
            memset(k, 0, sizeof *k);
            k->tok = ctx + ls + ov[0];
            k->len = ov[1] - ov[0];
            off = ov[1];
            // room for the type (a number's, ##number##, can be longer than
            // the number), for lower-casing and for a pair of types
            size_t plen = n ? toks[cur ^ 1].len : 0;
            if (!grow_buffer(&t->typebuf[cur], &t->typecap[cur], 12 * k->len + 16) ||
                !grow_buffer(&t->scratch, &t->scratch_cap, 12 * (k->len + plen) + 64))
                return -1;
            // type: lower-cased; a number becomes ##number##
            k->type = t->typebuf[cur];
            size_t tl = py_lower_into(k->type, k->tok, k->len);
            if (pcre2_match(t->number, (PCRE2_SPTR)k->type, tl, 0, PCRE2_NO_UTF_CHECK, t->md, NULL) >= 0) {
                memcpy(k->type, "##number##", 10);
                tl = 10;
            }
            k->type_len = tl;
            first_pass(t, k, t->scratch);
            if (n++ == 0) continue;
            ptoken *prev = &toks[cur ^ 1];
            second_pass(t, prev, k, t->scratch);
            if (prev->sentbreak) return 1;  // and k follows it
        }
        if (!nl) break;
        ls = le + 1;
    }
    return 0;
}


// Punkt's sentences as its slices come, one slice behind: closing quotes or
// brackets at the start of a slice move back to the end of the one before,
// and empty sentences are dropped. (No list of the slices is kept.)
typedef struct {
    punkt_splitter *t;
    const char *s;               // the text
    span_list *out;
    bool pending;                // a slice waits for the next one
    size_t start, end;           // that slice
    size_t realign;              // how much of its start went to the one before
} realigner;

// Takes the next slice, [s2, e2) of the text, and settles the one before it.
static bool realign_slice(realigner *r, size_t s2, size_t e2) {
    if (r->pending) {
        size_t s1 = r->start + r->realign, e1 = r->end;
        int m = s2 < e2 ? pcre2_match(r->t->realign, (PCRE2_SPTR)(r->s + s2), e2 - s2, 0,
                                      PCRE2_NO_UTF_CHECK, r->t->md, NULL)
                        : -1;
        if (m >= 0) {
            size_t mend = pcre2_get_ovector_pointer(r->t->md)[1];
            if (!span_list_push(r->out, s1, s2 + py_rstrip_len(r->s + s2, mend))) return false;
            r->realign = mend;
        } else {
            r->realign = 0;
            if (s1 < e1 && !span_list_push(r->out, s1, e1)) return false;
        }
    }
    r->pending = true;
    r->start = s2;
    r->end = e2;
    return true;
}

//> punkt-slices
// Candidate ends in order; each one's context is the word before it (back
// to the last ASCII whitespace, as NLTK looks for it), the end character,
// and what follows. A candidate whose word reaches back over the previous
// candidate replaces it ("wow!!!" is judged once, at its last "!").
// If the context holds a break, a sentence ends after the candidate, and the
// next starts at the following token; each slice goes to realign_slice.
static int punkt_slices(punkt_splitter *t, const char *text, size_t len, realigner *sentences) {
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
                if (!realign_slice(sentences, last_break, pm_end)) return -1;
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
    return realign_slice(sentences, last_break, py_rstrip_len(text, len)) ? 0 : -1;
}
//< punkt-slices

// Punkt's slices, realigned as they come; the last one has no next.
int punkt_split(punkt_splitter *t, const char *s, size_t len, span_list *out) {
    realigner r = {.t = t, .s = s, .out = out};
    if (punkt_slices(t, s, len, &r) < 0) return -1;
    size_t s1 = r.start + r.realign;
    return !r.pending || s1 >= r.end || span_list_push(out, s1, r.end) ? 0 : -1;
}
