#!/usr/bin/env bash
# Two memplan CLIs side by side on the same inputs, alternating runs (so that the machine's
# load falls on both alike). Two uses:
#
# 1. No-regression table for a refactor (default): MiniMalloc's A-K at capacity 1048576 with
#    `exact`, then A-K and the real sets in benchmarks/idealloc with `auto`, `greedy` and
#    `somas`, threads=1, seed 1; prints peak, status, iterations (exact's search nodes), the
#    plan's hash and the time per side. A row is "same" when peak, status, iterations and
#    plan hash agree. Then the held-out style generated perfect packings (`memplan generate
#    --kind tiling|pinwheel|aligned -n 400|800 --seed 1-3`, written once by AFTER_CLI,
#    optimum = capacity 2^20) with the same algorithms.
#
#      scripts/regress.sh BEFORE_CLI AFTER_CLI [--time-limit S] [--quick] [--algos "A B"]
#      --quick  A-K only (skips the real sets)
#      --packings  the generated packings only (e.g. --packings --algos "exact auto")
#      --only REGEX  only the packings whose row name (e.g. pinwheel-800-s2) matches REGEX
#               (to repeat the rows that differ: --packings --only '^pinwheel-800-s[12]$')
#      --algos  these algorithms instead of auto, greedy and somas, and no `exact` rows (e.g.
#               --algos dive: the interval dive before/after carrying it over to conflicts)
#
# 2. CPU and plan identity per input and algorithm (--cpu): each run without a time limit;
#    prints the median CPU s (user + sys) of each CLI over ROUNDS runs (default 3) and "same"
#    or "DIFFERENT" by the md5 of the plans (e.g. the training-trace placement figures in
#    README.md, "Many buffers live at once").
#      scripts/regress.sh OLD_CLI NEW_CLI --cpu "ALGO..." [--rounds R] [--iterations N] INPUT...
#    --iterations N: each run stops at N iterations on one thread, and the table adds each
#    side's search nodes (exact; other algorithms: iterations) and median nodes per CPU s
#    (the exact search's node rate, e.g. README.md, "No regression since before the refactor").
set -euo pipefail
before=$1 after=$2; shift 2
tl=5 quick=0 packings=0 algos="auto greedy somas" exact_rows=1 cpu_algos="" rounds=3 inputs=() only="" iters=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --time-limit) tl=$2; shift 2;; --quick) quick=1; shift;; --packings) packings=1; shift;; --algos) algos=$2; exact_rows=0; shift 2;;
    --cpu) cpu_algos=$2; shift 2;; --rounds) rounds=$2; shift 2;; --only) only=$2; shift 2;; --iterations) iters=$2; shift 2;;
    -*) echo "unknown $1" >&2; exit 2;; *) inputs+=("$1"); shift;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

if [[ -n $cpu_algos ]]; then  # use 2
  [[ ${#inputs[@]} -gt 0 ]] || { echo "--cpu needs INPUT files" >&2; exit 2; }
  median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
  extra=(); [[ -n $iters ]] && extra=(--iterations "$iters" --threads 1)
  cpu() {  # cli input algo out -> "CPU-seconds iterations"
    local out; out=$(/usr/bin/time -f "%U %S" -o "$tmp/t" "$1" solve "$2" -a "$3" --time-limit 0 -o "$4" "${extra[@]}")
    local nodes; nodes=$(sed -n 's/.* nodes=\([0-9]*\).*/\1/p' <<<"$out")  # exact's; else iterations
    [[ -n $nodes ]] || nodes=$(sed -n 's/.* iterations=\([0-9]*\).*/\1/p' <<<"$out")
    echo "$(awk '{print $1 + $2}' "$tmp/t") $nodes"
  }
  if [[ -n $iters ]]; then
    echo "| input | algorithm | old CPU s | new CPU s | old nodes | new nodes | old nodes/CPU s | new nodes/CPU s | plans |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
  else
    echo "| input | algorithm | old CPU s | new CPU s | plans |"
    echo "|---|---|---:|---:|---|"
  fi
  for f in "${inputs[@]}"; do
    for a in $cpu_algos; do
      : > "$tmp/o"; : > "$tmp/n"
      for ((r = 0; r < rounds; ++r)); do
        cpu "$before" "$f" "$a" "$tmp/old.csv" >> "$tmp/o"
        cpu "$after" "$f" "$a" "$tmp/new.csv" >> "$tmp/n"
      done
      same=DIFFERENT
      [[ "$(md5sum < "$tmp/old.csv")" == "$(md5sum < "$tmp/new.csv")" ]] && same=same
      if [[ -n $iters ]]; then
        io=$(tail -1 "$tmp/o" | cut -d' ' -f2) in=$(tail -1 "$tmp/n" | cut -d' ' -f2)
        ro=$(awk '{printf "%.0f\n", $2 / $1}' "$tmp/o" | median) rn=$(awk '{printf "%.0f\n", $2 / $1}' "$tmp/n" | median)
        echo "| $(basename "$f") | $a | $(cut -d' ' -f1 "$tmp/o" | median) | $(cut -d' ' -f1 "$tmp/n" | median) | $io | $in | $ro | $rn | $same |"
      else
        echo "| $(basename "$f") | $a | $(cut -d' ' -f1 "$tmp/o" | median) | $(cut -d' ' -f1 "$tmp/n" | median) | $same |"
      fi
    done
  done
  exit 0
fi
[[ ${#inputs[@]} -eq 0 ]] || { echo "input files are for --cpu only" >&2; exit 2; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
run() {  # cli file algo extra... -> "peak status iterations hash time"
  local cli=$1 file=$2 algo=$3; shift 3
  local out; out=$("$cli" solve "$file" -a "$algo" --threads 1 --seed 1 --time-limit "$tl" -o "$tmp/plan.csv" "$@" 2>/dev/null || true)
  local h=none; [[ -s $tmp/plan.csv ]] && h=$(md5sum <"$tmp/plan.csv" | cut -c1-8); rm -f "$tmp/plan.csv"
  echo "$(field peak "$out") $(field status "$out") $(field iterations "$out") $h $(field time "$out")"
}
echo "| instance | algo | peak before | peak after | status before | status after | iterations before/after | plan | time before | time after |"
echo "|---|---|---|---|---|---|---|---|---|---|"
row() {  # name file algo extra...
  local name=$1 file=$2 algo=$3; shift 3
  read -r pb sb ib hb tb <<<"$(run "$before" "$file" "$algo" "$@")"
  read -r pa sa ia ha ta <<<"$(run "$after" "$file" "$algo" "$@")"
  local same=differs; [[ $pb == "$pa" && $sb == "$sa" && $ib == "$ia" && $hb == "$ha" ]] && same=same
  echo "| $name | $algo$([[ $# -gt 0 ]] && echo " $*") | $pb | $pa | $sb | $sa | $ib/$ia | $same | $tb | $ta |"
}
ak=$(ls "$root"/benchmarks/minimalloc/[A-K].1048576.csv)
[[ $packings == 1 ]] && ak=""
[[ $exact_rows == 1 ]] && for f in $ak; do row "$(basename "$f" .1048576.csv)" "$f" exact --capacity 1048576; done
for f in $ak; do for a in $algos; do row "$(basename "$f" .1048576.csv)" "$f" $a; done; done
[[ $quick == 1 ]] && exit 0
[[ $packings == 0 ]] && for f in "$root"/benchmarks/idealloc/somas_tensors/*.csv "$root"/benchmarks/idealloc/iopddl/*.csv "$root"/benchmarks/idealloc/iree/*.csv; do
  for a in $algos; do row "$(basename "$f" .csv)" "$f" $a; done
done
for kind in tiling pinwheel aligned; do
  for n in 400 800; do
    for seed in 1 2 3; do
      [[ -z $only || $kind-$n-s$seed =~ $only ]] || continue
      f=$tmp/$kind.$n.$seed.csv
      "$after" generate --kind "$kind" -n "$n" --seed "$seed" -o "$f"
      for a in $algos; do row "$kind-$n-s$seed" "$f" $a; done
    done
  done
done
