// memplan: a model graph (graph.h) as a file, so that generated or exported graphs can be
// scheduled and planned from the command line (`memplan schedule GRAPH.jsonl`, `memplan
// solve GRAPH.jsonl --schedule ...`, `memplan generate --kind dag -o GRAPH.jsonl`).
//
// Format "memplan graph 1": JSON Lines (one JSON object per line, UTF-8; blank lines are
// skipped), so that an error names its line and a 100k-operator graph streams. In order:
//   {"memplan_graph": 1}                                                      first line
//   {"tensor": "x", "bytes": 602112, "kind": "input", "dtype": "float32", "shape": [1,3,224,224]}
//   {"op": "conv1", "type": "Conv", "inputs": ["x", "w1"], "outputs": ["y1"],
//    "view_of": [-1], "may_overwrite": [-1], "scratch": 4096}
// Tensor lines: "tensor" (a unique non-empty name) and "bytes" (>= 0) are required; "kind"
// is "activation" (default), "weight", "input" or "output"; "dtype" and "shape" are
// informational. Op lines: "op" (name) and "outputs" are required, "type", "inputs"
// (default none), "view_of" and "may_overwrite" (per output: the position in "inputs" the
// output is a view of / may overwrite, or -1; default all -1) and "scratch" (bytes, default
// 0) optional. Tensors are named before the ops that use them; op lines are in the graph
// order. Any other field is an error. Sizes add up below 2^61 (overflow-safe planning).
#pragma once

#include <iosfwd>
#include <string>

#include "memplan/graph.h"

namespace memplan {

// Reads and finalizes a graph. `name` is used in messages: "NAME:LINE: field 'F': ...".
// Throws InputError on malformed or inconsistent input (also finalize's checks: one
// producer per tensor, view/overwrite positions, cycles).
Graph read_graph_jsonl(std::istream& in, const std::string& name);
Graph read_graph_file(const std::string& path);

// Writes `g` in the format above: tensors, then operators in graph order, one per line.
// read_graph_jsonl(write_graph_jsonl(g)) gives back g (names, sizes, kinds, dtypes, shapes,
// aliasing, scratch, order). Throws std::invalid_argument when a tensor name is empty or
// repeated (the format refers to tensors by name).
void write_graph_jsonl(std::ostream& out, const Graph& g);

}  // namespace memplan
