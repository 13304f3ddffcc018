"""ONNX exports of torchvision models through `memplan onnx`: a small ViT (same graph as
ViT-B/16: Reshape targets and Slice bounds computed from Shape in the graph) and a small
ResNet, exported with a static batch and with a symbolic one. Every tensor must be sized
(--strict), the graph output as large as torch's executed output, and the symbolic export
bound with --input / --dim must plan the same buffers as the static one.
Skipped only when python3-torch or torchvision is absent.
usage: torchvision_onnx_test.py MEMPLAN_CLI WORKDIR"""
import csv
import os
import subprocess
import sys

try:
    import torch
    import torchvision
except ImportError as e:  # pragma: no cover
    print(f"SKIPPED: {e}")
    sys.exit(0)

cli, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def memplan_csv(model, *args):
    out = model + ".csv"
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([cli, "onnx", model, "--strict", "-o", out, *args], capture_output=True, text=True)
    check(r.returncode == 0, f"memplan onnx {os.path.basename(model)} {' '.join(args)}: exit {r.returncode} {r.stderr.strip()[:300]}")
    return list(csv.DictReader(open(out))) if r.returncode == 0 else []


models = {
    "vit": torchvision.models.VisionTransformer(image_size=32, patch_size=16, num_layers=2, num_heads=2,
                                                hidden_dim=16, mlp_dim=32, num_classes=10),
    "resnet": torchvision.models.resnet18(num_classes=10),
}
torch.manual_seed(0)
for name, module in models.items():
    module.eval()
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        y = module(x)
    static = os.path.join(work, f"{name}_static.onnx")
    dynamic = os.path.join(work, f"{name}_dynamic.onnx")
    torch.onnx.export(module, x, static, opset_version=14, input_names=["x"], output_names=["y"])
    torch.onnx.export(module, x, dynamic, opset_version=14, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    a = memplan_csv(static)
    b = memplan_csv(dynamic, "--input", "x=2x3x32x32")
    c = memplan_csv(dynamic, "--dim", "batch=2")
    out_rows = [r for r in a if r["id"] == "y"]
    check(len(out_rows) == 1 and int(out_rows[0]["size"]) == y.numel() * y.element_size(),
          f"{name}: output y is {out_rows[0]['size'] if out_rows else '?'} bytes, torch produced {y.numel() * y.element_size()}")
    check(sorted(int(r["size"]) for r in a) == sorted(int(r["size"]) for r in b),
          f"{name}: symbolic batch bound by --input plans the same buffer sizes as the static export ({len(a)} vs {len(b)})")
    check([r["size"] for r in b] == [r["size"] for r in c], f"{name}: --dim batch=2 equals --input x=2x3x32x32")
    r = subprocess.run([cli, "onnx", dynamic, "--strict", "-o", os.path.join(work, "never.csv")], capture_output=True, text=True)
    check(r.returncode == 2 and "tensor 'x'" in r.stderr and not os.path.exists(os.path.join(work, "never.csv")),
          f"{name}: unbound batch under --strict is exit 2 naming x, no output")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
