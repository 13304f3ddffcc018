// A seeded DNN-like model graph (generate_graph.h).
#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "memplan/generate_graph.h"

namespace memplan {

namespace {

class DagBuilder {
 public:
  explicit DagBuilder(uint64_t seed) : rng_(seed) {}

  int32_t tensor(int64_t bytes, TensorKind kind = TensorKind::kActivation) {
    Tensor t;
    t.name = "t" + std::to_string(g.tensors.size());
    t.bytes = bytes;
    t.kind = kind;
    g.tensors.push_back(std::move(t));
    return static_cast<int32_t>(g.tensors.size() - 1);
  }
  int32_t weight(int64_t bytes) { return tensor(bytes, TensorKind::kWeight); }

  // One operator with one output of `bytes`; `view`: the output is a view of input 0;
  // `inplace`: it may overwrite input 0.
  int32_t op(const char* type, std::vector<int32_t> in, int64_t bytes, bool view = false,
             bool inplace = false, int64_t scratch = 0) {
    Operator o;
    o.name = std::string(type) + "_" + std::to_string(g.ops.size());
    o.type = type;
    o.inputs = std::move(in);
    o.outputs = {tensor(view ? g.tensors[o.inputs[0]].bytes : bytes)};
    o.view_of = {view ? 0 : -1};
    o.may_overwrite = {inplace && !view ? 0 : -1};
    o.scratch_bytes = scratch;
    g.ops.push_back(std::move(o));
    return g.ops.back().outputs[0];
  }

  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  bool chance(int percent) { return uniform(0, 99) < percent; }

  int32_t conv(int32_t x, int64_t bytes) {
    const int64_t ws = chance(30) ? bytes / uniform(2, 8) : 0;
    return op("Conv", {x, weight(uniform(1, 64) * 1024)}, bytes, false, false, ws);
  }
  int32_t relu(int32_t x) { return op("Relu", {x}, g.tensors[x].bytes, false, true); }

  int32_t residual(int32_t x) {
    const int64_t s = g.tensors[x].bytes;
    int32_t y = relu(conv(x, s));
    y = conv(y, s);
    y = op("Add", {y, x}, s, false, true);
    return relu(y);
  }

  // Branches emitted level by level across the branches (as exporters of batched or
  // breadth-first graphs write them), not one branch after the other.
  int32_t inception(int32_t x) {
    const int64_t s = g.tensors[x].bytes;
    const int branches = static_cast<int>(uniform(3, 4));
    std::vector<int32_t> outs(branches, x), depth(branches);
    for (auto& d : depth) d = static_cast<int32_t>(uniform(1, 3));
    for (int level = 0; level < 3; ++level)
      for (int k = 0; k < branches; ++k) {
        if (level >= depth[k]) continue;
        outs[k] = conv(outs[k], std::max<int64_t>(64, s * uniform(1, 6) / 4));
        if (chance(50)) outs[k] = relu(outs[k]);
      }
    int64_t total = 0;
    for (int32_t y : outs) total += g.tensors[y].bytes;
    const int32_t cat = op("Concat", outs, total);
    return conv(cat, s);
  }

  int32_t attention(int32_t x) {
    const int64_t s = g.tensors[x].bytes;
    const int heads = static_cast<int>(uniform(2, 8));
    const int32_t q = op("MatMul", {x, weight(s)}, s);
    const int32_t k = op("MatMul", {x, weight(s)}, s);
    const int32_t v = op("MatMul", {x, weight(s)}, s);
    const int64_t scores = std::max<int64_t>(64, s * uniform(1, 3) / 2);  // L x L per head
    // Stage by stage across the heads, as an unrolled batched attention is written.
    std::vector<int32_t> qh(heads), kh(heads), vh(heads), a(heads), outs(heads);
    for (int h = 0; h < heads; ++h) qh[h] = op("Slice", {q}, 0, true);
    for (int h = 0; h < heads; ++h) kh[h] = op("Slice", {k}, 0, true);
    for (int h = 0; h < heads; ++h) vh[h] = op("Slice", {v}, 0, true);
    for (int h = 0; h < heads; ++h) a[h] = op("MatMul", {qh[h], kh[h]}, scores);
    for (int h = 0; h < heads; ++h) a[h] = op("Softmax", {a[h]}, scores, false, true);
    for (int h = 0; h < heads; ++h) outs[h] = op("MatMul", {a[h], vh[h]}, s / heads);
    const int32_t cat = op("Concat", outs, (s / heads) * heads);
    const int32_t proj = op("MatMul", {cat, weight(s)}, s);
    const int32_t add = op("Add", {proj, x}, s, false, true);
    return op("LayerNorm", {add}, s, false, true);
  }

  // Encoder halves the size `depth` times, the decoder doubles it back, each level joined
  // to its encoder output by a long skip.
  int32_t unet(int32_t x) {
    const int depth = static_cast<int>(uniform(2, 4));
    std::vector<int32_t> skips;
    int32_t y = x;
    for (int d = 0; d < depth; ++d) {
      y = relu(conv(y, g.tensors[y].bytes));
      skips.push_back(y);
      y = op("MaxPool", {y}, std::max<int64_t>(64, g.tensors[y].bytes / 2));
    }
    y = relu(conv(y, g.tensors[y].bytes));
    for (int d = depth - 1; d >= 0; --d) {
      y = op("Upsample", {y}, g.tensors[skips[d]].bytes);
      y = op("Concat", {y, skips[d]}, 2 * g.tensors[skips[d]].bytes);
      y = relu(conv(y, g.tensors[skips[d]].bytes));
    }
    return y;
  }

  // One randomly wired cell on x; returns the cell's output.
  int32_t random_cell(int32_t x) {
    const int n = static_cast<int>(uniform(8, 24));
    const int64_t s = g.tensors[x].bytes;
    std::vector<std::vector<int>> preds(n);  // -1: the cell input
    std::vector<char> has_succ(n, 0);
    for (int v = 0; v < n; ++v) {
      const int k = static_cast<int>(uniform(1, 3));
      for (int j = 0; j < k; ++j) {
        const int p = v == 0 ? -1 : static_cast<int>(uniform(-1, v - 1));
        if (std::find(preds[v].begin(), preds[v].end(), p) == preds[v].end()) preds[v].push_back(p);
        if (p >= 0) has_succ[p] = 1;
      }
    }
    std::vector<int64_t> bytes(n);
    for (auto& b : bytes) b = std::max<int64_t>(64, s * uniform(1, 16) / 8);
    // A random topological order of the cell (Kahn, random picks).
    std::vector<int> indeg(n, 0), ready, order;
    std::vector<std::vector<int>> succ(n);
    for (int v = 0; v < n; ++v)
      for (int p : preds[v])
        if (p >= 0) succ[p].push_back(v), ++indeg[v];
    for (int v = 0; v < n; ++v)
      if (!indeg[v]) ready.push_back(v);
    while (!ready.empty()) {
      const auto i = static_cast<size_t>(uniform(0, static_cast<int64_t>(ready.size()) - 1));
      const int v = ready[i];
      ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(i));
      order.push_back(v);
      for (int w : succ[v])
        if (--indeg[w] == 0) ready.push_back(w);
    }
    std::vector<int32_t> out(n, -1), sinks;
    for (int v : order) {
      std::vector<int32_t> in;
      for (int p : preds[v]) in.push_back(p < 0 ? x : out[p]);
      out[v] = op(in.size() > 1 ? "Add" : "Conv", in, bytes[v], false,
                  in.size() > 1 && g.tensors[in[0]].bytes == bytes[v]);
    }
    for (int v = 0; v < n; ++v)
      if (!has_succ[v]) sinks.push_back(out[v]);
    return op("Sum", sinks, s);  // same size as the cell input: sizes stay bounded
  }

  Graph g;

 private:
  std::mt19937_64 rng_;
};

// The graph output: an Identity of x.
Graph finish(DagBuilder& b, int32_t x) {
  Operator out;
  out.name = "Output";
  out.type = "Identity";
  out.inputs = {x};
  out.outputs = {b.tensor(b.g.tensors[x].bytes, TensorKind::kOutput)};
  b.g.ops.push_back(std::move(out));
  finalize(b.g);
  return std::move(b.g);
}

}  // namespace

Graph generate_dnn_graph(int64_t operators, uint64_t seed) {
  if (operators < 1) throw std::invalid_argument("generate_dnn_graph: operators must be >= 1");
  DagBuilder b(seed);
  const int64_t unit = 1024;
  int32_t x = b.tensor(b.uniform(64, 256) * unit, TensorKind::kInput);
  x = b.relu(b.conv(x, b.uniform(128, 512) * unit));
  while (static_cast<int64_t>(b.g.ops.size()) + 1 < operators) {
    const int64_t kind = b.uniform(0, 99);
    if (kind < 35) x = b.residual(x);
    else if (kind < 60) x = b.inception(x);
    else if (kind < 80) x = b.attention(x);
    else if (kind < 90) x = b.unet(x);
    else x = b.op(b.chance(50) ? "MaxPool" : "Conv", {x}, b.uniform(64, 512) * unit);
  }
  return finish(b, x);
}

Graph generate_random_wired_graph(int64_t operators, uint64_t seed) {
  if (operators < 1) throw std::invalid_argument("generate_random_wired_graph: operators must be >= 1");
  DagBuilder b(seed);
  int32_t x = b.tensor(b.uniform(64, 256) * 1024, TensorKind::kInput);
  while (static_cast<int64_t>(b.g.ops.size()) + 1 < operators) x = b.random_cell(x);
  return finish(b, x);
}

std::vector<std::pair<std::string, std::string>> graph_generator_kinds() {
  return {{"dag", "DNN-like model graph (operators and tensors, a memplan graph file): residual, inception, "
                  "attention and U-Net blocks, views, in-place ops, workspaces"},
          {"wired", "randomly wired network graph (a memplan graph file): chained cells of random DAGs"}};
}

Graph generate_graph(const std::string& kind, int64_t operators, uint64_t seed) {
  if (kind == "dag") return generate_dnn_graph(operators, seed);
  if (kind == "wired") return generate_random_wired_graph(operators, seed);
  throw std::invalid_argument("unknown graph kind '" + kind + "' (dag or wired)");
}

}  // namespace memplan
