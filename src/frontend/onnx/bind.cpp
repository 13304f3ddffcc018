// Reading an ONNX model and binding its symbolic dims before shape inference.
#include <onnx/defs/schema.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <queue>
#include <sstream>

#include "frontend/onnx/internal.h"
#include "memplan/io.h"

namespace memplan::onnx_fe {

std::string node_label(const onnx::NodeProto& n, int index) {
  if (!n.name().empty()) return "node '" + n.name() + "' (" + n.op_type() + ")";
  return "node #" + std::to_string(index) + " (" + n.op_type() + ")";
}

void warn(const OnnxImportOptions& o, const std::string& message) {
  if (o.warnings) o.warnings->push_back(message);
  else std::cerr << "memplan: warning: " << message << "\n";
}

namespace {

void body_refs(const onnx::GraphProto& g, std::vector<const std::set<std::string>*>& scopes,
               std::set<std::string>& out) {
  std::set<std::string> local;
  for (const auto& v : g.input()) local.insert(v.name());
  for (const auto& t : g.initializer()) local.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) local.insert(o);
  scopes.push_back(&local);
  auto defined = [&](const std::string& name) {
    for (const auto* s : scopes)
      if (s->count(name)) return true;
    return false;
  };
  for (const auto& n : g.node()) {
    for (const auto& in : n.input())
      if (!in.empty() && !defined(in)) out.insert(in);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) body_refs(a.g(), scopes, out);
      for (const auto& sub : a.graphs()) body_refs(sub, scopes, out);
    }
  }
  // A body's outputs may name outer values directly (an If branch returning an outer tensor).
  for (const auto& v : g.output())
    if (!defined(v.name())) out.insert(v.name());
  scopes.pop_back();
}

// Every TypeProto's shape in a graph and its bodies, for binding dims.
void for_each_shape(onnx::GraphProto* g, const std::function<void(onnx::TensorShapeProto*)>& f) {
  auto visit = [&](onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
      f(v.mutable_type()->mutable_tensor_type()->mutable_shape());
  };
  for (auto& v : *g->mutable_input()) visit(v);
  for (auto& v : *g->mutable_output()) visit(v);
  for (auto& v : *g->mutable_value_info()) visit(v);
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) for_each_shape(a.mutable_g(), f);
      for (auto& sub : *a.mutable_graphs()) for_each_shape(&sub, f);
    }
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "none" : out;
}

void bind_dims(onnx::ModelProto& m, const std::string& path, const OnnxImportOptions& o) {
  onnx::GraphProto* g = m.mutable_graph();
  std::set<std::string> params, initializers, input_names;
  for_each_shape(g, [&](onnx::TensorShapeProto* s) {
    for (const auto& d : s->dim())
      if (d.has_dim_param() && !d.dim_param().empty()) params.insert(d.dim_param());
  });
  for (const auto& t : g->initializer()) initializers.insert(t.name());
  for (const auto& v : g->input())
    if (!initializers.count(v.name())) input_names.insert(v.name());

  std::map<std::string, int64_t> bind;
  for (const auto& [name, value] : o.dims) {
    if (!params.count(name))
      throw InputError(path + ": --dim '" + name + "': the model has no symbolic dimension of that name (it has: " +
                       join(params) + ")");
    if (value < 0) throw InputError(path + ": --dim '" + name + "': negative value");
    bind[name] = value;
  }
  for (const auto& [name, shape] : o.inputs) {
    if (!input_names.count(name))
      throw InputError(path + ": --input '" + name + "': the model has no graph input of that name (it has: " +
                       join(input_names) + ")");
    for (auto& v : *g->mutable_input()) {
      if (v.name() != name) continue;
      if (!v.type().has_tensor_type())
        throw InputError(path + ": --input '" + name + "': the input is not a tensor");
      auto* shp = v.mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shp->dim_size() != 0 && shp->dim_size() != static_cast<int>(shape.size()))
        throw InputError(path + ": --input '" + name + "': rank " + std::to_string(shape.size()) +
                         " given, the model declares rank " + std::to_string(shp->dim_size()));
      if (shp->dim_size() == 0)
        for (size_t k = 0; k < shape.size(); ++k) shp->add_dim();
      for (size_t k = 0; k < shape.size(); ++k) {
        auto* d = shp->mutable_dim(static_cast<int>(k));
        if (d->has_dim_value() && d->dim_value() != shape[k])
          throw InputError(path + ": --input '" + name + "': dim " + std::to_string(k) + " is " +
                           std::to_string(shape[k]) + ", the model declares " + std::to_string(d->dim_value()));
        if (d->has_dim_param() && !d->dim_param().empty()) {
          auto [it, fresh] = bind.emplace(d->dim_param(), shape[k]);
          if (!fresh && it->second != shape[k])
            throw InputError(path + ": --input '" + name + "': dim '" + d->dim_param() + "' is " +
                             std::to_string(shape[k]) + " here but " + std::to_string(it->second) + " elsewhere");
        }
        d->set_dim_value(shape[k]);
      }
    }
  }
  for_each_shape(g, [&](onnx::TensorShapeProto* s) {
    for (auto& d : *s->mutable_dim())
      if (d.has_dim_param())
        if (auto it = bind.find(d.dim_param()); it != bind.end()) d.set_dim_value(it->second);
  });
  if (!o.default_dim) return;
  if (*o.default_dim < 1) throw InputError(path + ": --default-dim must be at least 1");
  for (auto& v : *g->mutable_input()) {
    if (initializers.count(v.name()) || !v.type().has_tensor_type()) continue;
    auto* shp = v.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int k = 0; k < shp->dim_size(); ++k) {
      auto* d = shp->mutable_dim(k);
      if (d->has_dim_value()) continue;
      warn(o, path + ": graph input '" + v.name() + "' dim " + std::to_string(k) +
                  (d->dim_param().empty() ? "" : " ('" + d->dim_param() + "')") + " set to the default " +
                  std::to_string(*o.default_dim));
      d->set_dim_value(*o.default_dim);
    }
  }
}

// Kahn's algorithm by smallest index: the model's order where it is already topological.
void sort_nodes(onnx::GraphProto* g, const std::string& path) {
  const int n = g->node_size();
  std::unordered_map<std::string, int> producer;
  for (int k = 0; k < n; ++k)
    for (const auto& o : g->node(k).output()) {
      if (o.empty()) continue;
      if (!producer.emplace(o, k).second)
        throw InputError(path + ": tensor '" + o + "' is produced twice (by " +
                         node_label(g->node(producer[o]), producer[o]) + " and " + node_label(g->node(k), k) + ")");
    }
  std::vector<std::vector<int>> users(n);
  std::vector<int> pending(n, 0);
  for (int k = 0; k < n; ++k)
    for (const auto& in : node_reads(g->node(k)))
      if (auto it = producer.find(in); it != producer.end()) {
        users[it->second].push_back(k);
        ++pending[k];
      }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int k = 0; k < n; ++k)
    if (pending[k] == 0) ready.push(k);
  std::vector<int> order;
  while (!ready.empty()) {
    const int k = ready.top();
    ready.pop();
    order.push_back(k);
    for (int u : users[k])
      if (--pending[u] == 0) ready.push(u);
  }
  if (static_cast<int>(order.size()) < n) {
    for (int k = 0; k < n; ++k) {
      if (pending[k] == 0) continue;
      for (const auto& in : node_reads(g->node(k)))
        if (auto it = producer.find(in); it != producer.end() && pending[it->second] > 0)
          throw InputError(path + ": cyclic graph: " + node_label(g->node(k), k) + " reads '" + in +
                           "', produced by " + node_label(g->node(it->second), it->second) +
                           ", which depends on it");
    }
  }
  bool same = true;
  for (int k = 0; k < n; ++k) same = same && order[k] == k;
  if (same) return;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (int k : order) *sorted.Add() = g->node(k);
  g->mutable_node()->Swap(&sorted);
}

}  // namespace

std::set<std::string> outer_refs(const onnx::GraphProto& body) {
  std::vector<const std::set<std::string>*> scopes;
  std::set<std::string> out;
  body_refs(body, scopes, out);
  return out;
}

std::vector<const onnx::GraphProto*> node_bodies(const onnx::NodeProto& n) {
  std::vector<const onnx::GraphProto*> bodies;
  for (const auto& a : n.attribute()) {
    if (a.has_g()) bodies.push_back(&a.g());
    for (const auto& sub : a.graphs()) bodies.push_back(&sub);
  }
  return bodies;
}

std::vector<std::string> node_reads(const onnx::NodeProto& n) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& in : n.input())
    if (!in.empty() && seen.insert(in).second) out.push_back(in);
  for (const auto* b : node_bodies(n))
    for (const auto& r : outer_refs(*b))
      if (seen.insert(r).second) out.push_back(r);
  return out;
}

// ONNX 1.12's inference reads constant tensors' raw bytes (ParseData) as whole elements
// and copies all of them into a vector sized by whole elements: raw data whose length is not
// what the dims and type ask for made it write past that vector (a fuzz find: a Resize's
// sizes Constant with 7 raw bytes crashed the import). Such a tensor is refused by name
// before inference. Tensors without data (a model whose weights were stripped) pass: only
// their dims are used.
void check_raw_data(const onnx::TensorProto& t, const std::string& path, const std::string& what) {
  if (!t.has_raw_data() || t.raw_data().empty()) return;
  const int64_t bits = element_bits(t.data_type());
  if (bits == 0) return;
  __int128 count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) throw InputError(path + ": " + what + ": negative dim " + std::to_string(d));
    count *= d;
    if (count > (static_cast<__int128>(1) << 62)) break;  // cannot match any raw data
  }
  const __int128 want = (count * bits + 7) / 8;
  if (want == static_cast<__int128>(t.raw_data().size())) return;
  throw InputError(path + ": " + what + ": raw data of " + std::to_string(t.raw_data().size()) + " bytes, but " +
                   dtype_name(t.data_type()) + " " + dims_text({t.dims().begin(), t.dims().end()}) + " needs " +
                   (count > (static_cast<__int128>(1) << 62) ? std::string("far more")
                                                              : std::to_string(static_cast<int64_t>(want))));
}

// Checks, before inference, what ONNX 1.12's inference crashes on: raw tensor data of the
// wrong length (check_raw_data) and malformed Einsum equations (einsum_syntax_error).
void check_tensors(const onnx::GraphProto& g, const std::string& path) {
  for (const auto& t : g.initializer()) check_raw_data(t, path, "initializer '" + t.name() + "'");
  for (int k = 0; k < g.node_size(); ++k) {
    const auto& n = g.node(k);
    if (const auto* eq = attr(n, "equation"); eq && n.op_type() == "Einsum" && default_domain(n))
      if (const std::string why = einsum_syntax_error(eq->s(), static_cast<size_t>(n.input_size())); !why.empty())
        throw InputError(path + ": " + node_label(n, k) + ": equation '" + eq->s() + "': " + why);
    for (const auto& a : n.attribute()) {
      const std::string what = "attribute '" + a.name() + "' of " + node_label(n, k);
      if (a.has_t()) check_raw_data(a.t(), path, what);
      for (const auto& t : a.tensors()) check_raw_data(t, path, what);
      if (a.has_g()) check_tensors(a.g(), path);
      for (const auto& sub : a.graphs()) check_tensors(sub, path);
    }
  }
}

// Checks, before inference, that every node of the default domain carries the attributes its
// schema (at the model's opset) requires. ONNX 1.12's inference does not check this and some
// of its inference functions read a required attribute through a null pointer: a Scan without
// `num_scan_inputs` crashed the import with SIGSEGV (a fuzz find). An ONNX checker refuses
// such a model too, so no valid model is refused here.
void check_required_attributes(const onnx::GraphProto& g, int64_t opset, const std::string& path) {
  for (int k = 0; k < g.node_size(); ++k) {
    const auto& n = g.node(k);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) check_required_attributes(a.g(), opset, path);
      for (const auto& sub : a.graphs()) check_required_attributes(sub, opset, path);
    }
    if (!default_domain(n)) continue;
    const onnx::OpSchema* schema =
        onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(std::min<int64_t>(opset, 1 << 30)), "");
    if (!schema) continue;
    for (const auto& [name, a] : schema->attributes())
      if (a.required && !attr(n, name.c_str()))
        throw InputError(path + ": " + node_label(n, k) + ": required attribute '" + name + "' is missing");
  }
}

// Refuses a node (or a body inside it) that reads a name no node, graph input or
// initializer defines: invalid ONNX, and ONNX 1.12's inference of some ops then reads the
// missing input's type through a null pointer (a Shape of an undefined tensor crashed the
// import with SIGSEGV: a fuzz find).
void check_reads_defined(const onnx::GraphProto& g, const std::string& path) {
  const std::set<std::string> undefined = outer_refs(g);
  if (undefined.empty()) return;
  for (int k = 0; k < g.node_size(); ++k)
    for (const auto& in : node_reads(g.node(k)))
      if (undefined.count(in))
        throw InputError(path + ": " + node_label(g.node(k), k) + " reads '" + in +
                         "', which no node, graph input or initializer defines");
  // Else only graph outputs are undefined: build_graph names them ("not produced by any node").
}

int64_t default_opset(const onnx::ModelProto& m) {
  for (const auto& op : m.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") return op.version();
  return -1;
}

onnx::ModelProto read_model(const std::string& path, const OnnxImportOptions& o) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string bytes = buf.str();
  onnx::ModelProto m;
  if (bytes.empty() || !m.ParseFromString(bytes))
    throw InputError(path + ": not a valid ONNX model (protobuf parse failed: truncated or not ONNX)");
  if (!m.has_graph() || (m.graph().node_size() == 0 && m.graph().output_size() == 0))
    throw InputError(path + ": not a valid ONNX model (no graph)");
  for (const auto& v : m.graph().output())
    if (v.name().empty()) throw InputError(path + ": a graph output has no name");
  check_tensors(m.graph(), path);
  if (const int64_t opset = default_opset(m); opset > 0) check_required_attributes(m.graph(), opset, path);
  check_reads_defined(m.graph(), path);
  bind_dims(m, path, o);
  sort_nodes(m.mutable_graph(), path);
  return m;
}

}  // namespace memplan::onnx_fe

namespace memplan {

std::vector<int64_t> parse_onnx_shape(const std::string& text, const std::string& what) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = text.find_first_of("x,", pos);
    const std::string part = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    size_t used = 0;
    int64_t v = -1;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || v < 0)
      throw InputError(what + ": '" + text + "': expected dims like 1x3x640x640 (non-negative integers)");
    out.push_back(v);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out;
}

}  // namespace memplan
