#!/usr/bin/env bash
# The CLI end to end on large training traces: `memplan solve` reading the CSV, solving,
# checking and writing the plan, as a user runs it. Three sides, run in turn for every round
# (so that the machine's load falls on all alike): OLD_CLI, NEW_CLI with MEMPLAN_HUGE_PAGES=0
# (without its re-run on huge pages, cli/huge_pages.h), and NEW_CLI. Prints the median wall
# time, CPU time (user + sys) and peak RSS of each, and whether the three plans are the same
# file (md5).
#
#   scripts/cli_scale.sh OLD_CLI NEW_CLI [--sizes 100000,1000000] [--algos "online-best-fit first-fit-size auto"]
#                        [--outputs "json csv"] [--rounds 3] [--time-limit S] [--threads 2] [--input csv|json]
#
# Without --time-limit, `auto` runs with the default 10 s and every other solver without a
# limit (0), so that their plans are their own (a solver stopped by the limit returns the
# online-best-fit plan instead: the plans would then differ by timing, not by the CLI).
# Inputs: `NEW_CLI generate --kind training -n N --seed 1` (written once per size), as CSV, or
# with --input json as a JSON problem (the output column then says "from json").
set -euo pipefail
old=$1 new=$2; shift 2
sizes=100000,1000000 algos="online-best-fit first-fit-size auto" outputs="json csv" rounds=3 tl="" threads=2 informat=csv
while [[ $# -gt 0 ]]; do
  case $1 in
    --sizes) sizes=$2; shift 2;; --algos) algos=$2; shift 2;; --outputs) outputs=$2; shift 2;;
    --rounds) rounds=$2; shift 2;; --time-limit) tl=$2; shift 2;; --threads) threads=$2; shift 2;; --input) informat=$2; shift 2;;
    *) echo "unknown $1" >&2; exit 2;;
  esac
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)}'; }
echo "| buffers | solver (time limit s) | output | wall s: old / new, no huge pages / new | CPU s | peak RSS MB | same plan |"
echo "|---:|---|---|---|---|---|---|"
for n in ${sizes//,/ }; do
  input=$tmp/training_$n.$informat
  "$new" generate --kind training -n "$n" --seed 1 -o "$input"
  for algo in $algos; do
    limit=$tl; [[ -z $limit ]] && { limit=0; [[ $algo == auto ]] && limit=10; }
    for fmt in $outputs; do
      for side in old nohuge new; do : > "$tmp/$side.runs"; done
      for ((r = 0; r < rounds; ++r)); do
        for side in old nohuge new; do
          cli=$new; env=(env); [[ $side == old ]] && cli=$old; [[ $side == nohuge ]] && env=(env MEMPLAN_HUGE_PAGES=0)
          out=$tmp/$side.$fmt
          "${env[@]}" /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$cli" solve "$input" -a "$algo" \
            --threads "$threads" --time-limit "$limit" -o "$out" > /dev/null
          cat "$tmp/time" >> "$tmp/$side.runs"
        done
      done
      cell() {  # column k of the runs: median per side, "old / nohuge / new"
        local k=$1 scale=$2 s out=""
        for s in old nohuge new; do
          out+="$(awk -v k="$k" -v d="$scale" '{v = (k == 23 ? $2 + $3 : $k); printf "%.2f\n", v / d}' "$tmp/$s.runs" | median) / "
        done
        echo "${out% / }"
      }
      same=no
      [[ $(md5sum < "$tmp/old.$fmt") == $(md5sum < "$tmp/new.$fmt") && $(md5sum < "$tmp/nohuge.$fmt") == $(md5sum < "$tmp/new.$fmt") ]] && same=yes
      shown=$fmt; [[ $informat == csv ]] || shown="$fmt, from $informat"
      echo "| $n | $algo ($limit) | $shown | $(cell 1 1) | $(cell 23 1) | $(cell 4 1024) | $same |"
    done
  done
done
