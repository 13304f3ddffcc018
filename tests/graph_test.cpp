// The graph layer: finalize's checks, orders, and the lowering's lifetimes, views, in-place
// reuse, weights and scratch buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "graph_builder.h"
#include "memplan/graph.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

using Builder = graph_testing::GraphBuilder;

const Buffer& buffer_for(const LoweredGraph& l, const Graph& g, const std::string& tensor) {
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (g.tensors[t].name == tensor) return l.problem.buffers.at(l.buffer_of_tensor[t]);
  throw std::runtime_error("no tensor " + tensor);
}

// x -> Conv(w) -> a -> Reshape (view) -> b -> Gemm -> y (output)
Builder chain_with_view() {
  Builder b;
  const int32_t x = b.tensor("x", 100, TensorKind::kInput);
  const int32_t w = b.tensor("w", 40, TensorKind::kWeight);
  const int32_t a = b.tensor("a", 200);
  const int32_t v = b.tensor("b", 200);
  const int32_t y = b.tensor("y", 8, TensorKind::kOutput);
  b.op("Conv", {x, w}, {a});
  b.op("Reshape", {a}, {v}, {0});
  b.op("Gemm", {v}, {y});
  finalize(b.g);
  return b;
}

TEST(Graph, LifetimesFollowTheOrderAndViewsExtendTheirBase) {
  Builder b = chain_with_view();
  const LoweredGraph l = lower(b.g);
  ASSERT_EQ(l.problem.buffers.size(), 3u);  // x, a (with its view b), y; no weight
  EXPECT_EQ(buffer_for(l, b.g, "x").start, 0);
  EXPECT_EQ(buffer_for(l, b.g, "x").end, 1);   // read by step 0 only
  EXPECT_EQ(buffer_for(l, b.g, "a").start, 0);
  EXPECT_EQ(buffer_for(l, b.g, "a").end, 3);   // its view is read at step 2
  EXPECT_EQ(&buffer_for(l, b.g, "b"), &buffer_for(l, b.g, "a"));
  EXPECT_EQ(buffer_for(l, b.g, "y").start, 2);
  EXPECT_EQ(buffer_for(l, b.g, "y").end, 3);   // an output lives to the end
  EXPECT_EQ(l.weight_bytes, 40);
  EXPECT_EQ(l.buffer_of_tensor[1], -1);        // the weight is not planned

  LowerOptions with_weights;
  with_weights.include_weights = true;
  const LoweredGraph lw = lower(b.g, {}, with_weights);
  ASSERT_EQ(lw.problem.buffers.size(), 4u);
  EXPECT_EQ(buffer_for(lw, b.g, "w").start, 0);
  EXPECT_EQ(buffer_for(lw, b.g, "w").end, 3);
}

// x -> Conv -> a -> Relu (may overwrite a) -> r -> [Add(r, a) when a_read_later] -> out
Builder relu_graph(bool a_read_later) {
  Builder b;
  const int32_t x = b.tensor("x", 64, TensorKind::kInput);
  const int32_t a = b.tensor("a", 64);
  const int32_t r = b.tensor("r", 64);
  const int32_t o = b.tensor("out", 64, TensorKind::kOutput);
  b.op("Conv", {x}, {a});
  b.op("Relu", {a}, {r}, {}, {0});
  if (a_read_later)
    b.op("Add", {r, a}, {o});
  else
    b.op("Neg", {r}, {o});
  finalize(b.g);
  return b;
}

TEST(Graph, InPlaceOnlyWhenTheInputDiesThere) {
  {
    Builder b = relu_graph(false);
    const LoweredGraph l = lower(b.g);
    EXPECT_EQ(buffer_for(l, b.g, "r").inplace_of, "a");
    LowerOptions off;
    off.inplace = false;
    EXPECT_EQ(buffer_for(lower(b.g, {}, off), b.g, "r").inplace_of, "");
  }
  {
    Builder b = relu_graph(true);
    EXPECT_EQ(buffer_for(lower(b.g), b.g, "r").inplace_of, "");
  }
}

TEST(Graph, InPlaceNeverOverGraphInputsOrOnSizeChange) {
  Builder b;
  const int32_t x = b.tensor("x", 64, TensorKind::kInput);
  const int32_t r = b.tensor("r", 64);
  const int32_t s = b.tensor("s", 128, TensorKind::kOutput);
  b.op("Relu", {x}, {r}, {}, {0});
  b.op("Add", {r}, {s}, {}, {0});  // broadcast growth: 64 -> 128 bytes
  finalize(b.g);
  const LoweredGraph l = lower(b.g);
  EXPECT_EQ(buffer_for(l, b.g, "r").inplace_of, "");
  EXPECT_EQ(buffer_for(l, b.g, "s").inplace_of, "");
}

TEST(Graph, OrdersAreCheckedAndChangeLifetimes) {
  // Two independent branches from x: a = f(x), c = g(x); out = a + c.
  Builder b;
  const int32_t x = b.tensor("x", 10, TensorKind::kInput);
  const int32_t a = b.tensor("a", 1000);
  const int32_t c = b.tensor("c", 10);
  const int32_t o = b.tensor("o", 10, TensorKind::kOutput);
  b.op("F", {x}, {a});
  b.op("G", {x}, {c});
  b.op("Add", {a, c}, {o});
  finalize(b.g);
  EXPECT_EQ(graph_order(b.g), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_TRUE(is_topological(b.g, {1, 0, 2}));
  EXPECT_FALSE(is_topological(b.g, {2, 0, 1}));
  EXPECT_FALSE(is_topological(b.g, {0, 0, 2}));
  EXPECT_EQ(buffer_for(lower(b.g, {0, 1, 2}), b.g, "a").start, 0);
  EXPECT_EQ(buffer_for(lower(b.g, {1, 0, 2}), b.g, "a").start, 1);
  EXPECT_THROW(lower(b.g, {2, 0, 1}), InputError);
  EXPECT_THROW(lower(b.g, {0, 1}), InputError);
}

TEST(Graph, GraphOrderRepairsAnUnsortedGraph) {
  Builder b;
  const int32_t x = b.tensor("x", 4, TensorKind::kInput);
  const int32_t a = b.tensor("a", 4);
  const int32_t o = b.tensor("o", 4, TensorKind::kOutput);
  b.op("Second", {a}, {o});
  b.op("First", {x}, {a});
  finalize(b.g);
  EXPECT_EQ(graph_order(b.g), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(buffer_for(lower(b.g), b.g, "a").start, 0);
}

TEST(Graph, BadGraphsNameTheCulprit) {
  {
    Builder b;  // a -> op0 -> c -> op1 -> a: a cycle
    const int32_t a = b.tensor("a", 4);
    const int32_t c = b.tensor("c", 4);
    b.op("P", {a}, {c});
    b.op("Q", {c}, {a});
    try {
      finalize(b.g);
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
    }
  }
  {
    Builder b;  // unknown size
    const int32_t x = b.tensor("x", 4, TensorKind::kInput);
    const int32_t a = b.tensor("mystery", -1);
    b.op("Strange", {x}, {a});
    finalize(b.g);
    try {
      lower(b.g);
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("mystery"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("Strange"), std::string::npos) << e.what();
    }
  }
  {
    Builder b;  // two producers
    const int32_t x = b.tensor("x", 4, TensorKind::kInput);
    const int32_t a = b.tensor("a", 4);
    b.op("P", {x}, {a});
    b.op("Q", {x}, {a});
    EXPECT_THROW(finalize(b.g), InputError);
  }
  {
    Builder b;  // view_of position out of range
    const int32_t x = b.tensor("x", 4, TensorKind::kInput);
    const int32_t a = b.tensor("a", 4);
    b.op("Reshape", {x}, {a}, {1});
    EXPECT_THROW(finalize(b.g), InputError);
  }
  {
    Builder b;  // an activation nobody produces
    b.tensor("orphan", 4);
    EXPECT_THROW(finalize(b.g), InputError);
  }
}

TEST(Graph, ScratchIsLiveDuringItsOperatorOnly) {
  Builder b = chain_with_view();
  b.g.ops[1].scratch_bytes = 77;
  const LoweredGraph l = lower(b.g);
  ASSERT_EQ(l.problem.buffers.size(), 4u);
  const Buffer& s = l.problem.buffers.back();
  EXPECT_EQ(s.size, 77);
  EXPECT_EQ(s.start, 1);
  EXPECT_EQ(s.end, 2);
  EXPECT_EQ(l.scratch_of_buffer.back(), 1);
  EXPECT_EQ(l.tensor_of_buffer.back(), -1);
}

// Random DAGs: at every operator's step, the buffers of all its inputs and outputs are live
// (the executor needs them then); a buffer is live before its producer's step only if it is
// a graph input; in-place pairs meet at exactly one step; and the plan of the lowered problem
// validates.
TEST(Graph, RandomGraphsLowerToLifetimesThatCoverEveryUse) {
  std::mt19937_64 rng(7);
  int inplace_pairs = 0, views = 0;
  for (int round = 0; round < 300; ++round) {
    Builder b;
    std::vector<int32_t> avail;
    for (int i = 0; i < 2; ++i) avail.push_back(b.tensor("in" + std::to_string(i), 1 + rng() % 50, TensorKind::kInput));
    const int nops = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < nops; ++k) {
      std::vector<int32_t> in;
      const int nin = 1 + static_cast<int>(rng() % 2);
      for (int i = 0; i < nin; ++i) in.push_back(avail[rng() % avail.size()]);
      const bool view = rng() % 4 == 0;
      const int64_t bytes = view ? b.g.tensors[in[0]].bytes
                                 : (rng() % 2 ? b.g.tensors[in[0]].bytes : 1 + static_cast<int64_t>(rng() % 50));
      const int32_t out = b.tensor("t" + std::to_string(k), bytes,
                                   rng() % 5 == 0 ? TensorKind::kOutput : TensorKind::kActivation);
      b.op("Op", in, {out}, {view ? 0 : -1}, {view ? -1 : 0});
      avail.push_back(out);
    }
    finalize(b.g);
    std::vector<int32_t> order = graph_order(b.g);
    const LoweredGraph l = lower(b.g, order);
    for (size_t s = 0; s < order.size(); ++s) {
      const Operator& op = b.g.ops[order[s]];
      for (auto list : {&op.inputs, &op.outputs})
        for (int32_t t : *list) {
          const int32_t buf = l.buffer_of_tensor[t];
          ASSERT_GE(buf, 0);
          const Buffer& x = l.problem.buffers[buf];
          EXPECT_LE(x.start, static_cast<int64_t>(s)) << x.id;
          EXPECT_GT(x.end, static_cast<int64_t>(s)) << x.id;
        }
    }
    for (const Buffer& x : l.problem.buffers) {
      if (x.inplace_of.empty()) continue;
      ++inplace_pairs;
      const auto it = std::find_if(l.problem.buffers.begin(), l.problem.buffers.end(),
                                   [&](const Buffer& y) { return y.id == x.inplace_of; });
      ASSERT_NE(it, l.problem.buffers.end());
      EXPECT_EQ(it->end, x.start + 1) << x.id << " over " << it->id;
    }
    for (size_t t = 0; t < b.g.tensors.size(); ++t)
      views += l.buffer_of_tensor[t] >= 0 && l.tensor_of_buffer[l.buffer_of_tensor[t]] != static_cast<int32_t>(t);
    const SolveResult r = solve(l.problem, "greedy", SolveOptions{});
    ASSERT_TRUE(r.solution.has_value());
    EXPECT_TRUE(validate(l.problem, r.solution->offsets).ok);
  }
  // The properties above were exercised, not vacuous.
  EXPECT_GT(inplace_pairs, 50);
  EXPECT_GT(views, 50);
}

}  // namespace
}  // namespace memplan
