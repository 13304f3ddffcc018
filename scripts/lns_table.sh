#!/usr/bin/env bash
# `lns` against `auto` at equal time, one thread each (README "LNS: lowering D and J"):
# per input, `auto` for 2T seconds, and `auto` for T seconds followed by `lns` for T seconds
# from its plan (--initial), run one after the other. Prints peak, peak/LOAD and CPU seconds
# (user + sys, /usr/bin/time) of each, and lns's step counts.
# Usage: scripts/lns_table.sh [T] [FILE...]   (default T = 10; a generated aligned-800-s3)
set -euo pipefail
cd "$(dirname "$0")/.."
MEMPLAN=${MEMPLAN:-build/memplan}
T=${1:-10}
shift || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  "$MEMPLAN" generate --kind aligned -n 800 --seed 3 -o "$tmp/aligned-800-s3.csv"
  files=("$tmp/aligned-800-s3.csv")
fi
run() {  # run OUT ARGS...: the summary line in OUT, CPU seconds on stdout
  local out=$1; shift
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$MEMPLAN" solve "$@" --threads 1 2>/dev/null | grep '^algo=' >"$out" || true
  awk '{ printf "%.1f", $1 + $2 }' "$tmp/time"
}
get() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$1"; }
echo "| input | LOAD | auto $((2 * T)) s: peak | ratio | CPU s | auto $T s + lns $T s: peak | ratio | CPU s | lns steps | moved | improved |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  c1=$(run "$tmp/a" "$f" -a auto --time-limit $((2 * T)))
  c2=$(run "$tmp/b" "$f" -a auto --time-limit "$T" -o "$tmp/start.csv")
  c3=$(run "$tmp/c" "$f" -a lns --time-limit "$T" --initial "$tmp/start.csv")
  cpu=$(awk -v a="$c2" -v b="$c3" 'BEGIN { printf "%.1f", a + b }')
  echo "| $(basename "$f" .csv) | $(get "$tmp/a" load) | $(get "$tmp/a" peak) | $(get "$tmp/a" ratio) | $c1 | $(get "$tmp/c" peak) | $(get "$tmp/c" ratio) | $cpu | $(get "$tmp/c" steps) | $(get "$tmp/c" moved) | $(get "$tmp/c" improved) |"
done
