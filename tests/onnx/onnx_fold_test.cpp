// The data-propagation evaluator (fold.cpp) against executed truth: every single-node model
// of libonnx-testdata's node/ folder whose op memplan evaluates is run on the inputs stored
// with it (test_data_set_0/input_K.pb); where memplan gives a value, it must equal the stored
// output exactly (dims and every element; floats within 1e-5 relative).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "frontend/onnx/internal.h"
#include "memplan/onnx.h"

namespace memplan::onnx_fe {
namespace {

namespace fs = std::filesystem;

std::optional<Value> read_value(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  onnx::TensorProto t;
  if (!in || !t.ParseFromIstream(&in)) return std::nullopt;
  return value_of(t);
}

bool same(const Value& a, const Value& b, std::string& why) {
  if (a.dims != b.dims) {
    why = "dims differ";
    return false;
  }
  if (a.is_real() != b.is_real()) {
    why = "element kind differs";
    return false;
  }
  for (int64_t k = 0; k < a.count(); ++k) {
    const double x = a.at(k), y = b.at(k);
    const bool ok = a.is_real() ? (std::isnan(x) && std::isnan(y)) || std::fabs(x - y) <= 1e-5 * std::max(1.0, std::fabs(y))
                                : a.int_at(k) == b.int_at(k);
    if (!ok) {
      why = "element " + std::to_string(k) + ": " + std::to_string(x) + " vs " + std::to_string(y);
      return false;
    }
  }
  return true;
}

TEST(OnnxFold, EvaluatorMatchesExecutedNodeTests) {
  const fs::path root = "/usr/share/libonnx-testdata/data/node";
  ASSERT_TRUE(fs::exists(root)) << "libonnx-testdata is not installed";
  int evaluated = 0, matched = 0;
  std::vector<std::string> mismatches;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root)) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    onnx::ModelProto m;
    std::ifstream in(dir / "model.onnx", std::ios::binary);
    if (!in || !m.ParseFromIstream(&in) || m.graph().node_size() != 1) continue;
    const onnx::NodeProto& n = m.graph().node(0);
    if (n.output_size() != 1) continue;
    std::vector<std::optional<Value>> values;
    std::vector<TypeInfo> types;
    bool readable = true;
    for (int k = 0; k < n.input_size(); ++k) {
      if (n.input(k).empty()) {
        values.emplace_back();
        types.emplace_back();
        continue;
      }
      auto v = read_value(dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb"));
      // The stored value must have the type the model declares (bfloat16 data is stored as
      // uint16 bits in some of these files).
      int32_t declared = 0;
      for (const auto& gi : m.graph().input())
        if (gi.name() == n.input(k)) declared = gi.type().tensor_type().elem_type();
      if (!v || v->type != declared) {
        readable = false;
        break;
      }
      types.push_back(TypeInfo{true, v->type, true, v->dims});
      values.push_back(std::move(v));
    }
    const auto expected = read_value(dir / "test_data_set_0" / "output_0.pb");
    if (!readable || !expected) continue;
    std::vector<const Value*> in_ptrs;
    std::vector<const TypeInfo*> type_ptrs;
    for (size_t k = 0; k < values.size(); ++k) {
      in_ptrs.push_back(values[k] ? &*values[k] : nullptr);
      type_ptrs.push_back(values[k] ? &types[k] : nullptr);
    }
    const auto got = fold_node(n, in_ptrs, type_ptrs);
    if (!got) continue;
    ++evaluated;
    std::string why;
    if (same(*got, *expected, why)) ++matched;
    else mismatches.push_back(dir.filename().string() + " (" + n.op_type() + "): " + why);
  }
  for (const auto& m : mismatches) std::printf("  mismatch: %s\n", m.c_str());
  std::printf("evaluator: %d node tests evaluated, %d equal to the executed output, %zu differ\n", evaluated,
              matched, mismatches.size());
  EXPECT_GT(evaluated, 150);
  EXPECT_TRUE(mismatches.empty());
}


// Split, the one multi-output op folded: every node/test_split_* model (equal parts, the
// split attribute or input, zero-size parts) against its stored outputs.
TEST(OnnxFold, SplitMatchesExecutedNodeTests) {
  const fs::path root = "/usr/share/libonnx-testdata/data/node";
  ASSERT_TRUE(fs::exists(root)) << "libonnx-testdata is not installed";
  int evaluated = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.path().filename().string().rfind("test_split_", 0) != 0) continue;
    onnx::ModelProto m;
    std::ifstream in(e.path() / "model.onnx", std::ios::binary);
    ASSERT_TRUE(in && m.ParseFromIstream(&in)) << e.path();
    const onnx::NodeProto& n = m.graph().node(0);
    std::vector<std::optional<Value>> values;
    for (int k = 0; k < n.input_size(); ++k)
      values.push_back(read_value(e.path() / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb")));
    std::vector<const Value*> ptrs;
    for (const auto& v : values) ptrs.push_back(v ? &*v : nullptr);
    const auto parts = fold_split(n, ptrs);
    ASSERT_TRUE(parts) << e.path().filename();
    ASSERT_EQ(static_cast<int>(parts->size()), n.output_size()) << e.path().filename();
    for (int k = 0; k < n.output_size(); ++k) {
      const auto expected = read_value(e.path() / "test_data_set_0" / ("output_" + std::to_string(k) + ".pb"));
      ASSERT_TRUE(expected) << e.path().filename();
      std::string why;
      EXPECT_TRUE(same((*parts)[k], *expected, why)) << e.path().filename() << " output " << k << ": " << why;
    }
    ++evaluated;
  }
  EXPECT_GE(evaluated, 7);
  // Parts that do not add up to the dim are not guessed.
  onnx::NodeProto n;
  n.set_op_type("Split");
  n.add_input("x");
  n.add_output("a");
  n.add_output("b");
  auto* split = n.add_attribute();
  split->set_name("split");
  split->set_type(onnx::AttributeProto::INTS);
  split->add_ints(1);
  split->add_ints(1);
  Value x;
  x.type = onnx::TensorProto::INT64;
  x.dims = {3};
  x.ints = {1, 2, 3};
  EXPECT_FALSE(fold_split(n, {&x}));
}

void add_value(onnx::ValueInfoProto* v, const std::string& name, int32_t type, std::vector<int64_t> dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(type);
  t->mutable_shape();  // a scalar: rank 0
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

// An output whose shape is left to inference.
void add_unshaped(onnx::ValueInfoProto* v, const std::string& name) {
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in,
                          std::vector<std::string> out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(out[0]);
  for (const auto& i : in) n->add_input(i);
  for (const auto& o : out) n->add_output(o);
  return n;
}

onnx::NodeProto* add_int64_constant(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> v,
                                    bool scalar = false) {
  auto* n = add_node(g, "Constant", {}, {name});
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  if (!scalar) a->mutable_t()->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) a->mutable_t()->add_int64_data(x);
  return n;
}

// An IR 8, opset 13 model whose graph has one input, x: float [1, 4].
onnx::ModelProto model_with_input_x() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  m.mutable_graph()->set_name("g");
  add_value(m.mutable_graph()->add_input(), "x", onnx::TensorProto::FLOAT, {1, 4});
  return m;
}

// The model saved to a temporary file and imported; warnings fail the test.
Graph import_model(const onnx::ModelProto& m, const std::string& tag) {
  const fs::path path = fs::temp_directory_path() / ("memplan_" + tag + "_" + std::to_string(::getpid()) + ".onnx");
  {
    std::ofstream out(path, std::ios::binary);
    EXPECT_TRUE(m.SerializeToOstream(&out));
  }
  std::vector<std::string> warnings;
  OnnxImportOptions o;
  o.warnings = &warnings;
  Graph graph = onnx_graph(path.string(), o);
  fs::remove(path);
  for (const std::string& w : warnings) ADD_FAILURE() << "warning: " << w;
  return graph;
}

int64_t bytes_of_tensor(const Graph& g, const std::string& name) {
  for (const Tensor& t : g.tensors)
    if (t.name == name) return t.bytes;
  ADD_FAILURE() << "no tensor " << name;
  return -2;
}

// Values computed inside an If's branches (a Pad whose pads are a Cast of a branch
// Constant, as Silero VAD's stft): without them ONNX inference leaves the Pad, and so the
// If's output, unsized. With them, both branches give [1, 8] and the If output is 32 bytes.
TEST(OnnxFold, ValuesInsideIfBranchesSizeTheBranches) {
  onnx::ModelProto m = model_with_input_x();
  auto* g = m.mutable_graph();
  add_value(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  auto branch = [&](const std::string& tag, std::vector<int32_t> pads) {
    onnx::GraphProto b;
    b.set_name(tag);
    auto* k = b.add_node();
    k->set_op_type("Constant");
    k->add_output(tag + "_p32");
    auto* a = k->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::INT32);
    a->mutable_t()->add_dims(4);
    for (int32_t p : pads) a->mutable_t()->add_int32_data(p);
    auto* cast = b.add_node();
    cast->set_op_type("Cast");
    cast->add_input(tag + "_p32");
    cast->add_output(tag + "_pads");
    auto* to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::INT64);
    auto* pad = b.add_node();
    pad->set_op_type("Pad");
    pad->add_input("x");
    pad->add_input(tag + "_pads");
    pad->add_output(tag + "_y");
    add_unshaped(b.add_output(), tag + "_y");
    return b;
  };
  auto* node = g->add_node();
  node->set_op_type("If");
  node->set_name("if");
  node->add_input("c");
  node->add_output("out");
  for (auto [name, pads] : {std::pair{"then_branch", std::vector<int32_t>{0, 0, 0, 4}},
                            std::pair{"else_branch", std::vector<int32_t>{0, 2, 0, 2}}}) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = branch(name, pads);
  }
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("out");
  relu->add_output("y");
  add_unshaped(g->add_output(), "y");
  const Graph graph = import_model(m, "if_body");
  EXPECT_EQ(bytes_of_tensor(graph, "out"), 32);
  EXPECT_EQ(bytes_of_tensor(graph, "y"), 32);
}

// An If whose condition is computed from shapes (Silero VAD's rank checks): its outputs
// take the taken branch's type, and its scratch counts only that branch. Here the then
// branch squeezes x [1, 4] to [4] (16 bytes) and the else branch concatenates it to
// [1, 8] (32 bytes); rank([1, 4]) == 2 takes the then branch.
TEST(OnnxFold, IfWithAKnownConditionTakesOneBranch) {
  onnx::ModelProto m = model_with_input_x();
  auto* g = m.mutable_graph();
  add_node(g, "Shape", {"x"}, {"s"});
  add_node(g, "Shape", {"s"}, {"rank"});
  add_int64_constant(g, "two", {2});
  add_node(g, "Equal", {"rank", "two"}, {"c1"});
  add_int64_constant(g, "zero", {0}, true);
  add_node(g, "Gather", {"c1", "zero"}, {"c"});
  auto* node = add_node(g, "If", {"c"}, {"out"});
  onnx::GraphProto then_b, else_b;
  then_b.set_name("then");
  add_int64_constant(&then_b, "axes", {0});
  add_node(&then_b, "Squeeze", {"x", "axes"}, {"then_y"});
  add_unshaped(then_b.add_output(), "then_y");
  else_b.set_name("else");
  add_node(&else_b, "Concat", {"x", "x"}, {"else_y"})->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(1);
    return a;
  }());
  add_unshaped(else_b.add_output(), "else_y");
  for (auto [name, body] : {std::pair{"then_branch", &then_b}, std::pair{"else_branch", &else_b}}) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = *body;
  }
  add_node(g, "Relu", {"out"}, {"y"});
  add_unshaped(g->add_output(), "y");
  const Graph graph = import_model(m, "if_known");
  EXPECT_EQ(bytes_of_tensor(graph, "out"), 16);
  EXPECT_EQ(bytes_of_tensor(graph, "y"), 16);
  for (const Operator& op : graph.ops)
    if (op.type == "If") EXPECT_EQ(op.scratch_bytes, 16) << "the then branch's Squeeze output only";
}

}  // namespace
}  // namespace memplan::onnx_fe
