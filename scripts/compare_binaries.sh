#!/bin/bash
# Side-by-side CPU time of two memplan binaries on the same inputs, alternating runs (so that
# the machine's load falls on both alike), and whether their plans are byte-identical (md5).
#   scripts/compare_binaries.sh OLD NEW "ALGO..." INPUT... [ -- ROUNDS ]
# Prints a Markdown table: input, algorithm, median CPU s (user + sys) of each binary over
# ROUNDS (default 3) runs each, and "same" or "DIFFERENT" plans. Used for the training-trace
# placement figures in README.md ("Many buffers live at once").
set -euo pipefail
old=$1 new=$2 algos=$3
shift 3
rounds=3
inputs=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then rounds=$2; shift 2; else inputs+=("$1"); shift; fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
cpu() {  # binary input algo out -> CPU seconds
  /usr/bin/time -f "%U %S" -o "$tmp/t" "$1" solve "$2" -a "$3" --time-limit 0 -o "$4" > /dev/null
  awk '{print $1 + $2}' "$tmp/t"
}
echo "| input | algorithm | old CPU s | new CPU s | plans |"
echo "|---|---|---:|---:|---|"
for f in "${inputs[@]}"; do
  for a in $algos; do
    : > "$tmp/o" ; : > "$tmp/n"
    for ((r = 0; r < rounds; ++r)); do
      cpu "$old" "$f" "$a" "$tmp/old.csv" >> "$tmp/o"
      cpu "$new" "$f" "$a" "$tmp/new.csv" >> "$tmp/n"
    done
    same=DIFFERENT
    [ "$(md5sum < "$tmp/old.csv")" = "$(md5sum < "$tmp/new.csv")" ] && same=same
    echo "| $(basename "$f") | $a | $(median < "$tmp/o") | $(median < "$tmp/n") | $same |"
  done
done
