// Test helper shared by the graph layer's and the scheduler's tests: builds a Graph by
// tensor and operator, by name.
#pragma once

#include <string>
#include <vector>

#include "memplan/graph.h"

namespace memplan::graph_testing {

struct GraphBuilder {
  Graph g;
  int32_t tensor(const std::string& name, int64_t bytes, TensorKind kind = TensorKind::kActivation) {
    Tensor t;
    t.name = name;
    t.bytes = bytes;
    t.kind = kind;
    g.tensors.push_back(t);
    return static_cast<int32_t>(g.tensors.size() - 1);
  }
  // An operator `type` + its index, reading `in` and writing `out` (view_of / may_overwrite
  // per output, or empty).
  int32_t op(const std::string& type, std::vector<int32_t> in, std::vector<int32_t> out,
             std::vector<int32_t> view_of = {}, std::vector<int32_t> may_overwrite = {}) {
    Operator o;
    o.name = type + std::to_string(g.ops.size());
    o.type = type;
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    o.view_of = std::move(view_of);
    o.may_overwrite = std::move(may_overwrite);
    g.ops.push_back(o);
    return static_cast<int32_t>(g.ops.size() - 1);
  }
  // An operator named `name` producing one tensor of the same name.
  int32_t node(const std::string& name, std::vector<int32_t> in, int64_t bytes,
               TensorKind kind = TensorKind::kActivation) {
    const int32_t t = tensor(name, bytes, kind);
    Operator o;
    o.name = name;
    o.type = "Op";
    o.inputs = std::move(in);
    o.outputs = {t};
    g.ops.push_back(o);
    return t;
  }
};

}  // namespace memplan::graph_testing
