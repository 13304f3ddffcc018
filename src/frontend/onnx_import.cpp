#include <fstream>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <unordered_map>
#include <unordered_set>

#include "memplan/io.h"
#include "memplan/onnx.h"

namespace memplan {
namespace {

// Bytes per element of an ONNX TensorProto data type (0 when unknown). Sub-byte types are
// rounded up per element count later.
int64_t element_bits(int32_t type) {
  using T = onnx::TensorProto;
  switch (type) {
    case T::FLOAT: case T::INT32: case T::UINT32: return 32;
    case T::DOUBLE: case T::INT64: case T::UINT64: case T::COMPLEX64: return 64;
    case T::COMPLEX128: return 128;
    case T::FLOAT16: case T::BFLOAT16: case T::INT16: case T::UINT16: return 16;
    case T::INT8: case T::UINT8: case T::BOOL: return 8;
    default: return 0;  // STRING and unknown types have no fixed size
  }
}

struct TensorInfo {
  int32_t elem_type = 0;
  const onnx::TensorShapeProto* shape = nullptr;
};

int64_t tensor_bytes(const std::string& file, const std::string& name, const TensorInfo& t,
                     const OnnxImportOptions& o) {
  const int64_t bits = element_bits(t.elem_type);
  if (bits == 0)
    throw InputError(file + ": tensor '" + name + "': element type " + std::to_string(t.elem_type) +
                     " has no fixed size (a string, sequence, map or optional value is not a plain tensor)");
  if (!t.shape)
    throw InputError(file + ": tensor '" + name + "': shape unknown (not declared and not inferable)");
  __int128 count = 1;
  for (const auto& d : t.shape->dim()) {
    int64_t v;
    if (d.has_dim_value()) {
      v = d.dim_value();
    } else if (d.has_dim_param() && o.dims.count(d.dim_param())) {
      v = o.dims.at(d.dim_param());
    } else {
      v = o.default_dim;
    }
    if (v < 0) throw InputError(file + ": tensor '" + name + "': negative dimension");
    count *= v;
    if (count > (static_cast<__int128>(1) << 60))
      throw InputError(file + ": tensor '" + name + "': size overflows 64 bits");
  }
  return static_cast<int64_t>((count * bits + 7) / 8);
}

void collect_types(const onnx::ValueInfoProto& v, std::unordered_map<std::string, TensorInfo>& out) {
  if (!v.type().has_tensor_type()) return;
  const auto& tt = v.type().tensor_type();
  TensorInfo info{tt.elem_type(), tt.has_shape() ? &tt.shape() : nullptr};
  out[v.name()] = info;
}

// Names a node reads, including outer-scope names referenced from its subgraphs.
void node_inputs(const onnx::NodeProto& n, std::unordered_set<std::string>& out) {
  for (const auto& in : n.input())
    if (!in.empty()) out.insert(in);
  for (const auto& attr : n.attribute()) {
    auto scan = [&](const onnx::GraphProto& g) {
      for (const auto& sub : g.node()) node_inputs(sub, out);
    };
    if (attr.has_g()) scan(attr.g());
    for (const auto& g : attr.graphs()) scan(g);
  }
}

}  // namespace

Problem import_onnx(const std::string& path, const OnnxImportOptions& o) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) throw InputError(path + ": not a valid ONNX model (protobuf parse failed)");
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& e) {
    throw InputError(path + ": ONNX shape inference failed: " + e.what());
  }
  const onnx::GraphProto& g = model.graph();
  std::unordered_map<std::string, TensorInfo> types;
  for (const auto& v : g.input()) collect_types(v, types);
  for (const auto& v : g.value_info()) collect_types(v, types);
  for (const auto& v : g.output()) collect_types(v, types);
  std::unordered_set<std::string> weights;
  for (const auto& init : g.initializer()) weights.insert(init.name());

  const int64_t steps = g.node_size();
  struct Life {
    int64_t start, last;
    bool weight;
  };
  std::unordered_map<std::string, Life> life;
  std::vector<std::string> order;  // first appearance, for stable buffer order
  auto touch = [&](const std::string& name, int64_t t, bool produce) {
    auto it = life.find(name);
    if (it == life.end()) {
      const bool w = weights.count(name) > 0;
      life.emplace(name, Life{produce ? t : 0, t, w});
      order.push_back(name);
      return;
    }
    it->second.last = std::max(it->second.last, t);
  };
  for (const auto& v : g.input())
    if (!weights.count(v.name())) touch(v.name(), 0, true);
  for (int64_t k = 0; k < steps; ++k) {
    const auto& node = g.node(static_cast<int>(k));
    std::unordered_set<std::string> reads;
    node_inputs(node, reads);
    for (const auto& name : reads) touch(name, k, false);
    for (const auto& out : node.output())
      if (!out.empty()) touch(out, k, true);
  }
  for (const auto& v : g.output()) touch(v.name(), std::max<int64_t>(steps - 1, 0), false);
  std::unordered_set<std::string> graph_outputs;
  for (const auto& v : g.output()) graph_outputs.insert(v.name());

  // Initializers carry their own dims and type.
  std::unordered_map<std::string, onnx::TensorShapeProto> weight_shapes;
  for (const auto& init : g.initializer()) {
    if (!o.include_weights || types.count(init.name())) continue;
    onnx::TensorShapeProto& shape = weight_shapes[init.name()];
    for (int64_t d : init.dims()) shape.add_dim()->set_dim_value(d);
    types[init.name()] = {init.data_type(), &shape};
  }

  Problem p;
  for (const std::string& name : order) {
    const Life& l = life.at(name);
    if (l.weight && !o.include_weights) continue;
    TensorInfo info;
    if (auto it = types.find(name); it != types.end()) info = it->second;
    const int64_t bytes = tensor_bytes(path, name, info, o);
    if (bytes == 0) continue;  // empty tensors need no memory
    Buffer b;
    b.id = name;
    b.start = l.weight ? 0 : l.start;
    const bool whole_run = l.weight || graph_outputs.count(name);
    b.end = whole_run ? std::max<int64_t>(steps, l.last + 1) : l.last + 1;
    b.size = bytes;
    b.alignment = o.alignment;
    p.buffers.push_back(std::move(b));
  }
  check_problem(p, path);
  return p;
}

}  // namespace memplan
