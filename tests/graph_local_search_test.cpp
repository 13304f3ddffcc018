// The local search over first-fit orders on the conflict graph (graph_fit.h:
// improve_on_graph), run by the graph dive after its ladder: from the stacked plan (the
// worst start) it reaches the brute-force optimum on small random conflict graphs, never
// returns a plan above its start, and is deterministic in its seed.
#include <gtest/gtest.h>

#include <random>

#include "memplan/timeline.h"
#include "memplan/validate.h"
#include "solvers/greedy/graph_fit.h"
#include "conflict_brute.h"

namespace memplan {
namespace {

Problem random_conflicts(std::mt19937& rng) {
  Problem p = random_intervals(rng, 3 + static_cast<int>(rng() % 5), 8, 6);
  const int n = static_cast<int>(p.buffers.size());
  for (int k = static_cast<int>(rng() % 10); k > 0; --k) {
    const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
    if (a != b) p.conflicts.emplace_back(a, b);
  }
  return p;
}

TEST(GraphLocalSearch, FromStackedReachesBruteForceOptimum) {
  std::mt19937 rng(11);
  int reached = 0, rounds = 0;
  for (; rounds < 120; ++rounds) {
    const Problem p = random_conflicts(rng);
    ConflictGraph g;
    ASSERT_TRUE(conflict_graph(p, g, 1000));
    const Solution start = stacked_plan(p);
    int64_t moves = 0;
    const Solution s = improve_on_graph(p, g, start, 1, 0, Deadline(), moves);
    const Validation v = validate(p, s.offsets);
    ASSERT_TRUE(v.ok) << rounds;
    EXPECT_EQ(v.peak, s.peak);
    EXPECT_LE(s.peak, start.peak);
    const int64_t opt = brute_opt(p);
    EXPECT_GE(s.peak, opt);
    reached += s.peak == opt;
    int64_t again_moves = 0;  // the same seed: the same plan
    EXPECT_EQ(improve_on_graph(p, g, start, 1, 0, Deadline(), again_moves).offsets, s.offsets);
    EXPECT_EQ(again_moves, moves);
  }
  // A walk of 1,000 + 50 n moves from the stacked plan finds it on 119 of these 120 (it
  // can stall: only buffers at the peak move, and only earlier).
  EXPECT_GE(reached, rounds - 2);
}

// It stops at the bound it is given: a start that meets it is returned unchanged, no move.
TEST(GraphLocalSearch, StopsAtTheLowerBound) {
  std::mt19937 rng(5);
  const Problem p = random_conflicts(rng);
  ConflictGraph g;
  ASSERT_TRUE(conflict_graph(p, g, 1000));
  const Solution start = stacked_plan(p);
  int64_t moves = -1;
  const Solution s = improve_on_graph(p, g, start, 1, start.peak, Deadline(), moves);
  EXPECT_EQ(moves, 0);
  EXPECT_EQ(s.offsets, start.offsets);
}

}  // namespace
}  // namespace memplan
