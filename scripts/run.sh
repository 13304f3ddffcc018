#!/usr/bin/env bash
# README command 1: set up, build, and plan a bundled benchmark (MiniMalloc's A).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
./build/memplan solve benchmarks/minimalloc/A.1048576.csv -o build/A.plan.csv "$@"
echo "plan written to build/A.plan.csv"
