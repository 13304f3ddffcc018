// The inferred ONNX model -> memplan::Graph: tensors with kinds and sizes, operators with
// their reads (bodies' outer references included), views, may-overwrite and body scratch.
#include <set>

#include "frontend/onnx/internal.h"
#include "memplan/io.h"

namespace memplan::onnx_fe {
namespace {

// Ops whose output is the same bytes as input 0 (no copy in ONNX runtimes). Transpose is
// not among them: runtimes copy to change the layout.
const std::set<std::string> kViewOps = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};

// Elementwise ops: an output of the same size and type as an input may be written over it.
const std::set<std::string> kElementwiseOps = {
    "Relu", "LeakyRelu", "PRelu", "Elu", "Selu", "Celu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh",
    "Softplus", "Softsign", "Clip", "Exp", "Log", "Neg", "Abs", "Sqrt", "Reciprocal", "Floor", "Ceil",
    "Round", "Sign", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
    "Atanh", "Not", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "And", "Or", "Xor",
    "Mod", "BitShift", "ThresholdedRelu", "Shrink", "Where", "Cast", "Mish", "Gelu"};

std::string shape_text(const TypeInfo& t) { return t.has_shape ? dims_text(t.dims) : "(rank unknown)"; }

struct Builder {
  const onnx::ModelProto& bound;
  const Inferred& inf;
  const std::string& path;
  const OnnxImportOptions& o;
  Graph g;
  std::unordered_map<std::string, int32_t> index;
  std::unordered_map<std::string, std::string> made_by;  // tensor -> node label

  int32_t add(const std::string& name, TensorKind kind) {
    auto [it, fresh] = index.emplace(name, static_cast<int32_t>(g.tensors.size()));
    if (fresh) {
      Tensor t;
      t.name = name;
      t.kind = kind;
      g.tensors.push_back(std::move(t));
    }
    return it->second;
  }

  std::string what(const std::string& name) const {
    auto it = made_by.find(name);
    if (it != made_by.end()) return "tensor '" + name + "' (output of " + it->second + ")";
    return "tensor '" + name + "'";
  }

  [[noreturn]] void no_type(const Tensor& t, const std::string& w) const {
    if (t.kind == TensorKind::kInput)
      throw InputError(path + ": graph input '" + t.name + "' declares no type (an element type and a shape)");
    throw InputError(path + ": " + w + ": no type or shape could be inferred (an op ONNX 1.12 does not know?)");
  }

  // Refuses types that are not plain fixed-size tensors; reports unknown sizes.
  void size(Tensor& t) {
    auto it = inf.types.find(t.name);
    const std::string w = what(t.name);
    if (it != inf.types.end()) {
      const TypeInfo& ti = it->second;
      if (!ti.is_tensor) {
        // A sequence whose elements are known (sequences.cpp): one buffer of their bytes.
        if (auto s = inf.sequences.find(t.name); s != inf.sequences.end()) {
          int64_t sum = 0;
          for (const TypeInfo& e : s->second) {
            const int64_t b = bytes_of(e, path, w);
            if (b < 0) {
              unknown(w + " is a sequence with an element of unknown shape");
              return;
            }
            if (sum > (int64_t{1} << 61) - b) throw InputError(path + ": " + w + ": size overflows 64 bits");
            sum += b;
          }
          t.dtype = std::string("sequence<") + (s->second.empty() ? "" : dtype_name(s->second[0].elem_type)) + ">";
          t.shape = {static_cast<int64_t>(s->second.size())};
          t.bytes = sum;
          return;
        }
        if (auto b = inf.sequence_bytes.find(t.name); b != inf.sequence_bytes.end()) {
          t.dtype = "sequence";
          t.bytes = b->second;
          return;
        }
        if (ti.is_sequence) {  // like a tensor of unknown shape: left out, named
          unknown(w + " is a sequence whose elements are not known at import");
          return;
        }
        if (ti.is_other)
          throw InputError(path + ": " + w + ": a map or an optional value, not a tensor or sequence (unsupported)");
        no_type(t, w);
      }
      if (ti.elem_type != 0 && element_bits(ti.elem_type) == 0)
        throw InputError(path + ": " + w + ": element type " + dtype_name(ti.elem_type) + " has no fixed size (unsupported)");
      if (ti.elem_type == 0 && !ti.has_shape)
        no_type(t, w);
      t.dtype = dtype_name(ti.elem_type);
      t.shape = ti.has_shape ? ti.dims : std::vector<int64_t>{};
      t.bytes = bytes_of(ti, path, w);
      if (t.bytes >= 0) return;
      unknown(w + " has unknown shape " + shape_text(ti) + (ti.elem_type == 0 ? " and element type" : ""));
      return;
    }
    no_type(t, w);
  }

  // False once every graph input is sized: a size still unknown then depends on values
  // known only at run time, and binding dims cannot help (the advice said to).
  bool inputs_unbound = true;

  void unknown(const std::string& message) {
    const std::string m = path + ": " + message;
    if (o.strict) throw InputError(m + " (--strict)");
    warn(o, m + (inputs_unbound ? "; left out of the plan (bind dims with --dim NAME=VALUE or --input NAME=SHAPE)"
                                : "; left out of the plan (every input is sized: it depends on values known only at "
                                  "run time, e.g. after NonZero or TopK)"));
  }

  // Bytes of one run of a body (its nodes' outputs and nested bodies); names the tensors of
  // unknown size in `unknown_names`.
  int64_t body_bytes(const onnx::GraphProto& body, std::vector<std::string>& unknown_names) {
    TypeMap types;
    collect_types(body, types);
    int64_t sum = 0;
    for (const auto& n : body.node()) {
      if (n.op_type() == "Constant") continue;  // constants, not temporaries
      for (const auto& out : n.output()) {
        if (out.empty()) continue;
        auto it = types.find(out);
        const int64_t b = it == types.end() ? -1 : bytes_of(it->second, path, "tensor '" + out + "'");
        if (b < 0) unknown_names.push_back(out);
        else sum += b;
      }
      sum += node_scratch(n, unknown_names);
    }
    return sum;
  }

  // The stream a node asks for (graph_streams.h): an int attribute "memplan_stream"; -1
  // when absent. (This libonnx's NodeProto has no metadata_props.)
  static int32_t node_stream(const onnx::NodeProto& n, const std::string& label) {
    for (const auto& a : n.attribute())
      if (a.name() == "memplan_stream") {
        if (a.type() != onnx::AttributeProto::INT) throw InputError(label + ": attribute 'memplan_stream' must be an int");
        if (a.i() < 0 || a.i() >= 64)
          throw InputError(label + ": attribute 'memplan_stream' = " + std::to_string(a.i()) + " is not in [0, 64)");
        return static_cast<int32_t>(a.i());
      }
    return -1;
  }

  // An If's larger branch (the taken one when its condition is known at import); a Loop's
  // or Scan's one iteration.
  int64_t node_scratch(const onnx::NodeProto& n, std::vector<std::string>& unknown_names) {
    int64_t most = 0;
    const std::string taken = inf.taken_branch(n);
    for (const auto& a : n.attribute()) {
      if (!taken.empty() && a.name() != taken) continue;
      if (a.has_g()) most = std::max(most, body_bytes(a.g(), unknown_names));
      for (const auto& sub : a.graphs()) most = std::max(most, body_bytes(sub, unknown_names));
    }
    return most;
  }

  // Per tensor: the last operator (graph order) that reads it; graph outputs never die.
  std::vector<int32_t> last_reader;

  void set_aliasing(Operator& op, int32_t index) {
    if (op.outputs.empty() || op.inputs.empty()) return;
    const Tensor& out = g.tensors[op.outputs[0]];
    if (out.bytes < 0) return;
    auto same = [&](int32_t pos) {
      const Tensor& in = g.tensors[op.inputs[pos]];
      return in.bytes == out.bytes && in.dtype == out.dtype;
    };
    if (kViewOps.count(op.type)) {
      const Tensor& in = g.tensors[op.inputs[0]];
      if (same(0) && (in.kind == TensorKind::kActivation || in.kind == TensorKind::kInput)) {
        op.view_of.assign(op.outputs.size(), -1);
        op.view_of[0] = 0;
      }
      return;
    }
    if (!kElementwiseOps.count(op.type) || out.kind != TensorKind::kActivation) return;
    // One position per output: an input that dies here in graph order if there is one.
    int32_t pick = -1;
    for (int32_t p = 0; p < static_cast<int32_t>(op.inputs.size()); ++p) {
      if (!same(p) || g.tensors[op.inputs[p]].kind != TensorKind::kActivation) continue;
      if (pick < 0 || (last_reader[op.inputs[p]] == index && last_reader[op.inputs[pick]] != index)) pick = p;
    }
    if (pick < 0) return;
    op.may_overwrite.assign(op.outputs.size(), -1);
    op.may_overwrite[0] = pick;
  }

  Graph build() {
    const onnx::GraphProto& main = bound.graph();
    const onnx::GraphProto& inferred_main = inf.model.graph();
    for (const auto& t : main.initializer()) add(t.name(), TensorKind::kWeight);
    for (const auto& v : main.input()) add(v.name(), TensorKind::kInput);
    inputs_unbound = std::any_of(main.input().begin(), main.input().end(), [&](const onnx::ValueInfoProto& v) {
      const auto it = inf.types.find(v.name());
      return it == inf.types.end() || !it->second.known();
    });
    for (int k = 0; k < main.node_size(); ++k) {
      const auto& n = main.node(k);
      const std::string label = node_label(n, k);
      if (folds(n)) {
        folded_nodes.insert(k);
        // An Identity of a weight is that weight (a runtime aliases it): a weight of its own
        // counted its bytes twice (resnet18 exported at opset 13: 16 of them, 15,360 bytes).
        if (n.op_type() == "Identity" && n.input_size() == 1 && n.output_size() == 1 && !n.output(0).empty()) {
          if (const auto it = index.find(n.input(0)); it != index.end()) {
            index[n.output(0)] = it->second;
            made_by[n.output(0)] = label;
            continue;
          }
        }
        for (const auto& out : n.output()) {
          if (out.empty()) continue;
          add(out, TensorKind::kWeight);
          made_by[out] = label;
        }
        continue;
      }
      Operator op;
      op.name = n.name().empty() ? n.op_type() + "#" + std::to_string(k) : n.name();
      op.type = n.op_type();
      std::set<std::string> direct;
      for (const auto& in : n.input()) {
        if (in.empty()) continue;
        direct.insert(in);
        op.inputs.push_back(input_index(in, label));
      }
      for (const auto& in : node_reads(n))
        if (!direct.count(in)) op.inputs.push_back(input_index(in, label));
      for (const auto& out : n.output()) {
        if (out.empty()) continue;
        op.outputs.push_back(add(out, TensorKind::kActivation));
        made_by[out] = label;
      }
      op.stream = node_stream(n, label);
      g.ops.push_back(std::move(op));
    }
    for (const auto& v : main.output()) {
      auto it = index.find(v.name());
      if (it == index.end())
        throw InputError(path + ": graph output '" + v.name() + "' is not produced by any node");
      Tensor& t = g.tensors[it->second];
      if (t.kind == TensorKind::kActivation) t.kind = TensorKind::kOutput;
    }
    for (Tensor& t : g.tensors) size(t);
    last_reader.assign(g.tensors.size(), -1);
    for (int32_t k = 0; k < static_cast<int32_t>(g.ops.size()); ++k)
      for (int32_t t : g.ops[k].inputs) last_reader[t] = k;
    // Operators with bodies (If, Loop, Scan): their bodies' temporaries are the scratch.
    int32_t op_index = 0;
    for (int k = 0; k < main.node_size(); ++k) {
      if (folded_nodes.count(k)) continue;
      Operator& op = g.ops[op_index];
      if (o.aliasing) set_aliasing(op, op_index);
      ++op_index;
      std::vector<std::string> unknown_names;
      op.scratch_bytes = node_scratch(inferred_main.node(k), unknown_names);
      if (unknown_names.empty()) continue;
      std::string names;
      for (size_t j = 0; j < unknown_names.size() && j < 5; ++j) names += (j ? ", '" : "'") + unknown_names[j] + "'";
      if (unknown_names.size() > 5) names += " and " + std::to_string(unknown_names.size() - 5) + " more";
      const std::string m = path + ": " + node_label(main.node(k), k) + ": body tensors of unknown size (" + names + ")";
      if (o.strict) throw InputError(m + ": cannot bound the node's scratch (--strict)");
      warn(o, m + "; the node's scratch counts only the sized ones");
    }
    finalize(g);
    return std::move(g);
  }

  // Nodes computed when the model is loaded, as runtimes fold them (onnxruntime's constant
  // folding): Constant nodes, nodes whose value memplan computed from static shapes and
  // constants (Shape of a sized tensor and the arithmetic on it), and deterministic nodes
  // reading only constants (an Identity or Transpose of an initializer). Their outputs are
  // weights; the nodes are not operators of the graph.
  std::set<int> folded_nodes;
  bool folds(const onnx::NodeProto& n) const {
    if (n.op_type() == "Constant") return true;
    if (n.output_size() == 1 && inf.values.count(n.output(0))) return true;
    if (n.op_type().rfind("Random", 0) == 0 || n.op_type() == "Multinomial" || n.op_type() == "Dropout")
      return false;
    // Control flow runs at run time even on constant inputs (a runtime does not fold nodes
    // with subgraphs): a Loop over initializers was a load-time weight and its 80 KiB scan
    // output was left out of the plan.
    if (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan") return false;
    const auto reads = node_reads(n);
    if (reads.empty()) return false;
    for (const auto& r : reads) {
      auto it = index.find(r);
      if (it == index.end() || g.tensors[it->second].kind != TensorKind::kWeight) return false;
    }
    return true;
  }

  int32_t input_index(const std::string& name, const std::string& label) {
    auto it = index.find(name);
    if (it == index.end())
      throw InputError(path + ": " + label + " reads '" + name +
                       "', which is not a graph input, an initializer or an earlier node's output");
    return it->second;
  }
};

}  // namespace

Graph build_graph(const onnx::ModelProto& bound, const Inferred& inferred, const std::string& path,
                  const OnnxImportOptions& options) {
  Builder b{bound, inferred, path, options, {}, {}, {}};
  return b.build();
}

}  // namespace memplan::onnx_fe
