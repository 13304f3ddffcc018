#!/usr/bin/env bash
# The safe plan's gap to the lower bound on the multi-stream family (`memplan generate
# --kind streams`), two tables:
#  1. bound or plan? Small instances (60 buffers, 2/4/8 streams, seeds 1-5): `exact` on the
#     conflict graph (its peak is the true optimum when its status is optimal) against the
#     antichain bound, and `auto`'s plan against exact's.
#  2. before/after: `auto` of two memplan CLIs run alternately on the same instances (2/4/8
#     streams x 1k/10k/62k buffers, seeds 1-5, 1 thread, the same limit): per row the median
#     over the seeds of the peak, of the gap to the bound (the larger lower bound either run
#     reports: both are sound) and of the CPU time (user + sys) of the whole `memplan solve`.
#
# Usage: scripts/streams_gap_bench.sh BEFORE_CLI AFTER_CLI [--time-limit S] [--seeds K]
#                                     [--sizes "1000 10000 62000"] [--no-small]
set -euo pipefail
before=$1 after=$2; shift 2
tl=10 seeds=5 sizes="1000 10000 62000" small=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --time-limit) tl=$2; shift 2;;
    --seeds) seeds=$2; shift 2;;
    --sizes) sizes=$2; shift 2;;
    --no-small) small=0; shift;;
    *) echo "unknown $1" >&2; exit 2;;
  esac
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }
# The median of the arguments (numbers; the lower middle one for an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
gap() { awk -v p="$1" -v b="$2" 'BEGIN{printf "%.1f", 100 * (p - b) / b}'; }
# solve CLI FILE ALGO -> "peak lower_bound status cpu"
solve() {
  local out
  out=$(/usr/bin/time -f "%U %S" -o "$tmp/time" "$1" solve "$2" -a "$3" --threads 1 --seed 1 --time-limit "$tl" 2>/dev/null || true)
  read -r user sys <"$tmp/time"
  echo "$(field peak "$out") $(field lower_bound "$out") $(field status "$out") $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')"
}
if [[ $small == 1 ]]; then
  echo "| streams | buffers | seed | antichain bound | exact's peak (status) | exact - bound | auto after (- exact) |"
  echo "|---|---|---|---|---|---|---|"
  for s in 2 4 8; do
    for seed in $(seq 1 "$seeds"); do
      f=$tmp/small.csv
      "$after" generate --kind streams --streams "$s" -n 60 --seed "$seed" -o "$f"
      anti=$(field antichain_bound "$("$after" stats "$f" | tr '\n' ' ')")
      read -r ep _ es _ <<<"$(solve "$after" "$f" exact)"
      read -r ap _ _ _ <<<"$(solve "$after" "$f" auto)"
      echo "| $s | 60 | $seed | $anti | $ep ($es) | $(gap "$ep" "$anti") % | $ap ($(gap "$ap" "$ep") %) |"
    done
  done
  echo
fi
echo "| streams | buffers | bound (median) | peak before | peak after | gap before | gap after | CPU before (s) | CPU after (s) |"
echo "|---|---|---|---|---|---|---|---|---|"
for s in 2 4 8; do
  for n in $sizes; do
    bounds=() pb=() pa=() gb=() ga=() cb=() ca=()
    for seed in $(seq 1 "$seeds"); do
      f=$tmp/s$s.n$n.csv
      "$after" generate --kind streams --streams "$s" -n "$n" --seed "$seed" -o "$f"
      read -r p1 l1 _ c1 <<<"$(solve "$before" "$f" auto)"
      read -r p2 l2 _ c2 <<<"$(solve "$after" "$f" auto)"
      b=$(( ${l1:-0} > ${l2:-0} ? ${l1:-0} : ${l2:-0} ))
      bounds+=("$b") pb+=("$p1") pa+=("$p2") cb+=("$c1") ca+=("$c2")
      gb+=("$(gap "$p1" "$b")") ga+=("$(gap "$p2" "$b")")
    done
    echo "| $s | $n | $(median "${bounds[@]}") | $(median "${pb[@]}") | $(median "${pa[@]}") | $(median "${gb[@]}") % | $(median "${ga[@]}") % | $(median "${cb[@]}") | $(median "${ca[@]}") |"
  done
done
