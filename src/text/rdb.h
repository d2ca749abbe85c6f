// rdb.h: R's lazy-load database of character vectors, the form in which
// Debian's r-cran-janeaustenr holds Jane Austen's six novels
// (data/janeaustenr/data/Rdata.rdb, which `make data` fetches). No R needed.
//
// The file is objects one after another. Each is a 4-byte big-endian length
// (the size of the object once inflated) and a zlib stream; the next object
// starts where the stream ends. Each inflated object is R's serialization in
// XDR form (all integers 4-byte big-endian):
//
//   "X\n"                         the format (A ASCII, B binary: not read)
//   version, writer, reader       the format's version (2 or 3), the R
//                                 versions that wrote it and can read it
//   (version 3) n, n bytes        the writer's native encoding ("UTF-8")
//   flags, length                 the object: type in the low 8 bits
//                                 (16, a character vector), has-attributes
//                                 in bit 9; its number of strings
//   per string: flags, length,    type 9 (a string); the encoding in bits
//     length bytes                12 and up (ASCII, UTF-8, Latin-1,
//                                 bytes); length -1 for NA, then no bytes
//
// We read character vectors without attributes whose strings are UTF-8
// (ASCII, UTF-8 or native): every other object is an error. Nothing may
// follow the vector in its stream.
//
// Which vector is which novel: R's index beside the file (Rdata.rdx, the
// names and each object's offset and size, serialized and gzipped) would
// say, but the novels say it themselves, the first line of each being its
// title ("EMMA", "Persuasion", ...): rdb_austen_title reads it, and no
// second file or parser is needed. The package holds them in alphabetical
// order of R's names (emma, mansfieldpark, northangerabbey, persuasion,
// prideprejudice, sensesensibility).
//
// The numbers of the package (tests/test_rdb.c asserts them): 6 vectors,
// 73,422 lines (Emma 16,235, Mansfield Park 15,349, Northanger Abbey
// 7,856, Persuasion 8,328, Pride and Prejudice 13,030, Sense and
// Sensibility 12,624), no NA. rdb_join ends every line with '\n', so that
// the novels' texts put one after another are the lines of one text file:
// 4,025,028 characters for the six, of which 73,422 newlines. (Joined with
// '\n' between lines only, with no newline at the end, the six make
// 4,025,027 characters, which is 4,025,028 bytes: the one pound sign, in
// Mansfield Park's "£20,000", takes two bytes in UTF-8.) 81 distinct
// characters: the newline, 79 printable ASCII characters and the pound sign.
#ifndef ATTN_RDB_H
#define ATTN_RDB_H

#include <stdbool.h>
#include <stddef.h>

// One character vector: string i is text + off[i], len[i] bytes of UTF-8
// followed by a NUL; an NA string has na[i] set and is "".
typedef struct {
    char *text;
    size_t *off, *len;
    bool *na;
    size_t n;
} rdb_strings;

// The vectors of a database, in the file's order.
typedef struct {
    rdb_strings *vec;
    size_t n;
} rdb_database;

// Reads the database at path (read whole with core/readfile). Returns 0,
// or -1 with the reason in err, which names the file and says where: the
// object's number (from 0) and the byte of the file it starts at, and for
// what is wrong inside an object, the byte of its inflated serialization.
// A file that cannot be read, an empty one, a length cut short, a zlib
// stream that is damaged, cut short or of another size than its length
// says, a header or type other than the above, a string running past the
// end, bytes after the vector: each is an error, and nothing is kept.
int rdb_load(const char *path, rdb_database *db, char *err, size_t errlen);

// The same on the file's bytes in memory; path names it in err.
int rdb_parse(rdb_database *db, const unsigned char *buf, size_t len, const char *path,
              char *err, size_t errlen);

void rdb_free(rdb_database *db);

// The vector's lines as one text, each line followed by '\n' (an NA line
// is an empty line): a new NUL-terminated buffer, its length in *len
// (without the NUL). NULL when out of memory.
char *rdb_join(const rdb_strings *v, size_t *len);

// The novel v holds, as its title is written ("Emma", "Mansfield Park",
// "Northanger Abbey", "Persuasion", "Pride and Prejudice", "Sense and
// Sensibility"), known by its first line: that title in any case. NULL
// when the first line is none of the six.
const char *rdb_austen_title(const rdb_strings *v);

#endif
