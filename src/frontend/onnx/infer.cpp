// Shape inference to a fixed point: ONNX inference, then memplan's evaluation of the small
// tensors that compute shapes (fold.cpp), whose values are given back to inference as
// initializers (consumers rewired to them) until no new value appears.
#include <onnx/shape_inference/implementation.h>

#include "frontend/onnx/internal.h"
#include "memplan/io.h"

namespace memplan::onnx_fe {
namespace {

constexpr int kMaxRounds = 32;
const std::string kConstPrefix = "memplan.folded/";

bool large(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    n *= std::max<int64_t>(d, 1);
    if (n > kMaxFoldElements) return true;
  }
  return false;
}

// Large constant data only slows down the copies of every round; inference needs its dims.
void strip_large(onnx::TensorProto& t) {
  if (!large(t)) return;
  t.clear_raw_data();
  t.clear_float_data();
  t.clear_int32_data();
  t.clear_int64_data();
  t.clear_double_data();
  t.clear_uint64_data();
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::DEFAULT);
}

onnx::ModelProto light_copy(const onnx::ModelProto& bound) {
  onnx::ModelProto m = bound;
  for (auto& t : *m.mutable_graph()->mutable_initializer()) strip_large(t);
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.op_type() == "Constant")
      for (auto& a : *n.mutable_attribute())
        if (a.has_t()) strip_large(*a.mutable_t());
  return m;
}

// The model with every main-graph read of a known value rewired to an initializer.
onnx::ModelProto rewired(const onnx::ModelProto& light, const std::unordered_map<std::string, Value>& values,
                         const std::set<std::string>& initializers) {
  onnx::ModelProto m = light;
  std::set<std::string> added;
  auto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node())
    for (auto& in : *n.mutable_input()) {
      if (in.empty() || initializers.count(in)) continue;
      auto it = values.find(in);
      // Empty values stay as they are: ONNX 1.12's Concat inference rejects an empty
      // initializer as an input.
      if (it == values.end() || it->second.count() == 0) continue;
      const std::string name = kConstPrefix + in;
      if (added.insert(name).second) {
        *g->add_initializer() = to_tensor(it->second, name);
        // Before IR version 4 an initializer counts only when it is also a graph input.
        auto* v = g->add_input();
        v->set_name(name);
        auto* tt = v->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(it->second.type);
        auto* shape = tt->mutable_shape();
        for (int64_t d : it->second.dims) shape->add_dim()->set_dim_value(d);
      }
      in = name;
    }
  return m;
}

}  // namespace

Inferred infer_sizes(const onnx::ModelProto& bound, const std::string& path) {
  Inferred out;
  const onnx::ModelProto light = light_copy(bound);
  std::set<std::string> initializers;
  for (const auto& t : bound.graph().initializer()) {
    initializers.insert(t.name());
    if (auto v = value_of(t)) out.values[t.name()] = *v;
  }
  const auto& nodes = bound.graph().node();
  for (int round = 0; round < kMaxRounds; ++round) {
    out.model = rewired(light, out.values, initializers);
    try {
      onnx::shape_inference::InferShapes(out.model, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(false, 0, true));
    } catch (const std::exception& e) {
      throw InputError(path + ": ONNX shape inference failed: " + e.what());
    }
    out.types.clear();
    collect_types(out.model.graph(), out.types);
    for (const auto& [name, v] : out.values) {  // computed values are exact
      TypeInfo& t = out.types[name];
      t.is_tensor = true;
      t.elem_type = v.type;
      t.has_shape = true;
      t.dims = v.dims;
    }
    bool changed = false;
    for (const auto& n : nodes) {
      if (n.output_size() != 1 || n.output(0).empty() || out.values.count(n.output(0))) continue;
      std::vector<const Value*> in;
      std::vector<const TypeInfo*> types;
      for (const auto& name : n.input()) {
        auto v = out.values.find(name);
        in.push_back(v == out.values.end() ? nullptr : &v->second);
        auto t = out.types.find(name);
        types.push_back(t == out.types.end() ? nullptr : &t->second);
      }
      if (auto v = fold_node(n, in, types)) {
        TypeInfo& t = out.types[n.output(0)];
        t = TypeInfo{true, v->type, true, v->dims};
        out.values[n.output(0)] = std::move(*v);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return out;
}

}  // namespace memplan::onnx_fe
