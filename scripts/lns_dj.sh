#!/usr/bin/env bash
# The best known plan of J (README "LNS: a large-neighbourhood search over a plan"), by two
# node-bounded single-thread runs that repeat under any load: `exact` decides J at 1,031,168
# (the search ends by itself), then `lns` runs STEPS steps from its plan. Both plans are
# checked by `memplan validate`. Usage: scripts/lns_dj.sh [OUTDIR] [STEPS] [FILE] [THREADS]
# [STEPS2 SEED2] (defaults: a temporary folder, 400 steps, benchmarks/minimalloc/J.1048576.csv,
# 1 thread for `lns`; with T threads its steps go in batches of T, the same plan for the same
# T). With STEPS2 and SEED2, a second `lns` run of STEPS2 steps with seed SEED2 (1 thread)
# starts from the first one's plan and writes lns2.csv (J's best known: 600 steps, seed 2).
# scripts/lns_chain.sh runs such chains for any file, capacity and list of runs (D's best known).
set -euo pipefail
cd "$(dirname "$0")/.."
MEMPLAN=${MEMPLAN:-build/memplan}
out=${1:-$(mktemp -d)}
steps=${2:-400}
file=${3:-benchmarks/minimalloc/J.1048576.csv}
threads=${4:-1}
steps2=${5:-}
seed2=${6:-2}
mkdir -p "$out"
/usr/bin/time -f "cpu_s=%U+%S" "$MEMPLAN" solve "$file" -a exact --capacity 1031168 --threads 1 --time-limit 0 -o "$out/start.csv"
"$MEMPLAN" validate "$file" "$out/start.csv"
/usr/bin/time -f "cpu_s=%U+%S" "$MEMPLAN" solve "$file" -a lns --initial "$out/start.csv" --iterations "$steps" \
  --threads "$threads" --time-limit 0 -o "$out/lns.csv"
"$MEMPLAN" validate "$file" "$out/lns.csv"
if [ -n "$steps2" ]; then
  /usr/bin/time -f "cpu_s=%U+%S" "$MEMPLAN" solve "$file" -a lns --initial "$out/lns.csv" --iterations "$steps2" \
    --seed "$seed2" --threads 1 --time-limit 0 -o "$out/lns2.csv"
  "$MEMPLAN" validate "$file" "$out/lns2.csv"
fi
echo "plans in $out"
