// austen_words.c: the words a text shares with the training novels. See
// austen_words.h.
#include "tasks/austen_words.h"

#include <stdbool.h>

static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

// The word that starts at text[*at] (a letter), in lower case into word;
// moves *at past it. Returns its length, or 0 when it is longer than
// AUSTEN_WORD_MAX.
static size_t next_word(const char *text, size_t len, size_t *at, char *word) {
    size_t n = 0;
    for (; *at < len && is_letter(text[*at]); (*at)++, n++)
        if (n < AUSTEN_WORD_MAX) word[n] = lower(text[*at]);
    return n <= AUSTEN_WORD_MAX ? n : 0;
}

int austen_words_build(austen_words *w, const char *text, size_t len) {
    strmap_init(&w->words);
    char word[AUSTEN_WORD_MAX];
    for (size_t at = 0; at < len;) {
        if (!is_letter(text[at])) {
            at++;
            continue;
        }
        size_t n = next_word(text, len, &at, word);
        if (n > 0 && strmap_intern(&w->words, word, n, NULL) < 0) {
            strmap_free(&w->words);
            return -1;
        }
    }
    return 0;
}

void austen_words_free(austen_words *w) { strmap_free(&w->words); }

void austen_words_count(const austen_words *w, const char *text, size_t len, long *total,
                        long *known) {
    char word[AUSTEN_WORD_MAX];
    *total = *known = 0;
    for (size_t at = 0; at < len;) {
        if (!is_letter(text[at])) {
            at++;
            continue;
        }
        size_t n = next_word(text, len, &at, word);
        (*total)++;
        if (n > 0 && strmap_find(&w->words, word, n) >= 0) (*known)++;
    }
}
