#!/usr/bin/env bash
# Plans of generated perfect packings (optimum = LOAD) under a time limit, two CLIs side by
# side (alternating per seed): what an unsolved run's plan is worth. Per row: seeds solved
# by each, median peak/LOAD over all seeds, and per seed which is lower.
# Usage: scripts/near_pairs.sh OLD_CLI NEW_CLI ALGO SECONDS THREADS KIND:N[,KIND:N...] [SEEDS=1-10]
# e.g. scripts/near_pairs.sh /tmp/base/memplan build/memplan exact 10 2 aligned:800,pinwheel:3200
# Per-seed lines go to stderr.
set -euo pipefail
OLD=$1 NEW=$2 ALGO=$3 SECONDS_=$4 THREADS=$5 ROWS=$6 SEEDS=${7:-1-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "RATIO SOLVED": peak/LOAD and 1 when the peak is LOAD (status=optimal: LOAD is the bound).
run() {
  "$1" solve "$2" -a "$ALGO" --threads "$THREADS" --time-limit "$SECONDS_" 2>/dev/null |
    awk '/^algo=/ { r = "-"; s = 0; for (i = 1; i <= NF; ++i) { if ($i ~ /^ratio=/) r = substr($i, 7); if ($i == "status=optimal") s = 1 } print r, s }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "\`$ALGO\`, ${SECONDS_} s, $THREADS threads:"
echo
echo "| kind | buffers | seeds | solved old | solved new | median peak/LOAD old | median new | new lower | new higher | same |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for row in ${ROWS//,/ }; do
  kind=${row%:*} n=${row#*:}
  : >"$tmp/old" ; : >"$tmp/new"
  lower=0 higher=0 same=0 so=0 sn=0
  for s in $(seq "${SEEDS%-*}" "${SEEDS#*-}"); do
    f="$tmp/$kind-$n-$s.csv"
    "$NEW" generate --kind "$kind" -n "$n" --seed "$s" -o "$f" >/dev/null
    # Which side runs first alternates with the seed: the second of two back-to-back runs
    # ended higher (uniform 10,000, seeds 101-110, two CLIs whose searches there are the
    # same: the second 6 of 10 higher, 0 lower).
    if (( s % 2 )); then read -r o os < <(run "$OLD" "$f"); read -r w ws < <(run "$NEW" "$f")
    else read -r w ws < <(run "$NEW" "$f"); read -r o os < <(run "$OLD" "$f"); fi
    echo "$o" >>"$tmp/old"; echo "$w" >>"$tmp/new"
    echo "$kind $n seed $s: old $o new $w" >&2
    so=$((so + os)); sn=$((sn + ws))
    if awk -v a="$w" -v b="$o" 'BEGIN { exit !(a < b) }'; then lower=$((lower + 1))
    elif awk -v a="$w" -v b="$o" 'BEGIN { exit !(a > b) }'; then higher=$((higher + 1))
    else same=$((same + 1)); fi
  done
  k=$(wc -l <"$tmp/old")
  echo "| $kind | $n | $SEEDS | $so/$k | $sn/$k | $(median <"$tmp/old") | $(median <"$tmp/new") | $lower | $higher | $same |"
done
