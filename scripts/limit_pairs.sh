#!/usr/bin/env bash
# Two memplan CLIs side by side under a time limit, alternating runs: per input, algorithm
# and side, how many runs returned a plan, the median and largest call time (the `time=` the
# CLI prints: the wall time of memplan::solve, the plan's check included) and the no-plan
# reasons. HOGS=k adds k busy loops for the whole run (a loaded 2-core machine: HOGS=1 with
# two runs at once is what CI sees at worst; PAR=2 runs each side's runs two at a time).
#   scripts/limit_pairs.sh OLD_CLI NEW_CLI LIMIT ROUNDS "ALGO..." INPUT...
# Example (README "A plan whenever the online plan fits in the limit"): scripts/limit_pairs.sh OLD build/memplan 2 6
#   "exact dive peak-window" training_1000000.csv
set -euo pipefail
[[ $# -ge 6 ]] || { echo "usage: $0 OLD_CLI NEW_CLI LIMIT ROUNDS \"ALGO...\" INPUT..." >&2; exit 2; }
old=$1 new=$2 limit=$3 rounds=$4 algos=$5; shift 5
tmp=$(mktemp -d)
hogs=()
for ((h = 0; h < ${HOGS:-0}; ++h)); do
  bash -c 'while :; do :; done' &
  hogs+=($!)
done
trap '[[ ${#hogs[@]} -eq 0 ]] || kill "${hogs[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
par=${PAR:-1}
echo "load before: $(uptime)"
echo
echo "| input | algorithm | side | plans / runs | median time s | largest time s | no plan (reasons) |"
echo "|---|---|---|---:|---:|---:|---|"
for input in "$@"; do
  for algo in $algos; do
    for ((r = 1; r <= rounds; ++r)); do
      for side in old new; do
        bin=$old
        [[ $side == new ]] && bin=$new
        pids=()
        for ((k = 1; k <= par; ++k)); do
          "$bin" solve "$input" -a "$algo" --time-limit "$limit" -o "$tmp/plan_$k.csv" >"$tmp/out_$k" 2>&1 &
          pids+=($!)
        done
        for pid in "${pids[@]}"; do wait "$pid" || true; done
        for ((k = 1; k <= par; ++k)); do
          line=$(grep -m1 '^algo=' "$tmp/out_$k" || true)
          t=$(grep -o ' time=[0-9.]*' <<<"$line" | cut -d= -f2 || true)
          s=$(grep -o 'status=[a-z_]*' <<<"$line" | cut -d= -f2 || true)
          why=$(grep -o 'reason=[a-z_]*' <<<"$line" | tail -1 | cut -d= -f2 || true)  # some print none
          echo "$side ${t:-nan} ${s:-error} ${why:--}" >>"$tmp/rows"
        done
      done
    done
    for side in old new; do
      awk -v side="$side" -v input="$(basename "$input")" -v algo="$algo" '
        $1 == side { n++; t[n] = $2; if ($3 != "no_plan" && $3 != "error") ok++; else why[$4]++ }
        END {
          # median and largest of the times
          for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
          med = n % 2 ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
          reasons = ""
          for (w in why) reasons = reasons (reasons == "" ? "" : ", ") why[w] " " w
          printf "| %s | %s | %s | %d / %d | %.3f | %.3f | %s |\n", input, algo, side, ok, n, med, t[n], reasons == "" ? "-" : reasons
        }' "$tmp/rows"
    done
    rm -f "$tmp/rows"
  done
done
echo
echo "load after: $(uptime)"
