// clean.c: the clean_paragraph of the notebook
// "How and Why does Self Attention Work?".
#include "text/clean.h"

#include <stdlib.h>
#include <string.h>

#include "text/utf8.h"

//> clean-paragraph
// The notebook's clean_paragraph in one pass. The Python runs five steps:
//   text.lower()
//   re.sub(r'<br\s*/?>', ' ', ...)          line breaks become spaces
//   re.sub(r'[-]', ' ', ...)                dashes become spaces
//   re.sub(r'[.]', '. ', ...)               every period gets a space after it
//   re.sub(r'[^a-z0-9\s\.,!?;:-]', '', ...) everything else goes
// None of the later patterns can match what an earlier step wrote, so one
// left-to-right pass that does whichever applies at each character is the
// same function. Two Python details matter: lower() is Unicode (the Kelvin
// sign becomes "k", a dotted capital I becomes "i" plus a combining dot that
// the last step drops), and \s is Unicode whitespace, which survives.
char *clean_paragraph(const char *text, size_t len, size_t *out_len) {
    char *out = malloc(2 * len + 1);  // a period grows to two bytes
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t c;
        int k = utf8_decode(text + i, len - i, &c);
        if (c == '<' && i + 2 < len && (text[i + 1] | 0x20) == 'b' &&
            (text[i + 2] | 0x20) == 'r') {
            size_t j = i + 3;  // <br, then \s*, then an optional /, then >
            uint32_t d;
            int m;
            while (j < len && (m = utf8_decode(text + j, len - j, &d), py_isspace(d)))
                j += (size_t)m;
            if (j < len && text[j] == '/') j++;
            if (j < len && text[j] == '>') {
                out[o++] = ' ';
                i = j + 1;
                continue;
            }
        }
        i += (size_t)k;
        if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
        else if (c == 0x212a) c = 'k';    // KELVIN SIGN lower-cases to k
        else if (c == 0x130) c = 'i';     // capital I with dot: "i\u0307"
        if (c == '-') {
            out[o++] = ' ';
        } else if (c == '.') {
            out[o++] = '.';
            out[o++] = ' ';
        } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ',' ||
                   c == '!' || c == '?' || c == ';' || c == ':') {
            out[o++] = (char)c;
        } else if (py_isspace(c)) {
            memcpy(out + o, text + i - (size_t)k, (size_t)k);  // kept as it was
            o += (size_t)k;
        }
    }
    out[o] = '\0';
    if (out_len) *out_len = o;
    return out;
}
//< clean-paragraph
