"""A typed example of the memplan Python API (checked by mypy against the package's stubs in
scripts/test.sh's python_package test): plan a few buffers, check the plan, and hand the
offsets to numpy. Run: python examples/python/plan_buffers.py [problem.csv]"""
import sys
from typing import Dict, List, Optional

import numpy as np
import numpy.typing as npt

import memplan


def example_problem() -> memplan.Problem:
    """Three activations of a small network: a and c never live together, so they can share."""
    buffers: List[memplan.Buffer] = [
        memplan.Buffer("a", 0, 4, 8192),
        memplan.Buffer("b", 2, 6, 4096, alignment=64),
        memplan.Buffer("c", 4, 8, 8192),
    ]
    return memplan.Problem(buffers)


def plan(problem: memplan.Problem, algo: str = "auto") -> Dict[str, int]:
    """Solves, validates the plan independently and returns {buffer id: offset}."""
    result: memplan.Result = memplan.solve(problem, algo=algo, time_limit=1.0)
    offsets: Optional[npt.NDArray[np.int64]] = result.offsets_array()
    if offsets is None:
        raise SystemExit(f"no plan: {result.status}")
    ok, errors = memplan.validate(problem, offsets.tolist())
    if not ok:
        raise SystemExit("invalid plan: " + "; ".join(errors))
    summary = result.to_dict()
    print(f"memplan {memplan.__version__}: {len(problem)} buffers, peak {summary['peak']} "
          f"(LOAD {memplan.load(problem)}, {summary['status']})")
    return {b.id: int(o) for b, o in zip(problem.buffers, offsets)}


if __name__ == "__main__":
    p = memplan.read_csv(sys.argv[1]) if len(sys.argv) > 1 else example_problem()
    for name, offset in list(plan(p).items())[:10]:
        print(f"  {name}: {offset}")
