#!/usr/bin/env bash
# `exact_scale_bench table` of two builds, alternating row by row (OLD then NEW for each
# size), with the per-seed lines the bench prints on stderr kept, so the seeds each build
# solves can be compared seed for seed.
# Usage: scripts/table_pairs.sh OLD_BENCH NEW_BENCH KIND SIZES [SECONDS=10] [SEEDS=10] [THREADS=2] [FIRST_SEED=1]
# e.g. scripts/table_pairs.sh /tmp/base/build/bench/exact_scale_bench build/bench/exact_scale_bench aligned 400,800
# (20 s of CPU on 2 threads per run: the bench's `cpu` budget, for a shared machine).
set -euo pipefail
[[ $# -ge 4 ]] || { echo "usage: $0 OLD_BENCH NEW_BENCH KIND SIZES [SECONDS] [SEEDS] [THREADS] [FIRST_SEED]" >&2; exit 2; }
old=$1 new=$2 kind=$3 sizes=$4 seconds=${5:-10} seeds=${6:-10} threads=${7:-2} first=${8:-1}
for n in ${sizes//,/ }; do
  for side in old new; do
    bench=$old; [[ $side == new ]] && bench=$new
    echo "== $side $kind $n $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
    nice -n 5 "$bench" table "$seconds" "$seeds" "$threads" "$n" "$kind" cpu "$first" 2>&1 | grep -v '^|---\|^| kind'
  done
done
