// memplan: ONNX front end (library memplan_onnx; needs libonnx). Turns a model into the
// graph of graph.h (onnx_graph), and that graph, lowered in graph order, into the buffers an
// executor running its nodes in that order would need (import_onnx). It never places buffers.
//
// Sizes: symbolic dimensions are bound first (`dims` by name, `inputs` by whole input
// shape, which also binds unnamed `?` dims), then ONNX shape inference runs on the bound
// model. Where it stops (shapes computed inside the graph: Shape -> Gather -> Concat ->
// Reshape, computed Pad pads, Slice starts, ...), memplan evaluates the small integer
// subgraphs that compute shapes and feeds their values back into inference until nothing
// changes. A tensor whose size is still unknown is never guessed: it gets a warning naming
// the tensor and its node (and is left out of import_onnx's plan), or an InputError when
// `strict` is set.
//
// Kinds: initializers and Constant node outputs are weights (left out of the plan unless
// `include_weights`); graph inputs are live from the start, graph outputs until the end.
// If/Loop/Scan: the outer-scope names their bodies read are inputs of the node; the
// bodies' own tensors are the node's scratch bytes (an If: its larger branch; a Loop or Scan:
// one iteration). Views (Reshape, Flatten, Squeeze, Unsqueeze, Identity) share their input's
// bytes; elementwise ops may overwrite an input of the same size (graph.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memplan/graph.h"
#include "memplan/problem.h"

namespace memplan {

struct OnnxImportOptions {
  std::map<std::string, int64_t> dims;  // symbolic dimension name -> value (e.g. batch=8)
  // Graph input name -> its whole shape (e.g. images -> {1, 3, 640, 640}); binds declared
  // dims (named or `?`) and the dim names they carry.
  std::map<std::string, std::vector<int64_t>> inputs;
  // When set (>= 1): the value of every symbolic dim of a graph input left unbound, each one
  // reported as a warning. Unset by default: an unbound dim is unknown, never a silent 1.
  std::optional<int64_t> default_dim;
  bool strict = false;        // a tensor of unknown size is an InputError, not a warning
  int64_t alignment = 1;      // alignment of every buffer (power of two)
  bool include_weights = false;
  // Views and in-place reuse (see above); false: every tensor gets a buffer of its own, e.g.
  // to compare each tensor's size with an executor's.
  bool aliasing = true;
  // Where warnings go: appended here when set, else printed to stderr ("memplan: warning:").
  std::vector<std::string>* warnings = nullptr;
};

// The model as a finalized graph (graph.h), operators in the model's (topological) order,
// ids = ONNX tensor names. Throws InputError (io.h) naming the file and the node or tensor:
// unreadable or truncated file, cyclic graph, a tensor of a type with no fixed size (string,
// sequence, map), a --dim/--input name the model does not have, an unknown size under strict.
Graph onnx_graph(const std::string& path, const OnnxImportOptions& options = {});

// The graph with every tensor of unknown size (reported by onnx_graph) given 0 bytes, i.e.
// left out of the plan, so that it can be scheduled (schedule.h) and lowered in any order.
Graph onnx_sized(Graph graph);

// A graph of onnx_graph lowered in graph order (graph.h's lower) with the options' weights
// and alignment; tensors of unknown size (reported by onnx_graph) are left out.
LoweredGraph lower_onnx(Graph graph, const OnnxImportOptions& options = {});

// lower_onnx(onnx_graph(path, options)).problem. Throws InputError as above.
Problem import_onnx(const std::string& path, const OnnxImportOptions& options = {});

// Parses "1x3x640x640" (also "1,3,640,640"); throws InputError naming `what` when malformed.
std::vector<int64_t> parse_onnx_shape(const std::string& text, const std::string& what);

}  // namespace memplan
