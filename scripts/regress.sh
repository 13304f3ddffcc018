#!/usr/bin/env bash
# Before/after no-regression table for a refactor: runs two memplan CLIs alternately on the
# same inputs (MiniMalloc's A-K at capacity 1048576 with `exact`, then A-K and the real sets
# in benchmarks/idealloc with `auto`, `greedy` and `somas`), threads=1, seed 1, and prints
# peak, status, iterations (exact's search nodes), the plan's hash and the time per side.
# A row is "same" when peak, status, iterations and plan hash agree. Then the held-out style
# generated perfect packings (`memplan generate --kind tiling|pinwheel|aligned -n 400|800
# --seed 1-3`, written once by AFTER_CLI, optimum = capacity 2^20) with the same algorithms.
#
# Usage: scripts/regress.sh BEFORE_CLI AFTER_CLI [--time-limit S] [--quick] [--algos "A B"]
#   --quick  A-K only (skips the real sets)
#   --algos  these algorithms instead of auto, greedy and somas, and no `exact` rows (e.g.
#            --algos dive: the interval dive before/after carrying it over to conflicts)
set -euo pipefail
before=$1 after=$2; shift 2
tl=5 quick=0 algos="auto greedy somas" exact_rows=1
while [[ $# -gt 0 ]]; do
  case $1 in --time-limit) tl=$2; shift 2;; --quick) quick=1; shift;; --algos) algos=$2; exact_rows=0; shift 2;; *) echo "unknown $1" >&2; exit 2;; esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
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
[[ $exact_rows == 1 ]] && for f in $ak; do row "$(basename "$f" .1048576.csv)" "$f" exact --capacity 1048576; done
for f in $ak; do for a in $algos; do row "$(basename "$f" .1048576.csv)" "$f" $a; done; done
[[ $quick == 1 ]] && exit 0
for f in "$root"/benchmarks/idealloc/somas_tensors/*.csv "$root"/benchmarks/idealloc/iopddl/*.csv "$root"/benchmarks/idealloc/iree/*.csv; do
  for a in $algos; do row "$(basename "$f" .csv)" "$f" $a; done
done
for kind in tiling pinwheel aligned; do
  for n in 400 800; do
    for seed in 1 2 3; do
      f=$tmp/$kind.$n.$seed.csv
      "$after" generate --kind "$kind" -n "$n" --seed "$seed" -o "$f"
      for a in $algos; do row "$kind-$n-s$seed" "$f" $a; done
    done
  done
done
