// Shape inference to a fixed point: ONNX inference, then memplan's evaluation of the small
// tensors that compute shapes (fold.cpp), whose values are given back to inference as
// initializers (consumers rewired to them) until no new value appears.
#include <onnx/shape_inference/implementation.h>

#include "frontend/onnx/internal.h"
#include "memplan/io.h"

namespace memplan::onnx_fe {
namespace {

// Rounds stop when nothing changes; each op that ONNX 1.12 does not know or is not allowed
// to see (refine_ops, hide_from_inference) costs one round for what follows it, so a deep
// model at opset 20 (a Gelu per layer) needs about one round per layer (32 left the last
// layers of a 48-layer chain unsized).
constexpr int kMaxRounds = 4096;
const std::string kConstPrefix = "memplan.folded/";

bool large(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d > kMaxFoldElements) return true;  // before the product: n * d could overflow
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

using Values = std::unordered_map<std::string, Value>;

// Reads of known values inside If/Loop/Scan bodies rewired to initializers of the body, so
// that inference sizes what the body computes from them (e.g. a Pad whose pads are a Cast
// of a body Constant). Bodies get initializers only from IR version 4 on, where an
// initializer need not be a graph input (a body's inputs are its signature).
void rewire_bodies(onnx::GraphProto* g, const Values& values, const Values& body_values) {
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      std::vector<onnx::GraphProto*> bodies;
      if (a.has_g()) bodies.push_back(a.mutable_g());
      for (auto& sub : *a.mutable_graphs()) bodies.push_back(&sub);
      for (onnx::GraphProto* body : bodies) {
        std::set<std::string> own;  // the body's inputs and initializers: never rewired
        for (const auto& i : body->input()) own.insert(i.name());
        for (const auto& t : body->initializer()) own.insert(t.name());
        std::set<std::string> added;
        for (auto& bn : *body->mutable_node())
          for (auto& in : *bn.mutable_input()) {
            if (in.empty() || own.count(in)) continue;
            auto it = body_values.find(in);
            if (it == body_values.end()) it = values.find(in);
            if (it == values.end() || it->second.count() == 0) continue;
            const std::string name = kConstPrefix + in;
            if (added.insert(name).second) *body->add_initializer() = to_tensor(it->second, name);
            in = name;
          }
        rewire_bodies(body, values, body_values);
      }
    }
}

// The model with every main-graph read of a known value rewired to an initializer (and,
// from IR version 4 on, every body read: rewire_bodies).
onnx::ModelProto rewired(const onnx::ModelProto& light, const Values& values, const Values& body_values,
                         const std::set<std::string>& initializers) {
  onnx::ModelProto m = light;
  std::set<std::string> added;
  auto* g = m.mutable_graph();
  if (m.ir_version() >= 4) rewire_bodies(g, values, body_values);
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

// Scan-output types of Loops with a fixed trip count, and final-state types of carried
// values whose shape the body keeps, from the inferred body outputs.
// True when a type is new or changed.
// `main` has the model's names; `inferred_main` (same nodes, reads rewired) the inferred bodies.
bool refine_loops(const onnx::GraphProto& main, const onnx::GraphProto& inferred_main,
                  const std::unordered_map<std::string, Value>& values, const TypeMap& types, TypeMap& refined) {
  bool changed = false;
  for (int i = 0; i < main.node_size(); ++i) {
    const onnx::NodeProto& n = inferred_main.node(i);
    if (n.op_type() != "Loop") continue;
    const auto trips = fixed_trip_count(main.node(i), values);
    const int carried = n.input_size() - 2;
    for (const auto& a : n.attribute()) {
      if (a.name() != "body" || !a.has_g()) continue;
      TypeMap body;
      collect_types(a.g(), body);
      // A carried value's final state: when the body gives it the shape of its initial
      // value, every iteration count (none included) leaves that shape. ONNX 1.12 leaves
      // these outputs without a shape, and a fully static model's final state was left out
      // of the plan ("bind dims").
      for (int k = 0; k < carried && k < n.output_size(); ++k) {
        if (n.output(k).empty() || 1 + k >= a.g().output_size() || 2 + k >= n.input_size()) continue;
        const auto out = body.find(a.g().output(1 + k).name());
        const auto init = types.find(main.node(i).input(2 + k));
        if (out == body.end() || init == types.end() || !out->second.is_tensor || !out->second.known() ||
            !init->second.known() || out->second.dims != init->second.dims || out->second.elem_type != init->second.elem_type)
          continue;
        TypeInfo& slot = refined[n.output(k)];
        if (slot.is_tensor && slot.dims == out->second.dims && slot.elem_type == out->second.elem_type) continue;
        slot = out->second;
        changed = true;
      }
      if (!trips) continue;
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

// A tensor's type in the innermost of `scopes` (innermost last) that has it, or nullptr.
const TypeInfo* find_type(const std::vector<const TypeMap*>& scopes, const std::string& name) {
  for (auto s = scopes.rbegin(); s != scopes.rend(); ++s)
    if (auto it = (*s)->find(name); it != (*s)->end()) return &it->second;
  return nullptr;
}

// An Einsum that ONNX 1.12's inference must not see (hide_from_inference).
bool unsafe_for_onnx_inference(const onnx::NodeProto& n) {
  const auto* eq = attr(n, "equation");
  if (n.op_type() != "Einsum" || !default_domain(n) || !eq || eq->s().find("->") != std::string::npos) return false;
  for (char c : eq->s())
    if (!((c >= 'a' && c <= 'z') || c == ',' || c == '.' || c == ' ')) return true;
  return false;
}

// Nodes that ONNX 1.12's inference must not see are moved, in the copy given to it, to a
// domain it does not know, so that it skips them:
//  - those whose output types refine_ops replaces (a later op version that 1.12 would read
//    with an older schema, e.g. Resize-18 with keep_aspect_ratio_policy), so that a wrong
//    type it infers does not clash with memplan's (given as value_info);
//  - an Einsum whose equation is implicit (no "->") and has a character other than a-z, ','
//    '.' or ' ': 1.12's rank inference counts implicit labels in an array indexed by
//    (c - 'a'), so an upper-case label writes out of bounds ("i G j , j k" crashed the
//    import with SIGSEGV: a fuzz find). memplan sizes Einsums itself (einsum.cpp); malformed
//    equations are refused before this (einsum_syntax_error).
// Returns the number of nodes moved.
int hide_from_inference(onnx::GraphProto* g, const std::set<std::string>& replaced) {
  int hidden = 0;
  for (auto& n : *g->mutable_node()) {
    bool hide = unsafe_for_onnx_inference(n);
    for (const auto& out : n.output()) hide = hide || replaced.count(out) > 0;
    if (hide) n.set_domain(kHiddenDomain), ++hidden;
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) hidden += hide_from_inference(a.mutable_g(), replaced);
      for (auto& sub : *a.mutable_graphs()) hidden += hide_from_inference(&sub, replaced);
    }
  }
  return hidden;
}

// Output types memplan computes where ONNX 1.12's inference leaves them unknown or reads a
// later op version with an older schema (refined_op_types, op_shapes.cpp). In `g` and its
// bodies (as inferred), reading the types of `g` and of every scope around it (`scopes`,
// innermost last), those refined so far and the values known at import time; true when a
// type is new or changed.
bool refine_ops(const onnx::GraphProto& g, const Inferred& inferred, std::vector<const TypeMap*>& scopes,
                TypeMap& refined, std::set<std::string>& replaced, const std::string& path) {
  bool changed = false;
  auto type = [&](const std::string& name) -> const TypeInfo* {
    if (auto it = refined.find(name); it != refined.end()) return &it->second;
    return find_type(scopes, name);
  };
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    for (const onnx::GraphProto* body : node_bodies(n)) {
      TypeMap types;
      collect_types(*body, types);
      scopes.push_back(&types);
      changed |= refine_ops(*body, inferred, scopes, refined, replaced, path);
      scopes.pop_back();
    }
    if (n.output_size() < 1 || n.output(0).empty() || n.input_size() < 1) continue;
    const OpInputs in{
        [&](int k) -> const TypeInfo* { return k < n.input_size() && !n.input(k).empty() ? type(n.input(k)) : nullptr; },
        [&](int k) -> const Value* {
          return k < n.input_size() && !n.input(k).empty() ? inferred.known(n.input(k)) : nullptr;
        }};
    const std::optional<OpTypes> t = refined_op_types(n, in, path + ": " + node_label(n, i));
    if (!t) continue;
    for (size_t k = 0; k < t->outputs.size() && k < static_cast<size_t>(n.output_size()); ++k) {
      const std::string& name = n.output(static_cast<int>(k));
      if (name.empty() || !t->outputs[k]) continue;
      const TypeInfo& computed = *t->outputs[k];
      if (t->replaces) replaced.insert(name);
      const TypeInfo* now = type(name);
      auto it = refined.find(name);
      if (it != refined.end() && it->second.dims == computed.dims && it->second.elem_type == computed.elem_type)
        continue;
      if (!t->replaces && now && (now->known() || (now->has_shape && now->dims == computed.dims))) continue;
      TypeInfo out = computed;
      if (now && now->elem_type && !t->replaces) out.elem_type = now->elem_type;
      refined[name] = out;
      changed = true;
    }
  }
  return changed;
}

// Each refined type into the graph (main or body) whose node produces that tensor.
void add_value_info(onnx::GraphProto* g, const TypeMap& refined) {
  std::vector<std::pair<std::string, TypeInfo>> here;
  for (auto& n : *g->mutable_node()) {
    for (const auto& out : n.output())
      if (auto it = refined.find(out); it != refined.end()) here.emplace_back(out, it->second);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) add_value_info(a.mutable_g(), refined);
      for (auto& sub : *a.mutable_graphs()) add_value_info(&sub, refined);
    }
  }
  for (const auto& [name, t] : here) {
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

// One pass of fold_node (fold_split for Split) over `nodes`: every output not known yet
// whose node folds is given to `record(name, value)`; true when one was. `value(name)` and
// `type(name)` look a tensor up (nullptr when unknown).
template <class ValueOf, class TypeOf, class Record>
bool fold_pass(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, ValueOf value, TypeOf type,
               Record record) {
  bool changed = false;
  for (const auto& n : nodes) {
    if (n.output_size() < 1 || n.output(0).empty() || value(n.output(0))) continue;
    if (n.output_size() > 1 && n.op_type() != "Split") continue;
    std::vector<const Value*> in;
    std::vector<const TypeInfo*> types;
    for (const auto& name : n.input()) {
      in.push_back(value(name));
      types.push_back(type(name));
    }
    if (n.op_type() == "Split") {  // the one multi-output op folded (pads split from one constant)
      if (auto parts = fold_split(n, in))
        for (int k = 0; k < n.output_size(); ++k)
          if (!n.output(k).empty()) {
            record(n.output(k), std::move((*parts)[k]));
            changed = true;
          }
    } else if (auto v = fold_node(n, in, types)) {
      record(n.output(0), std::move(*v));
      changed = true;
    }
  }
  return changed;
}

// fold_pass over every body of `g`'s nodes (recursively), with the types of the body and of
// every scope around it (`scopes`, innermost last) and the body's initializers; outer
// values are read from `values`, body values kept in `body_values`.
bool fold_bodies(const onnx::GraphProto& g, const Values& values, std::vector<const TypeMap*>& scopes,
                 Values& body_values) {
  bool changed = false;
  for (const auto& n : g.node())
    for (const onnx::GraphProto* body : node_bodies(n)) {
      TypeMap types;
      collect_types(*body, types);
      for (const auto& t : body->initializer())
        if (!body_values.count(t.name()))
          if (auto v = value_of(t)) body_values[t.name()] = *v;
      std::set<std::string> inputs;  // a Loop's iteration count, condition, carried values
      for (const auto& i : body->input()) inputs.insert(i.name());
      auto value = [&](const std::string& name) -> const Value* {
        if (inputs.count(name)) return nullptr;  // differs per run of the body
        if (auto it = body_values.find(name); it != body_values.end()) return &it->second;
        if (auto it = values.find(name); it != values.end()) return &it->second;
        return nullptr;
      };
      scopes.push_back(&types);
      auto type = [&](const std::string& name) { return find_type(scopes, name); };
      changed |= fold_pass(body->node(), value, type,
                           [&](const std::string& name, Value v) { body_values[name] = std::move(v); });
      changed |= fold_bodies(*body, values, scopes, body_values);
      scopes.pop_back();
    }
  return changed;
}

// An If whose condition is known runs one branch, so its outputs have that branch's types,
// where ONNX inference merges both branches (to unknown dims when they differ, as in
// Silero VAD's rank checks: Equal(Gather(Shape(x)), 3) choosing Squeeze or Identity). In
// `g` and its bodies (as inferred); true when a type is new or changed.
bool refine_ifs(const onnx::GraphProto& g, const Inferred& inferred, TypeMap& refined) {
  bool changed = false;
  for (const auto& n : g.node()) {
    const std::string taken = n.op_type() == "If" ? inferred.taken_branch(n) : "";
    for (const auto& a : n.attribute()) {
      if (a.has_g()) changed |= refine_ifs(a.g(), inferred, refined);
      for (const auto& sub : a.graphs()) changed |= refine_ifs(sub, inferred, refined);
      if (taken.empty() || a.name() != taken || !a.has_g()) continue;
      TypeMap branch;
      collect_types(a.g(), branch);
      for (int k = 0; k < n.output_size() && k < a.g().output_size(); ++k) {
        auto it = branch.find(a.g().output(k).name());
        if (n.output(k).empty() || it == branch.end() || !it->second.known()) continue;
        TypeInfo& slot = refined[n.output(k)];
        if (slot.is_tensor && slot.dims == it->second.dims && slot.elem_type == it->second.elem_type) continue;
        slot = it->second;
        changed = true;
      }
    }
  }
  return changed;
}

}  // namespace

const Value* Inferred::known(const std::string& name) const {
  const std::string base = name.rfind(kConstPrefix, 0) == 0 ? name.substr(kConstPrefix.size()) : name;
  for (const auto* map : {&values, &body_values})
    for (const std::string* key : {&name, &base})
      if (auto it = map->find(*key); it != map->end()) return &it->second;
  return nullptr;
}

std::string Inferred::taken_branch(const onnx::NodeProto& n) const {
  if (n.op_type() != "If" || n.input_size() < 1) return "";
  const Value* c = known(n.input(0));
  if (!c || c->count() != 1) return "";
  return c->at(0) != 0 ? "then_branch" : "else_branch";
}

// A node that GuardedSchemas kept from inference is refused, named: the first node of the
// main graph or a body whose inferred input ranks break its operator's rule; else (ranks
// known to inference only) the operator and the reason.
void refuse_guarded(const onnx::GraphProto& g, const GuardedSchemas& schemas, const std::string& path) {
  const std::map<std::string, std::string> refused = schemas.refused();
  if (refused.empty()) return;
  TypeMap types;  // of the graphs entered so far (names are unique across scopes)
  std::function<void(const onnx::GraphProto&)> visit = [&](const onnx::GraphProto& graph) {
    collect_types(graph, types);
    for (int k = 0; k < graph.node_size(); ++k) {
      const onnx::NodeProto& n = graph.node(k);
      if (refused.count(n.op_type()) && default_domain(n)) {
        const std::string why = rank_rule_violation(n.op_type(), [&](int i) {
          if (i >= n.input_size()) return -1;
          const auto it = types.find(n.input(i));
          return it != types.end() && it->second.has_shape ? static_cast<int>(it->second.dims.size()) : -1;
        });
        if (!why.empty()) throw InputError(path + ": " + node_label(n, k) + ": " + why);
      }
      for (const onnx::GraphProto* body : node_bodies(n)) visit(*body);
    }
  };
  visit(g);
  throw InputError(path + ": a " + refused.begin()->first + " node: " + refused.begin()->second);
}

Inferred infer_sizes(const onnx::ModelProto& bound, const std::string& path) {
  Inferred out;
  const onnx::ModelProto light = light_copy(bound);
  std::set<std::string> initializers;
  for (const auto& t : bound.graph().initializer()) {
    initializers.insert(t.name());
    if (auto v = value_of(t)) out.values[t.name()] = *v;
  }
  const auto& nodes = bound.graph().node();
  TypeMap refined;  // shapes memplan knows better than inference (Loop scan outputs, refine_ops)
  std::set<std::string> replaced;  // outputs of nodes whose type refine_ops replaces
  Values& body_values = out.body_values;  // names are unique across scopes
  const GuardedSchemas schemas;
  for (int round = 0; round < kMaxRounds; ++round) {
    out.model = rewired(light, out.values, body_values, initializers);
    add_value_info(out.model.mutable_graph(), refined);
    if (hide_from_inference(out.model.mutable_graph(), replaced) > 0) {
      auto* op = out.model.add_opset_import();  // inference wants every domain imported
      op->set_domain(kHiddenDomain);
      op->set_version(1);
    }
    try {
      onnx::shape_inference::InferShapes(out.model, &schemas, onnx::ShapeInferenceOptions(false, 0, true));
    } catch (const std::exception& e) {
      throw InputError(path + ": ONNX shape inference failed: " + e.what());
    }
    refuse_guarded(out.model.graph(), schemas, path);
    out.types.clear();
    collect_types(out.model.graph(), out.types);
    for (const auto& [name, v] : out.values) {  // computed values are exact
      TypeInfo& t = out.types[name];
      t.is_tensor = true;
      t.elem_type = v.type;
      t.has_shape = true;
      t.dims = v.dims;
    }
    bool changed = refine_loops(bound.graph(), out.model.graph(), out.values, out.types, refined);
    {
      std::vector<const TypeMap*> scopes{&out.types};
      changed |= refine_ops(out.model.graph(), out, scopes, refined, replaced, path);
    }
    changed |= refine_sequences(bound.graph(), out, refined, out.sequences, out.sequence_bytes, path);
    for (const auto& [name, t] : refined) out.types[name] = t;
    auto value = [&](const std::string& name) -> const Value* {
      auto it = out.values.find(name);
      return it == out.values.end() ? nullptr : &it->second;
    };
    auto type = [&](const std::string& name) -> const TypeInfo* {
      auto it = out.types.find(name);
      return it == out.types.end() ? nullptr : &it->second;
    };
    changed |= fold_pass(nodes, value, type, [&](const std::string& name, Value v) {
      out.types[name] = TypeInfo{true, v.type, true, v.dims};
      out.values[name] = std::move(v);
    });
    if (bound.ir_version() >= 4) {
      std::vector<const TypeMap*> scopes{&out.types};
      changed |= fold_bodies(out.model.graph(), out.values, scopes, body_values);
    }
    changed |= refine_ifs(out.model.graph(), out, refined);
    if (!changed) break;
  }
  return out;
}

}  // namespace memplan::onnx_fe
