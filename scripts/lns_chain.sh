#!/usr/bin/env bash
# A chain of node-bounded single-thread runs that repeats under any load: `exact` decides FILE
# at CAPACITY (its plan: start.csv), then one `lns` run per STEPS:SEED pair, each from the
# previous run's plan (lns1.csv, lns2.csv, ...). Every plan is checked by `memplan validate`.
# START=PLAN.csv: the chain starts from that plan instead (no `exact` run; CAPACITY unused).
# Usage: scripts/lns_chain.sh FILE CAPACITY OUTDIR STEPS:SEED [STEPS:SEED ...]
# D's best known (README "D at 1,007,616"): scripts/lns_chain.sh
#   benchmarks/minimalloc/D.1048576.csv 1024000 OUTDIR 557:4 300:5 300:6 300:7
set -euo pipefail
[[ $# -ge 4 ]] || { echo "usage: $0 FILE CAPACITY OUTDIR STEPS:SEED [STEPS:SEED ...]" >&2; exit 2; }
cd "$(dirname "$0")/.."
MEMPLAN=${MEMPLAN:-build/memplan}
file=$1 capacity=$2 out=$3
shift 3
mkdir -p "$out"
if [[ -n "${START:-}" ]]; then
  cp "$START" "$out/start.csv"
else
  /usr/bin/time -f "cpu_s=%U+%S" "$MEMPLAN" solve "$file" -a exact --capacity "$capacity" --threads 1 --time-limit 0 \
    -o "$out/start.csv"
fi
"$MEMPLAN" validate "$file" "$out/start.csv"
prev="$out/start.csv"
k=0
for run in "$@"; do
  steps=${run%%:*} seed=${run##*:}
  k=$((k + 1))
  /usr/bin/time -f "cpu_s=%U+%S" "$MEMPLAN" solve "$file" -a lns --initial "$prev" --iterations "$steps" \
    --seed "$seed" --threads 1 --time-limit 0 -o "$out/lns$k.csv"
  "$MEMPLAN" validate "$file" "$out/lns$k.csv"
  prev="$out/lns$k.csv"
done
echo "plans in $out (last: $prev)"
