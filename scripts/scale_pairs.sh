#!/usr/bin/env bash
# exact_scale_bench's `table` for two builds, alternating row by row (OLD then NEW for each
# kind and size), so both see the same machine load; CPU budgets (budget=cpu).
# Usage: scripts/scale_pairs.sh OLD_BENCH NEW_BENCH ROWS [SECONDS=10] [SEEDS=10] [THREADS=2] [FIRST_SEED=1]
#   ROWS: kind:size pairs, comma-separated, e.g. pinwheel:1600,pinwheel:3200,tiling:6400
#   LOG=FILE: the per-seed lines (the bench's stderr) appended there.
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: $0 OLD_BENCH NEW_BENCH ROWS [SECONDS] [SEEDS] [THREADS] [FIRST_SEED]" >&2; exit 2; }
old=$1 new=$2 rows=$3 seconds=${4:-10} seeds=${5:-10} threads=${6:-2} first=${7:-1}
echo "| build | kind | buffers | solved | median wall s | median CPU s |"
echo "|---|---|---:|---:|---:|---:|"
IFS=, read -ra list <<< "$rows"
for row in "${list[@]}"; do
  kind=${row%%:*} size=${row##*:}
  for side in old new; do
    bench=$old; [[ $side == new ]] && bench=$new
    "$bench" table "$seconds" "$seeds" "$threads" "$size" "$kind" cpu "$first" 2>>"${LOG:-/dev/null}" |
      awk -v side="$side" -F'|' 'NR > 2 && NF > 5 {print "| " side " |" $2 "|" $3 "|" $4 "|" $5 "|" $6 "|"}'
  done
done
