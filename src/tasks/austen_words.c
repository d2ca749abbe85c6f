// austen_words.c: the words a text shares with the training novels. See
// austen_words.h.
#include "tasks/austen_words.h"

#include <stdbool.h>

static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

// The next word of text from *at: skips what is not a letter, copies the
// word in lower case into word and moves *at past it. Returns false when no
// word is left; else *n is the word's length, or 0 when it is longer than
// AUSTEN_WORD_MAX.
static bool next_word(const char *text, size_t len, size_t *at, char *word, size_t *n) {
    while (*at < len && !is_letter(text[*at])) (*at)++;
    if (*at == len) return false;
    size_t k = 0;
    for (; *at < len && is_letter(text[*at]); (*at)++, k++)
        if (k < AUSTEN_WORD_MAX) word[k] = lower(text[*at]);
    *n = k <= AUSTEN_WORD_MAX ? k : 0;
    return true;
}

int austen_words_build(austen_words *w, const char *text, size_t len) {
    strmap_init(&w->words);
    char word[AUSTEN_WORD_MAX];
    size_t at = 0, n;
    while (next_word(text, len, &at, word, &n))
        if (n > 0 && strmap_intern(&w->words, word, n, NULL) < 0) {
            strmap_free(&w->words);
            return -1;
        }
    return 0;
}

void austen_words_free(austen_words *w) { strmap_free(&w->words); }

void austen_words_count(const austen_words *w, const char *text, size_t len, long *total,
                        long *known) {
    char word[AUSTEN_WORD_MAX];
    size_t at = 0, n;
    *total = *known = 0;
    while (next_word(text, len, &at, word, &n)) {
        (*total)++;
        if (n > 0 && strmap_find(&w->words, word, n) >= 0) (*known)++;
    }
}
