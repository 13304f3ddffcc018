#!/usr/bin/env bash
# Sanitizers and fuzzing (issue 20, point 7). Three steps, each in its own build folder:
#   1. ASan + UBSan (clang, every target also coverage-instrumented for libFuzzer) in
#      build-asan: the CTest suite with MEMPLAN_SANITIZER=1 (tests/testing.h shrinks the slow
#      brute-force sizes; nothing is skipped). Not run there: the browser test, the CMake
#      consumer and Rust example tests (they link outside the sanitized build), the Python
#      bindings (an uninstrumented interpreter) and the MLIR pass (LLVM's tools load it).
#   2. Each libFuzzer target in fuzz/ for FUZZ_SECONDS (default 20) from its seed corpus in
#      fuzz/corpus (copied: the committed corpus is not changed). A crash leaves its input in
#      build-asan/fuzz-crashes/. The mutations follow FUZZ_SEED (default 1), so a run is a
#      reproducible regression check (a machine that runs faster only goes further along the
#      same inputs); FUZZ_SEED=0 draws a random seed, for hunting:
#      FUZZ_SEED=0 FUZZ_SECONDS=1800 scripts/sanitize.sh fuzz
#   3. TSan in build-tsan: the multi-threaded solver tests (auto's sharing and cancel path,
#      exact's probe threads, deep-stack threads, greedy/metaheuristics with threads).
# Any report fails the script (halt_on_error). Usage: scripts/sanitize.sh [asan|fuzz|tsan]...
# (default: all three). Needs clang and libclang-rt-14-dev (scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
FUZZ_SEED=${FUZZ_SEED:-1}
JOBS=${JOBS:-$(nproc)}
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(asan fuzz tsan)
LAUNCHER=()
command -v ccache >/dev/null && LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export MEMPLAN_SANITIZER=1
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
t_start=$(date +%s)
stamp() { echo "sanitize: $* ($(($(date +%s) - t_start)) s)"; }
want() { local s; for s in "${STEPS[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

configure() {  # folder, sanitizer flags, extra cmake arguments...
  local dir=$1 flags=$2
  shift 2
  # The C test links the instrumented C API, so C is built by clang with the same flags. The
  # MLIR pass is left out: it is loaded into LLVM's uninstrumented tools (mlir-opt,
  # mlir-cpu-runner), where an ASan runtime cannot come first.
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_COMPILER=clang "-DCMAKE_C_FLAGS=$flags -fno-omit-frame-pointer" \
    "-DCMAKE_CXX_FLAGS=$flags -fno-omit-frame-pointer" -DMEMPLAN_BUILD_PYTHON=OFF \
    -DMEMPLAN_BUILD_MLIR=OFF -DMEMPLAN_BUILD_BENCH=OFF "${LAUNCHER[@]}" "$@" >/dev/null
}

if want asan || want fuzz; then
  configure build-asan "-fsanitize=address,undefined -fno-sanitize-recover=undefined" -DMEMPLAN_BUILD_FUZZ=ON
  cmake --build build-asan -j "$JOBS"
  stamp "ASan+UBSan build done"
fi

if want asan; then
  (cd build-asan && ctest --output-on-failure -j "$JOBS" -E '^(browser_report_and_svg|cmake_consumer|rust_example)$')
  stamp "ASan+UBSan test suite passed"
fi

if want fuzz; then
  mkdir -p build-asan/fuzz-crashes
  for target in build-asan/fuzz/fuzz_*; do
    [ -x "$target" ] || continue
    name=$(basename "$target")
    work=build-asan/fuzz-corpus/${name#fuzz_}
    rm -rf "$work" && mkdir -p "$work"
    # -fork would use more cores; one process per target keeps CI at its 2 cores.
    "$target" -seed="$FUZZ_SEED" -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$ROOT/build-asan/fuzz-crashes/$name-" "$work" "fuzz/corpus/${name#fuzz_}" \
      2>"build-asan/$name.log" || { tail -50 "build-asan/$name.log"; echo "sanitize: $name failed"; exit 1; }
    echo "sanitize: $name: $(grep -a -m1 'stat::number_of_executed_units' "build-asan/$name.log" | awk '{print $2}') executions in $FUZZ_SECONDS s, corpus $(ls "$work" | wc -l) inputs"
  done
  stamp "fuzz targets passed"
fi

if want tsan; then
  configure build-tsan "-fsanitize=thread" -DMEMPLAN_BUILD_ONNX=OFF
  cmake --build build-tsan -j "$JOBS" --target memplan_tests
  # The tests that run solvers on more than one thread.
  build-tsan/tests/memplan_tests --gtest_brief=1 \
    --gtest_filter='Auto*.*:*Thread*:*Cancel*:ExactImplicit.Deep*:Greedy.EveryRegistered*:SolveInput.*'
  stamp "TSan multi-threaded tests passed"
fi
stamp "all passed"
