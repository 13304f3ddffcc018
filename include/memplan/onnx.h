// memplan: ONNX front end (library memplan_onnx; needs libonnx). Turns a model into the
// buffers an executor running its nodes in graph order would need. It never places buffers.
//
// Schedule: node k of the (topologically sorted) main graph runs at time k. Each activation
// (a node output, or a graph input that is not an initializer) is live from the step that
// produces it (graph inputs: 0) until after its last consumer: [producer, last_consumer + 1).
// Graph outputs stay live until the end. Weights (initializers) are constants kept in their
// own pool by ML runtimes, so they are left out unless `include_weights` is set (then they
// are live for the whole run). Tensors used inside If/Loop/Scan bodies count as consumed by
// that node; the bodies' own temporaries are not modelled.
// Sizes: element count x element size from the declared or inferred (ONNX shape inference)
// shapes; symbolic dimensions take the value given in `dims` or `default_dim`.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "memplan/problem.h"

namespace memplan {

struct OnnxImportOptions {
  std::map<std::string, int64_t> dims;  // symbolic dimension name -> value (e.g. batch=8)
  int64_t default_dim = 1;              // for unnamed or unlisted symbolic dimensions
  int64_t alignment = 1;                // alignment of every buffer (power of two)
  bool include_weights = false;
};

// Throws InputError (io.h) naming the file and the tensor when the model cannot be read or a
// tensor's size is unknown.
Problem import_onnx(const std::string& path, const OnnxImportOptions& options = {});

}  // namespace memplan
