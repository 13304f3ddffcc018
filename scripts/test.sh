#!/usr/bin/env bash
# README command 2: set up, build, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
MEMPLAN_EXTRA_PACKAGES="${MEMPLAN_EXTRA_PACKAGES:-}" scripts/setup.sh
(cd build && ctest --output-on-failure -j "$(nproc)")
# Sanitizers and fuzzing: ASan+UBSan suite, each fuzz target FUZZ_SECONDS, TSan threads.
# MEMPLAN_SKIP_SANITIZE=1 skips it (e.g. a quick local check).
[ "${MEMPLAN_SKIP_SANITIZE:-0}" = 1 ] || scripts/sanitize.sh
