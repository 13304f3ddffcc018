#!/usr/bin/env bash
# Two builds of a bench program on the same arguments, alternating OLD, NEW, OLD, NEW, ...
# (ROUNDS rounds), so both see the same machine load; each output table row that starts
# with "| " is printed prefixed with the round and the side. For CPU columns (e.g.
# exact_scale_bench strategies' CPU s) under a varying load.
# Usage: scripts/bench_pairs.sh OLD_BENCH NEW_BENCH ROUNDS ARGS...
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: $0 OLD_BENCH NEW_BENCH ROUNDS ARGS..." >&2; exit 2; }
old=$1 new=$2 rounds=$3
shift 3
for ((r = 1; r <= rounds; ++r)); do
  for side in old new; do
    bench=$old; [[ $side == new ]] && bench=$new
    "$bench" "$@" | awk -v tag="| $r | $side " 'NR > 2 && /^\| / {print tag $0}'
  done
done
