#!/bin/sh
# The README tables of "Several memories, swapping, and why a plan does not fit": exports a
# few torchvision models (tests/onnx_models.py, random weights, no downloads; needs torch),
# turns them into problems with `memplan onnx` (graph order, input 1x3x64x64), and runs
# bench/spaces_bench on them and on the bundled sets.
#
#   scripts/spaces_tables.sh [BUILD_DIR] [TIME_LIMIT]
set -e
BUILD=${1:-build}
LIMIT=${2:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODELS="resnet18 resnet50 mobilenet_v2 efficientnet_b0"
OUT="$BUILD/spaces_models"
mkdir -p "$OUT" "$BUILD/onnx_models/torchvision"
(cd "$ROOT/tests" && /usr/bin/python3 -c "
import sys, onnx_models as om
om.torchvision_cases(sys.argv[1], sys.argv[2].split())
" "$(cd "$ROOT" && realpath "$BUILD")/onnx_models/torchvision" "$MODELS")
CSVS=""
for m in $MODELS; do
  "$BUILD/memplan" onnx "$BUILD/onnx_models/torchvision/$m.onnx" --input input=1x3x64x64 --schedule graph \
    -o "$OUT/$m.csv" > /dev/null
  CSVS="$CSVS $OUT/$m.csv"
done
# shellcheck disable=SC2086
"$BUILD/bench/spaces_bench" --time-limit "$LIMIT" $CSVS "$ROOT"/benchmarks/minimalloc/[A-K].1048576.csv \
  "$ROOT"/benchmarks/idealloc/somas_tensors/*.csv "$ROOT"/benchmarks/idealloc/iopddl/G_1.csv \
  "$ROOT"/benchmarks/idealloc/iree/*.csv
