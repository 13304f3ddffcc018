#!/usr/bin/env bash
# The installable package, as a user gets it: a fresh venv (with the system's site packages:
# Debian's setuptools, wheel, numpy), `pip install .` offline without build isolation, then
# the Python tests run against the installed copy (not build/), `python -m memplan`, and mypy
# on examples/python with the shipped stubs (plus a file with a type error that must fail).
# Usage: test_package.sh SOURCE_DIR WORK_DIR   (MEMPLAN_PACKAGE_PYTHON: the base interpreter)
set -euo pipefail
src=$(realpath "$1")
work=$(realpath -m "$2")
py=${MEMPLAN_PACKAGE_PYTHON:-/usr/bin/python3}
rm -rf "$work"
mkdir -p "$work"
"$py" -m venv --system-site-packages "$work/venv"
vpy="$work/venv/bin/python"

start=$(date +%s)
(cd "$src" && "$vpy" -m pip install --no-build-isolation --no-index --no-deps -q .)
echo "python_package: pip install . took $(( $(date +%s) - start )) s"

cd "$work"  # not the source tree, so `import memplan` can only find the installed package
unset PYTHONPATH
"$vpy" -c "import memplan; print(memplan.__version__)"
"$vpy" -m memplan --version
"$vpy" -m memplan solve "$src/benchmarks/minimalloc/A.1048576.csv" -a greedy
"$vpy" "$src/python/test_package.py"
"$vpy" "$src/python/test_memplan.py"
if "$vpy" -c "import memplan; memplan.onnx_problem" 2>/dev/null; then
  "$vpy" "$src/python/test_onnx.py"
else
  echo "python_package: the package was built without ONNX (no libonnx-dev): test_onnx.py not run"
fi
"$vpy" "$src/examples/python/plan_buffers.py"

mypy_args=(--python-executable "$vpy" --strict --cache-dir "$work/mypy_cache" --no-error-summary)
mypy "${mypy_args[@]}" "$src/examples/python"
cat > "$work/bad_types.py" <<'PY'
import memplan
r = memplan.solve(memplan.Problem([]), algo=3)
n: int = r.peak
PY
if mypy "${mypy_args[@]}" "$work/bad_types.py" > "$work/bad_types.out"; then
  echo "FAIL: mypy accepted a call with wrong types (are the stubs used?)"; exit 1
fi
grep -q 'Argument "algo" to "solve" has incompatible type "int"' "$work/bad_types.out"
grep -q 'Incompatible types in assignment (expression has type "Optional\[int\]"' "$work/bad_types.out"
echo "python_package: mypy used the stubs (wrong types rejected)"
echo "python_package: all passed"
