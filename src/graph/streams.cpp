// The graph on several streams (graph_streams.h): branch assignment and the lowering to a
// partial order by vector clocks (Fidge/Mattern, parallel-streams.md §2.2).
#include <algorithm>
#include <string>

#include "memplan/graph_streams.h"
#include "memplan/io.h"
#include "memplan/streams.h"

namespace memplan {
namespace {

std::string label(const Graph& g, int32_t o) {
  const Operator& op = g.ops[o];
  return "operator '" + (op.name.empty() ? "#" + std::to_string(o) : op.name) + "' (" + op.type + ")";
}

// The first input of `op` that an operator produces: its producer, or -1.
int32_t first_producer(const Graph& g, const Operator& op) {
  for (int32_t t : op.inputs)
    if (g.tensors[t].producer >= 0) return g.tensors[t].producer;
  return -1;
}

void join(int64_t* dst, const int64_t* src, size_t S) {
  for (size_t t = 0; t < S; ++t) dst[t] = std::max(dst[t], src[t]);
}

}  // namespace

void assign_streams(Graph& g, int32_t streams, const std::vector<int32_t>& order_in) {
  if (streams < 1) throw InputError("streams: must be >= 1, got " + std::to_string(streams));
  for (int32_t o = 0; o < static_cast<int32_t>(g.ops.size()); ++o)
    if (g.ops[o].stream >= streams)
      throw InputError(label(g, o) + ": stream " + std::to_string(g.ops[o].stream) + " is not below the " +
                       std::to_string(streams) + " streams");
  const std::vector<int32_t> order = order_in.empty() ? graph_order(g) : order_in;
  std::vector<char> continued(g.ops.size(), 0);  // a producer whose stream an op has taken over
  int32_t next = 0;
  for (int32_t o : order) {
    Operator& op = g.ops[o];
    const int32_t from = first_producer(g, op);
    if (op.stream < 0 && from >= 0 && !continued[from]) op.stream = g.ops[from].stream;
    if (op.stream < 0) op.stream = next, next = (next + 1) % streams;  // a new branch
    if (from >= 0 && g.ops[from].stream == op.stream) continued[from] = 1;
  }
}

LoweredGraph lower_streams(const Graph& g, int32_t streams, const std::vector<int32_t>& order_in,
                           const LowerOptions& options) {
  if (streams < 1) throw InputError("streams: must be >= 1, got " + std::to_string(streams));
  LowerOptions opt = options;
  opt.inplace = false;  // an in-place pair may run concurrently with neither dead first
  const std::vector<int32_t> order = order_in.empty() ? graph_order(g) : order_in;
  LoweredGraph out = lower(g, order, opt);  // also checks the order
  const size_t S = static_cast<size_t>(streams), ops = g.ops.size();
  // Operator clocks: begin = join of the end clocks of its stream predecessor and of the
  // producers of its inputs, own component = its position on the stream; end = begin with
  // the own component one higher (so an op's inputs and outputs conflict).
  std::vector<int64_t> begin(ops * S, 0), end(ops * S, 0), pos(S, 0);
  std::vector<int32_t> last(S, -1);
  for (int32_t o : order) {
    const int32_t s = g.ops[o].stream;
    if (s < 0 || s >= streams)
      throw InputError(label(g, o) + ": stream " + std::to_string(s) + " is not in [0, " + std::to_string(streams) + ")");
    int64_t* b = &begin[o * S];
    if (last[s] >= 0) join(b, &end[last[s] * S], S);
    for (int32_t t : g.ops[o].inputs)
      if (g.tensors[t].producer >= 0) join(b, &end[g.tensors[t].producer * S], S);
    b[s] = pos[s];
    std::copy(b, b + S, &end[o * S]);
    end[o * S + s] = ++pos[s];
    last[s] = o;
  }
  Problem& p = out.problem;
  const size_t n = p.buffers.size();
  std::vector<int64_t> lo(n * S, 0), up(n * S, 0);
  std::vector<char> read(n, 0), forever(n, 0);
  for (size_t B = 0; B < n; ++B) {
    if (out.scratch_of_buffer[B] >= 0) {
      const int32_t o = out.scratch_of_buffer[B];
      std::copy(&begin[o * S], &begin[o * S] + S, &lo[B * S]);
      std::copy(&end[o * S], &end[o * S] + S, &up[B * S]);
      read[B] = 1;
      continue;
    }
    const Tensor& x = g.tensors[out.tensor_of_buffer[B]];
    if (x.producer >= 0) {
      std::copy(&begin[x.producer * S], &begin[x.producer * S] + S, &lo[B * S]);
      std::copy(&end[x.producer * S], &end[x.producer * S] + S, &up[B * S]);
    }
    forever[B] = x.kind == TensorKind::kWeight || x.producer < 0;  // until read below
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const int32_t B = out.buffer_of_tensor[t];
    if (B < 0) continue;
    const Tensor& x = g.tensors[t];
    for (int32_t c : x.consumers) join(&up[B * S], &end[c * S], S), read[B] = 1;
    if (x.kind == TensorKind::kOutput || x.kind == TensorKind::kWeight) forever[B] = 2;
  }
  for (size_t B = 0; B < n; ++B)
    if (forever[B] == 2 || (forever[B] == 1 && !read[B]))
      for (size_t t = 0; t < S; ++t) up[B * S + t] = std::max<int64_t>(pos[t], up[B * S + t]);
  // Guard the empty run (no operator): every clock would be zero.
  for (size_t B = 0; B < n; ++B)
    if (std::equal(&lo[B * S], &lo[B * S] + S, &up[B * S])) up[B * S] = lo[B * S] + 1;
  std::vector<int64_t> start(n);
  for (size_t B = 0; B < n; ++B) start[B] = p.buffers[B].start;
  try {
    add_hidden_conflicts(p, 50'000'000, [&](const PairSink& sink) { return clock_conflicts(streams, lo, up, start, sink); });
  } catch (const std::length_error&) {
    throw InputError("the streams give more than 50000000 conflicting pairs");
  }
  p.clock_dim = streams, p.clock_lower = std::move(lo), p.clock_upper = std::move(up);
  return out;
}

}  // namespace memplan
