#!/usr/bin/env bash
# README command 2: set up, build, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
MEMPLAN_EXTRA_PACKAGES="${MEMPLAN_EXTRA_PACKAGES:-}" scripts/setup.sh
cd build
ctest --output-on-failure -j "$(nproc)"
