#!/usr/bin/env bash
# `auto` with a quarter of one core: memplan and three busy loops pinned to the same CPU
# (taskset), so memplan's two threads share at most 1/4 of it (less when the machine has
# other work). HOGS=k sets the number of busy loops (HOGS=0: pinned to one core only). Prints, per run, the input, the binary, the peak/LOAD, the status, the wall and
# CPU seconds. With a second binary (e.g. a build of main) the two alternate, run by run.
# Usage: scripts/auto_under_load.sh [runs=3] [limit=10] [inputs=Y_1] [memplan=build/memplan] [other memplan]
# Run from the repository root.
set -euo pipefail
runs=${1:-3}
limit=${2:-10}
inputs=${3:-benchmarks/idealloc/iopddl/Y_1.csv}
bins=("${4:-build/memplan}")
[[ $# -ge 5 ]] && bins+=("$5")
cpu=0
hogs=()
for ((h = 0; h < ${HOGS:-3}; ++h)); do
  taskset -c "$cpu" bash -c 'while :; do :; done' &
  hogs+=($!)
done
trap '[[ ${#hogs[@]} -eq 0 ]] || kill "${hogs[@]}" 2>/dev/null' EXIT
echo "| input | binary | run | peak/LOAD | status | wall s | CPU s |"
echo "|---|---|---:|---:|---|---:|---:|"
for input in ${inputs//,/ }; do
  for ((r = 1; r <= runs; ++r)); do
    for bin in "${bins[@]}"; do
      out=$( { /usr/bin/time -f 'cpu=%U+%S wall=%e' taskset -c "$cpu" "$bin" solve "$input" -a auto \
               --threads 2 --time-limit "$limit" -o /dev/null; } 2>&1 || true)
      ratio=$(grep -o 'ratio=[0-9.]*' <<<"$out" | cut -d= -f2)
      status=$(grep -o 'status=[a-z_]*' <<<"$out" | cut -d= -f2)
      wall=$(grep -o 'wall=[0-9.]*' <<<"$out" | cut -d= -f2)
      cpus=$(grep -o 'cpu=[0-9.+]*' <<<"$out" | cut -d= -f2 | bc -l)
      echo "| $(basename "$input" .csv) | $bin | $r | $ratio | $status | $wall | $cpus |"
    done
  done
done
