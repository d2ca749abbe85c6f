// fuzz_glove.c: libFuzzer target for the GloVe text reader: the width from
// the first line (glove_dimension_stream), then the vectors of a few words
// (glove_lookup_stream), on the input as an in-memory file.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/glove.h"
#include "core/strmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;  // fmemopen wants at least a byte
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f) abort();
    char err[1024] = "";
    size_t d = 3, n;
    if (glove_dimension_stream(&d, f, "glove.txt", err, sizeof err) < 0 && !err[0]) abort();
    if (d > 1024) d = 1024;
    rewind(f);
    static const char *const WORDS[] = {"the", ",", "good", "bad", "a"};
    strmap wanted;
    strmap_init(&wanted);
    for (size_t i = 0; i < sizeof WORDS / sizeof *WORDS; i++)
        if (strmap_intern(&wanted, WORDS[i], strlen(WORDS[i]), NULL) < 0) abort();
    float *vecs = calloc(wanted.n * d, sizeof *vecs);
    bool *found = calloc(wanted.n, sizeof *found);
    if (!vecs || !found) abort();
    err[0] = '\0';
    if (glove_lookup_stream(vecs, found, &n, f, "glove.txt", d, &wanted, err, sizeof err) < 0 &&
        !err[0])
        abort();
    free(vecs);
    free(found);
    strmap_free(&wanted);
    fclose(f);
    return 0;
}
