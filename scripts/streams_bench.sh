#!/usr/bin/env bash
# The multi-stream family (`memplan generate --kind streams`, 2/4/8 streams, 1k-100k buffers,
# written as vector clocks): the safe plan (`auto` on the partial order: lifetimes of one
# linear extension + the explicit conflicts it hides) against the max-weight antichain bound
# and the LOAD of that linear extension; SOMAS's baseline (`somas`, when it accepts explicit
# conflicts on this build); and the unsafe plan made on the linear extension alone (`auto`
# on the same lifetimes without the order), which the validator then checks against the
# partial order. Prints a Markdown table; time is the whole `memplan solve` run (read,
# conflicts, bound, plan, check): wall clock and CPU (user + sys), and peak RSS.
#
# Usage: scripts/streams_bench.sh [MEMPLAN_CLI] [--quick]   (--quick: 1k and 10k only)
#        scripts/streams_bench.sh [MEMPLAN_CLI] --scale [BEFORE_CLI]
#        scripts/streams_bench.sh [MEMPLAN_CLI] --exact [BEFORE_CLI]
# --scale: the large instances only (62k and 100k buffers on 2, 4 and 8 streams), the safe
# run alone (`auto`, 1 thread, --time-limit 10): wall, CPU, max RSS, peak and lower bound;
# with BEFORE_CLI (e.g. a build of an older commit) each instance is run by both binaries
# one after the other (alternating), so the two columns share the machine's load.
# --exact: the same layout for `exact` alone (1k and 10k buffers, --time-limit 5), with its
# search nodes (`iterations`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${1:-$root/build/memplan}
sizes="1000 10000 62000 100000"
[[ ${2:-} == --quick ]] && sizes="1000 10000"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
# Runs memplan ($bin, default $cli) under /usr/bin/time; sets out, wall, cpu, rss.
timed() {
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "${bin:-$cli}" "$@" >"$tmp/out" 2>"$tmp/err" || true
  out=$(cat "$tmp/out")
  # The last line: a run that exits nonzero (no plan: exit 1) gets a line before it.
  read -r wall user sys rss_kb < <(tail -n 1 "$tmp/time")
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')
  rss=$((rss_kb / 1024))
}
# The family's instance of $s streams and $n buffers, in $f.
instance() {
  f=$tmp/s$s.n$n.csv
  "$cli" generate --kind streams --streams "$s" -n "$n" --seed 1 -o "$f"
}
if [[ ${2:-} == --scale || ${2:-} == --exact ]]; then
  before=${3:-}
  algo=auto limit=10 big="62000 100000"
  [[ $2 == --exact ]] && algo=exact limit=5 big="1000 10000"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| streams | buffers | build | wall (s) | CPU (s) | max RSS (MB) | peak | lower bound | status | $algo nodes |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for s in 2 4 8; do
    for n in $big; do
      instance
      for bin in "$cli" ${before:+"$before"}; do
        timed solve "$f" -a "$algo" --threads 1 --time-limit "$limit"
        peak=$(field peak "$out"); [[ -z $peak ]] && peak=none
        which=this; [[ $bin != "$cli" ]] && which=before
        echo "| $s | $n | $which | $wall | $cpu | $rss | $peak | $(field lower_bound "$out") | $(field status "$out") $(field reason "$out") | $(field iterations "$out") |"
      done
      unset bin
    done
  done
  echo
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
echo "| streams | buffers | explicit conflicts | safe peak | antichain bound | linear LOAD | SOMAS baseline peak | safe wall (s) | safe CPU (s) | safe RSS (MB) | unsafe linearized peak | validator on the unsafe plan |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for s in 2 4 8; do
  for n in $sizes; do
    instance
    timed solve "$f" -a auto --threads 1 --time-limit 10 -o "$tmp/safe.csv"
    safe=$out safe_wall=$wall safe_cpu=$cpu safe_rss=$rss
    # stats: the explicit conflicts, the linear extension's LOAD and the antichain bound.
    st=$("$cli" stats "$f" 2>/dev/null || true)
    somas=$("$cli" solve "$f" -a somas --threads 1 --time-limit 10 2>&1 || true)
    somas_peak=$(field peak "$somas"); [[ -z $somas_peak ]] && somas_peak="refused"
    # The linear extension alone: each clock summed to one time (a linear extension of the
    # order: a dead before b gives end(a) <= start(b)); no conflicts beyond overlap.
    awk -F, 'BEGIN{OFS=","} NR==1{print; next} {for(i=2;i<=3;i++){n=split($i,c,":"); t=0; for(k=1;k<=n;k++) t+=c[k]; $i=t} print}' "$f" >"$tmp/lin.csv"
    lin=$("$cli" solve "$tmp/lin.csv" -a auto --threads 1 --time-limit 10 -o "$tmp/plan.csv" 2>/dev/null || true)
    if "$cli" validate "$f" "$tmp/plan.csv" >"$tmp/val" 2>&1; then verdict=valid; else verdict="invalid (>= $(grep -c 'neither is dead before\|explicit conflict' "$tmp/val" || true) violations)"; fi
    echo "| $s | $n | $(field explicit_conflicts "$st") | $(field peak "$safe") | $(field antichain_bound "$st") | $(sed -n "s/^load=//p" <<<"$st") | $somas_peak | $safe_wall | $safe_cpu | $safe_rss | $(field peak "$lin") | $verdict |"
  done
done
