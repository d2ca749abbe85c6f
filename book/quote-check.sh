#!/bin/sh
# quote-check.sh: book/quote.lua must refuse what would let the book quote
# nothing, or the wrong thing. Run by make book and make html before the
# book itself: each case builds a page from a small source tree of its own
# and must pass or fail as stated.
#
#   sh book/quote-check.sh DIR     DIR: a scratch folder (emptied first)
set -eu
dir=$1
rm -rf "$dir"; mkdir -p "$dir/src/nn" "$dir/src/programs" "$dir/out"
filter=$(pwd)/book/quote.lua
printf '//> step\nint step;\n//< step\n' > "$dir/src/nn/step.c"
printf '//> main\nint main;\n//< main\n' > "$dir/src/programs/step.c"
printf '//> deep\nint deep;\n//< deep\n' > "$dir/src/programs/only.h"

failures=0
# expect pass|fail WHAT SNIPPET...: a page quoting each SNIPPET (and the
# output block $output and the lines $extra, when set)
output=
extra=
expect() {
  want=$1 what=$2; shift 2
  page=$dir/page.md; : > "$page"
  for s in "$@"; do printf '```{.c snippet="%s"}\n```\n\n' "$s" >> "$page"; done
  [ -z "$output" ] || printf '```{.output %s}\n```\n' "$output" >> "$page"
  [ -z "$extra" ] || printf '%s\n' "$extra" >> "$page"
  if (cd "$dir" && pandoc page.md --lua-filter="$filter" --metadata=source-dir:src \
        --metadata=output-dir:out -t native -o /dev/null) 2> "$dir/err"; then got=pass
  elif grep -q 'quote\.lua: ' "$dir/err"; then got=fail
  else got="fail for another reason"; fi
  if [ "$got" = "$want" ]; then
    echo "quote-check: $what: $got, as it must"
  else
    echo "quote-check: $what: should $want, did $got" >&2; cat "$dir/err" >&2
    failures=$((failures + 1))
  fi
}
expect pass "every marker quoted, by path and by a unique name" \
  nn/step.c:step programs/step.c:main only.h:deep
expect fail "a marker that does not exist" \
  nn/step.c:step programs/step.c:main only.h:deep nn/step.c:nowhere
expect fail "a file that does not exist" \
  nn/step.c:step programs/step.c:main only.h:deep nn/gone.c:step
expect fail "a name two files share" \
  step.c:step programs/step.c:main only.h:deep
expect fail "a marker in a subfolder never quoted" \
  nn/step.c:step programs/step.c:main
# A program's output: a notebook cell's block, then two of the program's own.
printf '\n[T3] a cell\n1\n\n[P4.1] its own\n2\n\n[P4.2] its next\n3\n' > "$dir/out/prog.txt"
all="nn/step.c:step programs/step.c:main only.h:deep"
for case in 'pass|cells by label|program="prog" cells="T3 P4.2"' \
            'pass|a range of the program'"'"'s own blocks|program="prog" cells="P4.1-P4.2"' \
            'fail|a label in the old form, 4.2|program="prog" cells="4.2"' \
            'fail|a cell the output lacks|program="prog" cells="T4"' \
            'pass|a whole output under its command|program="prog" command="./prog --all"' \
            'fail|a whole output with no header|program="prog"'; do
  output=${case#*|}; output=${output#*|}
  # shellcheck disable=SC2086
  expect "${case%%|*}" "output: $(printf '%s' "$case" | cut -d'|' -f2)" $all
done
output=
# A script quoted whole, or the part between its '#> name' and '#< name'.
printf 'import torch\n#> model\nx = 1\n#< model\n#> open\ny = 2\n' > "$dir/twin.py"
for case in 'pass|a script whole|file="twin.py"' \
            'pass|a part of a script|file="twin.py" part="model"' \
            'fail|a part the script lacks|file="twin.py" part="train"' \
            'fail|a part never closed|file="twin.py" part="open"' \
            'fail|a script that does not exist|file="gone.py"'; do
  extra=$(printf '```{.python %s}\n```' "${case##*|}")
  # shellcheck disable=SC2086
  expect "${case%%|*}" "script: $(printf '%s' "$case" | cut -d'|' -f2)" $all
done
extra=
rm -rf "$dir/src"; mkdir -p "$dir/src"
expect fail "a source folder with no files" nn/step.c:step
[ "$failures" = 0 ] || { echo "quote-check: book/quote.lua let $failures case(s) through" >&2; exit 1; }
