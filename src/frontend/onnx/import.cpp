// onnx_graph and import_onnx (onnx.h): read and bind -> infer to a fixed point -> build the
// graph -> lower it in graph order.
#include <utility>

#include "frontend/onnx/internal.h"
#include "memplan/io.h"
#include "memplan/onnx.h"

namespace memplan {

Graph onnx_graph(const std::string& path, const OnnxImportOptions& options) {
  const onnx::ModelProto bound = onnx_fe::read_model(path, options);
  const onnx_fe::Inferred inferred = onnx_fe::infer_sizes(bound, path);
  return onnx_fe::build_graph(bound, inferred, path, options);
}

Graph onnx_sized(Graph g) {
  // Tensors of unknown size were reported by onnx_graph (an error under strict); they are
  // left out of the plan rather than given a guessed size.
  for (Tensor& t : g.tensors)
    if (t.bytes < 0) t.bytes = 0;
  return g;
}

LoweredGraph lower_onnx(Graph g, const OnnxImportOptions& options) {
  g = onnx_sized(std::move(g));
  LowerOptions lo;
  lo.include_weights = options.include_weights;
  lo.alignment = options.alignment;
  return lower(g, {}, lo);
}

Problem import_onnx(const std::string& path, const OnnxImportOptions& options) {
  try {
    // No check_problem: the lowering builds valid buffers, and tensor names with commas are
    // fine in a Problem (only a CSV writer may object).
    return lower_onnx(onnx_graph(path, options), options).problem;
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (what.rfind(path, 0) == 0) throw;
    throw InputError(path + ": " + what);
  }
}

}  // namespace memplan
