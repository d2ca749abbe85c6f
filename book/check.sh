#!/bin/sh
# check.sh: the checks the book must pass before it is written.
#
#   sh book/check.sh log BOOK.log BOOK.tex
#     pdflatex's log of the last run. Fails on
#     - a line of a code listing or of a program-output box wider than the
#       page: fancyvrb sets each line in a box of the page's width with
#       infinite glue, so TeX itself never says that a line sticks out;
#       book/header.tex measures every line and logs "book: listing line too
#       wide by Xpt at input line N" for one that does;
#     - an overfull line in the text wider than $OVERFULL_PT points (default
#       1pt; TeX's own tolerance is 0.1pt);
#     - an undefined reference or citation.
#   sh book/check.sh fonts BOOK.pdf
#     every font in the PDF embedded (pdffonts, from poppler-utils, which
#     this installs when it is missing).
set -eu

case "$1" in
log)
  log=$2 tex=$3
  limit=${OVERFULL_PT:-1}
  status=0
  # A listing line too wide: quote the line of the .tex it comes from.
  grep -a '^book: listing line too wide' "$log" | while read -r _ _ _ _ _ _ by _ _ _ line; do
    printf "book: a listing line sticks out of the page by %s: %s\n" "$by" "$(sed -n "${line}p" "$tex")" >&2
  done
  if grep -a -q '^book: listing line too wide' "$log"; then status=1; fi
  # Overfull boxes in the text, with the words TeX printed after the warning.
  awk -v limit="$limit" '
    /^Overfull \\hbox \(/ {
      w = $3; sub(/^\(/, "", w); sub(/pt$/, "", w)
      if (w + 0 > limit) { bad = 1; show = 2; print "book: " $0 > "/dev/stderr"; next }
    }
    show > 0 { print "      " $0 > "/dev/stderr"; show-- }
    END { exit bad }' "$log" || status=1
  if grep -a -E -q "(Reference|Citation) .* undefined" "$log"; then
    grep -a -E "(Reference|Citation) .* undefined" "$log" | sed 's/^/book: /' >&2
    status=1
  fi
  if [ $status != 0 ]; then
    echo "book: the LaTeX log ($log) shows lines that run off the page or broken references" >&2
    exit 1
  fi
  echo "book: no listing line too wide, no overfull line over ${limit}pt, every reference defined"
  ;;
fonts)
  pdf=$2
  sh tests/setup.sh poppler-utils:pdffonts
  # pdffonts prints two header lines, then one line per font:
  #   name type... encoding emb sub uni object-number generation
  fonts=$(pdffonts "$pdf")
  missing=$(printf '%s\n' "$fonts" | awk 'NR > 2 && $(NF-4) != "yes"')
  if [ -n "$missing" ]; then
    echo "book: fonts not embedded in $pdf:" >&2
    printf '%s\n' "$missing" >&2
    exit 1
  fi
  echo "book: all $(printf '%s\n' "$fonts" | awk 'NR > 2' | wc -l) fonts embedded"
  ;;
*)
  echo "usage: sh book/check.sh log BOOK.log BOOK.tex | fonts BOOK.pdf" >&2
  exit 2
  ;;
esac
