#!/usr/bin/env python3
"""Runs every version of every ONNX operator (python3-onnx's schemas, the default domain)
through `memplan onnx --summary` on inputs of each rank pairing from 0 to 4 (the first input
at one rank, the others at another) and, separately, on graph inputs declared without a
type, and lists the models whose import crashed (a signal) instead of importing or being
refused with exit 2. It found the inference crashes of ONNX 1.12 that
src/frontend/onnx/guarded_schemas.cpp guards. Usage:

    python3 scripts/onnx_rank_scan.py [path/to/memplan] [folder for crashing models]

Prints the number of models run and one line per crash; exits 1 if any crashed.
"""
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, defs, helper

AT = onnx.AttributeProto


def attr_value(a):
    """A value of the attribute's type, for a required attribute."""
    return {
        AT.INT: 1,
        AT.INTS: [1],
        AT.FLOAT: 1.0,
        AT.FLOATS: [1.0],
        AT.STRING: "a",
        AT.STRINGS: ["a"],
        AT.TENSOR: helper.make_tensor("t", TensorProto.FLOAT, [1], [1.0]),
        AT.GRAPH: helper.make_graph(
            [helper.make_node("Identity", ["gi"], ["go"])], "body",
            [helper.make_tensor_value_info("gi", TensorProto.FLOAT, [2])],
            [helper.make_tensor_value_info("go", TensorProto.FLOAT, [2])]),
    }.get(a.type)


def models():
    """(label, model) for every operator version, input count and rank pairing."""
    dims = [2, 3, 4, 4, 4]
    for s in defs.get_all_schemas_with_history():
        if s.domain != "" or s.deprecated:
            continue
        attrs = {a.name: attr_value(a) for a in s.attributes.values() if a.required}
        attrs = {k: v for k, v in attrs.items() if v is not None}
        counts = sorted({s.min_input, min(s.max_input, 4), min(min(s.max_input, 4), max(s.min_input, 2))})
        for n in counts:
            shapes = [(r1, r2) for r1 in range(5) for r2 in (range(5) if n > 1 else [r1])]
            for r1, r2 in shapes + [(None, None)]:  # None: declared without a type
                if r1 is None:
                    inputs = [onnx.ValueInfoProto(name="i%d" % j) for j in range(n)]
                else:
                    inputs = [helper.make_tensor_value_info("i%d" % j, TensorProto.FLOAT, dims[:(r1 if j == 0 else r2)])
                              for j in range(n)]
                node = helper.make_node(s.name, ["i%d" % j for j in range(n)],
                                        ["o%d" % j for j in range(max(1, s.min_output))], **attrs)
                graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("o0", TensorProto.FLOAT, None)])
                label = "%s-%d inputs=%d ranks=%s,%s" % (s.name, s.since_version, n, r1, r2)
                yield label, helper.make_model(graph, opset_imports=[helper.make_opsetid("", s.since_version)])


def main():
    memplan = sys.argv[1] if len(sys.argv) > 1 else "build/memplan"
    keep = sys.argv[2] if len(sys.argv) > 2 else None
    runs, crashes = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.onnx")
        for label, model in models():
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
            r = subprocess.run([memplan, "onnx", "--summary", path], capture_output=True)
            runs += 1
            if r.returncode < 0 or r.returncode > 100:
                crashes.append(label)
                print("crash:", label, "exit", r.returncode, flush=True)
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    os.replace(path, os.path.join(keep, label.replace(" ", "_").replace(",", "_") + ".onnx"))
    print("%d models, %d crashed" % (runs, len(crashes)))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
