#!/bin/sh
# exercise-run.sh CHAPTER.md ...: every shell command an exercise prints is
# run, so that an exercise cannot ask a reader for a command that no longer
# works. book/exercise-commands.lua finds them (its header says which code
# counts as a command, and how an exercise marks one); here each runs
#   - in a scratch copy of the project (the sources, the built programs and
#     library, build/tests, the benchmarks' programs; data/ links to the
#     project's data), never in the project itself, so that what a command
#     writes goes nowhere;
#   - in the order printed, all in the one copy, so that an exercise's `diff`
#     sees the files its earlier commands wrote;
#   - with standard input empty, and at most EXERCISE_TIMEOUT seconds
#     (default 60: a command takes a few seconds on an idle machine, the
#     whole list about a minute, but the book's build may run beside it);
# and must exit with 0, or, when the exercise marks it {.fails}, with an
# error (1 to 123). A command run through a Python script of tests/reference
# that imports torch or nltk needs /usr/bin/python3, which it runs, to
# import it (make book installs both first; EXERCISE_PYTHON names another
# Python to ask, for the check's own cases): when it cannot, the command
# says SKIP, and fails under CI=true or STRICT=1, as a test does
# (tests/skip.h). `make test` itself is not run here: it is the project's
# first check, run before the book (.ci/run). A plain `python3` is refused:
# the book names /usr/bin/python3, the Python with PyTorch and NumPy.
#
#   sh book/exercise-run.sh --self-test   the check's own cases, each a
#                                         small chapter that must pass or fail
#   EXERCISE_TIMES=1 sh book/exercise-run.sh ...   also each command's time
#
# Prints each failure with its chapter, exercise and the command's last
# lines of output, then one line of totals; exits 1 if a command failed.
# The cases hold Markdown's backquotes in single quotes, on purpose; run()
# is called from the list the filter writes.
# shellcheck disable=SC2016,SC2317
set -eu

root=$(pwd)
python=${EXERCISE_PYTHON:-/usr/bin/python3}
limit=${EXERCISE_TIMEOUT:-60}
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = "--self-test" ]; then
  cases=$(mktemp -d "${TMPDIR:-/tmp}/exercise-run-cases.XXXXXX")
  trap 'rm -rf "$cases"' EXIT
  failures=0
  # case pass|fail WHAT EXERCISE-TEXT [ENV=VALUE ...]
  case_() {
    want=$1 what=$2 text=$3; shift 3
    printf '# A chapter\n\n## Exercises\n\n1. %s\n\n## After\n\n`diff a b`\n' \
      "$text" > "$cases/chapter.md"
    if env "$@" sh "$here/exercise-run.sh" "$cases/chapter.md" > "$cases/out" 2>&1
    then got=pass; else got=fail; fi
    if [ "$got" = "$want" ]; then
      echo "exercise-run: $what: $got, as it must"
    else
      echo "exercise-run: $what: should $want, did $got" >&2
      cat "$cases/out" >&2
      failures=$((failures + 1))
    fi
  }
  case_ pass "a command that works" 'Run `diff Makefile Makefile`.'
  case_ fail "a command that fails" 'Run `diff Makefile README.md`.'
  case_ pass "a command marked to fail, failing" 'Run `diff Makefile README.md`{.fails}.'
  case_ fail "a command marked to fail, working" 'Run `diff Makefile Makefile`{.fails}.'
  case_ fail "a command that is not there" 'Run `./no-such-program --seed 1`{.fails}.'
  case_ fail "a shorter command in its place, failing" \
    'Run `diff Makefile Makefile`{run="diff Makefile README.md"}.'
  case_ fail "a failing line of a sh block" \
    "$(printf 'Run\n\n   ```sh\n   diff Makefile README.md\n   diff Makefile Makefile\n   ```')"
  case_ pass "a C listing, not run" \
    "$(printf 'Write\n\n   ```c\n   diff Makefile README.md\n   ```')"
  case_ pass "a sh block marked to fail, failing" \
    "$(printf 'Run\n\n   ```{.sh .fails}\n   diff Makefile README.md\n   ```')"
  case_ pass "files written in the copy, read back" \
    'Run `diff Makefile Makefile > build/one.txt`, `diff Makefile Makefile >
    build/two.txt` and `diff build/one.txt build/two.txt`.'
  case_ fail "a command past the time limit" \
    'Run `/usr/bin/python3 -c "import time; time.sleep(3)"`.' EXERCISE_TIMEOUT=1
  case_ fail "plain python3" 'Run `python3 -c "print(1)"`.'
  case_ pass "make test, left to make test" 'Run `make test`.'
  case_ pass "a script that needs torch, no torch: SKIP" \
    'Run `/usr/bin/python3 tests/reference/chapter4_twin.py 7`.' \
    EXERCISE_PYTHON=/bin/false CI= STRICT=
  case_ fail "a script that needs torch, no torch, in CI" \
    'Run `/usr/bin/python3 tests/reference/chapter4_twin.py 7`.' \
    EXERCISE_PYTHON=/bin/false CI=true
  if [ -e "$root/exercise-run-wrote-here" ]; then
    echo "exercise-run: a command wrote into the project" >&2
    failures=$((failures + 1))
  fi
  case_ pass "a file written by a command stays in the copy" \
    'Run `diff Makefile Makefile > exercise-run-wrote-here`.'
  if [ -e "$root/exercise-run-wrote-here" ]; then
    echo "exercise-run: a command wrote into the project" >&2
    rm -f "$root/exercise-run-wrote-here"
    failures=$((failures + 1))
  fi
  exit $((failures > 0))
fi

# The scratch copy: everything but build/, data/ and .git, with the times of
# the files kept, so that make finds the programs up to date.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exercise-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
scratch=$tmp/project
mkdir "$scratch"
for f in "$root"/* "$root"/.[!.]*; do
  case ${f##*/} in build|data|.git|'.[!.]*') continue ;; esac
  cp -pR "$f" "$scratch/"
done
mkdir -p "$scratch/build"
for f in libattn.a obj tests; do
  [ ! -e "$root/build/$f" ] || cp -pR "$root/build/$f" "$scratch/build/"
done
mkdir "$scratch/build/bench"
for f in "$root"/build/bench/bench_*; do
  [ ! -x "$f" ] || cp -p "$f" "$scratch/build/bench/"
done
# data/ a folder of links to what the project's holds, so that a lock file
# or a leftover's removal stays in the copy.
mkdir "$scratch/data"
for f in "$root"/data/*; do [ ! -e "$f" ] || ln -s "$f" "$scratch/data/"; done
# A reader's shell, not a make recipe's: no flags, no job server. MAKELEVEL
# stays above 0, so that `make chapter7` does not fetch the data, as inside
# make book, which has fetched them already.
unset MAKEFLAGS MFLAGS || true
export MAKELEVEL=1

status=0 ran=0 skipped=0 started=$(date +%s)
md=
# run EXERCISE EXPECT SHOWN COMMAND: one command, from the list the filter
# writes
run() {
  ex=$1 expect=$2 shown=$3 cmd=$4
  where="$md, exercise $ex: \`$shown\`"
  [ "$cmd" = "$shown" ] || where="$where (run as \`$cmd\`)"
  case " $cmd" in
  *[\ \;\&\|\(]python3\ *|*[\ \;\&\|\(]python\ *)
    echo "exercise-run: $where: name /usr/bin/python3, the Python with PyTorch" >&2
    status=1; return ;;
  esac
  if [ "$cmd" = "make test" ]; then return; fi
  for script in $(printf '%s\n' "$cmd" | grep -oE 'tests/reference/[A-Za-z0-9_]+\.py' || true); do
    for module in torch nltk; do
      grep -qE "^(import|from) $module" "$root/$script" 2>/dev/null || continue
      "$python" -c "import $module" 2>/dev/null && continue
      if [ "${CI:-}" = true ] || [ "${STRICT:-}" = 1 ]; then
        echo "exercise-run: $where: SKIP is a failure under CI=true or STRICT=1:" \
          "$python cannot import $module" >&2
        status=1
      else
        echo "exercise-run: SKIP: $where: $python cannot import $module (make book installs it)"
        skipped=$((skipped + 1))
      fi
      return
    done
  done
  ran=$((ran + 1)) t0=$(date +%s)
  if (cd "$scratch" && timeout "$limit" sh -ec "$cmd") < /dev/null > "$tmp/log" 2>&1
  then rc=0; else rc=$?; fi
  [ -z "${EXERCISE_TIMES:-}" ] || echo "exercise-run: $(( $(date +%s) - t0 )) s: $where"
  case $expect:$rc in
  pass:0) return ;;
  fails:0) why="exits with 0, but the exercise marks it {.fails}" ;;
  *:124) why="still running after $limit s" ;;
  fails:12[5-9]|fails:1[3-9][0-9]|fails:2[0-9][0-9]) why="exits with $rc (not run, or killed)" ;;
  fails:*) return ;;
  *) why="exits with $rc" ;;
  esac
  echo "exercise-run: $where $why; its last lines:" >&2
  tail -n 5 "$tmp/log" | sed 's/^/    /' >&2
  status=1
}

for md in "$@"; do
  list=$tmp/commands
  pandoc "$md" --quiet --lua-filter="$here/exercise-commands.lua" -t native -o /dev/null > "$list"
  # shellcheck disable=SC1090
  . "$list"
done
echo "exercise-run: $ran commands of the exercises run in $(( $(date +%s) - started )) s" \
  "($skipped skipped)"
exit $status
