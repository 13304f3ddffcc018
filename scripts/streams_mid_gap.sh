#!/usr/bin/env bash
# The 8-stream gap on mid-size instances (issue 18): is the antichain bound weak, or the
# plan? Per instance of `memplan generate --kind streams` (S streams, n buffers, a seed):
# the max-weight antichain bound (`memplan stats`), `auto` of two CLIs run one after the
# other (1 thread, the same limit), and `exact` of AFTER_CLI with a longer limit (its peak
# is the optimum when its status is optimal), the best of all three plans, and each gap to
# the bound. CPU = user + sys of the whole `memplan solve`.
#
# Usage: scripts/streams_mid_gap.sh BEFORE_CLI AFTER_CLI [--streams S] [--sizes "200 500"]
#                                   [--seeds "21 22"] [--time-limit S] [--exact-limit S]
set -euo pipefail
before=$1 after=$2; shift 2
streams=8 sizes="200 500 1000 2000" seeds="21 22" tl=10 el=20
while [[ $# -gt 0 ]]; do
  case $1 in
    --streams) streams=$2; shift 2;;
    --sizes) sizes=$2; shift 2;;
    --seeds) seeds=$2; shift 2;;
    --time-limit) tl=$2; shift 2;;
    --exact-limit) el=$2; shift 2;;
    *) echo "unknown $1" >&2; exit 2;;
  esac
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }
gap() { awk -v p="$1" -v b="$2" 'BEGIN{printf "%.1f", 100 * (p - b) / b}'; }
# solve CLI FILE ALGO LIMIT -> "peak status cpu"
solve() {
  local out
  out=$(/usr/bin/time -f "%U %S" -o "$tmp/time" "$1" solve "$2" -a "$3" --threads 1 --seed 1 --time-limit "$4" 2>/dev/null || true)
  read -r user sys < <(tail -n 1 "$tmp/time")
  echo "$(field peak "$out") $(field status "$out") $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| streams | buffers | seed | antichain bound | auto before (gap, CPU s) | auto after (gap, CPU s) | exact ${el} s (status, gap) | best plan (gap) |"
echo "|---|---|---|---|---|---|---|---|"
for n in $sizes; do
  for seed in $seeds; do
    f=$tmp/s$streams.n$n.$seed.csv
    "$after" generate --kind streams --streams "$streams" -n "$n" --seed "$seed" -o "$f"
    anti=$(field antichain_bound "$("$after" stats "$f" | tr '\n' ' ')")
    read -r pb _ cb <<<"$(solve "$before" "$f" auto "$tl")"
    read -r pa _ ca <<<"$(solve "$after" "$f" auto "$tl")"
    read -r pe se _ <<<"$(solve "$after" "$f" exact "$el")"
    best=$(printf '%s\n' "$pb" "$pa" "$pe" | grep -v '^$' | sort -g | head -1)
    echo "| $streams | $n | $seed | $anti | $pb ($(gap "$pb" "$anti") %, $cb) | $pa ($(gap "$pa" "$anti") %, $ca) | $pe ($se, $(gap "$pe" "$anti") %) | $best ($(gap "$best" "$anti") %) |"
  done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
