#!/bin/sh
# exercise-check.sh CHAPTER.md ...: the exercises must name only what exists,
# so that a change to the code cannot leave an exercise pointing at nothing.
# In each chapter's "## Exercises" section (to the next "## " heading):
#   - every path in backquotes under src/, tests/, figures/ or book/ is a
#     file or folder of the project (a ":marker" after it is left aside);
#   - every name in backquotes that can only be code (a C identifier with
#     an underscore or in capitals, as `causal_mask` or `VOCAB_SIZE`) is
#     found as a whole word in src/ or tests/;
#   - every option given to a chapter's program (./chapterN ... --opt) is
#     one its --help lists (the programs are built first).
# And in the whole chapter, exercises or not, every block of a program's own
# it names (P4.2, block [P4.2]) is one a program prints: the string "P4.2"
# is in src/programs/, where each is given to print_cell; and none is named
# in the old form, a chapter's number and a place alone ("block 4.2", "[4.2]");
# a range from a program's first block (P4.1 to P4.13) ends at its last.
# Prints each miss with its file and exits 1 if there is one. The commands
# the exercises print are run by book/exercise-run.sh.
set -eu

status=0
for md in "$@"; do
  misses=${TMPDIR:-/tmp}/exercise-check.$$
  : > "$misses"
  # the program's own blocks the whole chapter names
  tr '\n' ' ' < "$md" | grep -oE '(^|[^A-Za-z0-9.])P[0-9]+\.[0-9]+' |
    sed 's/^[^P]*//' | sort -u |
  while read -r label; do
    if ! grep -rqF -- "\"$label\"" src/programs; then
      echo "exercise-check: $md names block $label, which no program prints" >&2
      echo miss
    fi
  done >> "$misses"
  # a range from a program's first block ("P4.1 to P4.13") names them all:
  # it ends at the last one that program prints
  tr '\n' ' ' < "$md" | grep -oE 'P[0-9]+\.1 to P[0-9]+\.[0-9]+' | sort -u |
  while read -r first _ last; do
    n=${first%%.*}; n=${n#P}
    top=$(grep -rhoE "\"P$n\.[0-9]+\"" src/programs | tr -d '"' | sed "s/^P$n\.//" |
          sort -n | tail -n 1)
    if [ "$last" != "P$n.$top" ]; then
      echo "exercise-check: $md says $first to $last, and chapter $n's last block is P$n.$top" >&2
      echo miss
    fi
  done >> "$misses"
  old_label='[1-9][0-9]?\.[0-9]+'
  tr '\n' ' ' < "$md" |
    grep -oE "([Bb]locks?|[Cc]ells?) +\\[?$old_label\\]?|\\[$old_label\\]" | sort -u |
  while read -r old; do
    echo "exercise-check: $md names $old, a label without its P (P4.2)" >&2
    echo miss
  done >> "$misses"
  section=$(awk '/^## Exercises/ { on = 1; next } /^## / { on = 0 } on' "$md")
  # The words in backquotes, one a line (a span may break across lines).
  spans=$(printf '%s\n' "$section" | tr '\n' ' ' | grep -o '`[^`]*`' | tr -d '`' || true)
  printf '%s\n' "$spans" | tr ' ' '\n' | grep -E '^(src|tests|figures|book)/' | sort -u |
  while read -r path; do
    path=${path%%:*}
    path=$(printf '%s' "$path" | sed 's/[.,;)]*$//')
    if [ ! -e "$path" ]; then
      echo "exercise-check: $md names $path, which does not exist" >&2
      echo miss
    fi
  done >> "$misses"
  printf '%s\n' "$spans" | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' |
    grep -E '_|^[A-Z][A-Z0-9]+$' | sort -u |
  while read -r name; do
    if ! grep -rqw -- "$name" src tests; then
      echo "exercise-check: $md names \`$name\`, which is nowhere in src/ or tests/" >&2
      echo miss
    fi
  done >> "$misses"
  # ./chapterN and the options that follow it, up to the end of the command
  printf '%s\n' "$section" | sed 's/\\$//' | tr '\n' ' ' |
    grep -oE '\./chapter[0-9]+( +(--[a-z0-9-]+|[^-`|;&)][^ `|;&)]*))*' |
  while read -r program rest; do
    n=${program#./chapter}
    for opt in $rest; do
      case $opt in
      --*)
        if ! ./chapter"$n" --help 2>/dev/null | grep -qE -- "(^|[][ ,|])$opt([][ =,|]|\$)"; then
          echo "exercise-check: $md runs $program $opt, an option chapter $n does not have" >&2
          echo miss
        fi ;;
      esac
    done
  done >> "$misses"
  if [ -s "$misses" ]; then status=1; fi
  rm -f "$misses"
done
exit $status
