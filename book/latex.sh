#!/bin/sh
# latex.sh BOOK.tex BOOK.pdf: typeset the LaTeX that Pandoc wrote, then check
# the result; BOOK.pdf is written only when every check passes.
#
# pdflatex runs in the directory of BOOK.tex, with the figures on TEXINPUTS,
# until the table of contents, the list of figures and the references are
# stable (at most four runs), with makeindex after each run (the index's
# pages). Then book/check.sh reads its log (no listing line too wide for the
# page, no overfull line in the text, no undefined reference) and the PDF's
# fonts (every one embedded).
set -eu
tex=$1
pdf=$2
figures=${FIGURES_DIR:-build/figures}
dir=$(dirname "$tex")
base=$(basename "$tex" .tex)
top=$(pwd)

run=1
while :; do
  # nonstopmode: an error ends the run with a status, never a prompt
  if ! (cd "$dir" && TEXINPUTS="$top/$figures//:" pdflatex -interaction=nonstopmode \
          -halt-on-error -file-line-error "$base.tex" > "$base.pdflatex.out" 2>&1); then
    echo "latex: pdflatex failed on $tex (run $run); the end of its log:" >&2
    tail -n 30 "$dir/$base.log" >&2
    exit 1
  fi
  # the index: makeindex sorts what this run wrote (base.idx) for the next
  if [ -f "$dir/$base.idx" ] && ! (cd "$dir" && makeindex -q "$base.idx"); then
    echo "latex: makeindex failed on $dir/$base.idx" >&2
    exit 1
  fi
  grep -q -e 'Rerun to get' -e 'Label(s) may have changed' "$dir/$base.log" || [ $run -lt 2 ] || break
  [ $run -lt 4 ] || break
  run=$((run + 1))
done

sh book/check.sh log "$dir/$base.log" "$tex"
sh book/check.sh fonts "$dir/$base.pdf"
mv "$dir/$base.pdf" "$pdf"
