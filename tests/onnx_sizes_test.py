"""memplan's ONNX sizes against executed shapes, on real models (ctest; python3-torch).

    onnx_sizes_test.py executor MEMPLAN_CLI CACHE_DIR   # the reference executor is right
    onnx_sizes_test.py sizes    MEMPLAN_CLI CACHE_DIR   # memplan onnx's sizes are right

`executor`: the reference executor (onnx_reference_exec.py, torch ops, no ONNX shape
inference) reproduces torch's eager outputs of the torchvision exports, hand-computed
outputs of the small If / computed-shape models, and the expected outputs stored in
libonnx-testdata's test_data_set_0 (every model whose ops and types it supports).

`sizes`: for every model, `memplan onnx MODEL [--input NAME=AxB...] -o x.csv` is compared
with the executed tensors (main graph; weights = initializers and Constant outputs):
  - a CSV row must have exactly the executed bytes of its tensor (a mismatch fails);
  - an executed activation without a row must be a view (Reshape, Flatten, Squeeze,
    Unsqueeze, Identity, Dropout, a Transpose that moves only size-1 dims: it aliases its
    base) or statically known (computed from shapes and constants only, e.g. Shape ->
    Gather -> Concat: a folder may drop it);
    any other missing tensor fails;
  - tensors inside If branches are not rows (the If's scratch buffer holds them); rows
    that name no executed tensor are allowed only up to one per If node (that scratch);
  - weights must not be rows; a tensor of 0 bytes needs no row;
  - a real model (torchvision, small, npm) must have no "unknown size" warning; a testdata
    model may leave out tensors the CLI warned about by name (shapes that depend on input
    values, e.g. Range(0, n)): counted and printed.
Zero failures on every model, and at least 8 models with rows compared.

MEMPLAN_ONNX_CLI in the environment overrides the CLI (e.g. another branch's build).
Exit 77 (ctest: skipped) when python3-torch or python3-onnx is not installed.
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

try:
    import onnx
    import torch
    import torchvision  # noqa: F401
except ImportError as e:
    print(f"SKIPPED: {e.name} is not installed (python3-torch, python3-torchvision, "
          "python3-onnx: scripts/setup.sh installs them)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_models as om  # noqa: E402
import onnx_reference_exec as rx  # noqa: E402

torch.set_num_threads(1)


def all_cases(cache):
    """(cases, skipped): torchvision, small, the npm models and the testdata models the
    executor can run."""
    cases = om.torchvision_cases(os.path.join(cache, "torchvision"))
    cases += om.small_cases(os.path.join(cache, "small"))
    skipped = []
    fetched = os.environ.get("MEMPLAN_NPM_MODELS", os.path.join(cache, "..", "npm_models"))
    for case in om.npm_cases(fetched):
        try:
            rx.run(onnx.load(case.path), case.inputs)
        except Exception as e:  # ops the executor lacks: listed, as testdata models are
            why = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
            print(f"npm model not executed: {case.name}: {why}")
            skipped.append((case.path, why))
            continue
        cases.append(case)
    for folder in om.testdata_folders():
        try:
            case = om.testdata_case(folder)
            rx.run(onnx.load(case.path), case.inputs)
        except Exception as e:  # ops, types or data the executor cannot take: listed
            skipped.append((folder, str(e).splitlines()[0][:120] if str(e) else type(e).__name__))
            continue
        cases.append(case)
    return cases, skipped


def small_expected(case):
    """Outputs of the small models, computed directly in torch (not by the executor)."""
    x = case.inputs["x"]
    if case.name == "einsum_forms":
        return om.einsum_expected(x)
    if case.name == "one_hot":
        return om.one_hot_expected(x)
    if case.name == "later_ops":
        return om.later_ops_expected(case.inputs)
    if case.name == "sequences":
        return om.sequences_expected(x)
    if case.name.startswith("if_branches"):
        if x.exp().sum() > 60:
            y = torch.cat([torch.relu(x) * x, torch.relu(x)], 1)
        else:
            e = torch.sigmoid(x) + x
            y = torch.cat([torch.tanh(e), e], 1)
        return [torch.relu(y)]
    m = onnx.load(case.path)
    w = rx.to_torch(onnx.numpy_helper.to_array(m.graph.initializer[0]))
    h, wd = x.shape[2], x.shape[3]
    xp = torch.nn.functional.pad(x, (1, wd // 4, 1, h // 4))
    c = torch.nn.functional.conv2d(xp, w)
    sm = torch.softmax(c.reshape(1, c.shape[1], -1).transpose(1, 2), -1)
    ex = sm.mean(1, keepdim=True).expand(1, 2 * c.shape[1], 8)
    return [sm, ex]


def close(got, want):
    if tuple(got.shape) != tuple(want.shape) or got.dtype != want.dtype:
        return f"shape/dtype {tuple(got.shape)} {got.dtype} != {tuple(want.shape)} {want.dtype}"
    if got.dtype == torch.bool or not got.dtype.is_floating_point:
        ok = torch.equal(got, want)
    else:
        ok = torch.allclose(got.double(), want.double(), rtol=1e-3, atol=1e-4, equal_nan=True)
    return "" if ok else f"values differ (max |d| {(got.double() - want.double()).abs().max()})"


def check_contract(case, model, record):
    """compare() itself: rows made from the executed tensors pass; each way of breaking the
    contract (a wrong size, a weight row, a missing activation, a stray row) fails."""
    weights, static = rx.weight_names(model), statically_known(model)
    rows = {n: ex.bytes for n, ex in record.items() if n not in weights and not ex.scope
            and ex.op != "Constant"
            and ex.op not in rx.VIEW_OPS and n not in static}
    body = sum(ex.bytes for ex in record.values() if ex.scope and ex.op != "Constant")
    if body:
        rows["(scratch of the If)"] = body
    problems = []
    if compare(model, record, rows)[1]:
        problems.append(f"exact rows rejected: {compare(model, record, rows)[1][0]}")
    victim = next(n for n in rows if n in record)
    broken = [dict(rows, **{victim: rows[victim] + 4}),
              {n: v for n, v in rows.items() if n != victim},
              dict(rows, **{"not a tensor": 4, "nor this": 4})]
    if weights:
        broken.append(dict(rows, **{sorted(weights)[0]: 4}))
    if body:
        broken.append({n: v for n, v in rows.items() if n != "(scratch of the If)"})
    for i, bad in enumerate(broken):
        if not compare(model, record, bad)[1]:
            problems.append(f"broken rows #{i} accepted")
    return problems


def check_executor(cases, skipped):
    failures = 0
    counts = {}
    for case in cases:
        model = onnx.load(case.path)
        values, record = rx.run(model, case.inputs)
        if case.name.startswith("if_branches"):  # the branch the input selects was run
            taken = "t_relu" if case.name.endswith("[then]") else "e_sig"
            if record.get(taken, rx.Executed((), None, 0, "", "", "")).scope != "branch":
                print(f"FAIL executor {case.name}: branch tensor {taken!r} not executed")
                failures += 1
        want = small_expected(case) if case.kind == "small" else case.expected
        outs = [values[o.name] for o in model.graph.output]
        problems = [close(g, w) for g, w in zip(outs, want)]
        problems = [p for p in problems if p]
        if len(outs) != len(want):
            problems.append(f"{len(outs)} outputs, {len(want)} expected")
        counts[case.kind] = counts.get(case.kind, 0) + 1
        if problems:
            failures += 1
            print(f"FAIL executor {case.name}: {problems[0]}")
        elif case.kind != "testdata":
            print(f"ok   executor {case.name}: {len(outs)} output(s) match")
        if case.kind != "testdata":
            for p in check_contract(case, model, record):
                failures += 1
                print(f"FAIL size check on {case.name}: {p}")
    reasons = {}
    for _, why in skipped:
        key = why.split(" (node")[0]
        reasons[key] = reasons.get(key, 0) + 1
    top = sorted(reasons.items(), key=lambda kv: -kv[1])[:8]
    print("testdata models not run (reason: count): " + "; ".join(f"{k}: {v}" for k, v in top))
    print(f"executor: {len(cases) - failures}/{len(cases)} models reproduce their expected "
          f"outputs {counts}; {len(skipped)} testdata models outside the executor's ops/types")
    return failures


def statically_known(model):
    """Main-graph tensors computable from shapes and constants alone (a folder's business)."""
    static = set(rx.weight_names(model))
    for node in model.graph.node:
        if node.op_type in ("Shape", "Size") or (node.op_type != "If" and node.input and
                                       all(i == "" or i in static for i in node.input)):
            static |= {o for o in node.output if o}
    return static


def read_csv(path):
    with open(path, newline="") as f:
        return {row["id"]: int(row["size"]) for row in csv.DictReader(f)}


def run_cli(cli, case, out):
    cmd = [cli, "onnx", case.path, "-o", out]
    for name, shape in case.dims.items():
        cmd += ["--input", f"{name}={'x'.join(str(d) for d in shape)}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, (p.stderr.strip().splitlines() or [""])[0], p.stderr


def warned_tensors(stderr):
    """Tensor names in the CLI's warnings (memplan names the tensor it leaves out)."""
    return {m for line in stderr.splitlines() if "warning" in line
            for m in re.findall(r"tensor '([^']*)'", line)}


def compare(model, record, rows, warned=frozenset()):
    """(equal, failures, notes): rows against executed tensors, per the contract above.
    `warned`: tensors the CLI warned it left out (unknown size); allowed, and counted."""
    weights = rx.weight_names(model)
    static = statically_known(model)
    layout_views = transposes_without_data_movement(model, record)
    equal, failures = 0, []
    notes = {"view": 0, "static": 0, "branch": 0, "empty": 0, "warned": 0}
    for name, ex in record.items():
        if name in weights or ex.op == "Constant":  # (a Constant inside a branch, too)
            if name in rows:
                failures.append(f"weight {name!r} is a row")
            continue
        if name in rows:
            if rows[name] == ex.bytes:
                equal += 1
            else:
                failures.append(f"{name!r} ({ex.op}): memplan {rows[name]} B, executed "
                                f"{ex.bytes} B {list(ex.shape)} {ex.dtype}")
        elif ex.scope:
            notes["branch"] += 1
        elif ex.op in rx.VIEW_OPS or name in layout_views:
            notes["view"] += 1
        elif name in static:
            notes["static"] += 1
        elif ex.bytes == 0:
            notes["empty"] += 1  # needs no memory
        elif name in warned:
            notes["warned"] += 1
        else:
            failures.append(f"{name!r} ({ex.op}, {ex.bytes} B) was executed but has no row")
    # Rows naming no executed tensor: tensors of an untaken branch (nested regions), or at
    # most one scratch row per If, which must at least hold the largest executed branch
    # tensor. Executed branch tensors need rows or a scratch row.
    body = branch_tensor_names(model.graph)
    extra = [r for r in rows if r not in record and r not in body]
    ifs = sum(1 for n in model.graph.node if n.op_type == "If")
    if len(extra) > ifs:
        failures.append(f"{len(extra)} rows name no tensor ({extra[:3]}...), "
                        f"{ifs} If node(s) may have a scratch row")
    largest = max((ex.bytes for n, ex in record.items()
                   if ex.scope and ex.op != "Constant" and n not in rows),
                  default=0)
    if largest and sum(rows[r] for r in extra) < largest:
        failures.append(f"executed If-branch tensors ({largest} B the largest) have neither "
                        f"rows nor a scratch row that holds them ({extra})")
    return equal, failures, notes


def transposes_without_data_movement(model, record):
    """Transpose outputs whose bytes equal their input's: the dims longer than 1 keep their
    order (only size-1 dims move), so an importer may make them views."""
    out = set()
    for node in model.graph.node:
        if node.op_type != "Transpose" or node.input[0] not in record:
            continue
        shape = record[node.input[0]].shape
        perm = rx.attrs_of(node).get("perm", list(reversed(range(len(shape)))))
        moved = [p for p in perm if shape[p] != 1]
        if moved == sorted(moved):
            out.add(node.output[0])
    return out


def branch_tensor_names(graph):
    """Every tensor produced inside If/Loop/Scan bodies, at any depth."""
    names = set()
    for node in graph.node:
        for attr in node.attribute:
            for g in list(attr.graphs) + ([attr.g] if attr.HasField("g") else []):
                names |= {o for n in g.node for o in n.output if o}
                names |= branch_tensor_names(g)
    return names


def check_sizes(cli, cases):
    failed, compared, warned_total = 0, 0, 0
    print(f"{'model':44} {'executed':>8} {'rows':>5} {'equal':>5} {'views':>5} "
          f"{'static':>6} {'branch':>6} {'empty':>5} {'warned':>6}  result")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "buffers.csv")
        for case in cases:
            model = onnx.load(case.path)
            _, record = rx.run(model, case.inputs)
            if os.path.exists(out):
                os.remove(out)
            rc, err, stderr = run_cli(cli, case, out)
            if rc != 0:
                failed += 1
                print(f"{case.name:44} FAIL: memplan onnx exit {rc}: {err}")
                continue
            rows = read_csv(out)
            # Real models must be sized completely; a testdata model may leave out, with a
            # warning, tensors whose shape depends on input values (e.g. Range(0, n)).
            warned = warned_tensors(stderr) if case.kind == "testdata" else frozenset()
            equal, failures, notes = compare(model, record, rows, warned)
            if case.kind != "testdata" and warned_tensors(stderr):
                failures.append(f"warned of unknown sizes: {sorted(warned_tensors(stderr))[:3]}")
            warned_total += notes["warned"]
            result = "ok" if not failures else f"FAIL {len(failures)}: {failures[0]}"
            if failures:
                failed += 1
            elif equal:
                compared += 1
            if failures or case.kind != "testdata":
                print(f"{case.name:44} {len(record):8} {len(rows):5} {equal:5} "
                      f"{notes['view']:5} {notes['static']:6} {notes['branch']:6} "
                      f"{notes['empty']:5} {notes['warned']:6}  {result}")
    print(f"sizes: {len(cases) - failed}/{len(cases)} models with every size right "
          f"({compared} with rows compared); {warned_total} testdata tensors left out "
          f"with a warning; CLI {cli}")
    if compared < 8:
        print("FAIL: fewer than 8 models compared with zero mismatches")
        failed += 1
    return failed


def main():
    mode, cli, cache = sys.argv[1], os.environ.get("MEMPLAN_ONNX_CLI", sys.argv[2]), sys.argv[3]
    cases, skipped = all_cases(cache)
    if mode == "executor":  # the npm models have no expected outputs to check the executor by
        failures = check_executor([c for c in cases if c.kind != "npm"], skipped)
    elif mode == "sizes":
        failures = check_sizes(cli, cases)
    else:
        sys.exit(f"unknown mode {mode!r} (executor or sizes)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
