#!/usr/bin/env bash
# End-to-end test of memplan-opt --memplan-arena: lowers mlp.mlir (linalg on tensors) through
# one-shot bufferization and the deallocation pipeline, then to LLVM twice (without and with
# --memplan-arena), runs both under mlir-cpu-runner with a heap counter, checks that the
# outputs are identical and that the planned program allocates fewer bytes, and prints the
# before/after table.
#   usage: mlir/e2e/run.sh [BUILD_DIR (default: build)] [WORK_DIR (default: BUILD_DIR/mlir/e2e)]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-$here/../../build}" && pwd)"
work="${2:-$build/mlir/e2e}"
mkdir -p "$work"
llvm=/usr/lib/llvm-19
opt="$llvm/bin/mlir-opt"
runner="$llvm/bin/mlir-cpu-runner"   # LLVM 20 renames it mlir-runner
memplan_opt="$build/mlir/bin/memplan-opt"
counter="$build/mlir/lib/libmemplan_alloc_counter.so"
libs="$llvm/lib/libmlir_runner_utils.so,$llvm/lib/libmlir_c_runner_utils.so,$counter"

bufferize=(-one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map")
deallocate=(-buffer-deallocation-pipeline -canonicalize -convert-bufferization-to-memref)
# before: bufferize, deallocate. after: the same, then memplan (the pass erases the deallocs
# of what it plans and frees the arena before each return). plan-first: bufferize, memplan,
# then the deallocation pipeline (which then frees the arena itself).
"$opt" "$here/mlp.mlir" "${bufferize[@]}" "${deallocate[@]}" -o "$work/buf.mlir"
"$memplan_opt" "$work/buf.mlir" --memplan-arena -o "$work/planned.mlir" 2> "$work/remarks.txt"
"$opt" "$here/mlp.mlir" "${bufferize[@]}" -o "$work/bufonly.mlir"
"$memplan_opt" "$work/bufonly.mlir" --memplan-arena 2> /dev/null | "$opt" "${deallocate[@]}" -o "$work/planfirst.mlir"

lower_and_run() {  # $1: input .mlir, $2: output name
  cp "$1" "$work/$2.src.mlir"
  "$opt" "$1" -convert-linalg-to-loops -expand-strided-metadata -lower-affine -convert-scf-to-cf \
    -convert-arith-to-llvm -convert-math-to-llvm -finalize-memref-to-llvm=use-generic-functions \
    -convert-func-to-llvm -convert-cf-to-llvm -reconcile-unrealized-casts -o "$work/$2.llvm.mlir"
  "$runner" "$work/$2.llvm.mlir" -e main -entry-point-result=void -O2 -shared-libs="$libs" \
    > "$work/$2.out"
}
lower_and_run "$work/buf.mlir" before
lower_and_run "$work/planned.mlir" after
lower_and_run "$work/planfirst.mlir" planfirst

fail() { echo "mlir e2e: FAIL: $*" >&2; exit 1; }
count() { grep -c "$1" "$2" || true; }
field() { sed -n "s/.*memplan-alloc-counter: .*$1=\([0-9]*\).*/\1/p" "$2"; }
grep -q "memref.view" "$work/planned.mlir" || fail "the pass planned nothing"
grep -q "planned .* allocations" "$work/remarks.txt" || fail "no summary remark"
# Printed data only (the header line carries the buffer's address).
for p in before after planfirst; do
  grep -v -e "memplan-alloc-counter" -e "Unranked Memref" "$work/$p.out" > "$work/$p.data"
done
[ -s "$work/before.data" ] || fail "the unplanned program printed nothing"
for p in after planfirst; do
  cmp -s "$work/before.data" "$work/$p.data" || fail "outputs differ (diff $work/before.data $work/$p.data)"
done
grep -q "memref.view" "$work/planfirst.mlir" || fail "plan-first: the pass planned nothing"

echo "memplan-opt --memplan-arena on mlir/e2e/mlp.mlir (4-layer MLP, 4x8 -> 64 -> 64 -> 64 -> 4):"
sed -n "s/.*remark: \(.*function '@.*\)/\1/p" "$work/remarks.txt"
echo "left as they were (remarks 'memplan-arena: not planned: ...'):"
sed -n "s/.*remark: memplan-arena: not planned: //p" "$work/remarks.txt" | sort | uniq -c
printf "| %-9s | %13s | %15s | %11s | %22s |\n" program "memref.alloc" "heap allocations" "heap bytes" "peak live heap bytes"
printf "|-----------|---------------|-----------------|-------------|------------------------|\n"
for p in before after planfirst; do
  printf "| %-9s | %13s | %15s | %11s | %22s |\n" "$p" "$(count "memref.alloc(" "$work/$p.src.mlir")" \
    "$(field allocations "$work/$p.out")" "$(field total_bytes "$work/$p.out")" \
    "$(field peak_live_bytes "$work/$p.out")"
done
b=$(field peak_live_bytes "$work/before.out"); bt=$(field total_bytes "$work/before.out")
[ -n "$b" ] && [ -n "$bt" ] || fail "no heap counts (counter library not loaded?)"
for p in after planfirst; do
  a=$(field peak_live_bytes "$work/$p.out"); at=$(field total_bytes "$work/$p.out")
  [ -n "$a" ] && [ "$at" -lt "$bt" ] || fail "$p: allocates no fewer bytes ($at vs $bt)"
  [ "$a" -lt "$b" ] || fail "$p: peak live heap not lower ($a vs $b)"
done
echo "outputs identical in all three ($(wc -l < "$work/after.data") lines); mlir e2e: OK"
