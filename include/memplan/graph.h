// memplan: the model graph every front end produces (ONNX, PyTorch), and its one lowering
// to a Problem. Front ends never build Problems themselves; schedulers choose the order.
//
// A Graph is operators and tensors. Each tensor has at most one producer (an operator) and
// any number of consumers. Its kind says who owns its memory:
//  - kActivation: produced by an operator, planned by memplan;
//  - kWeight:     a constant (initializer, ONNX Constant node, parameter), kept in its own
//                 region by runtimes: left out of the plan unless include_weights is set;
//  - kInput:      fed by the caller, live from the start;
//  - kOutput:     produced by an operator and returned to the caller, live until the end.
//
// Aliasing (per operator, decided by the front end from the operator's semantics):
//  - a *view* output (Reshape, Squeeze, permute, ...) is the same bytes as one input: it
//    gets no buffer of its own, and keeps that input's buffer alive while it is used;
//  - an output that *may overwrite* an input (elementwise ops, in-place aten ops) can take
//    over that input's buffer when the input is dead after this operator in the chosen
//    order; the lowering decides, since that depends on the order.
//
// Time model of the lowering: the k-th operator of the order runs at instant k. A tensor
// produced at step p and last read at step q is live during [p, q + 1), so an operator's
// inputs and outputs are live together at its step. Graph inputs start at 0; graph outputs
// (and tensors nobody reads) end at the order's length (outputs) or p + 1 (unread).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

enum class TensorKind { kActivation, kWeight, kInput, kOutput };

const char* to_string(TensorKind k);

struct Tensor {
  std::string name;
  std::string dtype;            // e.g. "float32"; informational
  std::vector<int64_t> shape;   // dims; -1 where unknown
  int64_t bytes = -1;           // exact byte size; -1 when unknown (lowering then refuses)
  TensorKind kind = TensorKind::kActivation;
  int32_t producer = -1;        // operator index; -1 for inputs and weights
  std::vector<int32_t> consumers;  // operator indices (each once), filled by finalize()
};

struct Operator {
  std::string name;
  std::string type;                 // e.g. "Conv", "aten.relu_"
  std::vector<int32_t> inputs;      // tensor indices (may repeat)
  std::vector<int32_t> outputs;     // tensor indices
  // Per output (same length as outputs, or empty = none): the position in `inputs` this
  // output is a view of (same bytes), or -1.
  std::vector<int32_t> view_of;
  // Per output (same length as outputs, or empty = none): the position in `inputs` whose
  // buffer this output may overwrite when that input dies here, or -1.
  std::vector<int32_t> may_overwrite;
  // Bytes of temporaries live only while this operator runs (e.g. the larger branch of an
  // If, a Loop body's tensors): planned as one buffer live during the operator's step.
  int64_t scratch_bytes = 0;
  // The stream (queue, engine) the operator runs on, for parallel execution (graph_streams.h);
  // -1: not given (one stream, or assigned by assign_streams).
  int32_t stream = -1;
};

struct Graph {
  std::vector<Tensor> tensors;
  std::vector<Operator> ops;  // in the model's own (graph) order
};

// Fills every tensor's producer and consumers from the operators, and checks the graph:
// indices in range, one producer per tensor, view_of/may_overwrite lengths and positions,
// no cycle. Throws InputError naming the operator or tensor.
void finalize(Graph& g);

// The graph order 0..n-1 when it is topological, else a topological order that keeps the
// graph order where it can (Kahn by smallest index). Throws InputError on a cycle.
std::vector<int32_t> graph_order(const Graph& g);

// True iff `order` is a permutation of the operators in which every producer comes before
// its consumers (independent of graph_order; used by tests and the schedulers' callers).
bool is_topological(const Graph& g, const std::vector<int32_t>& order);

struct LowerOptions {
  bool include_weights = false;  // weights as buffers live for the whole run
  bool inplace = true;           // derive in-place reuse from may_overwrite
  int64_t alignment = 1;         // every buffer's alignment (power of two)
  bool uses = false;             // fill Buffer::uses: the steps producing or reading it (swap.h)
};

struct LoweredGraph {
  Problem problem;
  // Per tensor: the index of the buffer holding its bytes (views: their base's buffer), or
  // -1 when not planned (weights without include_weights).
  std::vector<int32_t> buffer_of_tensor;
  // Per buffer: the tensor it was made for (its base tensor), or -1 for an operator's
  // scratch buffer.
  std::vector<int32_t> tensor_of_buffer;
  // Per buffer: the operator whose scratch it is, or -1.
  std::vector<int32_t> scratch_of_buffer;
  int64_t weight_bytes = 0;  // total bytes of weights (planned or not)
};

// Lowers the graph under `order` (a topological order of all operators; empty = the graph
// order) to a Problem: one buffer per base tensor (activations, inputs, outputs; weights
// when asked), ids = tensor names, lifetimes per the time model above extended over every
// view's uses, `inplace_of` where an output may overwrite an input whose buffer dies at
// that step (at most one reuse per buffer, sizes as they are), and one scratch buffer per
// operator with scratch bytes. Throws InputError naming the tensor whose size is unknown,
// or the order's fault.
LoweredGraph lower(const Graph& g, const std::vector<int32_t>& order = {},
                   const LowerOptions& options = {});

// A model's memory at a glance, for a person deciding what to change (memplan onnx
// --summary, the Python API). From a lowered graph and a plan of its problem.
struct GraphSummary {
  int64_t buffers = 0;       // planned buffers
  int64_t naive_bytes = 0;   // their total size: the memory with no reuse at all
  int64_t load = 0;          // LOAD under the order (in-place chains merged): a lower bound
  int64_t peak = 0;          // the plan's peak
  int64_t weight_bytes = 0;  // all weights, planned or not
  int64_t peak_instant = 0;  // an instant at which the live bytes reach `load`
  // Buffers live at peak_instant, largest first (at most `top` of them): id, bytes.
  std::vector<std::pair<std::string, int64_t>> live_at_peak;
};

GraphSummary summarize(const LoweredGraph& lowered, const std::vector<int64_t>& offsets,
                       size_t top = 20);

}  // namespace memplan
