// punkt_params.c: Punkt's learned parameters: reading them from NLTK's
// punkt_tab files or from Debian's JSON, and finding them.
#define _POSIX_C_SOURCE 200809L
#include "text/punkt_params.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/grow.h"
#include "core/readfile.h"
#include "text/json.h"
#include "text/utf8.h"

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

int punkt_ortho(const punkt_params *p, const char *type, size_t len) {
    long id = strmap_find(&p->ortho, type, len);
    return id < 0 ? 0 : p->ortho_flags[id];
}

// Records the orthographic flags of a type; a repeated type: the last wins.
static bool set_ortho(punkt_params *p, const char *type, size_t len, int flags) {
    long id = strmap_intern(&p->ortho, type, len, NULL);
    if (id < 0) return false;
    int *f = grow_array(p->ortho_flags, &p->ortho_cap, (size_t)id + 1, sizeof *f, 1024);
    if (!f) return false;
    p->ortho_flags = f;
    p->ortho_flags[id] = flags;
    return true;
}

typedef enum { PT_SET, PT_PAIR, PT_ORTHO } punkt_file_kind;

// Which lines the reference skips: none, empty ones (`if l.strip('\n')`),
// or whitespace-only ones (`if l.strip()`).
typedef enum { SKIP_NONE, SKIP_EMPTY, SKIP_BLANK } punkt_skip;

// The four files of a punkt_tab directory, in the order they are read.
static const struct {
    const char *name;
    punkt_file_kind kind;
    punkt_skip skip;
} PUNKT_FILES[] = {
    {"abbrev_types.txt", PT_SET, SKIP_EMPTY},
    {"collocations.tab", PT_PAIR, SKIP_BLANK},
    {"sent_starters.txt", PT_SET, SKIP_BLANK},
    {"ortho_context.tab", PT_ORTHO, SKIP_NONE},
};
#define PUNKT_NFILES (sizeof PUNKT_FILES / sizeof *PUNKT_FILES)

// The set file i of PUNKT_FILES fills (the orthographic context: p->ortho).
static strmap *punkt_file_set(punkt_params *p, size_t i) {
    strmap *sets[PUNKT_NFILES] = {&p->abbrev, &p->colloc, &p->starters, &p->ortho};
    return sets[i];
}

// The whole number of at most 5 digits in s[0 .. n), or -1.
static long small_number(const char *s, size_t n) {
    long v = 0;
    if (n == 0 || n > 5) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

// Is s[0 .. n) empty once Python's str.strip() has taken its whitespace?
static bool py_blank(const char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        uint32_t c;
        i += (size_t)utf8_decode(s + i, n - i, &c);
        if (!py_isspace(c)) return false;
    }
    return true;
}

// The end of the line that starts at s (before end), and where the next one
// starts: a line ends at \n, \r\n or \r, as Python's open() in text mode
// (universal newlines) reads it.
static const char *line_end(const char *s, const char *end, const char **next) {
    const char *e = s;
    while (e < end && *e != '\n' && *e != '\r') e++;
    *next = e + (e < end ? 1 : 0);
    if (e < end && *e == '\r' && e + 1 < end && e[1] == '\n') *next = e + 2;
    return e;
}

// The files are read as the reference (load_punkt_tab in
// tests/reference/nltk_golden.py) reads them: open(path, encoding='utf-8'), so universal newlines, and
// invalid UTF-8 is an error; one entry a line, without its line end; the
// lines PUNKT_FILES says are skipped. (NLTK's own reader, load_punkt_params
// with nltk/tabdata.py's decoder, skips no line.)
int punkt_parse_tab(punkt_params *p, const char *name, const char *buf, size_t len,
                    const char *path, char *err, size_t errlen) {
    size_t f = 0;
    while (f < PUNKT_NFILES && strcmp(PUNKT_FILES[f].name, name) != 0) f++;
    if (f == PUNKT_NFILES) {
        snprintf(err, errlen, "%s: not one of punkt_tab's files", name);
        return -1;
    }
    punkt_file_kind kind = PUNKT_FILES[f].kind;
    strmap *set = punkt_file_set(p, f);
    size_t line = 0;
    const char *next;
    for (const char *s = buf; s < buf + len; s = next) {
        const char *e = line_end(s, buf + len, &next);
        size_t n = (size_t)(e - s);
        line++;
        if (!utf8_valid(s, n)) {
            snprintf(err, errlen, "%s:%zu: not valid UTF-8", path, line);
            return -1;
        }
        punkt_skip skip = PUNKT_FILES[f].skip;
        if ((skip == SKIP_EMPTY && n == 0) || (skip == SKIP_BLANK && py_blank(s, n))) continue;
        const char *tab = memchr(s, '\t', n);
        bool ok = true;
        if (kind == PT_SET) {
            ok = strmap_intern(set, s, n, NULL) >= 0;
        } else if (!tab || memchr(tab + 1, '\t', n - (size_t)(tab + 1 - s))) {
            snprintf(err, errlen, "%s:%zu: expected two tab-separated fields", path, line);
            return -1;
        } else if (kind == PT_PAIR) {
            ok = strmap_intern(set, s, n, NULL) >= 0;
        } else {
            long v = small_number(tab + 1, (size_t)(s + n - (tab + 1)));
            if (v < 0 || v > 0xffff) {
                snprintf(err, errlen, "%s:%zu: expected a small whole number after the tab", path, line);
                return -1;
            }
            ok = set_ortho(p, s, (size_t)(tab - s), (int)v);
        }
        if (!ok) {
            snprintf(err, errlen, "out of memory reading %s", path);
            return -1;
        }
    }
    return 0;
}

punkt_params *punkt_load(const char *dir, char *err, size_t errlen) {
    punkt_params *p = punkt_empty();
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < PUNKT_NFILES; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, PUNKT_FILES[i].name);
        size_t len;
        char *buf = read_whole_file(path, &len);
        if (!buf) snprintf(err, errlen, "cannot read %s: %s", path, file_error(errno));
        int rc = buf ? punkt_parse_tab(p, PUNKT_FILES[i].name, buf, len, path, err, errlen) : -1;
        free(buf);
        if (rc < 0) {
            punkt_free(p);
            return NULL;
        }
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

// ---------------------------------------------------------------- JSON
// One member of the JSON object: an object whose keys are types (or, for
// the collocations, "type1,type2") and whose values are numbers: 1 for the
// three sets, the flags for OrthoContext.
static bool load_json_member(punkt_params *p, const cJSON *root, const char *name,
                             const char *path, char *err, size_t errlen) {
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, name);
    if (!cJSON_IsObject(obj)) {
        snprintf(err, errlen, "%s: no object \"%s\" (expected AbbrevTypes, Collocations, "
                 "SentStarters and OrthoContext)", path, name);
        return false;
    }
    bool pairs = strcmp(name, "Collocations") == 0;
    bool ortho = strcmp(name, "OrthoContext") == 0;
    strmap *set = pairs ? &p->colloc : strcmp(name, "AbbrevTypes") == 0 ? &p->abbrev : &p->starters;
    const cJSON *item;
    cJSON_ArrayForEach(item, obj) {
        const char *key = item->string;
        size_t n = strlen(key);
        // written as a whole number: 1.0 or 1e0 is refused, not read as 1
        double v = json_is_integer(item) ? item->valuedouble : NAN;
        if (!utf8_valid(key, n)) {
            snprintf(err, errlen, "%s: %s: a key is not valid UTF-8", path, name);
            return false;
        }
        if (ortho ? !(v >= 0 && v <= 0xffff && v == floor(v)) : v != 1) {
            snprintf(err, errlen, "%s: %s[\"%.200s\"]: expected %s", path, name, key,
                     ortho ? "a whole number from 0 to 65535" : "the whole number 1");
            return false;
        }
        bool ok;
        if (ortho) {
            ok = set_ortho(p, key, n, (int)v);
        } else if (pairs) {
            const char *comma = strchr(key, ',');
            if (!comma) {
                snprintf(err, errlen, "%s: %s[\"%.200s\"]: expected two types joined by a comma",
                         path, name, key);
                return false;
            }
            char *k = strdup(key);  // the same pair, tab-separated as punkt_tab has it
            ok = k != NULL;
            if (ok) {
                k[comma - key] = '\t';
                ok = strmap_intern(set, k, n, NULL) >= 0;
                free(k);
            }
        } else {
            ok = strmap_intern(set, key, n, NULL) >= 0;
        }
        if (!ok) {
            snprintf(err, errlen, "out of memory reading %s", path);
            return false;
        }
    }
    return true;
}

punkt_params *punkt_load_json(const char *path, char *err, size_t errlen) {
    size_t len;
    char *buf = read_whole_file(path, &len);
    if (!buf) {
        snprintf(err, errlen, "cannot read %s: %s", path, file_error(errno));
        return NULL;
    }
    punkt_params *p = punkt_parse_json(buf, len, path, err, errlen);
    free(buf);
    return p;
}

punkt_params *punkt_parse_json(const char *buf, size_t len, const char *path,
                               char *err, size_t errlen) {
    cJSON *root = json_parse(buf, len, path, err, errlen);
    if (!root) return NULL;
    if (!cJSON_IsObject(root)) {
        snprintf(err, errlen, "%s: expected a JSON object", path);
        cJSON_Delete(root);
        return NULL;
    }
    punkt_params *p = punkt_empty();
    if (!p) snprintf(err, errlen, "out of memory");
    static const char *const MEMBERS[] = {"AbbrevTypes", "Collocations", "SentStarters", "OrthoContext"};
    for (size_t i = 0; p && i < 4; i++) {
        if (!load_json_member(p, root, MEMBERS[i], path, err, errlen)) {
            punkt_free(p);
            p = NULL;
        }
    }
    cJSON_Delete(root);
    return p;
}

// ---------------------------------------------------------------- English
punkt_params *punkt_load_english(const char *nltk_data_path, const char *home,
                                 const char *json_path, char *source, size_t srclen,
                                 char *err, size_t errlen, bool *failed) {
    *failed = false;
    punkt_params *p = NULL;
    struct stat st;
    if (punkt_find(nltk_data_path, home, source, srclen)) {
        p = punkt_load(source, err, errlen);
    } else if (json_path && stat(json_path, &st) == 0) {
        snprintf(source, srclen, "%s", json_path);
        p = punkt_load_json(json_path, err, errlen);
    } else {
        snprintf(source, srclen, "no tokenizers/punkt_tab/english under $NLTK_DATA, "
                 "~/nltk_data or /usr/{,local/}{share,lib}/nltk_data, and no %s "
                 "(Debian package %s)", json_path ? json_path : PUNKT_DEBIAN_JSON,
                 PUNKT_DEBIAN_PACKAGE);
        return NULL;
    }
    if (!p) *failed = true;
    return p;
}
