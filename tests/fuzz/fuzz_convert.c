// fuzz_convert.c: libFuzzer target for the GloVe converter
// (glove_convert_wink: wink's JSON vectors to GloVe text), on the input
// written to a file in a folder of the target's own.
//
// Every input must be converted or refused, and nothing in between:
//   - refused: a reason in err, and the folder holds the input alone (no
//     output, no temporary file);
//   - converted: the folder holds the input and the output alone; the
//     output has one line per word written, as many as the converter
//     says, each a word and "dimensions" numbers, and reads back whole
//     with the GloVe reader.
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strmap.h"
#include "text/glove.h"

static char dir[64], in_path[128], out_path[128];

// The names in the folder besides "." and "..", counted; *out_seen says
// whether out.txt is one of them.
static int names_in_folder(bool *out_seen) {
    DIR *d = opendir(dir);
    if (!d) abort();
    int n = 0;
    *out_seen = false;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        n++;
        if (strcmp(e->d_name, "out.txt") == 0) *out_seen = true;
    }
    closedir(d);
    return n;
}

// Checks the written file: `words` lines of a word and d numbers each, all
// of which the GloVe reader takes.
static void check_output(long words, int d) {
    FILE *f = fopen(out_path, "rb");
    if (!f) abort();
    long lines = 0;
    int c, fields = 0;
    bool in_field = false;
    while ((c = fgetc(f)) != EOF) {
        if (c == '\n') {
            if (fields + in_field != d + 1) abort();
            lines++;
            fields = 0;
            in_field = false;
        } else if (c == ' ') {
            if (!in_field) abort();  // one space between fields, none at the start
            fields++;
            in_field = false;
        } else {
            in_field = true;
        }
    }
    if (in_field || fields || lines != words) abort();  // a last line cut short
    if (words > 0) {
        rewind(f);
        strmap wanted;
        strmap_init(&wanted);
        float vec[1];
        bool found[1];
        size_t n;
        char err[1024] = "";
        if (glove_lookup_stream(vec, found, &n, f, out_path, (size_t)d, &wanted, err, sizeof err) < 0 ||
            n != (size_t)words)
            abort();
        strmap_free(&wanted);
    }
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz-convert-XXXXXX");
        if (!mkdtemp(dir)) abort();
        snprintf(in_path, sizeof in_path, "%s/in.json", dir);
        snprintf(out_path, sizeof out_path, "%s/out.txt", dir);
    }
    FILE *f = fopen(in_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    char err[2048] = "";
    long words = glove_convert_wink(in_path, out_path, NULL, err, sizeof err);
    bool out_seen;
    int names = names_in_folder(&out_seen);
    if (words < 0) {
        if (!err[0] || names != 1 || out_seen) abort();
    } else {
        if (names != 2 || !out_seen) abort();
        // the width: the last "dimensions" (a repeated key's last value
        // counts, as in Python)
        cJSON *root = cJSON_ParseWithLength((const char *)data, size);
        const cJSON *dims = NULL, *item;
        cJSON_ArrayForEach(item, root)
            if (item->string && strcmp(item->string, "dimensions") == 0) dims = item;
        if (!cJSON_IsNumber(dims)) abort();  // taken, so the JSON has its width
        check_output(words, dims->valueint);
        cJSON_Delete(root);
        unlink(out_path);
    }
    unlink(in_path);
    return 0;
}
