#!/usr/bin/env bash
# The instant-subset lower bound (include/memplan/instant_bound.h) per input: the
# relaxations that keep every section whose load is at least a share of LOAD, each decided
# by `exact` at LOAD within a node budget, then the cutting-plane loop from the peak
# sections. A refuted row is a lower bound of LOAD + granule, reproducible with its command.
# Usage: scripts/instant_bound_table.sh [NODES] [FILE...]   (default: 3000000 nodes; D and J)
set -euo pipefail
cd "$(dirname "$0")/.."
MEMPLAN=${MEMPLAN:-build/memplan}
N=${1:-3000000}
shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(benchmarks/minimalloc/D.1048576.csv benchmarks/minimalloc/J.1048576.csv)
cpu() { awk '/^cpu=/ { split(substr($0, 5), t, "+"); printf "%.1f", t[1] + t[2] }' "$1"; }
echo "| input | instants kept | capacity (LOAD) | instants | buffers | status | nodes | CPU s |"
echo "|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  load=$("$MEMPLAN" stats "$f" | sed -n 's/^load=\([0-9]*\).*/\1/p')
  for pct in 100 98 96 94 92 90; do
    min=$((load * pct / 100))
    out=$(mktemp)
    /usr/bin/time -f "cpu=%U+%S" "$MEMPLAN" bound "$f" --min-load "$min" --capacity "$load" --nodes "$N" >"$out" 2>&1 || true
    line=$(grep '^instants=' "$out")
    get() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$line" | head -1; }
    echo "| $(basename "$f") | load >= ${pct}% of LOAD (--min-load $min) | $load | $(get instants) | $(get buffers) | $(get status) | $(get nodes) | $(cpu "$out") |"
    rm -f "$out"
  done
  out=$(mktemp)
  /usr/bin/time -f "cpu=%U+%S" "$MEMPLAN" bound "$f" --cutting-planes --nodes "$N" >"$out" 2>&1 || true
  last=$(grep '^instant_bound:' "$out" | tail -1)
  sum=$(grep '^start=' "$out")
  get() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2" | head -1; }
  echo "| $(basename "$f") | --cutting-planes: $(get decisions "$sum") decisions, bound $(get lower_bound "$sum") | $load | $(get instants "$last") | $(get buffers "$last") | $(get status "$sum") | $(get nodes "$last") | $(cpu "$out") |"
  rm -f "$out"
done
