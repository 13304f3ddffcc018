#!/usr/bin/env bash
# Reproduces the README's results tables (writes docs/results.md and prints it).
# Takes about 10-15 minutes on 2 cores. Usage: scripts/results.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bench/solve_bench ] || scripts/setup.sh >/dev/null
B=build/bench
MM=benchmarks/minimalloc
REAL=(benchmarks/idealloc/somas_tensors/{resnet50,tiny_bert,bert_base,bert_large,bert_nezha,pangu_13B,pangu_2.6B}.csv
      benchmarks/idealloc/iopddl/{G_1,S_1,Y_1}.csv benchmarks/idealloc/iree/iree_{mobilebert,mobilenet}.csv)
AK=($MM/{A,B,C,D,E,F,G,H,I,J,K}.1048576.csv)
LIMIT=10; MINLIMIT=60
if [ "${1:-}" = "--quick" ]; then LIMIT=2; MINLIMIT=5; fi
out=docs/results.md
{
  echo "# Measured results"
  echo
  echo "Produced by \`scripts/results.sh\` on $(nproc) cores ($(date -u +%Y-%m-%d)). Times are wall seconds"
  echo "of the solve call; every plan was checked by the independent validator (an invalid one"
  echo "would be marked **INVALID**). Max RSS is per run (each input runs in its own process)."
  echo
  echo "## Greedy (\`greedy\`: 8 orders x first/best fit) on every bundled benchmark"
  echo
  $B/solve_bench --algo greedy --time-limit 60 "${AK[@]}" "${REAL[@]}"
  echo
  echo "## Scale: first-fit on a 1,000,000-buffer DNN-like instance (\`memplan generate --kind dnn -n 1000000 --seed 1\`)"
  echo
  $B/solve_bench --algo first-fit --time-limit 60 --generate dnn:1000000:1
  echo
  echo "## Exact search at capacity 1048576 (MiniMalloc's decision problem), ${LIMIT} s limit"
  echo
  $B/solve_bench --algo exact --capacity 1048576 --time-limit "$LIMIT" "${AK[@]}"
  echo
  echo "## Peak minimization with \`exact\` (no capacity), ${MINLIMIT} s limit"
  echo
  $B/solve_bench --algo exact --time-limit "$MINLIMIT" $MM/{C,D,J}.1048576.csv
  echo
  echo "## Default portfolio \`auto\`, ${LIMIT} s limit, 2 threads"
  echo
  echo "(On a 2-core machine; the peers' figures quoted in the README were measured on the same machine class.)"
  echo
  $B/solve_bench --algo auto --time-limit "$LIMIT" --threads 2 "${AK[@]}" "${REAL[@]}"
  if [ -x $B/idealloc_bench ]; then
    echo
    echo "## idealloc"
    echo
    if [ "${1:-}" = "--quick" ]; then $B/idealloc_bench 100 2 0; else $B/idealloc_bench 10000 2 1000000; fi
  fi
  if false; then  # covered by docs/figure6.md (memplan bench); baselines_bench takes ~15 min
    echo
    echo "## Production baselines"
    echo
    $B/baselines_bench --time-limit "$LIMIT"
  fi
} | tee "$out.tmp"
mv "$out.tmp" "$out"
echo
echo "Production baselines: see docs/figure6.md, produced by:"
echo "  build/memplan bench benchmarks/minimalloc benchmarks/idealloc --time-limit 2 --threads 1 -o OUT"
