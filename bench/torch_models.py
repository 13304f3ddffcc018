#!/usr/bin/env python3
"""Benchmark of the PyTorch front end on torchvision models (random init, no downloads):
for each model, inference (eval, no_grad) and one training step (forward + backward through
AOT autograd), the planned buffers, their naive sum (no reuse), the graph-order LOAD, the
peak memplan finds, and the time (trace and plan). Prints a Markdown table.

    PYTHONPATH=build/python python3 bench/torch_models.py [--batch 1] [--train-batch 2] [--size 64]
        [--vit-size 224] [--time-limit 10] [--models resnet18,vit_b_16] [--no-training]

LOAD is the largest total size of the buffers live at one graph step. An in-place reuse lets
an output share its input's bytes, so the peak can be below this plain LOAD; 'bound' is
memplan's lower bound with the in-place sharing (the peak is optimal when they are equal).
"""
import argparse
import sys
import time

import torch
import torchvision

import memplan.torch as mt

MODELS = {
    "resnet18": lambda s: torchvision.models.resnet18(weights=None),
    "resnet50": lambda s: torchvision.models.resnet50(weights=None),
    "mobilenet_v2": lambda s: torchvision.models.mobilenet_v2(weights=None),
    "mobilenet_v3_large": lambda s: torchvision.models.mobilenet_v3_large(weights=None),
    "efficientnet_b0": lambda s: torchvision.models.efficientnet_b0(weights=None),
    "vit_b_16": lambda s: torchvision.models.vit_b_16(weights=None, image_size=s),
    "convnext_tiny": lambda s: torchvision.models.convnext_tiny(weights=None),
    "deeplabv3_mobilenet_v3_large": lambda s: torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None),
}


def mib(n):
    return f"{n / 2**20:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1, help="inference batch")
    ap.add_argument("--train-batch", type=int, default=2,
                    help="training batch (batch norm needs more than one value per channel)")
    ap.add_argument("--size", type=int, default=64, help="image side (all but ViT)")
    ap.add_argument("--vit-size", type=int, default=224, help="ViT image side (multiple of 16)")
    ap.add_argument("--time-limit", type=float, default=10)
    ap.add_argument("--algo", default="auto")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--no-training", action="store_true")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    modes = ["inference"] + ([] if args.no_training else ["training"])
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, batch {args.batch} "
          f"(training {args.train_batch}), "
          f"images {args.size}x{args.size} (ViT {args.vit_size}x{args.vit_size}), algo {args.algo}, "
          f"time limit {args.time_limit} s, 1 thread. Sizes in MiB.\n")
    print("| model | mode | tracer | tensors | buffers | weights | naive | LOAD | peak | bound | status | trace s | plan s |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for name in args.models.split(","):
        size = args.vit_size if name.startswith("vit") else args.size
        for mode in modes:
            model = MODELS[name](size)
            x = torch.randn(args.batch if mode == "inference" else args.train_batch, 3, size, size)
            t0 = time.perf_counter()
            try:
                p = mt.plan(model, (x,), training=(mode == "training"), algo=args.algo,
                            time_limit=args.time_limit, schedule="graph")  # graph order: see schedule_models.py
            except mt.MemplanTraceError as e:
                print(f"| {name} | {mode} | error: {e} |")
                continue
            s = p.summary
            print(f"| {name} | {mode} | {s['tracer']} | {s['tensors']} | {s['buffers']} | "
                  f"{mib(s['weight_bytes'])} | {mib(s['naive'])} | {mib(s['load'])} | {mib(s['peak'])} | "
                  f"{mib(s['lower_bound'])} | {s['status']} | {s['trace_seconds']:.1f} | "
                  f"{s['solve_seconds']:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
