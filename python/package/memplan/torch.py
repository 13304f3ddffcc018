"""PyTorch front end: plan the activations of a torch.nn.Module, for inference or training.

    import memplan.torch
    p = memplan.torch.plan(model, (x,))               # inference
    p = memplan.torch.plan(model, (x,), training=True)  # forward + backward (AOT autograd)
    p.offsets["layer1_0_conv1"], p.summary

Tracing (inference): torch.fx.symbolic_trace (module-level nodes: `layer1_0_conv1`), or, when
that fails (data-dependent Python control flow, e.g. torchvision's ViT), make_fx at the aten
level (`convolution_3`, `relu_`). Training: functorch's AOT autograd hands over the forward
and the backward graph; they are joined into one graph in which the tensors the forward
saves for the backward live until their last backward use.

Sizes and aliasing come from running the traced graph once on the example inputs and
recording every node's result: bytes = numel * element_size; an output that shares storage
with one of its node's tensor arguments (a view: flatten, permute, getitem of a tuple; or an
in-place op: relu_, ReLU(inplace=True)) is that argument's bytes and gets no buffer. An
out-of-place elementwise op may overwrite its first argument when it dies there. The graph
goes through memplan's graph layer (memplan._lower_graph) and is planned by memplan.solve.
"""
from __future__ import annotations

import operator
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch
import torch.fx

import memplan as _mp


class MemplanTraceError(ValueError):
    """The model could not be traced into a graph (the message names the reason)."""


# ---------------------------------------------------------------------------------------
# The graph as plain lists (what memplan._lower_graph takes)


@dataclass
class TorchGraph:
    """Tensors [(name, bytes, kind)] and operators [(name, type, inputs, outputs, view_of,
    may_overwrite, scratch)] as memplan._lower_graph takes them, plus where they came from."""
    tensors: List[Tuple[str, int, str]] = field(default_factory=list)
    ops: List[tuple] = field(default_factory=list)
    tracer: str = ""
    # The traced fx graphs (inference: [gm]; training: [forward, backward]).
    graph_modules: List[torch.fx.GraphModule] = field(default_factory=list)
    # Node name (as keyed in the plan) -> tensor index; tuple results: name.i per element.
    tensor_of_name: Dict[str, int] = field(default_factory=dict)

    def add_tensor(self, name: str, nbytes: int, kind: str) -> int:
        """Adds a tensor (name unique, bytes, kind) and returns its index."""
        if name in self.tensor_of_name:
            raise MemplanTraceError(f"tensor name '{name}' appears twice in the traced graph")
        self.tensor_of_name[name] = len(self.tensors)
        self.tensors.append((name, int(nbytes), kind))
        return len(self.tensors) - 1


def _nbytes(t: torch.Tensor) -> int:
    """Bytes of a tensor (elements x element size)."""
    return t.numel() * t.element_size()


def _storage_ptr(t: torch.Tensor) -> int:
    """Address of the storage behind a tensor (0 when it has none), to find views."""
    try:
        return t.storage().data_ptr()
    except Exception:  # tensors without storage (meta, sparse)
        return 0


def _flat_tensors(value) -> Optional[List[torch.Tensor]]:
    """The tensors of a node's result: [t] for a tensor, its elements for a tuple/list of
    tensors (None entries dropped), None when the result holds no tensor."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        ts = [v for v in value if isinstance(v, torch.Tensor)]
        if ts and all(isinstance(v, torch.Tensor) or v is None for v in value):
            return ts
    return None


def _element_names(name: str, value) -> List[str]:
    """Tensor names of a node's result: name, or name.i per tensor of a tuple."""
    if isinstance(value, torch.Tensor):
        return [name]
    return [f"{name}.{i}" for i, v in enumerate(value) if isinstance(v, torch.Tensor)]


class _Recorder(torch.fx.Interpreter):
    """Runs a GraphModule and keeps every node's result (keeping them alive, so that storage
    addresses are never reused while compared)."""

    def __init__(self, gm):
        """Records the values of every node of gm."""
        super().__init__(gm, garbage_collect_values=False)
        self.values: Dict[str, Any] = {}

    def run_node(self, n):
        """Runs one node and records its result under the node name."""
        out = super().run_node(n)
        self.values[n.name] = out
        return out


# Out-of-place elementwise operators: the output may take over the first argument's buffer
# when that argument dies at this operator (and has the output's size).
_ELEMENTWISE = {
    "abs", "add", "sub", "mul", "div", "neg", "exp", "log", "sqrt", "rsqrt", "pow",
    "relu", "relu6", "gelu", "sigmoid", "silu", "tanh", "hardswish", "hardsigmoid",
    "hardtanh", "clamp", "clamp_min", "clamp_max", "leaky_relu", "elu", "where",
    "threshold_backward", "gelu_backward", "hardswish_backward", "hardsigmoid_backward",
    "sigmoid_backward", "tanh_backward", "silu_backward", "mish", "softplus", "reciprocal",
    "_to_copy", "clone", "dropout", "erf", "sign", "square",
}
_ELEMENTWISE_MODULES = (
    torch.nn.ReLU, torch.nn.ReLU6, torch.nn.GELU, torch.nn.Sigmoid, torch.nn.SiLU,
    torch.nn.Tanh, torch.nn.Hardswish, torch.nn.Hardsigmoid, torch.nn.Hardtanh,
    torch.nn.LeakyReLU, torch.nn.ELU, torch.nn.Dropout, torch.nn.Mish,
)


def _op_base_name(n: torch.fx.Node) -> str:
    """'add' for aten.add.Tensor, operator.add, torch.add, Tensor.add; '' if none."""
    t = n.target
    if n.op == "call_method":
        return str(t)
    if n.op != "call_function":
        return ""
    if isinstance(t, torch._ops.OpOverload):
        return t._schema.name.split("::")[-1]
    if isinstance(t, torch._ops.OpOverloadPacket):
        return t._qualified_op_name.split("::")[-1]
    return getattr(t, "__name__", str(t))


def _is_elementwise(n: torch.fx.Node, gm: torch.fx.GraphModule) -> bool:
    """Whether the node is an elementwise operator (may write its output over an input)."""
    if n.op == "call_module":
        return isinstance(gm.get_submodule(n.target), _ELEMENTWISE_MODULES)
    name = _op_base_name(n)
    if n.op == "call_function" and n.target in (operator.add, operator.sub, operator.mul,
                                                 operator.truediv, operator.neg):
        return True
    return name in _ELEMENTWISE


def _op_type(n: torch.fx.Node, gm: torch.fx.GraphModule) -> str:
    """The operator type of a node: module class name, or the aten/function name."""
    if n.op == "call_module":
        return type(gm.get_submodule(n.target)).__name__
    t = n.target
    if isinstance(t, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(t)
    return getattr(t, "__name__", str(t))


def _node_inputs(n: torch.fx.Node) -> List[torch.fx.Node]:
    """The fx nodes a node reads (args and kwargs, flattened)."""
    out: List[torch.fx.Node] = []
    torch.fx.node.map_arg((n.args, n.kwargs), lambda a: out.append(a))
    return out


class _Builder:
    """Adds the nodes of one fx graph (with their recorded results) to a TorchGraph."""

    def __init__(self, g: TorchGraph, prefix: str = ""):
        """Builder adding to graph g; node names get the prefix."""
        self.g = g
        self.prefix = prefix
        self.node_tensors: Dict[str, List[int]] = {}  # fx node name -> tensor indices

    def key(self, n: torch.fx.Node) -> str:
        """The name of a node in the plan (prefixed for the backward graph)."""
        return self.prefix + n.name

    def add_graph(self, gm: torch.fx.GraphModule, values: Dict[str, Any], placeholder_kind,
                  alias: Optional[Dict[str, List[int]]] = None, module_weights: bool = False):
        """placeholder_kind(i, node) -> 'input' / 'weight'; alias: placeholder name -> tensor
        indices it stands for (a backward's saved tensors); module_weights: add each
        call_module's parameters and buffers as weight inputs (module-level graphs)."""
        g = self.g
        placeholders = 0
        weight_of_param: Dict[int, int] = {}
        for n in gm.graph.nodes:
            if n.op == "output":
                continue
            v = values.get(n.name)
            if n.op == "placeholder":
                i = placeholders
                placeholders += 1
                if alias is not None and n.name in alias:
                    self.node_tensors[n.name] = alias[n.name]
                    g.tensor_of_name.setdefault(self.key(n), alias[n.name][0])
                    continue
                if isinstance(v, torch.Tensor):
                    self.node_tensors[n.name] = [g.add_tensor(self.key(n), _nbytes(v),
                                                              placeholder_kind(i, n))]
                continue
            ts = _flat_tensors(v)
            if ts is None:
                continue  # sizes, shapes, None: no memory
            if n.op == "get_attr":
                self.node_tensors[n.name] = [g.add_tensor(self.key(n), _nbytes(t), "weight")
                                             for t in ts]
                continue
            # An operator: its tensor arguments in order (each node once per tensor element).
            in_idx: List[int] = []
            in_vals: List[torch.Tensor] = []
            for a in _node_inputs(n):
                av = values.get(a.name)
                ats = _flat_tensors(av)
                if ats is None or a.name not in self.node_tensors:
                    continue
                in_idx.extend(self.node_tensors[a.name])
                in_vals.extend(ats)
            if module_weights and n.op == "call_module":
                for pname, p in list(gm.get_submodule(n.target).named_parameters()) + \
                        list(gm.get_submodule(n.target).named_buffers()):
                    if id(p) not in weight_of_param:
                        weight_of_param[id(p)] = g.add_tensor(
                            f"{n.target}.{pname}", _nbytes(p), "weight")
                    in_idx.append(weight_of_param[id(p)])
                    in_vals.append(p)
            names = _element_names(self.key(n), v)
            outs, view_of, overwrite = [], [], []
            ptrs = [_storage_ptr(t) for t in in_vals]
            elementwise = _is_elementwise(n, gm)
            for name, t in zip(names, ts):
                outs.append(g.add_tensor(name, _nbytes(t), "activation"))
                p = _storage_ptr(t)
                view = ptrs.index(p) if p and p in ptrs else -1
                view_of.append(view)
                ow = -1
                if view < 0 and elementwise and in_vals and in_vals[0].dtype == t.dtype and \
                        _nbytes(in_vals[0]) == _nbytes(t):
                    ow = 0
                overwrite.append(ow)
            self.node_tensors[n.name] = outs
            g.ops.append((self.key(n), _op_type(n, gm), in_idx, outs, view_of, overwrite, 0))

    def output_tensors(self, gm: torch.fx.GraphModule) -> List[Optional[List[int]]]:
        """Per output value of the graph (flattened): its tensor indices, or None."""
        out = [n for n in gm.graph.nodes if n.op == "output"][0]
        res: List[Optional[List[int]]] = []
        torch.fx.node.map_arg(out.args, lambda a: res.append(self.node_tensors.get(a.name)))
        return res


def _mark_outputs(g: TorchGraph, tensors: Sequence[Optional[List[int]]]):
    """Marks the given tensors as graph outputs (kind "output")."""
    for idx in tensors:
        for t in idx or []:
            name, nbytes, kind = g.tensors[t]
            if kind == "activation":
                g.tensors[t] = (name, nbytes, "output")


# ---------------------------------------------------------------------------------------
# Tracing


def _as_tuple(example_inputs) -> tuple:
    """The example inputs as a tuple (a single tensor becomes a 1-tuple)."""
    if isinstance(example_inputs, torch.Tensor):
        return (example_inputs,)
    return tuple(example_inputs)


class _OpLevelTracer(torch.fx.Tracer):
    """fx's tracer, but a torch.nn module with submodules is traced through, not kept as one
    node. fx keeps every torch.nn module whole: nn.TransformerEncoder was one node, its
    attention scores and feed-forward activations left out of the plan (a 2-layer encoder
    planned as 3 buffers). Modules without submodules (Conv2d, Linear, ReLU, LSTM) stay one
    node: one operator each."""

    def is_leaf_module(self, m: torch.nn.Module, module_qualified_name: str) -> bool:
        """A torch.nn module without submodules (fx's own rule, and no children)."""
        return super().is_leaf_module(m, module_qualified_name) and next(m.children(), None) is None


def _trace_inference(module: torch.nn.Module, inputs: tuple, tracer: str):
    """(GraphModule, tracer name, values by node name)."""
    reasons = []
    if tracer in ("auto", "fx"):
        try:
            gm = torch.fx.GraphModule(module, _OpLevelTracer().trace(module), type(module).__name__)
            rec = _Recorder(gm)
            with torch.no_grad():
                rec.run(*inputs)
            return gm, "fx", rec.values
        except Exception as e:  # noqa: BLE001 - any tracing failure falls back to make_fx
            reasons.append(f"torch.fx.symbolic_trace: {type(e).__name__}: {_first_line(str(e))}")
    if tracer in ("auto", "aten"):
        try:
            from torch.fx.experimental.proxy_tensor import make_fx
            # Traced with autograd on: under no_grad, nn.MultiheadAttention and
            # nn.TransformerEncoderLayer take PyTorch's fused CPU fast paths, one aten op
            # whose attention matrices and intermediates never appear (a compiler lowers
            # the attention as its operators). Only the forward is traced either way.
            with torch.enable_grad():
                gm = make_fx(module)(*inputs)
            with torch.no_grad():
                rec = _Recorder(gm)
                rec.run(*inputs)
            return gm, "aten", rec.values
        except Exception as e:  # noqa: BLE001
            reasons.append(f"make_fx: {type(e).__name__}: {_first_line(str(e))}")
    if not reasons:
        raise ValueError(f"unknown tracer '{tracer}' (auto, fx, aten)")
    raise MemplanTraceError(f"cannot trace {type(module).__name__}: " + "; ".join(reasons))


def _first_line(s: str) -> str:
    """First line of a (stripped) message."""
    return s.strip().splitlines()[0] if s.strip() else s


def build_inference_graph(module: torch.nn.Module, example_inputs, tracer: str = "auto") -> TorchGraph:
    """The memplan graph of one inference run (model.eval(), torch.no_grad())."""
    inputs = _as_tuple(example_inputs)
    module.eval()
    gm, used, values = _trace_inference(module, inputs, tracer)
    g = TorchGraph(tracer=used, graph_modules=[gm])
    b = _Builder(g)
    b.add_graph(gm, values, lambda i, n: "input", module_weights=(used == "fx"))
    _mark_outputs(g, b.output_tensors(gm))
    return g


def build_training_graph(module: torch.nn.Module, example_inputs) -> TorchGraph:
    """The memplan graph of one training step: forward, loss = sum of the outputs, backward,
    traced by functorch's AOT autograd (aten level). The forward returns the model outputs
    and then the tensors it saves; the backward takes those saved tensors and then the
    outputs' gradients (tangents), so each saved tensor is one tensor of the joint graph,
    live from its forward producer to its last backward use. The outputs' gradients (ones)
    are made by one 'loss_backward' operator between the two graphs. Parameter gradients
    are graph outputs. (AOT autograd's min-cut rematerializing partition, which saves less,
    needs networkx, which is not a dependency here.)"""
    try:
        from functorch.compile import aot_module, make_boxed_func
    except ImportError as e:
        raise MemplanTraceError(f"training needs functorch's AOT autograd: {e}") from e
    inputs = _as_tuple(example_inputs)
    module.train()
    cap: Dict[str, Any] = {}

    def compiler(which):
        """An AOT autograd compiler that captures the graph module `which` and records its values."""
        def compile_fn(gm, example):
            """Captures the graph module and returns a function that runs it while recording."""
            cap[which] = gm

            def run(*args):
                """Runs the captured graph module, recording every node's value."""
                rec = _Recorder(gm)
                out = rec.run(*args)
                cap[which + "_values"] = rec.values
                return out
            return make_boxed_func(run)
        return compile_fn

    try:
        compiled = aot_module(module, fw_compiler=compiler("fw"), bw_compiler=compiler("bw"))
        out = compiled(*inputs)
        from torch.utils._pytree import tree_flatten
        outs = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
        if not outs:
            raise MemplanTraceError("the model's output does not require grad: nothing to train")
        sum(o.sum() for o in outs).backward()
    except MemplanTraceError:
        raise
    except Exception as e:  # noqa: BLE001
        raise MemplanTraceError(f"cannot trace {type(module).__name__} for training with AOT autograd: "
                                f"{type(e).__name__}: {_first_line(str(e))}") from e
    if "bw" not in cap or "bw_values" not in cap:
        raise MemplanTraceError("AOT autograd produced no backward graph")
    fw, bw = cap["fw"], cap["bw"]
    n_weights = len(list(module.parameters())) + len(list(module.buffers()))
    g = TorchGraph(tracer="aot", graph_modules=[fw, bw])
    fb = _Builder(g, prefix="fw.")
    fb.add_graph(fw, cap["fw_values"], lambda i, n: "weight" if i < n_weights else "input")
    fw_out = fb.output_tensors(fw)
    bw_ph = [n for n in bw.graph.nodes if n.op == "placeholder"]
    saved = [n for n in bw_ph if not n.name.startswith("tangents")]
    n_user = len(fw_out) - len(saved)
    if n_user < 0 or any(n.name.startswith("tangents") for n in bw_ph[:len(saved)]):
        raise MemplanTraceError("unexpected AOT autograd graphs: the backward's placeholders are not "
                                "the forward's saved tensors followed by the tangents")
    alias = {}
    for n, idx in zip(saved, fw_out[n_user:]):
        if idx is not None:
            alias[n.name] = idx
    # The tangents: made from the outputs once the forward is done, not graph inputs.
    tangents = []
    for n in bw_ph[len(saved):]:
        v = cap["bw_values"].get(n.name)
        if isinstance(v, torch.Tensor):
            alias[n.name] = [g.add_tensor("bw." + n.name, _nbytes(v), "activation")]
            tangents.extend(alias[n.name])
    if tangents:
        user = [t for idx in fw_out[:n_user] for t in (idx or [])]
        g.ops.append(("loss_backward", "loss_backward", user, tangents, [], [], 0))
    bb = _Builder(g, prefix="bw.")
    bb.add_graph(bw, cap["bw_values"], lambda i, n: "input", alias=alias)
    _mark_outputs(g, fw_out[:n_user])
    _mark_outputs(g, bb.output_tensors(bw))
    return g


# ---------------------------------------------------------------------------------------
# Planning


@dataclass
class TorchPlan:
    """A plan for one model: offsets by node name (views and in-place results: their base
    buffer's offset; training: 'fw.'/'bw.' + node name), the summary, and what it came from."""
    offsets: Dict[str, int]
    summary: Dict[str, Any]
    status: str
    problem: Any                    # memplan.Problem (the lowered graph)
    result: Any                     # memplan.Result
    graph: TorchGraph
    buffer_of_tensor: List[int]
    tensor_of_buffer: List[int]
    order: List[str] = field(default_factory=list)  # the execution order planned (operator names)
    order_indices: List[int] = field(default_factory=list)  # the same, as operator indices
    lowering: Dict[str, Any] = field(default_factory=dict)  # include_weights, inplace, alignment

    @property
    def graph_modules(self):
        """The traced fx graph modules (inference: [gm]; training: [forward, backward])."""
        return self.graph.graph_modules

    def __getitem__(self, key):  # dict-like access: plan['offsets'], plan['summary'], ...
        """Dict-like access: plan["offsets"], plan["summary"], ..."""
        return getattr(self, key)


def _live_at_load(problem) -> Tuple[int, int, List[str]]:
    """(LOAD, the instant, names of the buffers live then, largest first)."""
    events = []
    for b in problem.buffers:
        events.append((b.start, b.size))
        events.append((b.end, -b.size))
    events.sort(key=lambda e: (e[0], e[1]))  # ends before starts at one instant
    cur = best = 0
    at = 0
    for t, d in events:
        cur += d
        if cur > best:
            best, at = cur, t
    live = sorted((b for b in problem.buffers if b.start <= at < b.end), key=lambda b: -b.size)
    return best, at, [b.id for b in live]


def lower(graph: TorchGraph, include_weights: bool = False, inplace: bool = True, alignment: int = 1,
          order: Sequence[int] = (), uses: bool = False):
    """Lowers a TorchGraph to a Problem (memplan._lower_graph) under `order` (operator
    indices; empty = graph order); returns its dict (problem, buffer_of_tensor, ...). uses:
    each buffer's uses are the steps producing or reading it (for swapping)."""
    return _mp._lower_graph(graph.tensors, graph.ops, list(order), include_weights, inplace, alignment, uses)


SCHEDULES = ("graph", "memory", "exact")


def _peak_key(r, sched_load):
    """Plans compare by peak (no plan is worst), then by LOAD."""
    return (0 if r.found else 1, r.peak if r.found else 0, sched_load)


def plan_graph(graph: TorchGraph, algo: str = "auto", time_limit: float = 10, include_weights: bool = False,
               inplace: bool = True, alignment: int = 1, threads: int = 1, seed: int = 1,
               capacity: Optional[int] = None, schedule: str = "memory") -> TorchPlan:
    """Plans the graph's buffers on an execution order: `schedule` graph (the traced order),
    memory (heuristics + local search) or exact (dynamic program where it finishes; else
    memory, and says so). The chosen order and the graph order are both planned and the one
    whose plan has the lower peak is kept (equal peaks: lower LOAD, then the graph order), so
    no mode is worse than graph. The summary's 'schedule' says what was chosen and kept."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, not {schedule!r}")
    # One time limit: a fifth for choosing the order, the rest shared by the plans.
    limited = time_limit is not None and 0 < time_limit < float("inf")
    t0 = time.perf_counter()
    graph_order = list(_mp._graph_order(graph.tensors, graph.ops))
    sched = _mp._schedule_graph(graph.tensors, graph.ops, schedule, 0.2 * time_limit if limited else 0, seed,
                                include_weights, inplace, alignment)
    schedule_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    candidates = []  # (key, order, lowered, result); graph order first (kept on ties)
    orders = [(graph_order, sched["graph_order_load"])]
    if list(sched["order"]) != graph_order:
        orders.append((list(sched["order"]), sched["load"]))
    for k, (order, order_load) in enumerate(orders):
        lowered = lower(graph, include_weights, inplace, alignment, order)
        left = time_limit - schedule_seconds - (time.perf_counter() - t0) if limited else time_limit
        limit = max(0.01, left / (len(orders) - k)) if limited else time_limit
        r = _mp.solve(lowered["problem"], algo=algo, capacity=capacity, time_limit=limit, seed=seed,
                      threads=threads)
        candidates.append((_peak_key(r, order_load), order, lowered, r))
    graph_r = candidates[0][3]
    sched_r = candidates[-1][3]
    best = min(range(len(candidates)), key=lambda k: candidates[k][0])
    _, order, lowered, r = candidates[best]
    kept = "graph" if best == 0 else sched["method"]
    problem = lowered["problem"]
    seconds = time.perf_counter() - t0
    offsets: Dict[str, int] = {}
    if r.found:
        ok, errors = _mp.validate(problem, r.offsets, capacity)
        if not ok:  # a solver bug: never hand out an invalid plan
            raise RuntimeError("memplan produced an invalid plan: " + "; ".join(errors[:3]))
        for t, b in enumerate(lowered["buffer_of_tensor"]):
            if b >= 0:
                offsets[graph.tensors[t][0]] = r.offsets[b]
        for name, t in graph.tensor_of_name.items():  # backward aliases of saved tensors
            b = lowered["buffer_of_tensor"][t]
            if b >= 0:
                offsets.setdefault(name, r.offsets[b])
    load, at, live = _live_at_load(problem)
    summary = {
        "tracer": graph.tracer,
        "tensors": len(graph.tensors),
        "operators": len(graph.ops),
        "buffers": len(problem),
        "naive": sum(b.size for b in problem.buffers),
        "load": load,
        "peak": r.peak,
        "lower_bound": r.lower_bound,
        "weight_bytes": lowered["weight_bytes"],
        "live_at_load": live,
        "load_instant": at,
        "status": r.status,
        "solve_seconds": seconds,
        "schedule": {
            "method": sched["method"],
            "kept": kept,
            "order_load": sched["load"],
            "graph_order_load": sched["graph_order_load"],
            "kept_order_load": sched["graph_order_load"] if kept == "graph" else sched["load"],
            "proven_optimal": sched["proven_optimal"],
            "lower_bound": sched["lower_bound"],
            "heuristics": dict(sched["heuristics"]),
            "fell_back": sched["fell_back"],
            "fell_back_reason": sched["fell_back_reason"],
            "schedule_peak": sched_r.peak if sched_r.found else None,
            "graph_peak": graph_r.peak if graph_r.found else None,
            "seconds": schedule_seconds,
        },
    }
    names = [graph.ops[o][0] for o in order]
    return TorchPlan(offsets, summary, r.status, problem, r, graph,
                     lowered["buffer_of_tensor"], lowered["tensor_of_buffer"], names, list(order),
                     {"include_weights": include_weights, "inplace": inplace, "alignment": alignment})


def swap_plan(plan: TorchPlan, capacity: int, algo: str = "auto", time_limit: float = 10,
              bandwidth: int = 0, channels: int = 1, allow_stall: bool = False, threads: int = 1,
              seed: int = 1):
    """Fits `capacity` by swapping tensors out between the steps that read them (a training
    step's saved activations between their forward and backward uses), in the order `plan`
    was planned: memplan.plan_swaps on its buffers with those steps as uses, every buffer
    with two or more of them evictable (in-place chains keep their place). Returns a
    memplan.SwapPlan (offsets per buffer of plan.problem, evictions and transfers by buffer
    id, or why not); checked independently before it is returned. A tensor reused in place
    may be away only while no other tensor of its in-place chain is live."""
    lowered = lower(plan.graph, order=plan.order_indices, uses=True, **plan.lowering)
    buffers = lowered["problem"].buffers
    for b in buffers:
        b.evictable = len(b.uses) >= 2
    return _mp.plan_swaps(_mp.Problem(buffers), capacity, algo=algo, time_limit=time_limit,
                          bandwidth=bandwidth, channels=channels, allow_stall=allow_stall,
                          threads=threads, seed=seed)


def build_graph(module, example_inputs, training: bool = False, tracer: str = "auto") -> TorchGraph:
    """Traces a module into a TorchGraph: inference (tracer "auto", "fx" or "aten" = make_fx)
    or training (AOT autograd, forward + backward)."""
    if training:
        if tracer not in ("auto", "aot"):
            raise ValueError(f"training traces with AOT autograd only (tracer='{tracer}')")
        return build_training_graph(module, example_inputs)
    return build_inference_graph(module, example_inputs, tracer)


def plan(module: torch.nn.Module, example_inputs, training: bool = False, algo: str = "auto",
         time_limit: float = 10, include_weights: bool = False, inplace: bool = True,
         alignment: int = 1, threads: int = 1, seed: int = 1, capacity: Optional[int] = None,
         tracer: str = "auto", schedule: str = "memory") -> TorchPlan:
    """Traces `module` on `example_inputs` (a tensor or a tuple of them) and plans its
    activations. training=False: model.eval() under torch.no_grad(); training=True: one
    forward + backward step (loss = sum of the outputs) through AOT autograd. Raises
    MemplanTraceError when the model cannot be traced. The result's summary has buffers,
    naive (sum of the buffer sizes), load (LOAD of the order planned), peak, weight_bytes,
    live_at_load (the largest live set, largest buffers first) and schedule (plan_graph: the
    order `schedule` chose, both LOADs, each heuristic's, which order was kept); the plan's
    order is the execution order (operator names) the plan assumes."""
    t0 = time.perf_counter()
    g = build_graph(module, example_inputs, training, tracer)
    trace_seconds = time.perf_counter() - t0
    p = plan_graph(g, algo, time_limit, include_weights, inplace, alignment, threads, seed, capacity, schedule)
    p.summary["trace_seconds"] = trace_seconds
    return p


def export_csv(module: torch.nn.Module, example_inputs, path: str, training: bool = False,
               include_weights: bool = False, inplace: bool = True, alignment: int = 1,
               tracer: str = "auto") -> int:
    """Writes the model's buffers as a MiniMalloc CSV (id,lower,upper,size; half-open
    lifetimes; plus alignment and inplace columns when used) with fx node names as ids.
    Returns the number of buffers. Nothing is written when tracing fails."""
    g = build_graph(module, example_inputs, training, tracer)
    lowered = lower(g, include_weights, inplace, alignment)
    bufs = lowered["problem"].buffers
    lines = ["id,lower,upper,size" + (",alignment" if alignment > 1 else "")]
    inplace_col = lowered.get("inplace_of") or [""] * len(bufs)
    if any(inplace_col):
        lines[0] += ",inplace"
    for i, b in enumerate(bufs):
        row = f"{b.id},{b.start},{b.end},{b.size}"
        if alignment > 1:
            row += f",{b.alignment}"
        if any(inplace_col):
            row += f",{inplace_col[i]}"
        lines.append(row)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(bufs)

