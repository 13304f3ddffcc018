// The graph layer: checks, orders and the one lowering of a model graph to a Problem.
#include "memplan/graph.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_set>

#include "memplan/io.h"

namespace memplan {

const char* to_string(TensorKind k) {
  switch (k) {
    case TensorKind::kActivation: return "activation";
    case TensorKind::kWeight: return "weight";
    case TensorKind::kInput: return "input";
    case TensorKind::kOutput: return "output";
  }
  return "?";
}

namespace {

std::string op_label(const Graph& g, int32_t o) {
  const Operator& op = g.ops[o];
  return "operator '" + (op.name.empty() ? "#" + std::to_string(o) : op.name) + "'" +
         (op.type.empty() ? "" : " (" + op.type + ")");
}

std::string tensor_label(const Graph& g, int32_t t) { return "tensor '" + g.tensors[t].name + "'"; }

void check_positions(const Graph& g, int32_t o, const std::vector<int32_t>& per_output,
                     const char* field) {
  const Operator& op = g.ops[o];
  if (per_output.empty()) return;
  if (per_output.size() != op.outputs.size())
    throw InputError(op_label(g, o) + ": " + field + " has " + std::to_string(per_output.size()) +
                     " entries for " + std::to_string(op.outputs.size()) + " outputs");
  for (int32_t p : per_output)
    if (p < -1 || p >= static_cast<int32_t>(op.inputs.size()))
      throw InputError(op_label(g, o) + ": " + field + " names input position " +
                       std::to_string(p) + ", but it has " + std::to_string(op.inputs.size()) +
                       " inputs");
}

// Producer-before-consumer edges as successor lists (one entry per distinct pair).
std::vector<std::vector<int32_t>> successors(const Graph& g) {
  std::vector<std::vector<int32_t>> next(g.ops.size());
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (int32_t t : g.ops[o].inputs) {
      const int32_t p = g.tensors[t].producer;
      if (p >= 0) next[p].push_back(static_cast<int32_t>(o));
    }
  for (auto& s : next) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  return next;
}

}  // namespace

void finalize(Graph& g) {
  const auto nt = static_cast<int32_t>(g.tensors.size());
  for (auto& t : g.tensors) {
    t.producer = -1;
    t.consumers.clear();
  }
  for (int32_t o = 0; o < static_cast<int32_t>(g.ops.size()); ++o) {
    const Operator& op = g.ops[o];
    for (int32_t t : op.inputs)
      if (t < 0 || t >= nt)
        throw InputError(op_label(g, o) + ": input tensor index " + std::to_string(t) + " out of range");
    for (int32_t t : op.outputs) {
      if (t < 0 || t >= nt)
        throw InputError(op_label(g, o) + ": output tensor index " + std::to_string(t) + " out of range");
      Tensor& out = g.tensors[t];
      if (out.producer >= 0)
        throw InputError(tensor_label(g, t) + " is produced by both " + op_label(g, out.producer) +
                         " and " + op_label(g, o));
      if (out.kind == TensorKind::kInput || out.kind == TensorKind::kWeight)
        throw InputError(tensor_label(g, t) + " is a graph " + to_string(out.kind) +
                         " but also an output of " + op_label(g, o));
      out.producer = o;
    }
    check_positions(g, o, op.view_of, "view_of");
    check_positions(g, o, op.may_overwrite, "may_overwrite");
    if (op.scratch_bytes < 0)
      throw InputError(op_label(g, o) + ": negative scratch bytes");
    for (int32_t t : op.inputs) {
      auto& c = g.tensors[t].consumers;
      if (c.empty() || c.back() != o) c.push_back(o);
    }
  }
  for (int32_t t = 0; t < nt; ++t) {
    const Tensor& x = g.tensors[t];
    if (x.producer < 0 && (x.kind == TensorKind::kActivation || x.kind == TensorKind::kOutput))
      throw InputError(tensor_label(g, t) + " is an " + to_string(x.kind) +
                       " but no operator produces it");
  }
  graph_order(g);  // throws on a cycle
}

std::vector<int32_t> graph_order(const Graph& g) {
  const size_t n = g.ops.size();
  const auto next = successors(g);
  std::vector<int32_t> indegree(n, 0);
  for (const auto& s : next)
    for (int32_t v : s) ++indegree[v];
  // Kahn's algorithm, smallest index first: the graph order itself when it is topological.
  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<>> ready;
  for (size_t o = 0; o < n; ++o)
    if (indegree[o] == 0) ready.push(static_cast<int32_t>(o));
  std::vector<int32_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int32_t u = ready.top();
    ready.pop();
    order.push_back(u);
    for (int32_t v : next[u])
      if (--indegree[v] == 0) ready.push(v);
  }
  if (order.size() != n) {
    for (size_t o = 0; o < n; ++o)
      if (indegree[o] > 0)
        throw InputError("the graph has a cycle through " + op_label(g, static_cast<int32_t>(o)));
  }
  return order;
}

bool is_topological(const Graph& g, const std::vector<int32_t>& order) {
  const size_t n = g.ops.size();
  if (order.size() != n) return false;
  std::vector<int64_t> step(n, -1);
  for (size_t k = 0; k < n; ++k) {
    const int32_t o = order[k];
    if (o < 0 || static_cast<size_t>(o) >= n || step[o] >= 0) return false;
    step[o] = static_cast<int64_t>(k);
  }
  // Every tensor an operator reads must be produced (if at all) at an earlier step. The
  // producers are found here from the operators' outputs, not from finalize()'s links.
  std::vector<int32_t> producer(g.tensors.size(), -1);
  for (size_t q = 0; q < n; ++q)
    for (int32_t out : g.ops[q].outputs)
      if (out >= 0 && static_cast<size_t>(out) < producer.size()) producer[out] = static_cast<int32_t>(q);
  for (size_t o = 0; o < n; ++o)
    for (int32_t t : g.ops[o].inputs) {
      const int32_t p = (t >= 0 && static_cast<size_t>(t) < producer.size()) ? producer[t] : -1;
      if (p >= 0 && step[p] >= step[o]) return false;
    }
  return true;
}

LoweredGraph lower(const Graph& g, const std::vector<int32_t>& order_in, const LowerOptions& opt) {
  const auto nt = static_cast<int32_t>(g.tensors.size());
  const auto n = static_cast<int64_t>(g.ops.size());
  std::vector<int32_t> order = order_in.empty() ? graph_order(g) : order_in;
  if (!order_in.empty()) {
    // A permutation in which every producer comes first (using finalize()'s links).
    std::vector<int64_t> step(g.ops.size(), -1);
    if (order.size() != g.ops.size())
      throw InputError("order has " + std::to_string(order.size()) + " operators, the graph " +
                       std::to_string(g.ops.size()));
    for (size_t k = 0; k < order.size(); ++k) {
      const int32_t o = order[k];
      if (o < 0 || o >= n || step[o] >= 0)
        throw InputError("order: entry " + std::to_string(k) + " (" + std::to_string(o) +
                         ") is not a new operator index");
      step[o] = static_cast<int64_t>(k);
    }
    for (int32_t o = 0; o < n; ++o)
      for (int32_t t : g.ops[o].inputs) {
        const int32_t p = g.tensors[t].producer;
        if (p >= 0 && step[p] >= step[o])
          throw InputError("order: " + op_label(g, o) + " runs before " + op_label(g, p) +
                           ", which produces its input " + tensor_label(g, t));
      }
  }
  std::vector<int64_t> step(g.ops.size());
  for (size_t k = 0; k < order.size(); ++k) step[order[k]] = static_cast<int64_t>(k);
  const int64_t horizon = std::max<int64_t>(n, 1);

  // Base tensor of every tensor (views resolve to what they view), in execution order so
  // that an input's base is known before its views.
  std::vector<int32_t> base(nt);
  for (int32_t t = 0; t < nt; ++t) base[t] = t;
  for (int32_t o : order) {
    const Operator& op = g.ops[o];
    for (size_t j = 0; j < op.view_of.size(); ++j)
      if (op.view_of[j] >= 0) base[op.outputs[j]] = base[op.inputs[op.view_of[j]]];
  }

  // Lifetime of each base: from its producer's step (inputs and weights: 0) to one past the
  // last use of it or of any of its views; outputs to the end.
  std::vector<int64_t> start(nt, 0), end(nt, 0);
  for (int32_t t = 0; t < nt; ++t) {
    const Tensor& x = g.tensors[t];
    const int64_t born = x.producer >= 0 ? step[x.producer] : 0;
    if (base[t] == t) start[t] = born;
    int64_t last = born + 1;
    for (int32_t c : x.consumers) last = std::max(last, step[c] + 1);
    if (x.kind == TensorKind::kOutput || x.kind == TensorKind::kWeight) last = horizon;
    end[base[t]] = std::max(end[base[t]], last);
  }

  LoweredGraph out;
  out.buffer_of_tensor.assign(nt, -1);
  std::unordered_set<std::string> ids;
  auto add_buffer = [&](std::string id, int64_t s, int64_t e, int64_t size) {
    for (int k = 2; !ids.insert(id).second; ++k) id += "#" + std::to_string(k);
    Buffer b;
    b.id = std::move(id);
    b.start = s;
    b.end = std::max(e, s + 1);
    b.size = size;
    b.alignment = opt.alignment;
    out.problem.buffers.push_back(std::move(b));
    return static_cast<int32_t>(out.problem.buffers.size() - 1);
  };
  for (int32_t t = 0; t < nt; ++t) {
    const Tensor& x = g.tensors[t];
    if (x.kind == TensorKind::kWeight && x.bytes > 0) out.weight_bytes += x.bytes;
    if (base[t] != t) continue;
    if (x.kind == TensorKind::kWeight && !opt.include_weights) continue;
    if (x.bytes < 0) {
      const std::string by = x.producer >= 0 ? ", produced by " + op_label(g, x.producer) : "";
      throw InputError(tensor_label(g, t) + by + ": size unknown");
    }
    if (x.bytes == 0) continue;  // an empty tensor needs no memory
    out.buffer_of_tensor[t] = add_buffer(x.name, start[t], end[t], x.bytes);
    out.tensor_of_buffer.push_back(t);
    out.scratch_of_buffer.push_back(-1);
  }
  for (int32_t t = 0; t < nt; ++t)
    if (base[t] != t) out.buffer_of_tensor[t] = out.buffer_of_tensor[base[t]];

  // In-place reuse: an output takes over an input's buffer when that buffer's lifetime ends
  // at this step (no later reader, not an output), the input is an activation, the sizes
  // match (elementwise: no broadcast growth), no other input of the operator shares that
  // buffer through another tensor, and neither buffer is already part of another reuse.
  if (opt.inplace) {
    std::vector<char> taken(out.problem.buffers.size(), 0), reuses(out.problem.buffers.size(), 0);
    for (int32_t o : order) {
      const Operator& op = g.ops[o];
      for (size_t j = 0; j < op.may_overwrite.size(); ++j) {
        const int32_t pos = op.may_overwrite[j];
        if (pos < 0 || (!op.view_of.empty() && op.view_of[j] >= 0)) continue;
        const int32_t in = op.inputs[pos], outt = op.outputs[j];
        const int32_t bi = out.buffer_of_tensor[in], bo = out.buffer_of_tensor[outt];
        if (bi < 0 || bo < 0 || bi == bo || taken[bi] || reuses[bo]) continue;
        const Tensor& src = g.tensors[base[in]];
        if (src.kind != TensorKind::kActivation || end[base[in]] != step[o] + 1) continue;
        if (src.bytes != g.tensors[outt].bytes) continue;
        bool shared = false;
        for (int32_t other : op.inputs)
          if (other != in && base[other] == base[in]) shared = true;
        if (shared) continue;
        out.problem.buffers[bo].inplace_of = out.problem.buffers[bi].id;
        taken[bi] = 1;
        reuses[bo] = 1;
      }
    }
  }

  // The steps that touch each buffer (swap.h's uses): where it is produced (inputs and
  // weights: 0), every step reading it or one of its views, and the last step for outputs
  // (read after the run).
  if (opt.uses) {
    for (int32_t t = 0; t < nt; ++t) {
      const int32_t b = out.buffer_of_tensor[t];
      if (b < 0) continue;
      std::vector<int64_t>& u = out.problem.buffers[b].uses;
      for (int32_t c : g.tensors[t].consumers) u.push_back(step[c]);
      if (g.tensors[t].kind == TensorKind::kOutput) u.push_back(horizon - 1);
    }
    for (Buffer& b : out.problem.buffers) {
      b.uses.push_back(b.start);
      std::sort(b.uses.begin(), b.uses.end());
      b.uses.erase(std::unique(b.uses.begin(), b.uses.end()), b.uses.end());
    }
  }
  for (int32_t o : order) {
    const Operator& op = g.ops[o];
    if (op.scratch_bytes <= 0) continue;
    const std::string name = op.name.empty() ? "#" + std::to_string(o) : op.name;
    add_buffer("scratch:" + name, step[o], step[o] + 1, op.scratch_bytes);
    out.tensor_of_buffer.push_back(-1);
    out.scratch_of_buffer.push_back(o);
  }
  return out;
}

}  // namespace memplan
