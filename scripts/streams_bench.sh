#!/usr/bin/env bash
# The multi-stream family (`memplan generate --kind streams`, 2/4/8 streams, 1k-100k buffers):
# the safe plan (`conflict-greedy` on lifetimes + explicit conflicts) against its lower bound
# and against the unsafe plan made on the linear order alone (`auto` with the conflicts
# column dropped), which the validator then checks against the full problem. Prints a
# Markdown table: peak, bound, time and peak RSS of the safe solve; the linearized plan's
# peak, its LOAD and the validator's verdict.
#
# Usage: scripts/streams_bench.sh [MEMPLAN_CLI] [--quick]   (--quick: 1k and 10k only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${1:-$root/build/memplan}
sizes="1000 10000 62000 100000"
[[ ${2:-} == --quick ]] && sizes="1000 10000"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
echo "| streams | buffers | conflict pairs (explicit) | safe peak | lower bound | safe time (s) | safe RSS (MB) | linearized LOAD | unsafe linearized peak | validator on the unsafe plan |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for s in 2 4 8; do
  for n in $sizes; do
    f=$tmp/s$s.n$n.csv
    "$cli" generate --kind streams --streams "$s" -n "$n" --seed 1 -o "$f"
    pairs=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="conflicts") c=i; next} c && $c!=""{k+=split($c,x,";")} END{print k+0}' "$f")
    /usr/bin/time -f "%M" -o "$tmp/rss" "$cli" solve "$f" -a conflict-greedy --threads 1 --time-limit 10 >"$tmp/out" 2>/dev/null || true
    out=$(cat "$tmp/out"); rss=$(( $(cat "$tmp/rss") / 1024 ))
    # The linear order alone: the conflicts column dropped.
    awk -F, 'BEGIN{OFS=","} NR==1{for(i=1;i<=NF;i++) if($i=="conflicts") c=i} {if(c){for(i=c;i<NF;i++) $i=$(i+1); NF--} print}' "$f" >"$tmp/lin.csv"
    lin=$("$cli" solve "$tmp/lin.csv" -a auto --threads 1 --time-limit 10 -o "$tmp/plan.csv" 2>/dev/null || true)
    if "$cli" validate "$f" "$tmp/plan.csv" >"$tmp/val" 2>&1; then verdict=valid; else verdict="invalid (>= $(grep -c 'explicit conflict' "$tmp/val" || true) violations)"; fi
    echo "| $s | $n | $pairs | $(field peak "$out") | $(field lower_bound "$out") | $(field time "$out") | $rss | $(field load "$lin") | $(field peak "$lin") | $verdict |"
  done
done
