// The graph layer on several streams (graph_streams.h): branch assignment, and the lowering's
// partial order against the SOMAS rule computed here by brute force on the operator DAG
// (explicit transitive closure of data edges plus per-stream program order).
#include <gtest/gtest.h>

#include <random>

#include "graph_builder.h"
#include "memplan/bounds.h"
#include "memplan/graph_streams.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "conflict_lookup.h"
#include "memplan/timeline.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

using graph_testing::GraphBuilder;

// X -> A1 -> B1 \
//   \-> A2 -> B2 -> Y = Add(B1, B2)
GraphBuilder two_branches() {
  GraphBuilder b;
  const int32_t x = b.tensor("X", 8, TensorKind::kInput);
  const int32_t a1 = b.node("A1", {x}, 16);
  const int32_t b1 = b.node("B1", {a1}, 8);
  const int32_t a2 = b.node("A2", {x}, 16);
  const int32_t b2 = b.node("B2", {a2}, 8);
  b.g.tensors[b.node("Y", {b1, b2}, 8)].kind = TensorKind::kOutput;
  finalize(b.g);
  return b;
}

TEST(GraphStreams, BranchesRoundRobin) {
  GraphBuilder b = two_branches();
  assign_streams(b.g, 2);
  std::vector<int32_t> streams;
  for (const Operator& op : b.g.ops) streams.push_back(op.stream);
  // A1 starts a branch (stream 0), B1 continues it, A2 starts the next (stream 1), B2
  // continues it, Y continues B1's.
  EXPECT_EQ(streams, (std::vector<int32_t>{0, 0, 1, 1, 0}));
  GraphBuilder one = two_branches();
  assign_streams(one.g, 1);
  for (const Operator& op : one.g.ops) EXPECT_EQ(op.stream, 0);
  GraphBuilder bad = two_branches();
  bad.g.ops[2].stream = 3;
  EXPECT_THROW(assign_streams(bad.g, 2), InputError);
}

// A1 and A2 are disjoint in graph order (A1 dies when A2 is born) but run in parallel on two
// streams: they conflict there, not on one stream. A1 is dead before Y on both.
TEST(GraphStreams, ParallelBranchesConflictSequentialOnesDoNot) {
  GraphBuilder b = two_branches();
  assign_streams(b.g, 2);
  const Problem p = lower_streams(b.g, 2).problem;
  EXPECT_TRUE(conflict_by_id(p, "A1", "A2"));
  EXPECT_TRUE(conflict_by_id(p, "A1", "B2"));
  EXPECT_TRUE(conflict_by_id(p, "A1", "B1"));  // B1's op reads A1 and writes B1
  EXPECT_FALSE(conflict_by_id(p, "A1", "Y"));
  EXPECT_FALSE(conflict_by_id(p, "A2", "Y"));
  GraphBuilder s = two_branches();
  assign_streams(s.g, 1);
  const Problem q = lower_streams(s.g, 1).problem;
  EXPECT_TRUE(q.conflicts.empty());
  EXPECT_FALSE(conflict_by_id(q, "A1", "A2"));
  const SolveResult r2 = solve(p, "auto", SolveOptions{}), r1 = solve(q, "auto", SolveOptions{});
  ASSERT_TRUE(r2.solution && r1.solution);
  EXPECT_TRUE(validate(p, r2.solution->offsets).ok);
  EXPECT_FALSE(validate(p, r1.solution->offsets).ok);  // the one-stream plan shares A1 and A2
  EXPECT_GT(r2.solution->peak, r1.solution->peak);
}

// Random DAGs on random streams: the lowered relation equals the SOMAS rule on the op DAG.
TEST(GraphStreams, RandomGraphsMatchBruteForce) {
  std::mt19937 rng(41);
  for (int round = 0; round < 150; ++round) {
    GraphBuilder b;
    const int ops = 2 + static_cast<int>(rng() % 8), S = 1 + static_cast<int>(rng() % 3);
    std::vector<int32_t> made = {b.tensor("in", 4, TensorKind::kInput)};
    for (int o = 0; o < ops; ++o) {
      std::vector<int32_t> in = {made[rng() % made.size()]};
      if (rng() % 2) in.push_back(made[rng() % made.size()]);
      if (in.size() == 2 && in[0] == in[1]) in.pop_back();
      made.push_back(b.node("t" + std::to_string(o), in, 1 + static_cast<int64_t>(rng() % 5)));
      b.g.ops.back().stream = static_cast<int32_t>(rng() % S);
    }
    b.g.tensors[made.back()].kind = TensorKind::kOutput;
    finalize(b.g);
    const LoweredGraph lg = lower_streams(b.g, S);
    // Brute force: op o happens before op q iff a path of data edges and same-stream
    // program-order edges (graph order = the order used) leads from o to q.
    std::vector<std::vector<char>> hb(ops, std::vector<char>(ops, 0));
    for (int o = 0; o < ops; ++o)
      for (int q = o + 1; q < ops; ++q) {
        bool edge = b.g.ops[o].stream == b.g.ops[q].stream;
        for (int32_t t : b.g.ops[q].inputs) edge = edge || b.g.tensors[t].producer == o;
        hb[o][q] = edge;
      }
    for (int k = 0; k < ops; ++k)
      for (int i = 0; i < ops; ++i)
        for (int j = 0; j < ops; ++j) hb[i][j] = hb[i][j] || (hb[i][k] && hb[k][j]);
    const size_t n = lg.problem.buffers.size();
    auto dead_before = [&](size_t x, size_t y) {  // every use of x happens before y's producer
      const Tensor& tx = b.g.tensors[lg.tensor_of_buffer[x]];
      const Tensor& ty = b.g.tensors[lg.tensor_of_buffer[y]];
      if (ty.producer < 0 || tx.kind == TensorKind::kOutput) return false;
      std::vector<int32_t> uses = tx.consumers;
      if (uses.empty()) {
        if (tx.producer < 0) return false;  // an unread input lives for the whole run
        uses.push_back(tx.producer);
      }
      for (int32_t u : uses)
        if (!hb[u][ty.producer]) return false;
      return true;
    };
    ConflictGraph g;
    ASSERT_TRUE(conflict_graph(lg.problem, g, 1 << 20));
    for (size_t x = 0; x < n; ++x) {
      std::vector<int32_t> want;
      for (size_t y = 0; y < n; ++y)
        if (x != y && !dead_before(x, y) && !dead_before(y, x)) want.push_back(static_cast<int32_t>(y));
      EXPECT_EQ(std::vector<int32_t>(g.adj.begin() + g.begin[x], g.adj.begin() + g.begin[x + 1]), want) << round;
    }
    const SolveResult r = solve(lg.problem, "auto", SolveOptions{});
    ASSERT_TRUE(r.solution);
    EXPECT_TRUE(validate(lg.problem, r.solution->offsets).ok);
  }
}

}  // namespace
}  // namespace memplan
