#!/usr/bin/env bash
# Installs the Debian packages memplan needs (only those missing), then configures and
# builds it in ./build. Used by both README commands and by CI.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(build-essential cmake libcli11-dev nlohmann-json3-dev libgtest-dev googletest
          libbenchmark-dev pybind11-dev python3-dev
          libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata chromium
          time python3-onnx python3-torch python3-torchvision
          libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools)
PACKAGES+=(cargo rustc)  # the Rust example of the C API (examples/rust, test rust_example)
# The installable Python package (test python_package: venv, offline `pip install .`, numpy
# conversions, mypy on the stubs); ccache lets its second build of the library reuse this one's.
PACKAGES+=(python3-venv python3-pip python3-setuptools python3-wheel python3-numpy mypy ccache)
PACKAGES+=(clang libclang-rt-14-dev)  # scripts/sanitize.sh: ASan/UBSan/TSan and libFuzzer
PACKAGES+=(${MEMPLAN_EXTRA_PACKAGES:-})

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"  # relative paths: hits across build dirs
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build -j "$(nproc)"
