#!/usr/bin/env bash
# Two memplan CLIs on the same input files under a time limit, alternating per file (so both
# see the same machine load): per file, each side's peak/LOAD and status (near_pairs.sh does
# the same on generated instances).
# Usage: scripts/file_pairs.sh OLD_CLI NEW_CLI ALGO SECONDS THREADS FILE...
# e.g. scripts/file_pairs.sh /tmp/base/memplan build/memplan auto 10 2 benchmarks/minimalloc/[A-K].1048576.csv
set -euo pipefail
[[ $# -ge 6 ]] || { echo "usage: $0 OLD_CLI NEW_CLI ALGO SECONDS THREADS FILE..." >&2; exit 2; }
OLD=$1 NEW=$2 ALGO=$3 SECONDS_=$4 THREADS=$5
shift 5
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# "RATIO STATUS" of one run (the plan is written to a scratch file and discarded).
run() {
  "$1" solve "$2" -a "$ALGO" --threads "$THREADS" --time-limit "$SECONDS_" -o "$out" 2>/dev/null |
    awk '/^algo=/ { r = "-"; s = "-"; for (i = 1; i <= NF; ++i) { if ($i ~ /^ratio=/) r = substr($i, 7); if ($i ~ /^status=/) s = substr($i, 8) } print r, s }'
}
echo "\`$ALGO\`, ${SECONDS_} s, $THREADS threads:"
echo
echo "| input | peak/LOAD old | status old | peak/LOAD new | status new |"
echo "|---|---:|---|---:|---|"
k=0
for f in "$@"; do
  # Which side runs first alternates per file (near_pairs.sh: the second run is slower).
  if (( k++ % 2 == 0 )); then read -r o os < <(run "$OLD" "$f"); read -r w ws < <(run "$NEW" "$f")
  else read -r w ws < <(run "$NEW" "$f"); read -r o os < <(run "$OLD" "$f"); fi
  echo "| $(basename "$f" .csv) | $o | $os | $w | $ws |"
done
