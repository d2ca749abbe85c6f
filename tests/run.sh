#!/bin/sh
# Run every Check suite given on the command line, print each suite's own
# summary and how long it took, then one total line. Exit non-zero if any
# suite fails or crashes.
# A test that could not run here says "SKIP: ..." and passes (in CI it fails
# instead, tests/skip.h); the total counts the skipped ones apart.
set -u
total_pass=0
total_fail=0
total_skip=0
broken=""
for t in "$@"; do
  echo "== $t"
  started=$(date +%s)
  out=$("$t" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  echo "($(( $(date +%s) - started )) s)"
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
