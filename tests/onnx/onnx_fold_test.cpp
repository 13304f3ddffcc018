// The data-propagation evaluator (fold.cpp) against executed truth: every single-node model
// of libonnx-testdata's node/ folder whose op memplan evaluates is run on the inputs stored
// with it (test_data_set_0/input_K.pb); where memplan gives a value, it must equal the stored
// output exactly (dims and every element; floats within 1e-5 relative).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "frontend/onnx/internal.h"

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

}  // namespace
}  // namespace memplan::onnx_fe
