#!/usr/bin/env bash
# The window lower bound (solvers/exact/window_bound.h) per input: LOAD, the bound `exact`
# proves (LOAD, raised by the windows it refutes), its best plan, the gap, and the last
# refuted window, reproducible with `memplan bound FILE --window F:T --capacity C`.
# Usage: scripts/window_bound_table.sh [SECONDS] [FILE...]   (default: 10 s; A-K)
set -euo pipefail
cd "$(dirname "$0")/.."
MEMPLAN=${MEMPLAN:-build/memplan}
T=${1:-10}
shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(benchmarks/minimalloc/[A-K].1048576.csv)
echo "| input | buffers | LOAD | window bound | windows tried | refuted | exact peak (${T} s) | gap to bound | last refutation (window@capacity, nodes) | window s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  line=$("$MEMPLAN" solve "$f" -a exact --threads 1 --time-limit "$T" -o /dev/null 2>/dev/null | grep '^algo=')
  get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
  load=$(get load); peak=$(get peak); lb=$(get lower_bound)
  wb=$(get window_bound); wb=${wb:-not run (proven or stalled later)}
  ref=$(get window_refuted); nodes=$(get window_nodes)
  gap=$(awk -v p="$peak" -v b="$lb" 'BEGIN { printf "%.4f", (b > 0 ? p / b : 0) }')
  echo "| $(basename "$f") | $(get buffers) | $load | $wb | $(get windows) | $(get refuted) | $peak | $gap | ${ref:+$ref, $nodes} | $(get window_s) |"
done
