// Python bindings of the graph layer (memplan/graph.h) for the Python front ends
// (memplan.torch): a graph given as plain lists is built, finalized and lowered to a Problem
// in one call, which is simpler and much faster than one Python object per tensor.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <vector>

#include "memplan/graph.h"
#include "memplan/io.h"

namespace py = pybind11;
using namespace memplan;

namespace {

TensorKind kind_of(const std::string& name, const std::string& tensor) {
  if (name == "activation") return TensorKind::kActivation;
  if (name == "weight") return TensorKind::kWeight;
  if (name == "input") return TensorKind::kInput;
  if (name == "output") return TensorKind::kOutput;
  throw InputError("tensor '" + tensor + "': unknown kind '" + name +
                   "' (activation, weight, input, output)");
}

}  // namespace

using TensorRow = std::tuple<std::string, int64_t, std::string>;
using OpRow = std::tuple<std::string, std::string, std::vector<int32_t>, std::vector<int32_t>,
                         std::vector<int32_t>, std::vector<int32_t>, int64_t>;

// Also used by schedule_bindings.cpp.
Graph build_graph(const std::vector<TensorRow>& tensors, const std::vector<OpRow>& ops) {
  Graph g;
  g.tensors.reserve(tensors.size());
  for (const auto& [name, bytes, kind] : tensors) {
    Tensor t;
    t.name = name;
    t.bytes = bytes;
    t.kind = kind_of(kind, name);
    g.tensors.push_back(std::move(t));
  }
  g.ops.reserve(ops.size());
  for (const auto& [name, type, inputs, outputs, view_of, may_overwrite, scratch] : ops) {
    Operator op;
    op.name = name;
    op.type = type;
    op.inputs = inputs;
    op.outputs = outputs;
    op.view_of = view_of;
    op.may_overwrite = may_overwrite;
    op.scratch_bytes = scratch;
    g.ops.push_back(std::move(op));
  }
  finalize(g);
  return g;
}

void register_graph_bindings(py::module_& m) {
  m.def("_lower_graph",
        [](const std::vector<TensorRow>& tensors, const std::vector<OpRow>& ops,
           const std::vector<int32_t>& order, bool include_weights, bool inplace, int64_t alignment, bool uses) {
          Graph g = build_graph(tensors, ops);
          LowerOptions o;
          o.include_weights = include_weights;
          o.inplace = inplace;
          o.alignment = alignment;
          o.uses = uses;
          LoweredGraph l = lower(g, order, o);
          std::vector<std::string> inplace_of;  // per buffer: the buffer it may reuse, or ""
          for (const Buffer& b : l.problem.buffers) inplace_of.push_back(b.inplace_of);
          py::dict out;
          out["problem"] = std::move(l.problem);
          out["buffer_of_tensor"] = std::move(l.buffer_of_tensor);
          out["tensor_of_buffer"] = std::move(l.tensor_of_buffer);
          out["scratch_of_buffer"] = std::move(l.scratch_of_buffer);
          out["weight_bytes"] = l.weight_bytes;
          out["inplace_of"] = std::move(inplace_of);
          return out;
        },
        py::arg("tensors"), py::arg("ops"), py::arg("order") = std::vector<int32_t>{},
        py::arg("include_weights") = false, py::arg("inplace") = true, py::arg("alignment") = 1,
        py::arg("uses") = false,
        "Builds a graph from plain lists and lowers it to a Problem (memplan/graph.h); uses: each buffer's\n"
        "uses are the steps producing or reading it (for plan_swaps).\n"
        "tensors: [(name, bytes, kind)] with kind in activation/weight/input/output;\n"
        "ops: [(name, type, inputs, outputs, view_of, may_overwrite, scratch_bytes)] with tensor\n"
        "indices, view_of/may_overwrite per output (input position or -1; [] = none);\n"
        "order: operator indices (empty = graph order). Returns a dict: problem,\n"
        "buffer_of_tensor, tensor_of_buffer, scratch_of_buffer, weight_bytes, inplace_of\n"
        "(per buffer: the id of the buffer it may take over in place, or '').\n"
        "Raises InputError (ValueError) naming the tensor or operator on a bad graph.");
  m.def("_graph_order",
        [](const std::vector<TensorRow>& tensors, const std::vector<OpRow>& ops) {
          return graph_order(build_graph(tensors, ops));
        },
        py::arg("tensors"), py::arg("ops"),
        "The graph order of a graph given as in _lower_graph (topological, keeps the given order where it can).");
}
