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

// A Loop with a known trip count M whose condition never stops it early (no condition, or a
// true one passed through the body unchanged) runs exactly M times: each scan output is M
// body outputs stacked, a first dim ONNX 1.12's inference leaves unknown.
std::optional<int64_t> fixed_trip_count(const onnx::NodeProto& n, const std::unordered_map<std::string, Value>& values) {
  if (n.input_size() < 2 || n.input(0).empty()) return std::nullopt;
  auto m = values.find(n.input(0));
  if (m == values.end() || m->second.count() != 1) return std::nullopt;
  if (!n.input(1).empty()) {
    auto c = values.find(n.input(1));
    if (c == values.end() || c->second.count() != 1 || c->second.int_at(0) == 0) return std::nullopt;
  }
  for (const auto& a : n.attribute()) {
    if (a.name() != "body" || !a.has_g()) continue;
    const onnx::GraphProto& b = a.g();
    if (b.input_size() < 2 || b.output_size() < 1) return std::nullopt;
    const std::string& cond_in = b.input(1).name();
    std::string cond_out = b.output(0).name();
    for (const auto& bn : b.node())
      if (bn.op_type() == "Identity" && bn.output_size() == 1 && bn.output(0) == cond_out) cond_out = bn.input(0);
    if (cond_out != cond_in) return std::nullopt;
    return m->second.int_at(0);
  }
  return std::nullopt;
}

// Scan-output types of Loops with a fixed trip count, from the inferred body outputs.
// True when a type is new or changed.
// `main` has the model's names; `inferred_main` (same nodes, reads rewired) the inferred bodies.
bool refine_loops(const onnx::GraphProto& main, const onnx::GraphProto& inferred_main,
                  const std::unordered_map<std::string, Value>& values, TypeMap& refined) {
  bool changed = false;
  for (int i = 0; i < main.node_size(); ++i) {
    const onnx::NodeProto& n = inferred_main.node(i);
    if (n.op_type() != "Loop") continue;
    const auto trips = fixed_trip_count(main.node(i), values);
    if (!trips) continue;
    const int carried = n.input_size() - 2;
    for (const auto& a : n.attribute()) {
      if (a.name() != "body" || !a.has_g()) continue;
      TypeMap body;
      collect_types(a.g(), body);
      for (int k = carried; k < n.output_size(); ++k) {
        if (n.output(k).empty() || 1 + k >= a.g().output_size()) continue;
        auto it = body.find(a.g().output(1 + k).name());
        if (it == body.end() || !it->second.has_shape) continue;
        TypeInfo t = it->second;
        t.dims.insert(t.dims.begin(), *trips);
        TypeInfo& slot = refined[n.output(k)];
        if (slot.is_tensor && slot.dims == t.dims && slot.elem_type == t.elem_type) continue;
        slot = t;
        changed = true;
      }
    }
  }
  return changed;
}

void add_value_info(onnx::GraphProto* g, const TypeMap& refined) {
  for (const auto& [name, t] : refined) {
    auto* v = g->add_value_info();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.elem_type);
    auto* shape = tt->mutable_shape();
    for (int64_t d : t.dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);
    }
  }
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
  TypeMap refined;  // shapes memplan knows better than inference (Loop scan outputs)
  for (int round = 0; round < kMaxRounds; ++round) {
    out.model = rewired(light, out.values, initializers);
    add_value_info(out.model.mutable_graph(), refined);
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
    bool changed = refine_loops(bound.graph(), out.model.graph(), out.values, refined);
    for (const auto& [name, t] : refined) out.types[name] = t;
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
