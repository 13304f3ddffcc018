#!/usr/bin/env bash
# Time-limit overruns of every solver on the largest inputs (issue 20, point 4): the 62k-buffer
# Y_1, a generated 1,000,000-buffer DNN-like instance (`memplan generate --kind dnn -n 1000000`,
# seed 1) and 1,000,000 fully overlapping buffers, at limits of 2 and 5 s, 2 threads; then
# `auto` at each limit again, to check that a longer limit never gives a worse plan. Prints
# Markdown tables; exit 1 if a run is over max(10 %, 0.1 s) or auto is not monotone.
# Takes about an hour on 2 idle cores (every solver x 3 inputs x 2 limits); not part of ctest.
# Usage: scripts/overrun.sh [--quick]   (--quick: Y_1 and the DNN instance only, 1 and 3 s)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bench/overrun_bench ] || cmake --build build --target overrun_bench >/dev/null
if [ "${1:-}" = "--quick" ]; then
  exec build/bench/overrun_bench --limits 1,3 --threads 2 benchmarks/idealloc/iopddl/Y_1.csv --generate dnn:1000000:1
fi
exec build/bench/overrun_bench --limits 2,5 --threads 2 benchmarks/idealloc/iopddl/Y_1.csv \
  --generate dnn:1000000:1 --overlap 1000000
