"""Real ONNX models through `memplan onnx` + `memplan solve`: a Markdown table.

    /usr/bin/python3 bench/onnx_models.py build/memplan [--time-limit 5] [--cache DIR]
                                                          [--testdata] [--models a,b]

Per model: buffers, naive (sum of sizes: no reuse), executed (the same sum over what the
reference executor produced: main-graph tensors that are neither weights nor view outputs;
naive exceeds it by an If's scratch row and by views an importer plans as buffers), LOAD
(`memplan solve`'s load=: largest total live at one instant of the written order, an
in-place pair's shared bytes counted once), memplan's peak (`memplan solve`, default algorithm auto,
--time-limit) and lower bound (in-place aware), its status, the import and solve times,
and whether the sizes are right: the model is executed by the torch-based reference
executor (tests/onnx_reference_exec.py) and every CSV row is compared with the executed
bytes (tests/onnx_sizes_test.py's contract); "ok" means every row matches and no executed
activation is missing, otherwise the number of wrong or missing tensors.

Models: the torchvision exports and the small If / computed-shape models of
tests/onnx_models.py (exported into --cache, default build/onnx_models), and with
--testdata the libonnx-testdata models with more than 10 nodes. When the CLI has no
`--input` option (the importer before issue 15), symbolic dims are bound by name with
--dim (batch, height, width; N, H, W) instead, and the table says so.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import onnx  # noqa: E402
import onnx_models as om  # noqa: E402
import onnx_reference_exec as rx  # noqa: E402
import onnx_sizes_test as st  # noqa: E402

# Named symbolic dims of the models above, for a CLI without --input.
DIM_NAMES = {"input": ["batch", None, "height", "width"], "x": ["N", None, "H", "W"]}


# ["--schedule", "graph"] when the CLI schedules (issue 16): this table is of the graph order.
EXTRA_ONNX_ARGS = []


def import_cmd(cli, case, out, has_input):
    cmd = [cli, "onnx", case.path, "-o", out] + EXTRA_ONNX_ARGS
    for name, shape in case.dims.items():
        if has_input:
            cmd += ["--input", f"{name}={'x'.join(str(d) for d in shape)}"]
        else:
            for dim, value in zip(DIM_NAMES.get(name, []), shape):
                if dim:
                    cmd += ["--dim", f"{dim}={value}"]
    return cmd


def mib(b):
    """Bytes for people: MiB from 1 MiB up, else KiB, else B."""
    if b >= 2**20:
        return f"{b / 2**20:.2f} MiB"
    return f"{b / 2**10:.1f} KiB" if b >= 2**10 else f"{b} B"


def executed_bytes(case):
    """Sum of the activations the reference executor produced (see the module comment)."""
    model = onnx.load(case.path)
    _, record = rx.run(model, case.inputs)
    weights = rx.weight_names(model)
    return sum(ex.bytes for n, ex in record.items() if n not in weights
               and not ex.scope and ex.op not in rx.VIEW_OPS)


def bench_case(cli, case, has_input, time_limit, tmp):
    out = os.path.join(tmp, "buffers.csv")
    if os.path.exists(out):
        os.remove(out)
    t0 = time.perf_counter()
    p = subprocess.run(import_cmd(cli, case, out, has_input), capture_output=True, text=True)
    t_import = time.perf_counter() - t0
    if p.returncode != 0:
        line = (p.stderr.strip().splitlines() or ["?"])[0]
        return {"error": line.replace("memplan: error: ", "").replace(case.path + ": ", "")[:100]}
    rows = st.read_csv(out)
    s = subprocess.run([cli, "solve", out, "--time-limit", str(time_limit)],
                       capture_output=True, text=True)
    if s.returncode != 0:
        return {"error": (s.stderr.strip().splitlines() or ["?"])[0][:90]}
    fields = dict(re.findall(r"(\w+)=(\S+)", s.stdout))
    model = onnx.load(case.path)
    _, record = rx.run(model, case.inputs)
    equal, failures, notes = st.compare(model, record, rows, st.warned_tensors(p.stderr))
    sizes = "ok" if not failures else f"{len(failures)} wrong/missing"
    if notes["warned"]:
        sizes += f", {notes['warned']} left out with a warning"
    return {"buffers": len(rows), "naive": sum(rows.values()), "load": int(fields["load"]),
            "peak": int(fields["peak"]), "bound": int(fields.get("lower_bound", 0)),
            "status": fields.get("status", "?"),
            "valid": fields.get("valid", "?"), "t_import": t_import,
            "t_solve": float(fields["time"]),
            "sizes": sizes}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--cache",
                    default=os.path.normpath(os.path.join(HERE, "..", "build", "onnx_models")))
    ap.add_argument("--testdata", action="store_true")
    ap.add_argument("--models", default="")
    args = ap.parse_args()
    names = set(args.models.split(",")) if args.models else None

    cases = om.torchvision_cases(os.path.join(args.cache, "torchvision"), names)
    cases += [c for c in om.small_cases(os.path.join(args.cache, "small"))
              if (names is None or c.name in names) and not c.name.endswith("[else]")]
    if args.testdata:
        for folder in om.testdata_folders():
            try:
                model = onnx.load(os.path.join(folder, "model.onnx"))
                if len(model.graph.node) > 10:
                    case = om.testdata_case(folder)
                    rx.run(model, case.inputs)
                    cases.append(case)
            except Exception:  # noqa: BLE001 - outside the executor: not benchmarked
                continue
    help_text = subprocess.run([args.cli, "onnx", "--help"], capture_output=True,
                               text=True).stdout
    has_input = "--input" in help_text
    if "--schedule" in help_text:
        EXTRA_ONNX_ARGS[:] = ["--schedule", "graph"]
    print(f"memplan onnx binds shapes with {'--input' if has_input else '--dim (no --input)'}; "
          f"solve: default algorithm, --time-limit {args.time_limit:g}\n")
    print("| model | input | buffers | naive | executed | LOAD | peak | bound | "
          "peak/LOAD | status | import s | solve s | sizes vs executed |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            shape = ";".join("x".join(str(d) for d in v) for v in case.dims.values()) or "-"
            r = bench_case(args.cli, case, has_input, args.time_limit, tmp)
            r["executed"] = executed_bytes(case)
            if "error" in r:
                print(f"| {case.name} | {shape} | - | - | {mib(r['executed'])} | - | - | - | - | "
                      f"import failed: "
                      f"{r['error'].replace('|', '/')} | - | - | - |")
                continue
            ratio = r["peak"] / r["load"] if r["load"] else 1.0
            print(f"| {case.name} | {shape} | {r['buffers']} | {mib(r['naive'])} | "
                  f"{mib(r['executed'])} | "
                  f"{mib(r['load'])} | {mib(r['peak'])} | {mib(r['bound'])} | {ratio:.3f} | "
                  f"{r['status']} | "
                  f"{r['t_import']:.2f} | {r['t_solve']:.2f} | {r['sizes']} |", flush=True)


if __name__ == "__main__":
    main()
