"""Type stubs of the C++ extension memplan._memplan (python/memplan_module.cpp,
graph_bindings.cpp, package_bindings.cpp, spaces_bindings.cpp); re-exported by the package `memplan`.
python/test_package.py checks that every name and parameter here matches the module."""
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, TypedDict

import numpy as np
import numpy.typing as npt

__version__: str

class InputError(ValueError):
    """Bad input (buffers, files, graphs); the message names the item at fault."""

class Buffer:
    """A buffer: id, lifetime [start, end), size, alignment, optional fixed offset."""
    id: str
    start: int
    end: int
    size: int
    alignment: int
    offset: Optional[int]
    inplace_of: str
    spaces: List[str]
    uses: List[int]
    evictable: bool
    def __init__(self, id: str, start: int, end: int, size: int, alignment: int = 1,
                 offset: Optional[int] = None, *, inplace_of: str = "", spaces: Sequence[str] = ...,
                 uses: Sequence[int] = ..., evictable: bool = False) -> None:
        """A buffer live during [start, end) (half-open); offset pre-places it. Keyword-only:
        inplace_of, spaces (memories, preferred first), uses (steps reading it), evictable."""

class Memory:
    """A memory buffers may live in: name, capacity (None: unbounded), alignment."""
    name: str
    capacity: Optional[int]
    alignment: int
    def __init__(self, name: str, capacity: Optional[int] = None, alignment: int = 1) -> None:
        """Memories are declared fastest first (Problem(memories=...))."""

class Problem:
    """Buffers to place, an optional capacity and optional memories."""
    capacity: Optional[int]
    def __init__(self, buffers: Sequence[Buffer], capacity: Optional[int] = None,
                 memories: Sequence[Memory] = ..., conflicts: Sequence[Tuple[int, int]] = ...) -> None:
        """Checks the buffers and memories (raises InputError on bad ones)."""
    @property
    def buffers(self) -> List[Buffer]:
        """The buffers (a copy of the list)."""
    @property
    def memories(self) -> List[Memory]:
        """The declared memories, fastest first (a copy)."""
    @property
    def conflicts(self) -> List[Tuple[int, int]]:
        """Explicit conflicts as pairs of buffer indices (a copy)."""
    def __len__(self) -> int:
        """Number of buffers."""

class ResultDict(TypedDict):
    """Result.to_dict()."""
    status: str
    optimal: bool
    found: bool
    peak: Optional[int]
    offsets: Optional[List[int]]
    lower_bound: int
    iterations: int
    detail: str

class Result:
    """What solve() returns: status, plan (offsets, peak) and lower bound."""
    @property
    def status(self) -> str:
        """One of optimal, feasible, infeasible, no_plan."""
    @property
    def optimal(self) -> bool:
        """True when the peak is proven optimal (peak == lower_bound)."""
    @property
    def found(self) -> bool:
        """True when a plan (offsets) was found."""
    @property
    def peak(self) -> Optional[int]:
        """max(offset + size) of the plan, or None when no plan was found."""
    @property
    def offsets(self) -> Optional[List[int]]:
        """offsets[i] for problem.buffers[i], or None when no plan was found."""
    @property
    def lower_bound(self) -> int:
        """Best proven lower bound on the peak (at least LOAD)."""
    @property
    def iterations(self) -> int:
        """Iterations, probes or restarts run, where meaningful."""
    @property
    def nodes(self) -> int:
        """Search nodes visited, by solvers that count them (exact, lns); else 0."""
    @property
    def detail(self) -> str:
        """Extra key=value text of the solver."""
    @property
    def explanation(self) -> Optional[str]:
        """When no plan fits the capacity: why, e.g. 't=12:load=9>8' or 'core=3:proven:best_peak=9'."""
    def to_dict(self) -> ResultDict:
        """The result as a plain dict (peak and offsets are None when no plan was found)."""
    def offsets_array(self) -> Optional[npt.NDArray[np.int64]]:
        """The offsets as a numpy int64 array, or None when no plan was found."""

def read_csv(path: str, inclusive: bool = False) -> Problem:
    """Reads a MiniMalloc-format CSV problem."""

def solve(problem: Problem, algo: str = "auto", capacity: Optional[int] = None,
          time_limit: float = 10.0, seed: int = 1, threads: int = 1,
          iterations: int = 0) -> Result:
    """Plans offsets with the named algorithm (see algorithms())."""

def validate(problem: Problem, offsets: Sequence[int],
             capacity: Optional[int] = None) -> Tuple[bool, List[str]]:
    """Independent check of a plan: returns (ok, [error messages])."""

def load(problem: Problem) -> int:
    """LOAD: the largest total size live at one instant (a lower bound on the peak)."""

class MemoriesPlan:
    """What plan_memories returns: each buffer's memory and offset."""
    @property
    def found(self) -> bool: ...
    @property
    def space(self) -> List[str]: ...
    @property
    def offsets(self) -> List[int]: ...
    @property
    def peaks(self) -> Dict[str, int]: ...
    @property
    def moves(self) -> int: ...
    @property
    def error(self) -> str: ...

class SwapPlan:
    """What plan_swaps returns: offsets, evictions and their copies."""
    @property
    def status(self) -> str: ...
    @property
    def found(self) -> bool: ...
    @property
    def offsets(self) -> Optional[List[int]]: ...
    @property
    def peak(self) -> Optional[int]: ...
    @property
    def evictions(self) -> List[Tuple[str, int, int]]: ...
    @property
    def transfers(self) -> List[Tuple[str, str, int, int]]: ...
    @property
    def bytes_moved(self) -> int: ...
    @property
    def stall(self) -> int: ...
    @property
    def explain(self) -> str: ...

def plan_memories(problem: Problem, algo: str = "auto", time_limit: float = 10.0, threads: int = 1,
                  seed: int = 1) -> MemoriesPlan:
    """Assigns each buffer a memory of problem.memories and plans each memory's offsets."""

def plan_swaps(problem: Problem, capacity: int, algo: str = "auto", time_limit: float = 10.0,
               bandwidth: int = 0, channels: int = 1, durations: Sequence[int] = ...,
               split: bool = False, allow_stall: bool = False, exact: bool = False,
               threads: int = 1, seed: int = 1) -> SwapPlan:
    """Fits `capacity` by copying evictable buffers out between two uses."""

def algorithms() -> List[Tuple[str, str]]:
    """(name, description) of every registered algorithm."""

# Only in builds with the ONNX front end (libonnx-dev).
def onnx_problem(path: str, dims: Mapping[str, int] = ...,
                 inputs: Mapping[str, Sequence[int]] = ..., strict: bool = False,
                 include_weights: bool = False, schedule: str = "memory") -> Problem:
    """The buffers of an ONNX model (ids = tensor names), lifetimes on the `schedule` order."""

def onnx_summary(path: str, dims: Mapping[str, int] = ...,
                 inputs: Mapping[str, Sequence[int]] = ..., strict: bool = False,
                 algo: str = "auto", time_limit: float = 10.0,
                 threads: int = 1, schedule: str = "memory") -> Dict[str, Any]:
    """As `memplan onnx --summary`: a dict of the plan's figures."""

def onnx_schedule(path: str, dims: Mapping[str, int] = ...,
                  inputs: Mapping[str, Sequence[int]] = ..., strict: bool = False,
                  mode: str = "memory", time_limit: float = 10.0, seed: int = 1) -> Dict[str, Any]:
    """The execution order of an ONNX model that lowers LOAD (no plan)."""

# For the Python front ends (memplan.torch).
_TensorRow = Tuple[str, int, str]
_OpRow = Tuple[str, str, Sequence[int], Sequence[int], Sequence[int], Sequence[int], int]

def _lower_graph(tensors: Sequence[_TensorRow], ops: Sequence[_OpRow],
                 order: Sequence[int] = ..., include_weights: bool = False,
                 inplace: bool = True, alignment: int = 1, uses: bool = False) -> Dict[str, Any]:
    """Builds a graph from plain lists and lowers it to a Problem."""

def _graph_order(tensors: Sequence[_TensorRow], ops: Sequence[_OpRow]) -> List[int]:
    """The graph order of a graph given as in _lower_graph."""

def _schedule_graph(tensors: Sequence[_TensorRow], ops: Sequence[_OpRow], mode: str = "memory",
                    time_limit: float = 10.0, seed: int = 1, include_weights: bool = False,
                    inplace: bool = True, alignment: int = 1) -> Dict[str, Any]:
    """Schedules a graph given as in _lower_graph (memplan/schedule.h)."""
