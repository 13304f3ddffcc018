"""Tests of the installed package (run by python/test_package.sh in a fresh venv after
`pip install .`): version, stubs against the extension, docstrings, the numpy and dict
conversions, and `python -m memplan` against the bundled CLI."""
import ast
import importlib.metadata
import inspect
import os
import re
import subprocess
import sys
import unittest
from pathlib import Path

import memplan
import memplan.__main__
from memplan import _memplan

ROOT = Path(__file__).resolve().parent.parent
PKG = Path(memplan.__file__).resolve().parent
A_CSV = ROOT / "benchmarks" / "minimalloc" / "A.1048576.csv"


def signature_names(doc: str):
    """Parameter names (and whether each has a default) in pybind11's signature line."""
    line = doc.splitlines()[0]
    inner = line[line.index("(") + 1:line.rindex(") ->")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [(p.split(":")[0].strip(), "=" in p) for p in parts]


def stub_names(fn: ast.FunctionDef):
    args = fn.args.args
    defaults = [False] * (len(args) - len(fn.args.defaults)) + [True] * len(fn.args.defaults)
    names = [(a.arg, d) for a, d in zip(args, defaults)]
    if fn.args.kwonlyargs:  # pybind11 writes keyword-only parameters after a bare "*"
        names.append(("*", False))
        names += [(a.arg, d is not None) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults)]
    return names


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=300)


class InstalledPackageTest(unittest.TestCase):
    def test_imported_from_the_install_not_the_tree(self):
        self.assertTrue(str(PKG).startswith(os.path.realpath(sys.prefix)), PKG)
        for f in ("py.typed", "_memplan.pyi", "bin/memplan"):
            self.assertTrue((PKG / f).is_file(), f)

    def test_version_is_the_library_version(self):
        cmake = (ROOT / "CMakeLists.txt").read_text()
        expected = re.search(r"project\(memplan VERSION ([0-9.]+)", cmake).group(1)
        self.assertEqual(memplan.__version__, expected)
        self.assertEqual(importlib.metadata.version("memplan"), expected)
        cli = run(str(PKG / "bin" / "memplan"), "--version")
        self.assertEqual(cli.stdout.strip(), "memplan " + expected)

    def test_result_to_numpy_and_dict(self):
        import numpy as np
        p = memplan.read_csv(str(A_CSV))
        r = memplan.solve(p, algo="greedy")
        a = r.offsets_array()
        self.assertIsInstance(a, np.ndarray)
        self.assertEqual(a.dtype, np.int64)
        self.assertEqual(a.tolist(), r.offsets)
        self.assertTrue(memplan.validate(p, a.tolist())[0])
        sizes = np.array([b.size for b in p.buffers], dtype=np.int64)
        self.assertEqual(int((a + sizes).max()), r.peak)
        a[0] += 1  # a copy: the result is unchanged
        self.assertEqual(r.offsets_array().tolist(), r.offsets)
        d = r.to_dict()
        self.assertEqual(d, {"status": r.status, "optimal": r.optimal, "found": True, "peak": r.peak,
                             "offsets": r.offsets, "lower_bound": r.lower_bound,
                             "iterations": r.iterations, "detail": r.detail})

    def test_no_plan_converts_to_none(self):
        p = memplan.Problem([memplan.Buffer("a", 0, 4, 8), memplan.Buffer("b", 0, 4, 8)])
        r = memplan.solve(p, algo="greedy", capacity=10)
        self.assertIsNone(r.offsets_array())
        d = r.to_dict()
        self.assertFalse(d["found"])
        self.assertIsNone(d["peak"])
        self.assertIsNone(d["offsets"])

    def test_stubs_match_the_extension(self):
        tree = ast.parse((PKG / "_memplan.pyi").read_text())
        stubbed = set()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                stubbed.add(node.name)
                obj = getattr(_memplan, node.name, None)
                if obj is None and node.name.startswith("onnx_"):
                    continue  # a build without the ONNX front end
                self.assertIsNotNone(obj, node.name)
                self.assertEqual(stub_names(node), signature_names(obj.__doc__), node.name)
            elif isinstance(node, ast.ClassDef):
                stubbed.add(node.name)
                if node.name == "ResultDict":
                    keys = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign)]
                    r = memplan.solve(memplan.Problem([memplan.Buffer("a", 0, 1, 1)]))
                    self.assertEqual(keys, list(r.to_dict()))
                    continue
                cls = getattr(_memplan, node.name)
                members = set()
                for item in node.body:
                    if isinstance(item, ast.AnnAssign):
                        members.add(item.target.id)
                    elif isinstance(item, ast.FunctionDef):
                        members.add(item.name)
                        attr = inspect.getattr_static(cls, item.name)
                        if not isinstance(attr, property) and item.name != "__init__":
                            self.assertEqual(stub_names(item), signature_names(attr.__doc__),
                                             f"{node.name}.{item.name}")
                runtime = {n for n in vars(cls) if not n.startswith("_")}
                self.assertEqual(runtime, {m for m in members if not m.startswith("_")}, node.name)
                for m in members:
                    self.assertTrue(hasattr(cls, m), f"{node.name}.{m}")
            elif isinstance(node, ast.AnnAssign):
                stubbed.add(node.target.id)
        runtime = {n for n in vars(_memplan) if not (n.startswith("__") and n.endswith("__"))}
        self.assertEqual(runtime - stubbed, set(), "names missing from _memplan.pyi")

    def test_every_function_has_a_docstring(self):
        def documented(obj):
            doc = obj.__doc__ or ""
            if doc.startswith(getattr(obj, "__name__", "?") + "("):  # pybind11: drop the signature
                doc = doc.split("\n", 1)[1] if "\n" in doc else ""
            return doc.strip() != ""
        missing = []
        for mod in (_memplan, memplan.__main__):
            for name, obj in vars(mod).items():
                if name.startswith("__") or getattr(obj, "__module__", mod.__name__) != mod.__name__:
                    continue
                if callable(obj) and not documented(obj):
                    missing.append(f"{mod.__name__}.{name}")
                if isinstance(obj, type):
                    for m, attr in vars(obj).items():
                        if m.startswith("_") and m not in ("__init__", "__len__", "__repr__"):
                            continue
                        target = attr if isinstance(attr, property) else getattr(obj, m)
                        if (callable(target) or isinstance(attr, property)) and not documented(target):
                            missing.append(f"{mod.__name__}.{name}.{m}")
        self.assertEqual(missing, [])

    def test_every_python_function_has_a_docstring(self):
        missing = []
        for f in sorted(PKG.glob("*.py")):
            for node in ast.walk(ast.parse(f.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not ast.get_docstring(node):
                    missing.append(f"{f.name}:{node.lineno} {node.name}")
        self.assertEqual(missing, [])
        self.assertIn("torch.py", [f.name for f in PKG.glob("*.py")])

class PythonDashMTest(unittest.TestCase):
    def test_version(self):
        out = run(sys.executable, "-m", "memplan", "--version")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "memplan " + memplan.__version__)

    def test_solve_matches_the_bindings(self):
        out = run(sys.executable, "-m", "memplan", "solve", str(A_CSV), "-a", "greedy")
        self.assertEqual(out.returncode, 0, out.stderr)
        peak = memplan.solve(memplan.read_csv(str(A_CSV)), algo="greedy").peak
        self.assertRegex(out.stdout, rf"\bpeak[ =:]+{peak}\b")

    def test_bad_input_exits_2_like_the_cli(self):
        out = run(sys.executable, "-m", "memplan", "solve", "no-such-file.csv")
        self.assertEqual(out.returncode, 2)
        self.assertIn("no-such-file.csv", out.stderr)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
