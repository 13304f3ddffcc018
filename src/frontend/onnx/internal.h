// Internal to the ONNX front end: the steps of onnx_graph (onnx.h), one file each.
//   read_model (bind.cpp)   file -> ModelProto, nodes topologically sorted, dims bound
//   infer_sizes (infer.cpp) shape inference + data propagation (fold.cpp) to a fixed point
//   build_graph (build.cpp) the inferred model -> memplan::Graph
#pragma once

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "memplan/io.h"
#include "memplan/onnx.h"

namespace memplan::onnx_fe {

// "node 'name' (Op)", or "node #k (Op)" for unnamed nodes.
std::string node_label(const onnx::NodeProto& n, int index);

// Emits a warning per the options (collected or stderr).
void warn(const OnnxImportOptions& o, const std::string& message);

// Names a body graph (If/Loop/Scan attribute, nested) reads from outside itself.
std::set<std::string> outer_refs(const onnx::GraphProto& body);
// The body graphs of a node's attributes (If branches, a Loop or Scan body), in order.
std::vector<const onnx::GraphProto*> node_bodies(const onnx::NodeProto& n);
// Every name a node reads: its inputs and its bodies' outer references.
std::vector<std::string> node_reads(const onnx::NodeProto& n);

// Reads the model, checks and binds options.dims / options.inputs / default_dim into the
// graph's declared types (inputs, outputs, value_info, bodies), sorts the main graph's nodes
// topologically (InputError on a cycle).
onnx::ModelProto read_model(const std::string& path, const OnnxImportOptions& options);

// A small constant tensor value known at import time (shapes and the like).
struct Value {
  int32_t type = 0;             // onnx::TensorProto::DataType
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;    // integer and bool types
  std::vector<double> reals;    // float types
  bool is_real() const;
  int64_t count() const;
  double at(int64_t k) const { return is_real() ? reals[k] : static_cast<double>(ints[k]); }
  // Reals out of int64's range (and NaN) read as 0 rather than invoking undefined behaviour.
  int64_t int_at(int64_t k) const {
    if (!is_real()) return ints[k];
    return reals[k] > -9.2e18 && reals[k] < 9.2e18 ? static_cast<int64_t>(reals[k]) : 0;
  }
};
constexpr int64_t kMaxFoldElements = 1 << 16;

std::optional<Value> value_of(const onnx::TensorProto& t);
onnx::TensorProto to_tensor(const Value& v, const std::string& name);

// Static type info of a tensor: element type and dims (-1 = unknown); rank unknown when
// !has_shape.
struct TypeInfo {
  bool is_tensor = false;  // false for sequences, maps, optionals
  int32_t elem_type = 0;
  bool has_shape = false;
  std::vector<int64_t> dims;
  bool is_sequence = false;  // a sequence (is_tensor false)
  bool is_other = false;     // a map, an optional or a sparse tensor (is_tensor false)
  bool known() const;
};
using TypeMap = std::unordered_map<std::string, TypeInfo>;
TypeInfo type_info(const onnx::TypeProto& t);
// Types of a graph's inputs, outputs, value_info and initializers (Constant outputs too).
void collect_types(const onnx::GraphProto& g, TypeMap& out);

// Evaluates one node whose inputs are known values (nullptr where unknown) and whose input
// types are `types`. nullopt when the op is not evaluated here, an input is missing, or the
// result would be larger than kMaxFoldElements.
std::optional<Value> fold_node(const onnx::NodeProto& n, const std::vector<const Value*>& in,
                               const std::vector<const TypeInfo*>& types);

// Split of a known value: one value per output; nullopt as fold_node.
std::optional<std::vector<Value>> fold_split(const onnx::NodeProto& n, const std::vector<const Value*>& in);

// The output dims of an Einsum with this equation over inputs of these dims (-1: unknown;
// einsum.cpp gives the rules). Throws std::invalid_argument, with the reason, when the
// equation does not parse or does not fit the inputs.
std::vector<int64_t> einsum_dims(const std::string& equation, const std::vector<std::vector<int64_t>>& inputs);
// Why an Einsum equation for `inputs` operands does not parse ("" when it does). Checked
// when the model is read, so that a malformed equation is refused by name at once (ONNX
// 1.12's own Einsum inference, which crashed on some, is never run: hide_from_inference).
std::string einsum_syntax_error(const std::string& equation, size_t inputs);

// The domain that nodes hidden from ONNX 1.12's inference are moved to, in the copy given to
// it (infer.cpp, hide_from_inference); they stay default-domain ops for memplan.
inline const std::string kHiddenDomain = "memplan.replaced";

// A node's inputs as refined_op_type reads them: input k's type and value (nullptr when the
// input is absent, its type unknown, or its value not known at import time).
struct OpInputs {
  std::function<const TypeInfo*(int)> type;
  std::function<const Value*(int)> value;
};
struct OpTypes {
  std::vector<std::optional<TypeInfo>> outputs;  // by output index; nullopt: not computed
  bool replaces = false;  // replaces even complete types from ONNX inference (read by an older schema)
};
// Output types for the ops ONNX 1.12's inference leaves unknown or reads with an older schema
// (op_shapes.cpp lists them and their rules); nullopt for other ops or while an input they
// need is unknown. InputError, naming `where` (file and node), for attributes or values the
// op's specification rules out.
std::optional<OpTypes> refined_op_types(const onnx::NodeProto& n, const OpInputs& in, const std::string& where);

// Sequence values of the main graph, as lists of element types (sequences.cpp).
using Sequences = std::unordered_map<std::string, std::vector<TypeInfo>>;

struct Inferred;
// Follows the main graph's sequences element by element (sequences.cpp); refines what
// SequenceAt and ConcatFromSequence return. True when something is new or changed.
// Also gives the total bytes of sequences whose elements are not known but whose size is
// (`bytes_only`: a SplitToSequence by split sizes given at run time holds its input's bytes).
bool refine_sequences(const onnx::GraphProto& g, const Inferred& inferred, TypeMap& refined, Sequences& seqs,
                      std::unordered_map<std::string, int64_t>& bytes_only, const std::string& path);

// Why a node of operator `op` whose input k has rank rank(k) (-1: unknown) breaks that
// operator's rank rule (guarded_schemas.cpp), or "" when it does not or has none.
std::string rank_rule_violation(const std::string& op, const std::function<int(int)>& rank);
// The schemas ONNX 1.12's inference is given: the registry's, with the inference of the
// operators that crash on inputs of unexpected rank guarded (guarded_schemas.cpp), and every
// node whose required input has no type skipped. A guarded node whose inputs break its
// operator's rank rule is skipped by inference, its reason kept.
class GuardedSchemas final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, int max_version,
                                  const std::string& domain = onnx::ONNX_DOMAIN) const override;
  // Why nodes were skipped, by operator (the first reason of each).
  std::map<std::string, std::string> refused() const;

 private:
  mutable std::mutex mu_, refused_mu_;
  mutable std::map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> guarded_;
  mutable std::map<std::string, std::string> refused_;
};

struct Inferred {
  onnx::ModelProto model;  // the model with inferred value_info (bodies too)
  TypeMap types;           // main-graph tensor types by name
  std::unordered_map<std::string, Value> values;  // tensors computed at import time
  std::unordered_map<std::string, Value> body_values;  // the same inside If/Loop/Scan bodies
  Sequences sequences;  // main-graph sequences whose elements are known
  std::unordered_map<std::string, int64_t> sequence_bytes;  // others whose total bytes are known
  // The value of a tensor (main graph or body) known at import time, or nullptr. Also
  // finds reads that inference saw rewired to a folded initializer.
  const Value* known(const std::string& name) const;
  // An If whose condition is known runs one branch: that branch's attribute name
  // ("then_branch" or "else_branch"), else "" (either may run).
  std::string taken_branch(const onnx::NodeProto& n) const;
};
// Shape inference and data propagation to a fixed point.
Inferred infer_sizes(const onnx::ModelProto& bound, const std::string& path);

Graph build_graph(const onnx::ModelProto& bound, const Inferred& inferred,
                  const std::string& path, const OnnxImportOptions& options);

// a + b for dims, extents and byte counts (each >= 0) from a model; InputError naming
// `where` when the sum passes 2^62 (fuzzed models carry such values).
inline int64_t add_extents(int64_t a, int64_t b, const std::string& where) {
  const __int128 sum = static_cast<__int128>(a) + b;
  if (sum > (static_cast<__int128>(1) << 62) || sum < -(static_cast<__int128>(1) << 62))
    throw InputError(where + ": an extent overflows (" + std::to_string(a) + " + " + std::to_string(b) + ")");
  return static_cast<int64_t>(sum);
}

// A node's attribute by name (nullptr if absent); an int attribute, or `def`; an ints
// attribute (nullopt if absent).
const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name);
int64_t attr_int(const onnx::NodeProto& n, const char* name, int64_t def);
std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& n, const char* name);
// A node of the default ONNX domain ("" or "ai.onnx").
inline bool default_domain(const onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }
// axis in [-rank, rank) made non-negative; false when out of range.
bool normalize_axis(int64_t& axis, int64_t rank);
// Multidirectional (numpy) broadcasting of shapes; a -1 (unknown) dim stays unknown unless
// another shape gives a size other than 1. nullopt when two known sizes other than 1 differ.
std::optional<std::vector<int64_t>> broadcast_dims(const std::vector<const std::vector<int64_t>*>& shapes);
// "[2, ?, 8]": dims as messages print them (? for unknown).
std::string dims_text(const std::vector<int64_t>& dims);
// Bytes of a tensor of this type; -1 when a dim or the element size is unknown. InputError
// (path: what: ...) when the element count passes 2^60.
int64_t bytes_of(const TypeInfo& t, const std::string& path, const std::string& what);

// Bits per element of a tensor element type; 0 when it has no fixed size (string, undefined).
int64_t element_bits(int32_t type);
const char* dtype_name(int32_t type);

}  // namespace memplan::onnx_fe
