// pyregex.c: compiling the tokenizers' patterns.
#include "text/pyregex.h"

#include <stdio.h>

pcre2_code *regex_compile(const char *pat, uint32_t flags, char *err, size_t errlen) {
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
