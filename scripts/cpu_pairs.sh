#!/usr/bin/env bash
# Process CPU of two builds on one input, alternating: ROUNDS rounds, each `perf stat -r RUNS
# -e task-clock` of OLD then NEW running `solve FILE -a ALGO --threads 1`; prints the mean
# task-clock (ms) of every round, OLD then NEW (for rows too short for `time=`'s 1 ms).
# Usage: scripts/cpu_pairs.sh OLD_CLI NEW_CLI FILE ALGO [ROUNDS=3] [RUNS=30] [SOLVE_ARGS...]
# (SOLVE_ARGS, e.g. --capacity 1048576, are passed to both runs of `solve`).
set -euo pipefail
[[ $# -ge 4 ]] || { echo "usage: $0 OLD_CLI NEW_CLI FILE ALGO [ROUNDS] [RUNS] [SOLVE_ARGS...]" >&2; exit 2; }
command -v perf >/dev/null || { echo "$0: needs perf (Debian package linux-perf)" >&2; exit 2; }
old=$1 new=$2 file=$3 algo=$4 rounds=${5:-3} runs=${6:-30}
shift $(($# < 6 ? $# : 6))
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
declare -a o n
for ((r = 0; r < rounds; ++r)); do
  for side in old new; do
    cli=$old; [[ $side == new ]] && cli=$new
    ms=$(perf stat -r "$runs" -e task-clock "$cli" solve "$file" -a "$algo" --threads 1 "$@" -o "$out/plan.csv" 2>&1 >/dev/null |
         awk '/task-clock/ {print $1; exit}')
    [[ $side == old ]] && o+=("$ms") || n+=("$ms")
  done
done
echo "$(basename "$file") $algo: old ${o[*]} / new ${n[*]} (ms of task-clock, mean of $runs runs per round)"
