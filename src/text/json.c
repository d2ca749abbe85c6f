// json.c: see json.h.
//
// cJSON builds the tree; a checker written here walks the text beside it,
// token by token, and refuses what cJSON would let through but Python's json
// module does not (or what Python reads but these readers cannot keep). The
// walk is one pass over the bytes, as cheap as cJSON's own.
#include "text/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "core/strmap.h"
#include "text/utf8.h"

size_t line_of(const char *buf, size_t at) {
    size_t line = 1;
    for (size_t i = 0; i < at; i++) line += buf[i] == '\n';
    return line;
}

// ---------------------------------------------------------------- memory
// cJSON returns NULL both for bad input and for a failed allocation. Its
// allocations go through these wrappers, which note a failure for the
// thread that parses, so that json_parse can tell the two apart.
static thread_local bool alloc_failed;

static void *noting_malloc(size_t n) {
    void *p = malloc(n);
    if (!p) alloc_failed = true;
    return p;
}

static void install_hooks(void) {
    cJSON_Hooks hooks = {noting_malloc, free};
    cJSON_InitHooks(&hooks);
}

// ---------------------------------------------------------------- checker
// A flag in the high bits of cJSON's type, which cJSON's own tests
// (cJSON_IsNumber and the others) mask off: the number was written as a
// whole number.
#define INTEGER_FLAG (1 << 12)

bool json_is_integer(const cJSON *item) {
    return cJSON_IsNumber(item) && (item->type & INTEGER_FLAG);
}

typedef struct {
    const char *buf;
    size_t len, at;      // the text, and the byte being read
    size_t where;        // the first problem: its byte ...
    const char *why;     // ... and what it is
    bool malformed;      // Python refuses it too
    bool out_of_memory;
} checker;

static bool fail(checker *c, size_t at, bool malformed, const char *why) {
    c->where = at;
    c->why = why;
    c->malformed = malformed;
    return false;
}

static bool bad(checker *c, size_t at, const char *why) { return fail(c, at, true, why); }
static bool refused(checker *c, size_t at, const char *why) { return fail(c, at, false, why); }

static int peek(const checker *c) {
    return c->at < c->len ? (unsigned char)c->buf[c->at] : -1;
}

// Python's json allows these four between tokens; cJSON skips every byte up
// to 32.
static void skip_space(checker *c) {
    while (c->at < c->len) {
        char b = c->buf[c->at];
        if (b != ' ' && b != '\t' && b != '\n' && b != '\r') break;
        c->at++;
    }
}

static bool is_digit(int b) { return b >= '0' && b <= '9'; }

static int hex4(const char *s, size_t avail) {
    if (avail < 4) return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char h = s[i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
              : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

// A string, c->at on its opening quote.
static bool check_string(checker *c) {
    const char *s = c->buf;
    size_t i = c->at + 1, n = c->len;
    for (;;) {
        if (i >= n) return bad(c, c->at, "a string without its closing quote");
        unsigned char b = (unsigned char)s[i];
        if (b == '"') break;
        if (b < 0x20) return bad(c, i, "a control character inside a string (it must be written as an escape)");
        if (b >= 0x80) {
            uint32_t cp;
            int k = utf8_decode(s + i, n - i, &cp);
            if (cp == 0xfffd && k == 1) return bad(c, i, "a byte that is not UTF-8");
            i += (size_t)k;
            continue;
        }
        if (b != '\\') {
            i++;
            continue;
        }
        if (i + 1 >= n) return bad(c, i, "a string without its closing quote");
        char e = s[i + 1];
        if (e && strchr("\"\\/bfnrt", e)) {
            i += 2;
            continue;
        }
        if (e != 'u') return bad(c, i, "an unknown escape (known: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
        int u = hex4(s + i + 2, n - i - 2);
        if (u < 0) return bad(c, i, "\\u not followed by four hexadecimal digits");
        if (u == 0)
            return refused(c, i, "\\u0000, a NUL character: Python keeps it, but these readers' "
                                 "strings end at a NUL and would lose the rest");
        if (u >= 0xd800 && u <= 0xdbff && n - i >= 12 && s[i + 6] == '\\' && s[i + 7] == 'u') {
            int lo = hex4(s + i + 8, n - i - 8);
            if (lo >= 0xdc00 && lo <= 0xdfff) {  // a surrogate pair: one character
                i += 12;
                continue;
            }
        }
        if (u >= 0xd800 && u <= 0xdfff)
            return refused(c, i, "an unpaired surrogate escape: Python keeps it, but it is "
                                 "not a character and UTF-8 cannot hold it");
        i += 6;
    }
    c->at = i + 1;
    return true;
}

// A number, c->at on its first byte; item is cJSON's reading of it.
static bool check_number(checker *c, cJSON *item) {
    const char *s = c->buf;
    size_t start = c->at, i = start, n = c->len;
    bool integer = true;
    if (i < n && s[i] == '-') i++;
    if (n - i >= 8 && memcmp(s + i, "Infinity", 8) == 0)
        return refused(c, start, "-Infinity: Python reads it as a number, but it is not finite");
    if (i >= n || !is_digit(s[i])) return bad(c, start, "expected a value");
    if (s[i] == '0') {
        i++;
        if (i < n && is_digit(s[i])) return bad(c, i - 1, "a number with a leading zero");
    } else {
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || !is_digit(s[i])) return bad(c, i, "a decimal point not followed by a digit");
        while (i < n && is_digit(s[i])) i++;
        integer = false;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || !is_digit(s[i])) return bad(c, i, "an exponent without digits");
        while (i < n && is_digit(s[i])) i++;
        integer = false;
    }
    if (cJSON_IsNumber(item)) {
        if (!isfinite(item->valuedouble))
            return refused(c, start, "a number beyond the range of a double (Python reads it as inf)");
        if (integer) item->type |= INTEGER_FLAG;
    }
    c->at = i;
    return true;
}

static bool check_value(checker *c, cJSON *item, int depth);

// A key repeated in obj keeps its last value at the place of its first, as
// Python's dict does: the later member replaces the earlier one.
static bool keep_last_of_repeated_keys(checker *c, cJSON *obj, size_t members) {
    if (members < 2) return true;
    if (members <= 16) {  // few members: compare each with those before it
        for (cJSON *m = obj->child, *next; m; m = next) {
            next = m->next;
            for (cJSON *e = obj->child; e != m; e = e->next)
                if (strcmp(e->string, m->string) == 0) {
                    cJSON_DetachItemViaPointer(obj, m);
                    cJSON_ReplaceItemViaPointer(obj, e, m);
                    break;
                }
        }
        return true;
    }
    strmap keys;
    strmap_init(&keys);
    cJSON **first = malloc(members * sizeof *first);
    bool ok = first != NULL;
    for (cJSON *m = obj->child, *next; ok && m; m = next) {
        next = m->next;
        bool added;
        long id = strmap_intern(&keys, m->string, strlen(m->string), &added);
        if (id < 0) {
            ok = false;
        } else if (added) {
            first[id] = m;
        } else {
            cJSON_DetachItemViaPointer(obj, m);
            cJSON_ReplaceItemViaPointer(obj, first[id], m);
            first[id] = m;
        }
    }
    free(first);
    strmap_free(&keys);
    if (!ok) c->out_of_memory = true;
    return ok;
}

// An array or an object, c->at on its opening bracket; item is cJSON's
// reading of it, whose children follow the text's values one by one.
static bool check_container(checker *c, cJSON *item, int depth) {
    bool object = c->buf[c->at] == '{';
    char close = object ? '}' : ']';
    if (depth >= JSON_MAX_DEPTH) return refused(c, c->at, "arrays and objects nested too deep");
    c->at++;
    skip_space(c);
    cJSON *child = item ? item->child : NULL;
    size_t members = 0;
    if (peek(c) == close) {
        c->at++;
        return true;
    }
    for (;;) {
        if (object) {
            if (peek(c) != '"') return bad(c, c->at, "expected a key in double quotes");
            if (!check_string(c)) return false;
            skip_space(c);
            if (peek(c) != ':') return bad(c, c->at, "expected ':' after the key");
            c->at++;
            skip_space(c);
        }
        if (!check_value(c, child, depth + 1)) return false;
        members++;
        child = child ? child->next : NULL;
        skip_space(c);
        int b = peek(c);
        if (b == close) break;
        if (b != ',') return bad(c, c->at, object ? "expected ',' or '}'" : "expected ',' or ']'");
        c->at++;
        skip_space(c);
    }
    c->at++;
    return !cJSON_IsObject(item) || keep_last_of_repeated_keys(c, item, members);
}

static bool literal(checker *c, const char *word) {
    size_t n = strlen(word);
    if (c->len - c->at < n || memcmp(c->buf + c->at, word, n) != 0) return false;
    c->at += n;
    return true;
}

static bool check_value(checker *c, cJSON *item, int depth) {
    size_t at = c->at;
    switch (peek(c)) {
    case '{': case '[': return check_container(c, item, depth);
    case '"': return check_string(c);
    case 't': if (literal(c, "true")) return true; break;
    case 'f': if (literal(c, "false")) return true; break;
    case 'n': if (literal(c, "null")) return true; break;
    case 'N':
        if (literal(c, "NaN")) return refused(c, at, "NaN: Python reads it as a number, but it is not one");
        break;
    case 'I':
        if (literal(c, "Infinity")) return refused(c, at, "Infinity: Python reads it as a number, but it is not finite");
        break;
    default: return check_number(c, item);
    }
    return bad(c, at, "expected a value");
}

// The whole text: one value, with only whitespace around it.
static bool check_document(checker *c, cJSON *root) {
    if (c->len >= 3 && memcmp(c->buf, "\xef\xbb\xbf", 3) == 0)
        return bad(c, 0, "a UTF-8 byte order mark (Python's json refuses it)");
    skip_space(c);
    if (!check_value(c, root, 0)) return false;
    skip_space(c);
    if (c->at < c->len) return bad(c, c->at, "more after the end of the document");
    return true;
}

size_t json_item_offset(const char *buf, size_t len, size_t i) {
    checker c = {.buf = buf, .len = len};
    skip_space(&c);
    if (peek(&c) != '[') return len;
    c.at++;
    // the items are valid JSON: only strings, which may hold brackets and
    // commas, and the nesting need following
    size_t item = 0;
    int depth = 0;
    skip_space(&c);
    while (c.at < len) {
        if (item == i && depth == 0) return peek(&c) == ']' ? len : c.at;
        char b = buf[c.at];
        if (b == '"') {
            for (c.at++; c.at < len && buf[c.at] != '"'; c.at++)
                if (buf[c.at] == '\\') c.at++;
        } else if (b == '[' || b == '{') {
            depth++;
        } else if (b == ']' || b == '}') {
            if (depth-- == 0) return len;
        } else if (b == ',' && depth == 0) {
            item++;
            c.at++;
            skip_space(&c);
            continue;
        }
        c.at++;
    }
    return len;
}

cJSON *json_parse(const char *buf, size_t len, const char *path, char *err, size_t errlen) {
    static once_flag hooks_installed = ONCE_FLAG_INIT;
    call_once(&hooks_installed, install_hooks);
    alloc_failed = false;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
    if (alloc_failed) {
        cJSON_Delete(root);
        snprintf(err, errlen, "out of memory reading %s", path);
        return NULL;
    }
    // with cJSON's tree, the checker marks whole numbers and merges repeated
    // keys; without it (cJSON refused the text), it finds the first problem
    checker c = {.buf = buf, .len = len};
    if (check_document(&c, root)) {
        if (root) return root;
        // cJSON refused what the checker passed: give cJSON's place
        c.where = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : len;
        c.why = "cJSON cannot read it";
        c.malformed = true;
    }
    cJSON_Delete(root);
    if (c.out_of_memory || alloc_failed)
        snprintf(err, errlen, "out of memory reading %s", path);
    else
        snprintf(err, errlen, c.malformed ? "%s:%zu: malformed JSON (byte %zu): %s" : "%s:%zu: byte %zu: %s",
                 path, line_of(buf, c.where), c.where, c.why);
    return NULL;
}
