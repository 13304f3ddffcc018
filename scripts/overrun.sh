#!/usr/bin/env bash
# Time-limit overruns (issue 20, point 4): every registered solver, through memplan::solve
# (its check of the plan included), with 2 threads, on
#   small: every bundled input (benchmarks/: MiniMalloc A-K and its example, idealloc's
#          IOPDDL, MindSpore SOMAS and IREE sets, the PLC trace) at 0.5 s, the strictest
#          tolerance (SMALL_LIMITS=0.5,2 adds 2 s: about 30 minutes more);
#   large: 1,000,000 buffers at 0.5 and 2 s (LARGE_LIMITS=2 for 2 s only): `generate --kind
#          dnn`, `generate --kind training`, and all live at once (first fit's worst case);
# then `auto` with 1 thread at 0.5, 1, 2 and 4 s (small) or 0.5, 1, 2 and 5 s (large): a
# longer limit must not give a worse plan (the `monotone` column). Prints
# Markdown tables (bench/overrun_bench.cpp); exits 1 if a run is over max(10 %, 0.1 s), a run
# threw, or auto is not monotone. Not part of ctest.
#   [SMALL_LIMITS=0.5,2] [LARGE_LIMITS=2] [ALGOS=greedy,auto,...] scripts/overrun.sh [small|large|all]
#   (default all: about 25 minutes, of which large about 8 on a quiet machine, at most 15
#   under load; ALGOS: a subset of the solvers,
#   `memplan list` names them)
# benchmarks/idealloc/traces/ls.trc is a raw malloc trace, not an instance (it needs
# idealloc's own converter), so it is not run.
set -uo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
case "$part" in small|large|all) ;; *) echo "usage: $0 [small|large|all]" >&2; exit 2 ;; esac
[ -x build/bench/overrun_bench ] || cmake --build build --target overrun_bench >/dev/null
echo "load before: $(uptime)"
a=0 b=0
algos=()
[ -n "${ALGOS:-}" ] && algos=(--algos "$ALGOS")
if [ "$part" != large ]; then
  small=(benchmarks/minimalloc/*.csv benchmarks/idealloc/iopddl/*.csv benchmarks/idealloc/somas_tensors/*.csv
         benchmarks/idealloc/traces/hi_again.plc)
  build/bench/overrun_bench --limits "${SMALL_LIMITS:-0.5}" --auto-limits 0.5,1,2,4 --auto-threads 1 --threads 2 "${algos[@]}" "${small[@]}" \
    --free benchmarks/idealloc/iree/iree_mobilebert.csv --free benchmarks/idealloc/iree/iree_mobilenet.csv
  a=$?
  echo
fi
if [ "$part" != small ]; then
  build/bench/overrun_bench --limits "${LARGE_LIMITS:-0.5,2}" --auto-limits 0.5,1,2,5 --auto-threads 1 --threads 2 "${algos[@]}" \
    --generate dnn:1000000:1 --generate training:1000000:1 --overlap 1000000
  b=$?
fi
echo "load after: $(uptime)"
exit $(( a || b ))
