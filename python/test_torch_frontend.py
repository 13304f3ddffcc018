"""Tests of the PyTorch front end (memplan.torch) on torchvision models, random init.

Sizes are checked against execution, independently of the front end's own recording:
- inference: the model runs eagerly with a forward hook on every submodule (the bytes of
  each module call's output), and the traced GraphModule runs under this file's own
  fx Interpreter (the bytes of every node's result); the two must agree on every module
  call and on the model output, and every buffer memplan planned must have the executed
  byte size of its node;
- training: the forward and backward graphs run under this file's Interpreter on the
  model's parameters, buffers and input (forward) and on the saved tensors and ones as
  the output gradient (backward); the model output and every parameter gradient must have
  the sizes eager autograd gives, and every planned buffer the executed size of its node.
Skipped (exit code 77, reason printed) only when torch or torchvision cannot be imported.
"""
import os
import sys
import tempfile
import time
import unittest

try:
    import torch
    import torchvision
except ImportError as e:  # the only reason to skip
    print(f"SKIPPED: torch/torchvision not importable by {sys.executable}: {e}")
    sys.exit(77)

import memplan
import memplan.torch as mt

torch.manual_seed(0)

# (name, constructor, input size). ViT-B/16 is built for 32x32 images (same layers and
# parameters but a 2x2 patch grid plus the class token) to keep the test fast.
MODELS = [
    ("resnet18", lambda: torchvision.models.resnet18(weights=None), 64),
    ("resnet50", lambda: torchvision.models.resnet50(weights=None), 64),
    ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(weights=None), 64),
    ("mobilenet_v3_small", lambda: torchvision.models.mobilenet_v3_small(weights=None), 64),
    ("efficientnet_b0", lambda: torchvision.models.efficientnet_b0(weights=None), 64),
    ("vit_b_16", lambda: torchvision.models.vit_b_16(weights=None, image_size=32), 32),
    ("convnext_tiny", lambda: torchvision.models.convnext_tiny(weights=None), 64),
    ("deeplabv3_mobilenet_v3_large", lambda: torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None), 64),
]


def nbytes(t):
    return t.numel() * t.element_size()


def tensors_of(value):
    """Tensor leaves of a (possibly nested) result, in order."""
    from torch.utils._pytree import tree_flatten
    return [v for v in tree_flatten(value)[0] if isinstance(v, torch.Tensor)]


class SizeRecorder(torch.fx.Interpreter):
    """This test's own execution of a graph: node name -> [bytes of each tensor it returned]
    (tuple results: one entry per element, as the front end names them name.i)."""

    def __init__(self, gm):
        super().__init__(gm)
        self.sizes = {}

    def run_node(self, n):
        out = super().run_node(n)
        if n.op == "output":
            return out
        if isinstance(out, torch.Tensor):
            self.sizes[n.name] = nbytes(out)
        elif isinstance(out, (tuple, list)):
            for i, v in enumerate(out):
                if isinstance(v, torch.Tensor):
                    self.sizes[f"{n.name}.{i}"] = nbytes(v)
        return out


def eager_module_sizes(model, x):
    """Runs the model eagerly with a hook on every submodule: qualified name -> [output
    bytes per call], and the model output's tensor sizes."""
    calls = {}
    hooks = []
    for name, mod in model.named_modules():
        if name:
            hooks.append(mod.register_forward_hook(
                lambda m, i, o, name=name: calls.setdefault(name, []).append([nbytes(t) for t in tensors_of(o)])))
    try:
        with torch.no_grad():
            out = model(x)
    finally:
        for h in hooks:
            h.remove()
    return calls, [nbytes(t) for t in tensors_of(out)]


def planned_sizes(plan):
    """Planned buffer id -> size, for buffers made for a tensor (not scratch)."""
    return {b.id: b.size for b in plan.problem.buffers}


def compare(testcase, plan, executed, prefix=""):
    """Every planned buffer has its executed size; every executed node result is planned
    (own buffer or a view of one). Returns the number of buffers checked."""
    planned = planned_sizes(plan)
    mismatches = []
    checked = 0
    for bid, size in planned.items():
        if not bid.startswith(prefix):
            continue
        key = bid[len(prefix):]
        if key not in executed:
            continue
        checked += 1
        if executed[key] != size:
            mismatches.append(f"{bid}: planned {size}, executed {executed[key]}")
    testcase.assertEqual(mismatches, [], f"{len(mismatches)} size mismatches")
    return checked


def check_covered(testcase, plan, executed, prefix=""):
    """Every executed result is a tensor of the planned graph, and has an offset unless it
    is not planned (weights, and views of weights)."""
    missing = []
    for key in executed:
        t = plan.graph.tensor_of_name.get(prefix + key)
        if t is None or (plan.buffer_of_tensor[t] >= 0 and prefix + key not in plan.offsets):
            missing.append(prefix + key)
    testcase.assertEqual(missing, [], "executed results missing from the plan")


class InferenceSizesTest(unittest.TestCase):
    def check_model(self, name, ctor, size):
        model = ctor()
        x = torch.randn(1, 3, size, size)
        plan = mt.plan(model, (x,), algo="greedy", time_limit=5)
        self.assertTrue(plan.result.found)
        ok, errors = memplan.validate(plan.problem, plan.result.offsets)
        self.assertTrue(ok, errors)
        gm = plan.graph_modules[0]

        # This test's own execution of the traced graph.
        rec = SizeRecorder(gm)
        with torch.no_grad():
            gm_out = rec.run(x)
        calls, eager_out = eager_module_sizes(model, x)
        self.assertEqual([nbytes(t) for t in tensors_of(gm_out)], eager_out, f"{name}: output sizes")

        # Module-level graphs: every call_module node agrees with the eager hook's record.
        seen = {}
        module_nodes = 0
        for n in gm.graph.nodes:
            if n.op != "call_module":
                continue
            k = seen.get(n.target, 0)
            seen[n.target] = k + 1
            eager = calls[n.target][k]
            traced = [rec.sizes[n.name]] if n.name in rec.sizes else \
                [v for key, v in sorted(rec.sizes.items()) if key.startswith(n.name + ".")]
            self.assertEqual(traced, eager, f"{name}: module {n.target} (node {n.name})")
            module_nodes += 1
        if plan.summary["tracer"] == "fx":
            self.assertGreater(module_nodes, 10)

        checked = compare(self, plan, rec.sizes)
        # Every planned activation/output buffer was checked against execution (inputs too).
        self.assertEqual(checked, len(plan.problem), f"{name}: unchecked buffers")
        check_covered(self, plan, rec.sizes)
        return plan, checked

    def test_models(self):
        total = 0
        for name, ctor, size in MODELS:
            with self.subTest(model=name):
                t0 = time.perf_counter()
                plan, checked = self.check_model(name, ctor, size)
                total += checked
                print(f"inference {name}: {checked} buffers sized as executed, tracer "
                      f"{plan.summary['tracer']}, {time.perf_counter() - t0:.1f} s", flush=True)
        self.assertGreater(total, 500)

    def test_vit_needs_make_fx(self):
        # symbolic_trace fails on torchvision's ViT; the aten-level tracer takes over, and its
        # views (permute, _reshape_alias, ...) get no buffer of their own.
        model = torchvision.models.vit_b_16(weights=None, image_size=32)
        with self.assertRaises(Exception):
            torch.fx.symbolic_trace(model)
        plan = mt.plan(model, (torch.randn(1, 3, 32, 32),), algo="greedy")
        self.assertEqual(plan.summary["tracer"], "aten")
        ids = {b.id for b in plan.problem.buffers}
        permutes = [op for op in plan.graph.ops if "permute" in op[1]]
        self.assertGreater(len(permutes), 0)
        for op in permutes:
            self.assertEqual(op[4], [0], op[0])
            self.assertNotIn(op[0], ids)
            self.assertIn(op[0], plan.offsets)


    def test_transformer_layers_are_traced_to_their_operators(self):
        # fx kept every torch.nn module whole, so nn.TransformerEncoder was one node (a
        # 2-layer encoder planned as 3 buffers), and under no_grad the aten tracer met
        # PyTorch's fused fast path (one op per layer). Now the attention scores (batch x
        # heads x seq x seq floats) and the feed-forward activations are buffers, sized as
        # executed.
        torch.manual_seed(0)
        batch, seq, d, heads, ff = 2, 8, 64, 4, 128
        model = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(d, heads, ff, batch_first=True), 2)
        x = torch.randn(batch, seq, d)
        plan = mt.plan(model, (x,), algo="greedy", time_limit=5)
        self.assertTrue(plan.result.found)
        self.assertEqual(plan.summary["tracer"], "aten")
        sizes = [b.size for b in plan.problem.buffers]
        self.assertGreaterEqual(sizes.count(batch * heads * seq * seq * 4), 2, sizes)  # scores, per layer
        self.assertGreaterEqual(sizes.count(batch * seq * ff * 4), 2, sizes)            # feed-forward
        rec = SizeRecorder(plan.graph_modules[0])
        with torch.no_grad():
            out = rec.run(x)
            self.assertTrue(torch.allclose(out, model(x), atol=1e-5))
        self.assertEqual(compare(self, plan, rec.sizes), len(plan.problem))
        ok, errors = memplan.validate(plan.problem, plan.result.offsets)
        self.assertTrue(ok, errors)


class TrainingSizesTest(unittest.TestCase):
    def check_model(self, name, ctor, size):
        model = ctor()
        x = torch.randn(2, 3, size, size)
        plan = mt.plan(model, (x,), training=True, algo="greedy", time_limit=5)
        self.assertTrue(plan.result.found)
        ok, errors = memplan.validate(plan.problem, plan.result.offsets)
        self.assertTrue(ok, errors)
        fw, bw = plan.graph_modules

        # This test's own run of the two graphs: the forward on parameters, buffers, input;
        # the backward on the forward's saved tensors and ones as the output gradient.
        model.train()
        params = list(model.parameters())
        primals = params + list(model.buffers()) + [x]
        frec = SizeRecorder(fw)
        with torch.no_grad():
            fouts = frec.run(*primals)
        bph = [n for n in bw.graph.nodes if n.op == "placeholder"]
        n_tangents = sum(1 for n in bph if n.name.startswith("tangents"))
        n_saved = len(bph) - n_tangents
        user = fouts[:len(fouts) - n_saved]
        saved = fouts[len(fouts) - n_saved:]
        brec = SizeRecorder(bw)
        with torch.no_grad():
            grads = brec.run(*saved, *[torch.ones_like(t) for t in user])

        # Eager autograd: output and parameter gradient sizes.
        model.zero_grad()
        out = model(x)
        eager_out = tensors_of(out)
        sum(t.sum() for t in eager_out).backward()
        self.assertEqual([nbytes(t) for t in user], [nbytes(t) for t in eager_out], f"{name}: outputs")
        for i, p in enumerate(params):
            self.assertIsNotNone(grads[i], f"{name}: no gradient for parameter {i}")
            self.assertEqual(nbytes(grads[i]), nbytes(p.grad), f"{name}: gradient {i}")

        checked = compare(self, plan, frec.sizes, "fw.") + compare(self, plan, brec.sizes, "bw.")
        self.assertEqual(checked, len(plan.problem), f"{name}: unchecked buffers")
        check_covered(self, plan, frec.sizes, "fw.")
        check_covered(self, plan, brec.sizes, "bw.")
        return plan, checked

    def test_models(self):
        total = 0
        for name, ctor, size in MODELS:
            with self.subTest(model=name):
                t0 = time.perf_counter()
                plan, checked = self.check_model(name, ctor, size)
                total += checked
                inf = mt.plan(ctor(), (torch.randn(2, 3, size, size),), algo="greedy")
                self.assertGreater(plan.summary["load"], inf.summary["load"])
                self.assertGreater(plan.summary["peak"], inf.summary["peak"])
                print(f"training {name}: {checked} buffers sized as executed, LOAD "
                      f"{plan.summary['load']} > inference {inf.summary['load']}, "
                      f"{time.perf_counter() - t0:.1f} s", flush=True)
        self.assertGreater(total, 2000)


class Small(torch.nn.Module):
    """conv -> ReLU(inplace) -> flatten (a view) -> relu_ (in place) -> linear."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.relu = torch.nn.ReLU(inplace=True)
        self.fc = torch.nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        y = self.relu(self.conv(x))
        z = torch.relu_(y.flatten(1))
        return self.fc(z)


class AliasingTest(unittest.TestCase):
    def setUp(self):
        self.x = torch.randn(2, 3, 8, 8)

    def test_views_and_inplace_get_no_buffer_fx(self):
        p = mt.plan(Small(), (self.x,))
        self.assertEqual(p.summary["tracer"], "fx")
        # Buffers: the input, conv, fc. relu, flatten, relu_ are conv's bytes.
        self.assertEqual(sorted(b.id for b in p.problem.buffers), ["conv", "fc", "x"])
        for alias in ("relu", "flatten", "relu_"):
            self.assertEqual(p.offsets[alias], p.offsets["conv"], alias)
        self.assertEqual(planned_sizes(p)["conv"], 2 * 4 * 8 * 8 * 4)
        # conv's buffer lives until fc reads the last alias of it.
        steps = {b.id: (b.start, b.end) for b in p.problem.buffers}
        self.assertEqual(steps["conv"][1], steps["fc"][0] + 1)

    def test_views_and_inplace_get_no_buffer_aten(self):
        p = mt.plan(Small(), (self.x,), tracer="aten")
        self.assertEqual(p.summary["tracer"], "aten")
        ids = sorted(b.id for b in p.problem.buffers)
        self.assertEqual(len(ids), 3, ids)  # input, convolution, addmm
        ops = {op[0]: op[1] for op in p.graph.ops}
        self.assertTrue(any(t.endswith("relu_") or "relu_." in t for t in ops.values()), ops)
        self.assertEqual(p.offsets["relu_"], p.offsets["convolution"])

    def test_copy_gets_a_buffer(self):
        class Copy(torch.nn.Module):
            def forward(self, x):
                return (x.permute(0, 2, 3, 1).reshape(2, -1) * 2).sum(1)
        p = mt.plan(Copy(), (self.x,))
        ids = {b.id for b in p.problem.buffers}
        self.assertNotIn("permute", ids)      # a view
        self.assertIn("reshape", ids)         # a copy (permuted input is not contiguous)

    def test_elementwise_may_overwrite(self):
        class Chain(torch.nn.Module):
            def forward(self, x):
                return torch.sigmoid(torch.exp(x * 3)).sum()
        p = mt.plan(Chain(), (self.x,))
        lowered = mt.lower(p.graph)
        inplace = dict(zip((b.id for b in lowered["problem"].buffers), lowered["inplace_of"]))
        self.assertEqual(inplace["exp"], "mul")
        self.assertEqual(inplace["sigmoid"], "exp")
        self.assertEqual(inplace["mul"], "")  # the graph input is the caller's
        self.assertLessEqual(p.summary["peak"], 2 * nbytes(self.x))

    def test_untraceable_model_is_a_clear_error(self):
        class DataDependent(torch.nn.Module):
            def forward(self, x):
                return x * 2 if x.sum() > 0 else x
        with self.assertRaises(mt.MemplanTraceError) as cm:
            mt.plan(DataDependent(), (self.x,))
        self.assertIn("control flow", str(cm.exception))
        self.assertIn("DataDependent", str(cm.exception))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.csv")
            with self.assertRaises(ValueError):
                mt.export_csv(DataDependent(), (self.x,), path)
            self.assertFalse(os.path.exists(path))

    def test_training_joins_forward_and_backward(self):
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(inplace=True),
                                    torch.nn.Flatten(), torch.nn.Linear(4 * 8 * 8, 10))
        p = mt.plan(model, (self.x,), training=True, schedule="graph")  # steps of the graph order
        self.assertTrue(memplan.validate(p.problem, p.result.offsets)[0])
        names = [op[0] for op in p.graph.ops]
        n_fw = sum(1 for n in names if n.startswith("fw."))
        self.assertEqual(names[n_fw], "loss_backward")  # between the two graphs
        self.assertTrue(all(n.startswith("bw.") for n in names[n_fw + 1:]))
        horizon = len(names)
        bufs = {b.id: b for b in p.problem.buffers}
        # The output's gradient is made at the loss step, not at the start.
        tangents = [b for i, b in bufs.items() if i.startswith("bw.tangents")]
        self.assertEqual([b.start for b in tangents], [n_fw])
        # Saved activations live into the backward; the forward output and every parameter
        # gradient (the backward's outputs) live to the end.
        saved = [b for i, b in bufs.items() if i.startswith("fw.") and b.end > n_fw + 1 and b.end < horizon]
        self.assertGreater(len(saved), 0)
        bw_outputs = p.graph_modules[1].graph.output_node().args[0] if hasattr(
            p.graph_modules[1].graph, "output_node") else \
            [n for n in p.graph_modules[1].graph.nodes if n.op == "output"][0].args[0]
        grads = [n.name for n in bw_outputs if n is not None]
        self.assertEqual(len(grads), 4)  # conv and fc weight and bias (the input needs none)
        for gname in grads:  # getitem of convolution_backward's tuple: a view of its element
            b = p.problem.buffers[p.buffer_of_tensor[p.graph.tensor_of_name["bw." + gname]]]
            self.assertEqual(b.end, horizon, gname)

    def test_training_swaps_saved_activations_below_the_peak(self):
        # A training step keeps the forward's activations until the backward reads them:
        # between those reads they may be copied out. Below the planned peak, swap_plan
        # fits by evicting some; every eviction lies between two reads of its buffer.
        model = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(64, 64), torch.nn.Tanh())])
        # Activations >> weights; each Tanh overwrites its Linear's output in place (the chain
        # may go away while only one of its members is live).
        p = mt.plan(model, (torch.randn(512, 64),), training=True, algo="greedy", time_limit=5)
        self.assertTrue(p.result.found)
        cap = p.result.peak * 3 // 4
        self.assertIsNone(memplan.solve(p.problem, algo="greedy", capacity=cap).peak)  # no plan without swaps
        s = mt.swap_plan(p, cap, algo="greedy", time_limit=5)
        self.assertTrue(s.found, s.explain)
        self.assertLessEqual(s.peak, cap)
        self.assertGreater(len(s.evictions), 0)
        lowered = mt.lower(p.graph, order=p.order_indices, uses=True)
        uses = {b.id: b.uses for b in lowered["problem"].buffers}
        for who, lo, hi in s.evictions:
            self.assertFalse(any(lo <= u < hi for u in uses[who]), (who, lo, hi, uses[who]))
        self.assertEqual(s.offsets is not None and len(s.offsets), len(p.problem))

    def test_export_csv_round_trips(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "small.csv")
            n = mt.export_csv(Small(), (self.x,), path)
            with open(path) as f:
                self.assertEqual(f.readline().strip().split(",")[:4], ["id", "lower", "upper", "size"])
            p = memplan.read_csv(path)
            self.assertEqual(len(p), n)
            q = mt.plan(Small(), (self.x,), schedule="graph")  # export_csv writes the graph order
            self.assertEqual([(b.id, b.start, b.end, b.size) for b in p.buffers],
                             [(b.id, b.start, b.end, b.size) for b in q.problem.buffers])


class TwoBranches(torch.nn.Module):
    """Both branches grow x fourfold before either shrinks it back: in this (graph) order
    x + both grown tensors are live, 9 units of x; one branch after the other needs 6."""

    def forward(self, x):
        a = x.repeat(4, 1, 1, 1)
        b = x.repeat(4, 1, 1, 1)
        ra = a.mean(0, keepdim=True)
        rb = b.mean(0, keepdim=True)
        return ra + rb


def check_order(test, graph, order_names):
    """The order is a permutation of the graph's operators in which each operator comes after
    the producers of all its inputs (from the graph's plain lists, not memplan's checks).
    Returns operator name -> position."""
    pos = {name: k for k, name in enumerate(order_names)}
    test.assertEqual(len(pos), len(graph.ops))
    test.assertEqual(set(pos), {op[0] for op in graph.ops})
    producer = {}
    for op in graph.ops:
        for t in op[3]:
            producer[t] = op[0]
    for op in graph.ops:
        for t in op[2]:
            if t in producer:
                test.assertLess(pos[producer[t]], pos[op[0]], f"{op[0]} before the producer of tensor {t}")
    return pos


class ScheduleTest(unittest.TestCase):
    def test_memory_order_beats_graph_order(self):
        x = torch.randn(1, 3, 8, 8)
        unit = nbytes(x)
        plans = {m: mt.plan(TwoBranches(), (x,), schedule=m) for m in ("graph", "memory", "exact")}
        for m, p in plans.items():
            sc = p.summary["schedule"]
            self.assertEqual(sc["method"], m)
            self.assertEqual(sc["graph_order_load"], 9 * unit)
            self.assertEqual(sc["order_load"], 9 * unit if m == "graph" else 6 * unit)
            pos = check_order(self, p.graph, p.order)
            ok, errors = memplan.validate(p.problem, p.result.offsets)
            self.assertTrue(ok, errors)
            # The plan's lifetimes are those of p.order: each buffer starts at its producer.
            for b in p.problem.buffers:
                if b.id in pos:
                    self.assertEqual(b.start, pos[b.id], b.id)
        self.assertEqual(plans["exact"].summary["schedule"]["proven_optimal"], True)
        self.assertLess(plans["memory"].summary["peak"], plans["graph"].summary["peak"])
        self.assertLessEqual(plans["exact"].summary["peak"], plans["memory"].summary["peak"])
        self.assertEqual(plans["memory"].summary["schedule"]["kept"], "memory")
        with self.assertRaises(ValueError):
            mt.plan(TwoBranches(), (x,), schedule="fastest")

    def test_training_order_keeps_backward_after_saved_activations(self):
        """Training: the scheduled order of the joint forward+backward graph is topological
        (a backward operator comes after the forward operators whose saved tensors it reads,
        the loss step after the outputs), the plan validates, and it is never worse than the
        graph order's."""
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.Flatten(), torch.nn.Linear(8 * 8 * 8, 10))
        x = torch.randn(2, 3, 8, 8)
        graph = mt.plan(model, (x,), training=True, schedule="graph")
        for mode in ("memory", "exact"):
            p = mt.plan(model, (x,), training=True, schedule=mode)
            pos = check_order(self, p.graph, p.order)
            # Saved activations: forward tensors read by a backward operator.
            fw_made = {t: op[0] for op in p.graph.ops if op[0].startswith("fw.") for t in op[3]}
            saved_reads = [(fw_made[t], op[0]) for op in p.graph.ops if op[0].startswith("bw.")
                           for t in op[2] if t in fw_made]
            self.assertGreater(len(saved_reads), 0)
            for fw_op, bw_op in saved_reads:
                self.assertLess(pos[fw_op], pos[bw_op])
            ok, errors = memplan.validate(p.problem, p.result.offsets)
            self.assertTrue(ok, errors)
            sc = p.summary["schedule"]
            self.assertLessEqual(sc["order_load"], sc["graph_order_load"])
            self.assertLessEqual(p.summary["peak"], graph.summary["peak"])
            self.assertEqual(sc["graph_peak"], graph.summary["peak"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
