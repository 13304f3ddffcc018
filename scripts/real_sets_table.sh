#!/usr/bin/env bash
# Peak/LOAD and CPU seconds per solver on real sets (default: IOPDDL's S_1 and Y_1), the
# median over RUNS runs at a time limit: exact, peak-window, peak-window-ladder and dive on
# one thread, auto on one and on two threads. The runs alternate solver by solver, so load changes hit every
# row alike. Also prints each row's statuses (o: proven optimal, f: feasible).
# Usage: scripts/real_sets_table.sh [runs=3] [limit=10] [FILE...]   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
MEMPLAN=${MEMPLAN:-build/memplan}
runs=${1:-3}
limit=${2:-10}
shift 2 || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(benchmarks/idealloc/iopddl/S_1.csv benchmarks/idealloc/iopddl/Y_1.csv)
configs=("exact 1" "peak-window 1" "peak-window-ladder 1" "dive 1" "auto 1" "auto 2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "${files[@]}"; do
  for ((r = 1; r <= runs; ++r)); do
    for c in "${configs[@]}"; do
      set -- $c
      out=$( { /usr/bin/time -f 'cpu=%U+%S' "$MEMPLAN" solve "$f" -a "$1" --threads "$2" --time-limit "$limit" \
               -o /dev/null; } 2>&1 || true)
      ratio=$(grep -o 'ratio=[0-9.]*' <<<"$out" | cut -d= -f2)
      status=$(grep -o ' status=[a-z_]*' <<<"$out" | cut -d= -f2)
      cpu=$(grep -o 'cpu=[0-9.+]*' <<<"$out" | cut -d= -f2 | bc -l)
      echo "$ratio $cpu ${status:0:1}" >> "$tmp/$(basename "$f")_$1_$2"
    done
  done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "| input | solver | threads | peak/LOAD (median of $runs) | CPU s (median) | statuses |"
echo "|---|---|---:|---:|---:|---|"
for f in "${files[@]}"; do
  for c in "${configs[@]}"; do
    set -- $c
    rows="$tmp/$(basename "$f")_$1_$2"
    echo "| $(basename "$f" .csv) | $1 | $2 | $(cut -d' ' -f1 "$rows" | median) | $(cut -d' ' -f2 "$rows" | median) | $(cut -d' ' -f3 "$rows" | tr -d '\n') |"
  done
done
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), limit ${limit} s"
