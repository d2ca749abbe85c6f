#!/bin/sh
# bench_tokenize_memory.sh: the peak memory of `chapter7 --tokenize` on one
# long line, as a multiple of the line's size. Two lines: MB megabytes of
# ordinary sentences (many sentences, one line), and MB/5 megabytes of `!`
# (one sentence of as many tokens as bytes; each `!` becomes " ! " in the
# word tokenizer's rewrites).
#
#   tests/bench/bench_tokenize_memory.sh [CHAPTER7 [MB]]
#
# CHAPTER7 defaults to ./chapter7, MB to 100. Needs GNU time (/usr/bin/time,
# Debian package `time`). Prints one line per input; exits non-zero if the
# program fails.
set -eu
prog=${1:-./chapter7}
mb=${2:-100}
time_bin=/usr/bin/time
if [ ! -x "$time_bin" ]; then
    echo "bench_tokenize_memory: needs GNU time ($time_bin, apt-get install time)" >&2
    exit 1
fi
dir=$(mktemp -d /tmp/bench_tokenize_memory.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM

yes 'The film was good. I liked it, but Mr. Smith (the star) did not... Why? "Who knows!"' |
    tr '\n' ' ' | head -c $((mb * 1000000)) > "$dir/sentences.txt"
echo >> "$dir/sentences.txt"
yes '!' | tr -d '\n' | head -c $((mb * 200000)) > "$dir/bangs.txt"
echo >> "$dir/bangs.txt"

for name in sentences bangs; do
    in="$dir/$name.txt"
    bytes=$(wc -c < "$in")
    "$time_bin" -f '%M %e' -o "$dir/time" "$prog" --tokenize < "$in" > "$dir/out"
    read -r kb secs < "$dir/time"
    awk -v name="$name" -v bytes="$bytes" -v kb="$kb" -v secs="$secs" 'BEGIN {
        printf "--tokenize, one line of %s: %.0f MB; peak memory %.0f MB, %.2f x the line (%s s)\n",
               name, bytes / 1e6, kb * 1024 / 1e6, kb * 1024 / bytes, secs }'
done
