#!/bin/sh
# tests/oom/run.sh BUILD: the runs of `make oom`, on the programs in
# BUILD/bin (linked with tests/oom/fail_alloc.c; see the Makefile).
#
# Each case below is a short run of a chapter program on small inputs made
# here. It first runs as it is, recording which calls in the code allocate
# and how often. Then it runs again and again with one allocation failing:
#   - where the run allocates at most OOM_NTH_MAX times (default 400): the
#     N-th allocation, for every N;
#   - otherwise: each call in the source that the run reached, failed the
#     first time it is reached.
# A run with a failure must either exit non-zero with "out of memory" on
# standard error, or finish as the run without the failure did (the same
# output, the same files). In every case: no signal, no sanitizer report
# (AddressSanitizer, LeakSanitizer, UndefinedBehaviorSanitizer), no file
# half-written (every file it leaves is the one the first run wrote, or the
# one that was there before; no temporary file is left).
#
# At the end: how many allocating calls src/ holds (found in the binaries:
# each call to a wrapped function, by its source line), how many the runs
# reached and how many they failed, the number of runs, and every problem.
# OOM_LIST=1 also lists the calls no run reached; OOM_CASES="chapter1
# chapter7" runs only those cases; OOM_JOBS=1 runs one case at a time
# (default: as many at once as there are cores). Exit status 1 on any
# problem or any call in src/ that no run failed.
set -u
build=${1:?usage: run.sh BUILD}
bin=$build/bin
work=$build/work
nth_max=${OOM_NTH_MAX:-400}
rm -rf "$work"
mkdir -p "$work/in"
problems=$work/problems
: > "$problems"
: > "$work/reached"
: > "$work/failed"
runs=0

# The sanitizers' reports must not pass for the program's own failures.
export ASAN_OPTIONS=detect_leaks=1:exitcode=97:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=97
export LSAN_OPTIONS=exitcode=97
export OMP_NUM_THREADS=2
# Two cases run at once on two threads each: a waiting thread sleeps rather
# than spin on a core another thread needs (tests/run.sh says how much that
# costs).
export OMP_WAIT_POLICY=passive

# ------------------------------------------------------------- the inputs
in=$work/in
# IMDb reviews in text/imdb.h's layout: four blocks of 12,500 (test/neg,
# train/neg, test/pos, train/pos), all empty but the first 40 of each, so
# that training has 80 chunks (a batch is 64) and testing 80 reviews.
awk 'BEGIN {
  printf "[";
  for (i = 0; i < 50000; i++) {
    block = int(i / 12500); label = block >= 2 ? 1 : 0;
    t = "";
    if (i % 12500 < 40)
      t = label ? "An excellent film, Mr. Smith said. I loved it." : "A terrible film. I hated it, Dr. Jones.";
    printf "%s{\"t\": \"%s\", \"s\": %d}", i ? ", " : "", t, label;
  }
  print "]";
}' > "$in/reviews.json"
# GloVe vectors, 100 numbers a word, for the words of those reviews; the
# first number of "film" (a word of the reviews, so that it is read) written
# with 300 more zeros, which Python's float() reads in a buffer of its own
# (text/pyfloat.c)
awk 'BEGIN {
  n = split("the a an excellent terrible film , . i loved hated it mr. dr. smith jones said", w, " ");
  zeros = sprintf("%0300d", 0);
  for (k = 1; k <= n; k++) {
    line = w[k];
    for (j = 0; j < 100; j++) line = line " " sprintf("%.4f", sin(k * 7 + j) / 3) (w[k] == "film" && j == 0 ? zeros : "");
    print line;
  }
}' > "$in/glove100.txt"
# chapter 6's two default sentences, four numbers a word
awk 'BEGIN {
  n = split("the teacher praised a student because she improved asked to help her improving", w, " ");
  for (k = 1; k <= n; k++) printf "%s %.3f %.3f %.3f %.3f\n", w[k], sin(k), cos(k), sin(2 * k), cos(3 * k);
}' > "$in/glove4.txt"
# the converter's input: wink's JSON with three words of width 4
printf '{"dimensions": 4, "vectors": {"the": [0.1, -0.2, 0.3, 0.4], "film": [1, 2, 3, 4], "good": [0.5, 0.25, -1e-7, 8]}}\n' \
  > "$in/wink.json"
# Jane Austen's six titles with a few lines each (tests/oom/austen_rdb.c),
# and a model trained one step on them, for chapter 9 to load
"$build/austen_rdb" "$in/austen.rdb"
"$bin/chapter9" --rdb "$in/austen.rdb" --steps 1 --eval-batches 1 --tokens 1 --no-compressors \
  --save "$in/austen-model.bin" > /dev/null
# documents for --tokenize, one a line
printf '%s\n' 'I saw Mr. Smith at 3 p.m. He said "no." Then he left...' \
  'A <br /><br />review, with a break; and "quotes" (and brackets)!' '' "Don't stop -- it's 1.5 times better!" \
  > "$in/lines.txt"

# ------------------------------------------------------------- the cases
# name|program and arguments|standard input ("-": none)|what it writes
#   (DATA: the --data folder is $out/data; OUT: the file $out/out.txt;
#    LINK: $out/link.txt, a link to $out/target.txt)[|sites]
# "sites" fails each call once however few allocations the run makes:
# chapter 9's runs take seconds each (a training step of the whole model),
# and chapter 10's too (its ceilings measured, each kernel timed for 0.2 s
# at least, then two models trained a step, then the steps of three timed),
# too long to repeat for each of their hundred-odd allocations. Chapter 10
# runs as three cases (--blocks): its measurements, [P10.5]'s training and
# [P10.6]'s steps, so that a call reached in one part fails without the runs
# of the others before it.
# The longest first (their times under make oom on two cores: chapter 1's
# timing 112 s, chapter 8 96 s, chapter 10's first and last 93 s and 92 s,
# chapter 9 84 s, the others 30 s or less), so that the jobs, each taking
# the next case when it is done with one, end together.
cases="chapter1-timing|chapter1 --timing --data DATA|-|DATA
chapter8|chapter8 --steps 3 --test-size 8 --imdb $in/reviews.json --glove $in/glove100.txt --data DATA|-|DATA
chapter10-kernels-timing|chapter10 --max-n 512 --max-memory 1 --blocks P10.1,P10.2,P10.3,P10.4 --data DATA|-|DATA|sites
chapter10-mfu-timing|chapter10 --steps 1 --blocks P10.6 --data DATA|-|DATA|sites
chapter9|chapter9 --rdb $in/austen.rdb --steps 1 --eval-batches 1 --tokens 5 --save OUT --data DATA|-|DATA|sites
chapter7|chapter7 --imdb $in/reviews.json --glove $in/glove100.txt --epochs 1 --data DATA|-|DATA
chapter4|chapter4 --data DATA|-|DATA
chapter5|chapter5 --data DATA|-|DATA
chapter10-training-timing|chapter10 --steps 1 --blocks P10.5|-|-|sites
chapter9-load|chapter9 --rdb $in/austen.rdb --load $in/austen-model.bin --tokens 5 --temperature 0 --top-k 3 --no-compressors|-|-|sites
chapter1-scaling|chapter1 --scaling --data DATA|-|DATA
chapter6|chapter6 --glove $in/glove4.txt --data DATA|-|DATA
chapter7-convert-link|chapter7 --convert-glove $in/wink.json LINK|-|LINK
chapter3|chapter3 --data DATA|-|DATA
chapter2|chapter2 --data DATA|-|DATA
chapter1|chapter1 --data DATA|-|DATA
chapter7-tokenize|chapter7 --tokenize|$in/lines.txt|-
chapter7-convert|chapter7 --convert-glove $in/wink.json OUT|-|OUT"

# Runs case $1 (its fields in $cmd, $stdin, $writes) in the folder $2,
# with the environment already set; leaves stdout, stderr and status there.
run_case() {
  dir=$2
  rm -rf "$dir"
  mkdir -p "$dir"
  printf 'the original\n' > "$dir/target.txt"
  ln -s target.txt "$dir/link.txt"
  args=$(printf '%s' "$cmd" | sed "s|DATA|$dir/data|; s|OUT|$dir/out.txt|; s|LINK|$dir/link.txt|")
  prog=${args%% *}
  rest=${args#"$prog"}
  if [ "$stdin" = - ]; then
    # shellcheck disable=SC2086
    "$bin/$prog" $rest < /dev/null > "$dir/stdout" 2> "$dir/stderr"
  else
    # shellcheck disable=SC2086
    "$bin/$prog" $rest < "$stdin" > "$dir/stdout" 2> "$dir/stderr"
  fi
  echo $? > "$dir/status"
}

# What a run left in its folder, as "name checksum" lines: the files it
# wrote (the data folder, out.txt, the link's target) and whether the
# link is still a link.
leftovers() {
  (
    cd "$1" || exit 1
    for f in data/* out.txt target.txt; do
      [ -f "$f" ] || continue
      case "$f" in
        # times: the table's sizes, and the epochs' numbers without their seconds
        *-timing.dat) echo "$f $(cut -d' ' -f1 "$f" | cksum)" ;;
        # chapter 10's measurements: the sizes of its table, the ceilings' header
        */chapter10-memory.dat) echo "$f $(cut -d' ' -f1 "$f" | cksum)" ;;
        */chapter10-machine.dat) echo "$f $(head -n 1 "$f" | cksum)" ;;
        # the training steps: each model's name and counts, not its time and threads
        */chapter10-mfu.dat) echo "$f $(sed 's/ [^ ]* [^ ]*$//' "$f" | cksum)" ;;
        *-train-*.dat) echo "$f $(sed 's/ [^ ]*$//' "$f" | cksum)" ;;
        *) echo "$f $(cksum < "$f")" ;;
      esac
    done
    [ -L link.txt ] && echo "link.txt is a link"
    ls -a . data 2>/dev/null | grep -i 'tmp' | sed 's/^/temporary: /'
  )
}

# Timing lines (chapter 1's --timing table, the closing line of chapter 7)
# differ from run to run: compare what is left.
# Their own folder, in the command line chapter 7 prints, too. A table of
# times ($3 ends in -timing) keeps only its words.
steady() {
  case "$3" in
    *-timing) sed -E 's/[0-9.e+-]+/N/g; s/ +/ /g' "$1" ;;
    *) sed -E "s|$2|RUN|g; s/[0-9.]+ *(s|ms|µs|us|MB|GB|kB)\\b/T/g; s/[0-9]+ threads?/N threads/g; s|[0-9.]+ tokens/s|N tokens/s|g" "$1" ;;
  esac
}

problem() { echo "$1" >> "$problems"; }

# Checks run folder $2 of case $1 against the first run in $3.
check_run() {
  name=$1 dir=$2 ref=$3 what=$4
  st=$(cat "$dir/status")
  if grep -qE 'Sanitizer|runtime error:' "$dir/stderr"; then
    problem "$name ($what): sanitizer report: $(grep -m1 -E 'ERROR|runtime error' "$dir/stderr")"
    return
  fi
  if [ "$st" -ge 128 ] || [ "$st" = 97 ]; then
    problem "$name ($what): exit status $st: $(tail -n 1 "$dir/stderr")"
    return
  fi
  if [ "$st" = 0 ]; then
    # finished: as the first run did
    if ! steady "$dir/stdout" "$dir" "$name" | cmp -s - "$ref/stdout.steady"; then
      problem "$name ($what): exit 0 with other output than without the failure"
      return
    fi
    if [ "$(leftovers "$dir")" != "$(cat "$ref/leftovers")" ]; then
      problem "$name ($what): exit 0 with other files than without the failure"
    fi
    return
  fi
  if ! grep -q 'out of memory' "$dir/stderr"; then
    problem "$name ($what): exit $st without \"out of memory\": $(tail -n 1 "$dir/stderr")"
    return
  fi
  # failed: every file it left is the first run's, or the one from before
  leftovers "$dir" | while read -r file sum size; do
    case "$file" in
      temporary:) problem "$name ($what): left $sum" ;;
      link.txt) ;;
      target.txt)
        [ "$sum $size" = "$(cksum < "$ref/target.txt" | tr -s ' ' | cut -d' ' -f1,2)" ] ||
          [ "$sum $size" = "$(printf 'the original\n' | cksum | cut -d' ' -f1,2)" ] ||
          problem "$name ($what): target.txt half-written" ;;
      *)
        grep -qx "$file $sum $size" "$ref/leftovers" || problem "$name ($what): $file half-written" ;;
    esac
  done
  [ "$cmd" = "${cmd%LINK*}" ] || [ -L "$dir/link.txt" ] || problem "$name ($what): the link was replaced"
}

# One case, its line of $cases in $1: the run as it is, then the runs with
# a failure. Cases write only into their own folders, and append whole
# lines to the shared lists (reached, failed, runs, problems).
one_case() {
  IFS='|' read -r name cmd stdin writes how <<LINE
$1
LINE
  ref=$work/$name/ref
  started=$(date +%s)
  mkdir -p "$work/$name"
  : > "$work/$name/seen"
  OOM_SITES=$work/$name/sites OOM_SITES_SEEN=$work/$name/seen run_case "$name" "$ref"
  if [ "$(cat "$ref/status")" != 0 ]; then
    problem "$name: fails without any allocation failing: $(tail -n 2 "$ref/stderr")"
    return
  fi
  steady "$ref/stdout" "$ref" "$name" > "$ref/stdout.steady"
  leftovers "$ref" > "$ref/leftovers"
  # the calls the run made: its own, and its forked children's (seen)
  { sed 1d "$work/$name/sites" | cut -d' ' -f1; cat "$work/$name/seen"; } | sort -u > "$work/$name/called"
  sed "s|^|$name |" "$work/$name/called" >> "$work/reached"
  calls=$(sed -n '1s/^calls //p' "$work/$name/sites")
  n=0
  if [ "$calls" -le "$nth_max" ] && [ "$how" != sites ]; then
    echo "oom: $name: $calls allocations; failing each in turn"
    k=1
    while [ "$k" -le "$calls" ]; do
      : > "$work/$name/failed"
      OOM_FAIL_AT=$k OOM_FAILED=$work/$name/failed run_case "$name" "$work/$name/run"
      check_run "$name" "$work/$name/run" "$ref" "allocation $k"
      sed "s|^|$name |" "$work/$name/failed" >> "$work/failed"
      k=$((k + 1)) n=$((n + 1))
    done
  else
    sites=$(cat "$work/$name/called")
    echo "oom: $name: $calls allocations from $(echo "$sites" | wc -l) calls; failing each call in turn"
    for site in $sites; do
      : > "$work/$name/failed"
      OOM_FAIL_SITE=$site OOM_FAILED=$work/$name/failed run_case "$name" "$work/$name/run"
      check_run "$name" "$work/$name/run" "$ref" "call at $(addr2line -e "$bin/${cmd%% *}" "$site" | sed 's|.*/src/|src/|')"
      sed "s|^|$name |" "$work/$name/failed" >> "$work/failed"
      n=$((n + 1))
    done
  fi
  echo "$n" >> "$work/runs"
  echo "oom: $name: $n runs in $(($(date +%s) - started)) s"
}

# The cases OOM_CASES names (default: all), OOM_JOBS at a time (default:
# one a core), each job taking the next case no job has claimed
# (tests/jobs.sh), until none is left.
. "$(dirname "$0")/../jobs.sh"
jobs=${OOM_JOBS:-$(nproc 2>/dev/null || echo 1)}
selected=$(echo "$cases" | while IFS='|' read -r name rest; do
  case " ${OOM_CASES:-$name} " in *" $name "*) echo "$name|$rest" ;; esac
done)
case_k() { one_case "$2"; }  # claimed_jobs' K-th case, its line
mkdir -p "$work/claimed"
IFS='
'
set -f
# shellcheck disable=SC2086  # one item a line of $selected
claimed_jobs "$work/claimed" "$jobs" case_k $selected
IFS=' 	
'
set +f
wait

# ------------------------------------------------------------- the count
# Every call to a wrapped function in each program, by the source line of
# the instruction after it (the return address, as fail_alloc.c sees it).
for p in "$bin"/chapter*; do
  objdump -d --no-show-raw-insn "$p" |
    awk -v p="$(basename "$p")" '
      found { sub(/:.*/, "", $1); print p, $1; found = 0 }
      /call.*<__wrap_[a-z_]+>/ { found = 1 }'
done > "$work/calls"
# program address -> src/file:line (the innermost line, where the call is)
by_line() {
  while read -r p a; do
    echo "$(addr2line -e "$bin/$p" "$a" | sed 's/ (discriminator.*//')"
  done | grep '/src/' | sed 's|.*/src/|src/|' | sort -u
}
by_line < "$work/calls" > "$work/calls.lines"
awk '{ split($1, a, "-"); print a[1], $2 }' "$work/reached" |
  by_line > "$work/reached.lines"
awk '{ split($1, a, "-"); print a[1], $2 }' "$work/failed" | by_line > "$work/failed.lines"
total=$(wc -l < "$work/calls.lines")
reached=$(comm -12 "$work/calls.lines" "$work/reached.lines" | wc -l)
failed=$(comm -12 "$work/calls.lines" "$work/failed.lines" | wc -l)
nruns=$(awk '{ s += $1 } END { print s + 0 }' "$work/runs" 2>/dev/null)
nproblems=$(wc -l < "$problems")
echo "oom: $total allocating calls in src/; $reached reached, $failed failed; $nruns runs with a failure"
if [ "${OOM_LIST:-0}" = 1 ] || [ "$failed" -lt "$total" ]; then
  comm -23 "$work/calls.lines" "$work/failed.lines" | sed 's/^/oom: never failed: /'
fi
if [ "$nproblems" -gt 0 ]; then
  sort -u "$problems" | sed 's/^/oom: problem: /'
fi
echo "oom: $nproblems problems"
[ "$nproblems" = 0 ] && [ "$failed" = "$total" ]
