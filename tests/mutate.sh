#!/bin/sh
# tests/mutate.sh [LIST]: mutation testing, a developer's tool (make test
# does not run it). Each line of LIST (default tests/mutations.txt) is
#   FILE | SED | SUITES
# a sed expression that changes one line of FILE, and the test suites
# (build/tests/NAME, each with an optional CK_RUN_CASE after a ':', as
# test_chapter8_imdb:cell) that should notice; SUITES "make-test" runs
# `make test`. '#' starts a comment. For each line, one at a time: FILE is
# changed (a sed that changes nothing, or more than one line, is reported
# and skipped), the suites are built and run, and the mutation is "killed"
# when a build or a suite fails, "survived" when all pass; then FILE is put
# back as it was, also when the run is interrupted (SIGINT, SIGTERM,
# SIGHUP). At the end: killed/total and the survivors. Run it from the
# project root on a clean tree; MAKEFLAGS (e.g. -j2) is passed on.
set -u
list=${1:-tests/mutations.txt}
log=${MUTATE_LOG:-build/mutate.log}
mkdir -p build
: > "$log"
saved=""
file=""
restore() {
    # a plain copy, not cp -p: the file gets a new time, so that make
    # rebuilds what the mutation built, not only what comes next
    if [ -n "$saved" ] && [ -f "$saved" ]; then
        cp "$saved" "$file" && rm -f "$saved"
    fi
    saved=""
}
trap 'restore; echo "mutate.sh: interrupted; $file restored" >&2; exit 130' INT TERM HUP
killed=0 total=0 survivors=""
n=0
while IFS= read -r line; do
    n=$((n + 1))
    case $line in '#'*|'') continue ;; esac
    file=$(printf '%s' "$line" | awk -F ' [|] ' '{print $1}')
    expr=$(printf '%s' "$line" | awk -F ' [|] ' '{print $2}')
    suites=$(printf '%s' "$line" | awk -F ' [|] ' '{print $3}')
    if [ ! -f "$file" ]; then echo "line $n: no file $file" | tee -a "$log"; continue; fi
    saved=$(mktemp "${TMPDIR:-/tmp}/mutate.XXXXXX")
    cp -p "$file" "$saved"
    sed -i "$expr" "$file"
    changed=$(diff "$saved" "$file" | grep -c '^>')
    if [ "$changed" -ne 1 ]; then
        echo "line $n: $file: the sed changed $changed lines, not one: skipped" | tee -a "$log"
        restore
        continue
    fi
    total=$((total + 1))
    verdict=survived
    if [ "$suites" = make-test ]; then
        make test >> "$log" 2>&1 || verdict=killed
    else
        for s in $suites; do
            name=${s%%:*}
            case_=""
            [ "$name" != "$s" ] && case_=${s#*:}
            if ! make "build/tests/$name" >> "$log" 2>&1; then verdict=killed; break; fi
            # an empty CK_RUN_CASE would run no case at all: set only when given
            if ! env ${case_:+CK_RUN_CASE=$case_} "./build/tests/$name" >> "$log" 2>&1; then
                verdict=killed
                break
            fi
        done
    fi
    restore
    printf '%-8s line %d: %s | %s\n' "$verdict" "$n" "$file" "$expr" | tee -a "$log"
    if [ $verdict = killed ]; then killed=$((killed + 1)); else survivors="$survivors
  line $n: $file | $expr"; fi
done < "$list"
# the files put back: the library and the suites as they were
make -s build/libattn.a > /dev/null 2>&1
echo "mutation score: $killed killed of $total ($([ $total -gt 0 ] && echo $((100 * killed / total)) || echo 0)%)"
[ -n "$survivors" ] && echo "survivors:$survivors"
exit 0
