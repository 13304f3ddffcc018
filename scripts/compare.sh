#!/usr/bin/env bash
# Side-by-side comparison of memplan with the public peers MiniMalloc and idealloc on
# MiniMalloc's A-K (benchmarks/minimalloc), measured alternately in one run: memplan, peer,
# memplan, peer, ... (N runs each, medians), so both sides see the same machine load.
#
#   1. MiniMalloc's decision problem at capacity 1048576: memplan `-a exact --capacity`
#      against MiniMalloc's CLI (`--capacity=1048576 --validate`). Times are each tool's own
#      solve time (memplan's `time=`, MiniMalloc's "Elapsed time", CSV reading excluded on
#      both sides) and the wall time of the whole process. MiniMalloc's plan is re-checked
#      by `memplan validate`.
#   2. idealloc: memplan `-a idealloc` against idealloc's binary (`-i FILE ex-csv -l N`) at
#      N iterations on 1 and on 2 threads (idealloc's threads: RAYON_NUM_THREADS): peak/LOAD
#      and wall time per iteration (the process's wall time / iterations, both sides).
#      idealloc writes no offsets, so its peak is its own report, not re-checked.
#
# The peers are not part of this repository and nothing is downloaded. Give them with
#   MINIMALLOC_BIN=/path/to/minimalloc       (its CLI), or
#   MINIMALLOC_DIR=/path/to/minimalloc-src   (a checkout with its submodules; built here with
#                                             CMake into build/peers/minimalloc)
#   IDEALLOC_BIN=/path/to/idealloc           (the coreba crate's binary), or
#   IDEALLOC_DIR=/path/to/idealloc-src       (built here with `cargo build --release --offline`
#                                             into build/peers/idealloc)
# or with `minimalloc` / `idealloc` on PATH. MEMPLAN=/path/to/memplan picks the memplan CLI
# (default build/memplan). A peer that is absent (or fails to build) is
# said so at the top and in its table: its columns read "absent" and memplan's side is still
# measured. The "quoted" columns are the peers' figures from our research notes
# (../shared/research/minimalloc.md §5, idealloc.md §7.1: other runs on the same 2-core
# machine class), never side-by-side measurements; they are there so that the README's
# "against the notes" ratios have a command.
#
# Usage: scripts/compare.sh [--runs N] [--only A,C,...] [--iterations N] [--threads N]
#                           [--skip-minimalloc] [--skip-idealloc] [-o FILE]
#   --runs N        runs per side per instance (default 3; medians)
#   --only LIST     instances of A-K to run (default all 11)
#   --iterations N  idealloc iterations per run (default 10000, as in the notes)
#   --threads N     threads of memplan's exact search (default 1: MiniMalloc is single-threaded)
#   -o FILE         also write the tables to FILE (e.g. docs/compare.md)
# Full run, peers absent: about 1 minute on 2 cores. With both peers present add about
# 3 x (0.5-4 s) per instance for MiniMalloc and 2 x 3 x (3-14 s) per instance for idealloc.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=3; ONLY="A,B,C,D,E,F,G,H,I,J,K"; ITERS=10000; THREADS=1; OUT=""
DO_MM=1; DO_IA=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --iterations) ITERS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --skip-minimalloc) DO_MM=0; shift ;;
    --skip-idealloc) DO_IA=0; shift ;;
    -o) OUT="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for v in "$RUNS" "$ITERS" "$THREADS"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: '$v' is not a positive integer" >&2; exit 2; }
done

MEMPLAN=${MEMPLAN:-build/memplan}
if [ ! -x "$MEMPLAN" ]; then
  echo "compare.sh: $MEMPLAN not found; building it" >&2
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j "$(nproc)" --target memplan_cli >/dev/null
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The peers' figures in our notes (quoted, not measured here).
declare -A MM_QUOTED=([A]=4.09 [B]=3.03 [C]=0.54 [D]=2.16 [E]=2.87 [F]=4.07 [G]=0.86 [H]=1.33 [I]=2.95 [J]=0.70 [K]=0.44)
declare -A IA_QUOTED_S=([A]=3.4 [B]=3.6 [C]=4.4 [D]=5.2 [E]=6.5 [F]=5.5 [G]=6.2 [H]=6.9 [I]=8.9 [J]=10.7 [K]=13.6)
declare -A IA_QUOTED_Q=([A]=1.218 [B]=1.274 [C]=1.351 [D]=1.247 [E]=1.333 [F]=1.275 [G]=1.305 [H]=1.231 [I]=1.410 [J]=1.269 [K]=1.277)

# ---- find or build the peers ----
MM_BIN=""; MM_WHY=""
if [ -n "${MINIMALLOC_BIN:-}" ]; then
  if [ -x "$MINIMALLOC_BIN" ]; then MM_BIN=$MINIMALLOC_BIN; else MM_WHY="MINIMALLOC_BIN=$MINIMALLOC_BIN is not an executable"; fi
elif [ -n "${MINIMALLOC_DIR:-}" ]; then
  if [ -f "$MINIMALLOC_DIR/CMakeLists.txt" ]; then
    echo "compare.sh: building MiniMalloc from $MINIMALLOC_DIR (log: build/peers/minimalloc.log)" >&2
    mkdir -p build/peers
    if cmake -S "$MINIMALLOC_DIR" -B build/peers/minimalloc -DCMAKE_BUILD_TYPE=Release >build/peers/minimalloc.log 2>&1 &&
       cmake --build build/peers/minimalloc -j "$(nproc)" --target minimalloc >>build/peers/minimalloc.log 2>&1; then
      MM_BIN=$(find build/peers/minimalloc -maxdepth 3 -type f -name minimalloc -perm -u+x | head -n 1)
      [ -n "$MM_BIN" ] || MM_WHY="built, but no minimalloc executable under build/peers/minimalloc"
    else
      MM_WHY="the build from $MINIMALLOC_DIR failed (see build/peers/minimalloc.log; its submodules must be checked out, nothing is downloaded)"
    fi
  else
    MM_WHY="MINIMALLOC_DIR=$MINIMALLOC_DIR has no CMakeLists.txt"
  fi
elif command -v minimalloc >/dev/null 2>&1; then
  MM_BIN=$(command -v minimalloc)
else
  MM_WHY="not on this machine (set MINIMALLOC_BIN or MINIMALLOC_DIR)"
fi

IA_BIN=""; IA_WHY=""
if [ -n "${IDEALLOC_BIN:-}" ]; then
  if [ -x "$IDEALLOC_BIN" ]; then IA_BIN=$IDEALLOC_BIN; else IA_WHY="IDEALLOC_BIN=$IDEALLOC_BIN is not an executable"; fi
elif [ -n "${IDEALLOC_DIR:-}" ]; then
  if [ ! -f "$IDEALLOC_DIR/Cargo.toml" ]; then
    IA_WHY="IDEALLOC_DIR=$IDEALLOC_DIR has no Cargo.toml"
  elif ! command -v cargo >/dev/null 2>&1; then
    IA_WHY="cargo is not installed (Debian: cargo), so $IDEALLOC_DIR cannot be built"
  else
    echo "compare.sh: building idealloc from $IDEALLOC_DIR (log: build/peers/idealloc.log)" >&2
    mkdir -p build/peers
    if CARGO_TARGET_DIR=$PWD/build/peers/idealloc cargo build --release --offline \
         --manifest-path "$IDEALLOC_DIR/Cargo.toml" --bin idealloc >build/peers/idealloc.log 2>&1; then
      IA_BIN=build/peers/idealloc/release/idealloc
    else
      IA_WHY="the build from $IDEALLOC_DIR failed (see build/peers/idealloc.log; --offline: its crates must be vendored or cached)"
    fi
  fi
elif command -v idealloc >/dev/null 2>&1; then
  IA_BIN=$(command -v idealloc)
else
  IA_WHY="not on this machine (set IDEALLOC_BIN or IDEALLOC_DIR)"
fi

# ---- helpers ----
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a - b }'; }
# timed CMD...: runs CMD with stdout+stderr to $TMP/out, sets WALL (seconds, date) and CPU
# (user + system seconds of the process, GNU time; "" when /usr/bin/time is missing).
timed() {
  local t0 t1
  t0=$(now)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%U %S' -o "$TMP/cpu" "$@" >"$TMP/out" 2>&1 || true
  else
    "$@" >"$TMP/out" 2>&1 || true
  fi
  t1=$(now)
  WALL=$(sub "$t1" "$t0")
  CPU=""
  [ -x /usr/bin/time ] && CPU=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { c = $1 + $2 } END { if (c != "") printf "%.3f", c }' "$TMP/cpu")
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {if (NR==0) print "-"; else print v[int((NR+1)/2)]}'; }
field() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" | head -n 1; }  # key=value of a summary line
per_it() { awk -v t="$1" -v n="$2" 'BEGIN { if (t != "" && n > 0) printf "%.6f", 1000 * t / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || a+0 <= 0 || b+0 <= 0) print "-"; else printf "%.1fx", b / a }'; }
fmt() { awk -v x="$1" -v d="${2:-3}" 'BEGIN { if (x == "-" || x == "") print "-"; else printf "%.*f", d, x }'; }

main() {
echo "# memplan against MiniMalloc and idealloc, side by side"
echo
echo "Printed by \`scripts/compare.sh$( [ "$RUNS" = 3 ] || echo " --runs $RUNS")$( [ "$ONLY" = "A,B,C,D,E,F,G,H,I,J,K" ] || echo " --only $ONLY")$( [ "$ITERS" = 10000 ] || echo " --iterations $ITERS")$( [ "$THREADS" = 1 ] || echo " --threads $THREADS")\`"
echo "on $(nproc) cores ($(date -u +%Y-%m-%d), memplan $(git rev-parse --short HEAD 2>/dev/null || echo '?'))."
echo "Runs alternate memplan, peer, memplan, peer, ... ($RUNS each); figures are medians."
echo "Ratios are peer / memplan (above 1: memplan is faster). Load average at the start:"
echo "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') (other jobs on the machine inflate both sides' times; alternation"
echo "shares the inflation out, the quoted figures were measured on a quieter machine)."
echo
if [ -n "$MM_BIN" ]; then echo "- MiniMalloc: \`$MM_BIN\`"; else echo "- MiniMalloc: **absent**: $MM_WHY. Its columns read \"absent\"."; fi
if [ -n "$IA_BIN" ]; then echo "- idealloc: \`$IA_BIN\`"; else echo "- idealloc: **absent**: $IA_WHY. Its columns read \"absent\"."; fi
echo "- \"quoted\" columns: the peer's figure in our research notes (other runs on the same 2-core"
echo "  machine class), not measured in this run."

if [ "$DO_MM" = 1 ]; then
  echo
  echo "## Decision at capacity 1048576: \`memplan solve X -a exact --capacity 1048576 --threads $THREADS\` vs MiniMalloc"
  echo
  echo "| input | memplan solve s | MiniMalloc solve s | ratio | memplan wall s | MiniMalloc wall s | wall ratio | memplan peak | MiniMalloc peak | MiniMalloc plan valid | MiniMalloc quoted s | ratio to quoted |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"
  for x in ${ONLY//,/ }; do
    f=benchmarks/minimalloc/$x.1048576.csv
    [ -f "$f" ] || { echo "| $x | no file $f |"; continue; }
    ms=""; mw=""; ps=""; pw=""; mpeak="-"; ppeak="-"; pvalid="-"
    for ((r = 1; r <= RUNS; r++)); do
      timed "$MEMPLAN" solve "$f" -a exact --capacity 1048576 --threads "$THREADS" --time-limit 600
      line=$(grep '^algo=' "$TMP/out" || true)
      [ "$(echo "$line" | field valid)" = yes ] || mpeak="INVALID"
      [ "$mpeak" = INVALID ] || mpeak=$(echo "$line" | field peak)
      ms+=" $(echo "$line" | field time)"; mw+=" $WALL"
      if [ -n "$MM_BIN" ]; then
        rm -f "$TMP/mm.csv"
        timed "$MM_BIN" --capacity=1048576 --input="$f" --output="$TMP/mm.csv" --validate
        pw+=" $WALL"
        ps+=" $(sed -n 's/.*Elapsed time \([0-9.]*\)s.*/\1/p' "$TMP/out" | head -n 1)"
        if [ -s "$TMP/mm.csv" ] && v=$("$MEMPLAN" validate "$f" "$TMP/mm.csv" --capacity 1048576); then
          [ "${pvalid:0:2}" = NO ] || pvalid=yes; ppeak=$(echo "$v" | field peak)
        else
          pvalid="NO ($(head -c 80 "$TMP/out" | tr '\n|' '  '))"
        fi
      fi
    done
    m_s=$(echo "$ms" | median); m_w=$(echo "$mw" | median)
    if [ -n "$MM_BIN" ]; then
      p_s=$(echo "$ps" | median); p_w=$(echo "$pw" | median)
      echo "| $x | $(fmt "$m_s") | $(fmt "$p_s") | $(ratio "$m_s" "$p_s") | $(fmt "$m_w") | $(fmt "$p_w") | $(ratio "$m_w" "$p_w") | $mpeak | $ppeak | $pvalid | ${MM_QUOTED[$x]} | $(ratio "$m_s" "${MM_QUOTED[$x]}") |"
    else
      echo "| $x | $(fmt "$m_s") | absent | absent | $(fmt "$m_w") | absent | absent | $mpeak | absent | absent | ${MM_QUOTED[$x]} | $(ratio "$m_s" "${MM_QUOTED[$x]}") |"
    fi
  done
fi

if [ "$DO_IA" = 1 ]; then
  for th in 1 2; do
    echo
    echo "## idealloc, $ITERS iterations, $th thread(s): \`memplan solve X -a idealloc --iterations $ITERS --threads $th --seed 1\` vs \`idealloc -i X ex-csv -l $ITERS\` (RAYON_NUM_THREADS=$th)"
    echo
    echo "| input | memplan peak/LOAD | idealloc peak/LOAD | memplan ms/iteration | idealloc ms/iteration | ratio | memplan CPU ms/iteration | idealloc CPU ms/iteration | CPU ratio | memplan wall s | idealloc wall s | idealloc quoted peak/LOAD | idealloc quoted ms/iteration | ratio to quoted |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for x in ${ONLY//,/ }; do
      f=benchmarks/minimalloc/$x.1048576.csv
      [ -f "$f" ] || { echo "| $x | no file $f |"; continue; }
      mw=""; mit=""; mcpu=""; pw=""; pcpu=""; mq="-"; pq="-"
      for ((r = 1; r <= RUNS; r++)); do
        timed "$MEMPLAN" solve "$f" -a idealloc --iterations "$ITERS" --threads "$th" --seed 1 --time-limit 600
        line=$(grep '^algo=' "$TMP/out" || true)
        if [ "$(echo "$line" | field valid)" = yes ]; then mq=$(echo "$line" | field ratio); else mq=INVALID; fi
        it=$(echo "$line" | field iterations)
        mit+=" $(per_it "$WALL" "${it:-0}")"; mcpu+=" $(per_it "$CPU" "${it:-0}")"; mw+=" $WALL"
        if [ -n "$IA_BIN" ]; then
          RAYON_NUM_THREADS=$th timed "$IA_BIN" -i "$f" ex-csv -l "$ITERS"
          pw+=" $WALL"; pcpu+=" $(per_it "$CPU" "$ITERS")"
          mk=$(grep -i -m1 'makespan' "$TMP/out" | grep -o '[0-9][0-9]*' | head -n 1 || true)
          ld=$(grep -i -m1 '^ *load' "$TMP/out" | grep -o '[0-9][0-9]*' | head -n 1 || true)
          if [ -n "$mk" ] && [ -n "$ld" ]; then pq=$(awk -v a="$mk" -v b="$ld" 'BEGIN { printf "%.4f", a / b }')
          else pq="? (no Makespan/LOAD in its output)"; fi
        fi
      done
      m_w=$(echo "$mw" | median); m_it=$(echo "$mit" | median); m_cpu=$(echo "$mcpu" | median)
      q_it=$(awk -v s="${IA_QUOTED_S[$x]}" 'BEGIN { printf "%.2f", 1000 * s / 10000 }')
      if [ -n "$IA_BIN" ]; then
        p_w=$(echo "$pw" | median); p_it=$(per_it "$p_w" "$ITERS"); p_cpu=$(echo "$pcpu" | median)
        echo "| $x | $mq | $pq | $(fmt "$m_it") | $(fmt "$p_it") | $(ratio "$m_it" "$p_it") | $(fmt "$m_cpu") | $(fmt "$p_cpu") | $(ratio "$m_cpu" "$p_cpu") | $(fmt "$m_w" 2) | $(fmt "$p_w" 2) | ${IA_QUOTED_Q[$x]} | $q_it | $(ratio "$m_it" "$q_it") |"
      else
        echo "| $x | $mq | absent | $(fmt "$m_it") | absent | absent | $(fmt "$m_cpu") | absent | absent | $(fmt "$m_w" 2) | absent | ${IA_QUOTED_Q[$x]} | $q_it | $(ratio "$m_it" "$q_it") |"
      fi
    done
  done
  echo
  echo "memplan's peak/LOAD is seed 1's (the plan depends on the seed only, not on the thread count)."
  echo "idealloc's quoted figures are one 10,000-iteration run with its default threads (2 cores);"
  echo "the ratio to them compares per-iteration times of different runs, not side by side."
fi
}

if [ -n "$OUT" ]; then main | tee "$OUT.tmp"; mv "$OUT.tmp" "$OUT"; else main; fi
