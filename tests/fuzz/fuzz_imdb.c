// fuzz_imdb.c: libFuzzer target for the IMDb reviews reader (imdb_parse,
// what imdb_load runs on the file's bytes). Every input must either load or
// be refused with a reason; a loaded one must hold what its index says.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/imdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    imdb_reviews r;
    char err[1024] = "";
    if (imdb_parse(&r, (const char *)data, size, "reviews.json", err, sizeof err) < 0) {
        if (!err[0]) abort();  // refused without a reason
        return 0;
    }
    for (size_t i = 0; i < r.n; i++) {
        const char *t = r.arena + r.off[i];
        if (strlen(t) != r.len[i] || (r.label[i] != 0 && r.label[i] != 1)) abort();
    }
    imdb_free(&r);
    return 0;
}
