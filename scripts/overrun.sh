#!/usr/bin/env bash
# Time-limit overruns (issue 20, point 4): every registered solver on the 62k-buffer Y_1 and
# on a generated 1,000,000-buffer DNN-like instance (`memplan generate --kind dnn -n 1000000
# --seed 1`) at limits of 2 and 5 s with 2 threads, then `auto` at each limit again (a longer
# limit must not give a worse plan); then first fit's worst case, 1,000,000 buffers all live
# at once, for the placement solvers and `auto` at 5 s. Prints Markdown tables (the time is
# the wall time of memplan::solve, its check of the plan included); each part exits 1 if a
# run is over max(10 %, 0.1 s) or auto is not monotone. About 25 minutes; not part of ctest.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -x build/bench/overrun_bench ] || cmake --build build --target overrun_bench >/dev/null
echo "load before: $(uptime)"
build/bench/overrun_bench --limits 2,5 --threads 2 benchmarks/idealloc/iopddl/Y_1.csv --generate dnn:1000000:1
a=$?
echo
build/bench/overrun_bench --limits 5 --threads 2 --algos first-fit,greedy,online-best-fit,auto --overlap 1000000
b=$?
echo "load after: $(uptime)"
exit $(( a || b ))
