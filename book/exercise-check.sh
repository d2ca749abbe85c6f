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
# Prints each miss with its file and exits 1 if there is one.
set -eu

status=0
for md in "$@"; do
  section=$(awk '/^## Exercises/ { on = 1; next } /^## / { on = 0 } on' "$md")
  [ -n "$section" ] || continue
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
  done > "${TMPDIR:-/tmp}/exercise-check.$$"
  printf '%s\n' "$spans" | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' |
    grep -E '_|^[A-Z][A-Z0-9]+$' | sort -u |
  while read -r name; do
    if ! grep -rqw -- "$name" src tests; then
      echo "exercise-check: $md names \`$name\`, which is nowhere in src/ or tests/" >&2
      echo miss
    fi
  done >> "${TMPDIR:-/tmp}/exercise-check.$$"
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
  done >> "${TMPDIR:-/tmp}/exercise-check.$$"
  if [ -s "${TMPDIR:-/tmp}/exercise-check.$$" ]; then status=1; fi
  rm -f "${TMPDIR:-/tmp}/exercise-check.$$"
done
exit $status
