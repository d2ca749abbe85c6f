// fuzz_punkt.c: libFuzzer target for the readers of Punkt's parameters: the
// input as Debian's JSON form (punkt_parse_json), then as each of the four
// files of NLTK's punkt_tab form (punkt_parse_tab).
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "text/punkt_params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    char err[1024] = "";
    punkt_params *p = punkt_parse_json(text, size, "english.json", err, sizeof err);
    if (!p && !err[0]) abort();  // refused without a reason
    punkt_free(p);
    static const char *const FILES[] = {"abbrev_types.txt", "collocations.tab",
                                        "sent_starters.txt", "ortho_context.tab"};
    p = punkt_empty();
    if (!p) abort();
    for (size_t i = 0; i < sizeof FILES / sizeof *FILES; i++) {
        err[0] = '\0';
        if (punkt_parse_tab(p, FILES[i], text, size, FILES[i], err, sizeof err) < 0 && !err[0])
            abort();
    }
    size_t a, c, s, o;
    punkt_sizes(p, &a, &c, &s, &o);
    punkt_ortho(p, "the", 3);
    punkt_free(p);
    return 0;
}
