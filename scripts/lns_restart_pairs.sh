#!/usr/bin/env bash
# `lns` before and after a change (README "LNS"), alternating per run on the same inputs:
# for each FILE:START pair and each seed, OLD then NEW run `lns` from START (a saved plan of
# FILE) on one thread, either for STEPS steps (node-bounded: repeats under any load) or for T
# seconds (--time-limit: at equal time, so the CPU each used is printed too). Prints a row per
# run pair (peak, CPU s = user + sys by /usr/bin/time, steps, restarts) and a summary: NEW's
# wins/ties/losses on peak and the median of NEW's peak / OLD's peak.
# NEW_AMOUNT=M gives NEW M steps (or seconds) instead: e.g. at equal CPU, as many more steps as
# NEW's are cheaper (still node-bounded and repeatable).
# Usage: OLD=BIN NEW=BIN [NEW_AMOUNT=M] scripts/lns_restart_pairs.sh steps N|time T "SEEDS" FILE:START...
# Example: OLD=/tmp/base/memplan NEW=build/memplan scripts/lns_restart_pairs.sh steps 300
#   "1 2 3" benchmarks/minimalloc/D.1048576.csv:docs/plans/D.1007616.csv
set -euo pipefail
[[ $# -ge 4 ]] || { echo "usage: OLD=BIN NEW=BIN $0 steps N|time T \"SEEDS\" FILE:START..." >&2; exit 2; }
OLD=${OLD:?OLD=binary before the change} NEW=${NEW:-build/memplan}
mode=$1 amount=$2 seeds=$3
shift 3
limit_of() {  # limit_of AMOUNT: the options that bound a run
  case $mode in
    steps) echo "--iterations $1 --time-limit 0" ;;
    time) echo "--time-limit $1" ;;
  esac
}
[[ $mode == steps || $mode == time ]] || { echo "mode: steps or time" >&2; exit 2; }
old_limit=$(limit_of "$amount") new_limit=$(limit_of "${NEW_AMOUNT:-$amount}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # run BIN FILE START SEED LIMIT: "peak cpu steps restarts" on stdout
  # shellcheck disable=SC2086  # LIMIT is a list of options
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$1" solve "$2" -a lns --initial "$3" --seed "$4" --threads 1 \
    $5 -o "$tmp/plan.csv" 2>/dev/null | grep '^algo=' >"$tmp/line"
  "$1" validate "$2" "$tmp/plan.csv" >/dev/null || { echo "invalid plan: $1 $2 seed $4" >&2; exit 1; }
  get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$tmp/line"; }
  local r
  r=$(get restarts)
  echo "$(get peak) $(awk '{ printf "%.1f", $1 + $2 }' "$tmp/time") $(get steps) ${r:--}"
}
echo "| input | seed | start peak | old peak | old CPU s | old steps | new peak | new CPU s | new steps | restarts |"
echo "|---|---|---|---|---|---|---|---|---|---|"
: >"$tmp/ratios"
for pair in "$@"; do
  file=${pair%%:*} start=${pair#*:}
  start_peak=$("$NEW" validate "$file" "$start" | sed -n 's/.*peak=\([0-9]*\).*/\1/p')
  for s in $seeds; do
    read -r op oc os _ < <(run "$OLD" "$file" "$start" "$s" "$old_limit")
    read -r np nc ns nr < <(run "$NEW" "$file" "$start" "$s" "$new_limit")
    echo "| $(basename "$file" .csv) | $s | $start_peak | $op | $oc | $os | $np | $nc | $ns | $nr |"
    echo "$op $np $oc $nc" >>"$tmp/ratios"
  done
done
awk '{ print $2 / $1 }' "$tmp/ratios" | sort -g >"$tmp/sorted"
awk -v m="$(awk '{ r[NR] = $1 } END { print NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }' "$tmp/sorted")" '
  { w += $2 < $1; l += $2 > $1; t += $2 == $1; oc += $3; nc += $4 }
  END { printf "new vs old: %d wins, %d ties, %d losses; median new/old peak %.5f; CPU s old %.1f new %.1f\n", w, t, l, m, oc, nc }' "$tmp/ratios"
