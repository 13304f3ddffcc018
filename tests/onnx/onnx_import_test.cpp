// ONNX front end: models are built here with the protobuf API, so the test needs no files.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>

#include "memplan/io.h"
#include "memplan/onnx.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

void set_tensor_type(onnx::ValueInfoProto* v, const std::string& name,
                     std::vector<std::variant<int64_t, std::string>> dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (const auto& d : dims) {
    auto* dim = tt->mutable_shape()->add_dim();
    if (std::holds_alternative<int64_t>(d)) dim->set_dim_value(std::get<int64_t>(d));
    else dim->set_dim_param(std::get<std::string>(d));
  }
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in,
                          std::string out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

// An opset-13 model named `name`, its graph filled by `fill`, saved to a temporary file.
std::string save_model(const std::string& name, const std::function<void(onnx::GraphProto*)>& fill) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name(name);
  fill(g);
  const std::string path = ::testing::TempDir() + "memplan_" + name + ".onnx";
  std::ofstream out(path, std::ios::binary);
  m.SerializeToOstream(&out);
  return path;
}

// An initializer named `name` with dims `dims` (and `values` as float data, if any).
void add_initializer(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims,
                     const std::vector<float>& values = {}) {
  auto* w = g->add_initializer();
  w->set_name(name);
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) w->add_dims(d);
  for (float v : values) w->add_float_data(v);
}

// X -> Relu -> A -> Relu -> B; Add(A, B) -> C; Mul(C, W) -> Y (output). Only X, W and Y
// are declared, so A, B, C need shape inference.
std::string write_model(std::variant<int64_t, std::string> batch) {
  return save_model("tiny", [&](onnx::GraphProto* g) {
    set_tensor_type(g->add_input(), "X", {batch, int64_t{3}, int64_t{8}, int64_t{8}});
    add_initializer(g, "W", {1, 3, 1, 1}, {1.0f, 1.0f, 1.0f});
    add_node(g, "Relu", {"X"}, "A");
    add_node(g, "Relu", {"A"}, "B");
    add_node(g, "Add", {"A", "B"}, "C");
    add_node(g, "Mul", {"C", "W"}, "Y");
    set_tensor_type(g->add_output(), "Y", {batch, int64_t{3}, int64_t{8}, int64_t{8}});
  });
}

std::map<std::string, Buffer> by_id(const Problem& p) {
  std::map<std::string, Buffer> out;
  for (const Buffer& b : p.buffers) out[b.id] = b;
  return out;
}

TEST(OnnxImport, LifetimesFollowProducersAndLastConsumers) {
  const Problem p = import_onnx(write_model(int64_t{1}));
  auto b = by_id(p);
  ASSERT_EQ(b.size(), 5u);  // X, A, B, C, Y; the weight W is left out by default
  const int64_t bytes = 1 * 3 * 8 * 8 * 4;
  EXPECT_EQ(b["X"].start, 0);
  EXPECT_EQ(b["X"].end, 1);
  EXPECT_EQ(b["A"].start, 0);
  EXPECT_EQ(b["A"].end, 3);  // read by node 1 and node 2
  EXPECT_EQ(b["B"].start, 1);
  EXPECT_EQ(b["B"].end, 3);
  EXPECT_EQ(b["C"].start, 2);
  EXPECT_EQ(b["C"].end, 4);
  EXPECT_EQ(b["Y"].start, 3);
  EXPECT_EQ(b["Y"].end, 4);  // graph output: live to the end
  for (const char* n : {"X", "A", "B", "C", "Y"}) EXPECT_EQ(b[n].size, bytes) << n;
  SolveResult r = solve(p, "greedy", {});
  ASSERT_TRUE(r.solution);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
}

TEST(OnnxImport, SymbolicDimsWeightsAndAlignment) {
  OnnxImportOptions o;
  o.dims["N"] = 4;
  o.include_weights = true;
  o.alignment = 64;
  const Problem p = import_onnx(write_model(std::string("N")), o);
  auto b = by_id(p);
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b["A"].size, 4 * 3 * 8 * 8 * 4);
  EXPECT_EQ(b["W"].size, 3 * 4);
  EXPECT_EQ(b["W"].start, 0);
  EXPECT_EQ(b["W"].end, 4);
  EXPECT_EQ(b["A"].alignment, 64);
}

TEST(OnnxImport, BadFilesGiveClearErrors) {
  EXPECT_THROW(import_onnx("/nonexistent/model.onnx"), InputError);
  const std::string path = ::testing::TempDir() + "memplan_garbage.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    out << "this is not a protobuf \xff\xff\xff";
  }
  try {
    import_onnx(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
}

// A fuzz find: an initializer with a dim of 6.4e17 overflowed the element count that
// decides whether its data is kept for folding (UBSan: signed overflow in infer.cpp). Its
// product with the input's shape does not fit 64 bits either: a clear error naming the
// tensor, nothing undefined on the way (the sanitizer build runs this test).
TEST(OnnxImport, HugeInitializerDimsGiveAClearError) {
  const std::string path = save_model("huge_dims", [](onnx::GraphProto* g) {
    set_tensor_type(g->add_input(), "X", {int64_t{121}, int64_t{1}, int64_t{4}});
    add_initializer(g, "W", {121, 644533610971232750, 4});
    add_node(g, "Mul", {"X", "W"}, "Y");
    g->add_output()->set_name("Y");  // no type: inference gives the product's shape
  });
  try {
    import_onnx(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("overflows"), std::string::npos) << e.what();
  }
}

// A fuzz find: a Constant of int64 [2] with 7 bytes of raw data, read by a Resize as its
// sizes, made ONNX 1.12's inference copy 7 bytes into an empty vector (a crash, SIGSEGV).
// Raw data that does not match its dims and type is refused by name before inference.
TEST(OnnxImport, RawDataOfTheWrongLengthIsRefusedByName) {
  for (const size_t raw : {size_t{7}, size_t{24}}) {
    const std::string path = save_model("raw_" + std::to_string(raw), [&](onnx::GraphProto* g) {
      set_tensor_type(g->add_input(), "X", {int64_t{1}, int64_t{3}});
      auto* c = add_node(g, "Constant", {}, "shape");
      c->set_name("shape_const");
      auto* a = c->add_attribute();
      a->set_name("value");
      a->set_type(onnx::AttributeProto::TENSOR);
      a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
      a->mutable_t()->add_dims(2);
      a->mutable_t()->set_raw_data(std::string(raw, '\x01'));
      add_node(g, "Reshape", {"X", "shape"}, "Y");
      g->add_output()->set_name("Y");
    });
    try {
      import_onnx(path);
      FAIL() << "expected InputError";
    } catch (const InputError& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find("attribute 'value' of node 'shape_const' (Constant): raw data of " + std::to_string(raw) +
                       " bytes, but int64 [2] needs 16"),
                std::string::npos)
          << w;
    }
  }
}

// A fuzz find: a Scan without its required `num_scan_inputs` made ONNX 1.12's inference read
// the attribute through a null pointer (SIGSEGV). A node missing a required attribute of its
// schema is refused by name before inference.
TEST(OnnxImport, MissingRequiredAttributeIsRefusedByName) {
  const std::string path = save_model("scan_no_count", [&](onnx::GraphProto* g) {
    set_tensor_type(g->add_input(), "X", {int64_t{3}, int64_t{4}});
    auto* scan = add_node(g, "Scan", {"X"}, "Y");
    scan->set_name("the_scan");
    auto* a = scan->add_attribute();
    a->set_name("body");
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = a->mutable_g();
    set_tensor_type(body->add_input(), "x", {int64_t{4}});
    add_node(body, "Relu", {"x"}, "y");
    set_tensor_type(body->add_output(), "y", {int64_t{4}});
    g->add_output()->set_name("Y");
  });
  try {
    import_onnx(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": node 'the_scan' (Scan): required attribute 'num_scan_inputs' is missing"),
              std::string::npos)
        << e.what();
  }
}

// A fuzz find: a Shape (opset 15, with `end`) reading a name that nothing defines made ONNX
// 1.12's inference read the input's type through a null pointer (SIGSEGV). A node reading an
// undefined name is refused by name before inference, in the main graph and in a body.
TEST(OnnxImport, ReadOfAnUndefinedNameIsRefusedByName) {
  const std::string path = save_model("undefined_read", [&](onnx::GraphProto* g) {
    auto* shape = add_node(g, "Shape", {"x"}, "y");
    shape->set_name("the_shape");
    g->add_output()->set_name("y");
  });
  try {
    import_onnx(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": node 'the_shape' (Shape) reads 'x', which no node, graph input or "
                                                "initializer defines"),
              std::string::npos)
        << e.what();
  }
  const std::string in_body = save_model("undefined_in_body", [&](onnx::GraphProto* g) {
    set_tensor_type(g->add_input(), "c", {int64_t{1}});
    auto* branch = add_node(g, "If", {"c"}, "y");
    branch->set_name("the_if");
    for (const char* name : {"then_branch", "else_branch"}) {
      auto* a = branch->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::GRAPH);
      add_node(a->mutable_g(), "Relu", {"nowhere"}, std::string("r_") + name);
      set_tensor_type(a->mutable_g()->add_output(), std::string("r_") + name, {int64_t{2}});
    }
    g->add_output()->set_name("y");
  });
  try {
    import_onnx(in_body);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(": node 'the_if' (If) reads 'nowhere', which no node"), std::string::npos)
        << e.what();
  }
}

// A fuzz find: a ConvTranspose of a rank-2 input crashed ONNX 1.12's inference (SIGSEGV); a
// scan of every operator version found the same in Conv, ConvInteger, QLinearConv, MaxUnpool,
// STFT, Gemm-6 and the first RNN, GRU and LSTM. Their inference is guarded (guarded_schemas.cpp) with the ranks inference has
// reached, so a bad rank made by an earlier node (a Flatten before a Conv) is refused by
// name as well as a declared one.
TEST(OnnxImport, InputsOfTheWrongRankForAConvAreRefusedByName) {
  const std::string declared = save_model("convt_rank2", [&](onnx::GraphProto* g) {
    set_tensor_type(g->add_input(), "X", {int64_t{1}, int64_t{3}});
    set_tensor_type(g->add_input(), "W", {int64_t{1}, int64_t{2}, int64_t{3}});
    add_node(g, "ConvTranspose", {"X", "W"}, "Y")->set_name("up");
    g->add_output()->set_name("Y");
  });
  const std::string made = save_model("conv_after_flatten", [&](onnx::GraphProto* g) {
    set_tensor_type(g->add_input(), "X", {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}});
    add_initializer(g, "W", {4, 3, 3, 3});
    add_node(g, "Flatten", {"X"}, "F");
    add_node(g, "Conv", {"F", "W"}, "Y")->set_name("the_conv");
    g->add_output()->set_name("Y");
  });
  const std::string weight = save_model("conv_weight_rank3", [&](onnx::GraphProto* g) {
    set_tensor_type(g->add_input(), "X", {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}});
    add_initializer(g, "W", {4, 3, 3});
    add_node(g, "Conv", {"X", "W"}, "Y")->set_name("c");
    g->add_output()->set_name("Y");
  });
  const std::string gemm = save_model("gemm_rank1", [&](onnx::GraphProto* g) {
    set_tensor_type(g->add_input(), "A", {int64_t{2}, int64_t{3}});
    add_initializer(g, "B", {3});
    add_node(g, "Gemm", {"A", "B"}, "Y")->set_name("fc");
    g->add_output()->set_name("Y");
  });
  for (const auto& [path, expected] :
       {std::pair{declared, "node 'up' (ConvTranspose): input 0 has rank 2 (ConvTranspose needs a data input of rank >= 3"},
        std::pair{made, "node 'the_conv' (Conv): input 0 has rank 2 (Conv needs a data input of rank >= 3"},
        std::pair{weight, "node 'c' (Conv): input 1 has rank 3 and input 0 rank 4 (Conv needs"},
        std::pair{gemm, "node 'fc' (Gemm): input 1 has rank 1 (Gemm needs inputs A and B of rank 2)"}}) {
    try {
      import_onnx(path);
      ADD_FAILURE() << "expected InputError for " << path;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": " + expected), std::string::npos) << e.what();
    }
  }
}

// A fuzz find: a Shape-15 (with start and end) of a graph input declared without a type made
// ONNX 1.12's inference read the missing type through a null pointer (SIGSEGV). A node whose
// required input has no type is skipped by inference (guarded_schemas.cpp); the import then
// names the input.
TEST(OnnxImport, AGraphInputWithoutATypeIsRefusedByName) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(15);
  auto* g = m.mutable_graph();
  g->set_name("untyped");
  g->add_input()->set_name("x");  // no type
  auto* shape = add_node(g, "Shape", {"x"}, "y");
  auto* a = shape->add_attribute();
  a->set_name("start");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  g->add_output()->set_name("y");
  const std::string path = ::testing::TempDir() + "memplan_untyped_input.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    m.SerializeToOstream(&out);
  }
  try {
    import_onnx(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": graph input 'x' declares no type"), std::string::npos) << e.what();
  }
}

// The ONNX fuzz corpus (fuzz/corpus/onnx) holds the inputs that once crashed the import
// (raw_data_short: raw bytes of the wrong length; resize_inf_scale: an infinite Resize
// scale; einsum_bad_arrow: a mangled Einsum equation, and einsum_upper_implicit: an implicit
// equation with an upper-case label, both of which crashed ONNX 1.12's Einsum inference;
// scan_missing_count: a Scan without its required attribute; shape_undefined_input: a
// Shape reading an undefined name; convtranspose_rank2: a ConvTranspose of a rank-2 input;
// gemm6_rank1: a Gemm-6 whose B has rank 1; shape15_untyped_input: a Shape-15 of an untyped
// graph input) beside valid models (among them ONNX's If, Loop, Scan and sequence operator
// tests): each imports or is refused with an InputError; none crashes.
TEST(OnnxImport, FuzzCorpusImportsOrFailsCleanly) {
  const std::filesystem::path dir = std::filesystem::path(MEMPLAN_SOURCE_DIR) / "fuzz" / "corpus" / "onnx";
  int imported = 0, refused = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    try {
      import_onnx(e.path().string());
      ++imported;
    } catch (const InputError& err) {
      EXPECT_NE(std::string(err.what()).find(e.path().string()), std::string::npos) << err.what();
      ++refused;
    }
  }
  EXPECT_GE(refused, 8) << "the crash inputs are refused";
  EXPECT_GE(imported, 12);
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// Every model shipped in Debian's libonnx-testdata (installed by scripts/setup.sh) either
// imports into a problem whose greedy plan validates, or is rejected with an InputError;
// nothing crashes.
TEST(OnnxImport, DebianTestModelsImportOrFailCleanly) {
  const std::filesystem::path root = "/usr/share/libonnx-testdata/data";
  ASSERT_TRUE(std::filesystem::exists(root)) << "libonnx-testdata is not installed";
  int imported = 0, rejected = 0, with_buffers = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().filename() != "model.onnx") continue;
    try {
      std::vector<std::string> warnings;
      OnnxImportOptions io;
      io.warnings = &warnings;
      const Problem p = import_onnx(entry.path().string(), io);
      ++imported;
      if (p.buffers.empty()) continue;
      ++with_buffers;
      SolveOptions o;
      SolveResult r = solve(p, "greedy", o);
      ASSERT_TRUE(r.solution) << entry.path();
      ASSERT_TRUE(validate(p, r.solution->offsets).ok) << entry.path();
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_NE(std::string(e.what()).find(entry.path().string()), std::string::npos) << e.what();
    }
  }
  RecordProperty("imported", imported);
  RecordProperty("rejected", rejected);
  std::printf("imported=%d (with buffers %d) rejected=%d\n", imported, with_buffers, rejected);
  EXPECT_GT(with_buffers, 500);
}

}  // namespace
}  // namespace memplan
