#!/usr/bin/env bash
# Installs the Debian packages memplan needs (only those missing), then configures and
# builds it in ./build. Used by both README commands and by CI.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(build-essential cmake libcli11-dev nlohmann-json3-dev libgtest-dev googletest
          libbenchmark-dev pybind11-dev python3-dev
          libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata chromium
          clang libclang-rt-14-dev)  # scripts/sanitize.sh: ASan/UBSan/TSan and libFuzzer
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

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
