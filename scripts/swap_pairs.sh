#!/bin/bash
# `--swap` before and after a change, alternating per run on the same inputs, with
# bench/spaces_bench's settings: every buffer living at least 3 steps evictable (uses at its
# first and last instant), bandwidth half the largest buffer per step, algo greedy, one thread,
# capacity 90 / 75 / 50 % of LOAD.
#
#   scripts/swap_pairs.sh OLD_CLI NEW_CLI [TIME_LIMIT] FILE...
#
# Prints one line per file, capacity and CLI: evictions, bytes moved, validity, status.
set -e
OLD=$1 NEW=$2
shift 2
LIMIT=1
if [[ $1 =~ ^[0-9.]+$ ]]; then LIMIT=$1; shift; fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| input | capacity | CLI | fits | evictions | bytes moved | valid |"
echo "|---|---|---|---|---:|---:|---|"
for f in "$@"; do
  name=$(basename "$f")
  awk -F, 'NR==1{print $0",evictable"; next}{print $0","(($3-$2)>=3?1:0)}' "$f" > "$TMP/$name"
  load=$("$NEW" stats "$TMP/$name" | grep -o '^load=[0-9]*' | cut -d= -f2)
  bw=$(awk -F, 'NR>1{if($4>m)m=$4}END{b=int(m/2); print (b<1?1:b)}' "$f")
  for pc in 90 75 50; do
    cap=$((load * pc / 100))
    for cli in "$OLD" "$NEW"; do
      line=$("$cli" solve "$TMP/$name" -a greedy --threads 1 --swap --bandwidth "$bw" --capacity "$cap" \
        --time-limit "$LIMIT" -o "$TMP/plan.csv" --transfers /dev/null 2>/dev/null || true)
      get() { echo "$line" | grep -o "$1=[^ ]*" | head -1 | cut -d= -f2; }
      fits=no; [ "$(get status)" = feasible ] || [ "$(get status)" = optimal ] && fits=yes
      label=new; [ "$cli" = "$OLD" ] && label=old
      echo "| $name | $pc % | $label | $fits | $(get evicted) | $(get bytes_moved) | $(get valid) |"
    done
  done
done
