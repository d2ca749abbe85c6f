// austen_rdb.c: writes a small database of Jane Austen's six titles, in
// the layout of r-cran-janeaustenr's data/Rdata.rdb, for make oom's
// chapter 9 runs: each novel its title, an empty line, "by Jane Austen",
// then a few lines written here (one with a pound sign, two bytes in
// UTF-8) and a line of dialogue, so that a run reads, trains and scores in
// a fraction of a second.
//   austen_rdb FILE
#include <stdio.h>

#include "rdb_write.h"

static const char *const TITLES[] = {
    "Sense and Sensibility", "Pride and Prejudice", "Mansfield Park",
    "Emma", "Northanger Abbey", "Persuasion",
};

static const char *const LINES[] = {
    "It was a fine morning in the country, and the house was quiet.",
    "She walked to the village with her sister, talking of the ball.",
    "He said little, but he looked at her with great attention.",
    "Letters came and went; nobody could say what they meant.",
    "An income of \xc2\xa3" "500 a year was thought a great deal.",
    "\"Are you engaged for the next dance?\" asked the captain.",
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: austen_rdb FILE\n");
        return 2;
    }
    bytes file = {.n = 0};
    enum { N_LINES = sizeof LINES / sizeof *LINES };
    for (size_t k = 0; k < sizeof TITLES / sizeof *TITLES; k++) {
        // then a paragraph of one short line of dialogue, which chapter 9's
        // block on what the heads look at needs
        const char *novel[3 + N_LINES + 3] = {TITLES[k], "", "by Jane Austen"};
        for (size_t i = 0; i < N_LINES; i++) novel[3 + i] = LINES[(i + k) % N_LINES];
        novel[3 + N_LINES] = "";
        novel[3 + N_LINES + 1] = "\"You are very kind,\" said she.";
        novel[3 + N_LINES + 2] = "";
        bytes ser = serialize(novel, 3 + N_LINES + 3);
        put_object(&file, &ser);
    }
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(file.b, 1, file.n, f) != file.n || fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
