#!/bin/sh
# Run every Check suite given on the command line, print each suite's own
# summary and how long it took, then one total line. Exit non-zero if any
# suite fails or crashes.
# A test that could not run here says "SKIP: ..." and passes (in CI it fails
# instead, tests/skip.h); the total counts the skipped ones apart.
# RUN_JOBS=N runs N suites at a time (default 1), each taking the next
# suite of the list that no other has claimed, so the longest go first in
# the list; their outputs are printed in the list's order as they finish.
set -u
total_pass=0
total_fail=0
total_skip=0
broken=""
jobs=${RUN_JOBS:-1}
# A thread that waits for another sleeps (unless the caller sets
# OMP_WAIT_POLICY): spinning, it holds a core the thread it waits for
# needs whenever the machine has other work, its own suites' with RUN_JOBS
# or anything else. test_gpt's generation tests wait at every layer of every
# token: 0.5 s alone; beside two busy processes, 1.8 s with sleeping
# threads, and with spinning ones they ended only when the busy processes
# did, 40 s later (sanitized: 2.4 s alone, 5.6 s sleeping, 60 s spinning).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
work=$(mktemp -d "${TMPDIR:-/tmp}/run.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# Suite number $1, the program $2: its output, status and seconds in $work.
run_one() {
  started=$(date +%s)
  "$2" > "$work/$1.out" 2>&1
  echo $? > "$work/$1.rc"
  echo $(( $(date +%s) - started )) > "$work/$1.time"
}

. "$(dirname "$0")/jobs.sh"
[ "$jobs" -gt 1 ] && claimed_jobs "$work" "$jobs" run_one "$@"

k=0
for t in "$@"; do
  k=$((k + 1))
  echo "== $t"
  if [ "$jobs" -gt 1 ]; then
    while [ ! -f "$work/$k.time" ]; do sleep 1; done
  else
    run_one "$k" "$t"
  fi
  out=$(cat "$work/$k.out")
  rc=$(cat "$work/$k.rc")
  printf '%s\n' "$out"
  echo "($(cat "$work/$k.time") s)"
  line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' | tail -n 1)
  if [ -z "$line" ]; then
    broken="$broken $t"
    continue
  fi
  checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
  fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
  errors=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
  skips=$(printf '%s\n' "$out" | grep -c '^SKIP: ')
  total_skip=$((total_skip + skips))
  total_pass=$((total_pass + checks - fails - errors - skips))
  total_fail=$((total_fail + fails + errors))
  [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ] && [ "$errors" -eq 0 ] && broken="$broken $t"
done
wait
echo
if [ "$total_skip" -gt 0 ]; then
  echo "tests: $total_pass passed, $total_fail failed, $total_skip skipped"
else
  echo "tests: $total_pass passed, $total_fail failed"
fi
if [ -n "$broken" ]; then
  echo "tests: these suites crashed or printed no summary:$broken" >&2
  exit 1
fi
[ "$total_fail" -eq 0 ]
