// Every model of Debian's libonnx-testdata (node/, pytorch-converted/, pytorch-operator/,
// simple/) whose graph inputs have static shapes imports with every tensor sized, and each
// graph output's size equals the size of the expected output stored next to the model
// (test_data_set_0/output_K.pb: what a runtime produced by executing it). Table-driven over
// the whole folder; failures are counted and listed.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "memplan/io.h"
#include "memplan/onnx.h"

namespace memplan {
namespace {

namespace fs = std::filesystem;

int64_t element_bytes(int32_t type) {
  using T = onnx::TensorProto;
  switch (type) {
    case T::FLOAT: case T::INT32: case T::UINT32: return 4;
    case T::DOUBLE: case T::INT64: case T::UINT64: case T::COMPLEX64: return 8;
    case T::COMPLEX128: return 16;
    case T::FLOAT16: case T::BFLOAT16: case T::INT16: case T::UINT16: return 2;
    case T::INT8: case T::UINT8: case T::BOOL: return 1;
    default: return 0;
  }
}

bool read_proto(const fs::path& p, google::protobuf::Message& m) {
  std::ifstream in(p, std::ios::binary);
  return in && m.ParseFromIstream(&in);
}

// Graph inputs (not initializers) all plain tensors with every dim a value; and every
// expected output a plain tensor of a fixed-size type.
bool in_scope(const fs::path& model_path, const fs::path& dir, std::vector<int64_t>& expected) {
  onnx::ModelProto m;
  if (!read_proto(model_path, m)) return false;
  std::set<std::string> init;
  for (const auto& t : m.graph().initializer()) init.insert(t.name());
  for (const auto& v : m.graph().input()) {
    if (init.count(v.name())) continue;
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return false;
    if (element_bytes(v.type().tensor_type().elem_type()) == 0) return false;
    for (const auto& d : v.type().tensor_type().shape().dim())
      if (!d.has_dim_value()) return false;
  }
  for (int k = 0; k < m.graph().output_size(); ++k) {
    onnx::TensorProto t;
    const fs::path out = dir / "test_data_set_0" / ("output_" + std::to_string(k) + ".pb");
    if (!fs::exists(out) || !read_proto(out, t) || element_bytes(t.data_type()) == 0) return false;
    int64_t n = 1;
    for (int64_t d : t.dims()) n *= d;
    expected.push_back(n * element_bytes(t.data_type()));
  }
  return true;
}

// Models whose sizes depend on the *values* of their inputs (a window length, Range bounds
// fed as graph inputs), which no static planner can know: they must be reported (a warning
// naming the unsized tensor), never sized by a guess.
const std::set<std::string> kValueDependent = {
    "node/test_blackmanwindow_expanded", "node/test_blackmanwindow_symmetric_expanded",
    "node/test_hammingwindow_expanded",  "node/test_hammingwindow_symmetric_expanded",
    "node/test_hannwindow_expanded",     "node/test_hannwindow_symmetric_expanded",
    "node/test_range_float_type_positive_delta_expanded",
    "node/test_range_int32_type_negative_delta_expanded"};

TEST(OnnxTestdata, StaticModelsSizedAsExecuted) {
  const fs::path root = "/usr/share/libonnx-testdata/data";
  ASSERT_TRUE(fs::exists(root)) << "libonnx-testdata is not installed";
  int in_scope_count = 0, ok = 0, out_of_scope = 0, value_dependent = 0, sequences = 0;
  std::map<std::string, std::vector<std::string>> failures;  // kind -> model: reason
  for (const char* folder : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(root / folder))
      if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& dir : dirs) {
      const fs::path model = dir / "model.onnx";
      std::vector<int64_t> expected;
      if (!in_scope(model, dir, expected)) {
        ++out_of_scope;
        continue;
      }
      ++in_scope_count;
      const std::string name = std::string(folder) + "/" + dir.filename().string();
      try {
        std::vector<std::string> warnings;
        OnnxImportOptions o;
        o.warnings = &warnings;
        const Graph g = onnx_graph(model.string(), o);
        std::string reason;
        for (const Tensor& t : g.tensors)
          if (t.bytes < 0 && reason.empty()) reason = "tensor '" + t.name + "' unsized";
        if (!reason.empty() && kValueDependent.count(name)) {
          const std::string unsized = reason.substr(reason.find('\'') + 1, reason.rfind('\'') - reason.find('\'') - 1);
          bool warned = false;
          for (const auto& w : warnings) warned = warned || w.find("'" + unsized + "'") != std::string::npos;
          EXPECT_TRUE(warned) << name << ": no warning names " << unsized;
          ++value_dependent;
          continue;
        }
        if (!reason.empty()) {
          // A sequence memplan cannot follow (an If returning one) is left out with a
          // warning naming it, as a tensor of unknown shape is.
          const std::string unsized = reason.substr(reason.find('\'') + 1, reason.rfind('\'') - reason.find('\'') - 1);
          bool sequence = false;
          for (const auto& w : warnings)
            sequence = sequence || (w.find("'" + unsized + "'") != std::string::npos &&
                                    w.find("is a sequence whose elements are not known") != std::string::npos);
          if (sequence) {
            ++sequences;
            continue;
          }
          failures["unsized"].push_back(name + ": " + reason);
          continue;
        }
        onnx::ModelProto m;
        read_proto(model, m);
        for (int k = 0; k < m.graph().output_size() && reason.empty(); ++k) {
          for (const Tensor& t : g.tensors)
            if (t.name == m.graph().output(k).name() && t.bytes != expected[k])
              reason = "output '" + t.name + "' " + std::to_string(t.bytes) + " bytes, executed " +
                       std::to_string(expected[k]);
        }
        if (!reason.empty()) {
          failures["wrong size"].push_back(name + ": " + reason);
          continue;
        }
        ++ok;
      } catch (const InputError& e) {
        // Maps and optionals have no static size: refused by design, with that reason.
        if (std::string(e.what()).find("a map or an optional value, not a tensor or sequence") != std::string::npos) {
          ++sequences;
          continue;
        }
        failures["refused"].push_back(name + ": " + e.what());
      }
    }
  }
  int failed = 0;
  for (const auto& [kind, list] : failures) {
    failed += static_cast<int>(list.size());
    for (const auto& f : list) std::printf("  %s: %s\n", kind.c_str(), f.c_str());
  }
  std::printf("libonnx-testdata: %d models with static input shapes: %d sized as executed, %d failed "
              "(%zu unsized, %zu wrong size, %zu refused); %d with sizes depending on input values (warned); "
              "%d with sequences memplan cannot follow (left out, warned) or optional values (refused); %d out of scope (symbolic or non-tensor inputs, "
              "non-tensor expected outputs)\n",
              in_scope_count, ok, failed, failures["unsized"].size(), failures["wrong size"].size(),
              failures["refused"].size(), value_dependent, sequences, out_of_scope);
  EXPECT_GT(in_scope_count, 1000);
  EXPECT_EQ(value_dependent, static_cast<int>(kValueDependent.size()));
  EXPECT_LE(sequences, 12);
  EXPECT_EQ(failed, 0);
}

}  // namespace
}  // namespace memplan
