// punkt_params.h: the learned parameters of a Punkt sentence splitter
// (Kiss and Strunk, 2006), and where to find NLTK's English ones.
//
// Two sources hold the same English parameters:
//   - NLTK's punkt_tab layout: a directory tokenizers/punkt_tab/english with
//     abbrev_types.txt, collocations.tab, sent_starters.txt and
//     ortho_context.tab, found on NLTK's data path (what an NLTK user has);
//   - Debian's package golang-gopkg-neurosnap-sentences.v1-dev: one JSON
//     file, PUNKT_DEBIAN_JSON, with the objects AbbrevTypes, Collocations
//     (keys "type1,type2"), SentStarters and OrthoContext.
#ifndef ATTN_PUNKT_PARAMS_H
#define ATTN_PUNKT_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strmap.h"

#define PUNKT_DEBIAN_PACKAGE "golang-gopkg-neurosnap-sentences.v1-dev"
#define PUNKT_DEBIAN_JSON \
    "/usr/share/gocode/src/gopkg.in/neurosnap/sentences.v1/data/english.json"

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

// The four learned sets: abbreviation types, collocations (pairs of types),
// frequent sentence starters, and the orthographic context of each type.
typedef struct punkt_params {
    strmap abbrev;       // abbreviation types, without their final period
    strmap colloc;       // "type1\ttype2": pairs that are not split
    strmap starters;     // frequent sentence starters
    strmap ortho;        // type -> index into ortho_flags
    int *ortho_flags;
    size_t ortho_cap;
} punkt_params;

// Loads a punkt_tab directory: DIR/abbrev_types.txt, collocations.tab,
// sent_starters.txt and ortho_context.tab, UTF-8, one entry a line; a line
// ends at \n, \r\n or \r, as Python's open() reads text. On failure returns
// NULL and writes why (file and line for a malformed entry) into err.
punkt_params *punkt_load(const char *dir, char *err, size_t errlen);

// Loads the JSON form (Debian's english.json). On failure returns NULL and
// writes why (the file, and the member or byte where it went wrong) into err.
punkt_params *punkt_load_json(const char *path, char *err, size_t errlen);

// The same from text in memory (len bytes; path names it in err). The
// JSON form whole; or one punkt_tab file, named by its file name (e.g.
// "abbrev_types.txt"), whose entries are added to p: 0, or -1 with why in err.
punkt_params *punkt_parse_json(const char *buf, size_t len, const char *path,
                               char *err, size_t errlen);
int punkt_parse_tab(punkt_params *p, const char *name, const char *buf, size_t len,
                    const char *path, char *err, size_t errlen);

// Parameters with nothing learned: Punkt's rules alone (the fallback).
punkt_params *punkt_empty(void);
void punkt_free(punkt_params *p);

// Sizes of the four sets, for reporting.
void punkt_sizes(const punkt_params *p, size_t *abbrevs, size_t *collocations,
                 size_t *starters, size_t *ortho);

// The orthographic flags of a type (0 if it was never seen).
int punkt_ortho(const punkt_params *p, const char *type, size_t len);

// Finds the English punkt_tab directory the way NLTK looks for data: each
// directory of nltk_data_path (a colon-separated list, e.g. $NLTK_DATA; may
// be NULL), then $HOME/nltk_data (home may be NULL) and the system
// directories /usr/share, /usr/local/share, /usr/lib, /usr/local/lib
// (each + /nltk_data). Writes DIR/tokenizers/punkt_tab/english into out and
// returns true if it has abbrev_types.txt.
bool punkt_find(const char *nltk_data_path, const char *home, char *out, size_t outlen);

// The English parameters from the first source that has them: NLTK's
// punkt_tab (punkt_find), else Debian's JSON at json_path (normally
// PUNKT_DEBIAN_JSON). Writes the file or directory used into source, or,
// when neither exists, what was looked for, and returns NULL with *failed
// false: the caller may fall back to punkt_empty(). A source that exists but
// cannot be read is an error: NULL, *failed true, the reason in err.
punkt_params *punkt_load_english(const char *nltk_data_path, const char *home,
                                 const char *json_path, char *source, size_t srclen,
                                 char *err, size_t errlen, bool *failed);

#endif
