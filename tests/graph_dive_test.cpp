// Solver `dive` under explicit conflicts (src/solvers/exact/graph_dive.cpp), and the driver's
// antichain bound reaching `auto` (SolveOptions::proven_lower_bound): the worked examples of
// ../shared/research/parallel-streams.md §7 and random small partial orders against the
// brute force (stream_brute.h, conflict_brute.h), every plan through the validator.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "memplan/bounds.h"
#include "memplan/driver.h"
#include "memplan/solver.h"
#include "memplan/streams.h"
#include "memplan/timeline.h"
#include "memplan/validate.h"
#include "conflict_brute.h"
#include "solvers/exact/graph_dive.h"
#include "stream_brute.h"

namespace memplan {
namespace {

// The optimum with pre-placed buffers and alignments: the movable buffers by lowest aligned
// first fit in every order, above the pre-placed ones (pushing each buffer down in an optimal
// plan until it rests on a neighbour, 0 or its alignment makes every plan such a fit). n <= 7.
int64_t brute_opt_fixed(const Problem& p) {
  const int n = static_cast<int>(p.buffers.size());
  std::vector<int> order;
  for (int i = 0; i < n; ++i)
    if (!p.buffers[i].offset) order.push_back(i);
  int64_t best = INT64_MAX;
  do {
    std::vector<int64_t> off(n, -1);
    int64_t peak = 0;
    for (int i = 0; i < n; ++i)
      if (p.buffers[i].offset) off[i] = *p.buffers[i].offset, peak = std::max(peak, off[i] + p.buffers[i].size);
    for (int i : order) {
      const Buffer& b = p.buffers[i];
      int64_t x = 0;
      for (bool moved = true; moved;) {
        moved = false;
        x = (x + b.alignment - 1) / b.alignment * b.alignment;
        for (int j = 0; j < n; ++j)
          if (off[j] >= 0 && j != i && brute_conflict(p, i, j) && x < off[j] + p.buffers[j].size && off[j] < x + b.size)
            x = off[j] + p.buffers[j].size, moved = true;
      }
      off[i] = x;
      peak = std::max(peak, x + b.size);
    }
    best = std::min(best, peak);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

// Solves with `dive` alone and checks the plan with the independent validator.
int64_t dive_peak(const Problem& p, SolveOptions o = {}) {
  const SolveResult r = solve(p, "dive", o);
  EXPECT_TRUE(r.solution);
  if (!r.solution) return -1;
  const Validation v = validate(p, r.solution->offsets, o.capacity);
  EXPECT_TRUE(v.ok) << (v.errors.empty() ? "" : v.errors.front());
  EXPECT_EQ(v.peak, r.solution->peak);
  EXPECT_NE(r.detail.find("graph_mode=1"), std::string::npos) << r.detail;  // not the time trees
  return r.solution->peak;
}

// §7.1 (no sync: all pairs conflict, 12 not 8), §7.2 (one event: 8), §7.4 (2+2: 6), §7.5
// (three pairwise concurrent: 3), §7.3 (the 5-cycle: 3, above its clique 2).
TEST(GraphDive, WorkedExamplesReachTheOptimum) {
  struct Case {
    std::vector<StreamBuffer> prog;
    std::vector<int64_t> sizes;
    int32_t streams;
    int64_t optimum;
  };
  const std::vector<Case> cases = {
      {{sb(0, 0, 2), sb(0, 1, 3), sb(1, 0, 2), sb(1, 1, 2, {}, {{0, 2}})}, {4, 2, 4, 2}, 2, 12},
      {{sb(0, 0, 2), sb(0, 1, 3), sb(1, 0, 2, {0}), sb(1, 1, 2, {}, {{0, 2}})}, {4, 2, 4, 2}, 2, 8},
      {{sb(0, 0, 1), sb(0, 1, 2), sb(1, 0, 1), sb(1, 1, 2)}, {3, 1, 1, 3}, 2, 6},
      {{sb(0, 0, 1, {}, {{1, 0}, {2, 0}}), sb(1, 1, 3), sb(2, 1, 3)}, {1, 1, 1}, 3, 3},
  };
  for (const Case& c : cases) {
    const Problem p = problem_from_streams(c.prog, c.sizes, c.streams);
    ASSERT_FALSE(p.conflicts.empty());  // the dive must run on the graph
    EXPECT_EQ(brute_opt(p), c.optimum);
    EXPECT_EQ(dive_peak(p), c.optimum);
  }
  Problem cycle;
  for (int i = 0; i < 5; ++i) cycle.buffers.push_back(buf("c" + std::to_string(i), 2 * i, 2 * i + 1, 1));
  for (int i = 0; i < 5; ++i) cycle.conflicts.emplace_back(i, (i + 1) % 5);
  EXPECT_EQ(dive_peak(cycle), 3);
  SolveOptions two;
  two.capacity = 2;
  EXPECT_FALSE(solve(cycle, "dive", two).solution);  // no plan below the optimum, ever
}

// One dive at a capacity: a plan it returns fits the capacity and is valid; a dive never
// lands below the optimum (that would be an invalid plan). Random stream programs on 1-3
// streams, 2-7 buffers, some pre-placed.
TEST(GraphDive, RandomPartialOrdersAgainstBruteForce) {
  std::mt19937 rng(11);
  int instances = 0, at_optimum = 0;
  for (int round = 0; round < 1000; ++round) {
    const int S = 1 + static_cast<int>(rng() % 3), n = 2 + static_cast<int>(rng() % 6);
    const std::vector<StreamBuffer> prog = random_program(rng, S, n);
    if (brute_order(prog, S).cyclic) continue;
    std::vector<int64_t> sizes(n);
    for (int64_t& s : sizes) s = 1 + static_cast<int64_t>(rng() % 5);
    Problem p = problem_from_streams(prog, sizes, S);
    if (p.conflicts.empty()) p.conflicts.emplace_back(0, 1);  // keep it on the graph path
    if (rng() % 4 == 0) p.buffers[0].offset = static_cast<int64_t>(rng() % 4);
    if (rng() % 3 == 0) p.buffers[n - 1].alignment = 2;
    const int64_t opt = brute_opt_fixed(p);
    ConflictGraph g;
    ASSERT_TRUE(conflict_graph(p, g, 1'000'000));
    const exact::GraphDiveInput in(p, g);
    for (const auto& rank : exact::graph_dive_ranks(p, g))
      for (int64_t cap = opt - 1; cap <= opt + 3; ++cap) {
        const auto offsets = exact::graph_dive(in, cap, rank, Deadline());
        if (!offsets) continue;
        const Validation v = validate(p, *offsets, cap);
        EXPECT_TRUE(v.ok) << "round " << round << " cap " << cap << ": " << (v.errors.empty() ? "" : v.errors.front());
        EXPECT_GE(v.peak, opt);
      }
    const int64_t peak = dive_peak(p);
    EXPECT_GE(peak, opt);
    ++instances;
    at_optimum += peak == opt;
  }
  EXPECT_GT(instances, 250);
  // A heuristic, but on instances this small its ladder nearly always lands on the optimum
  // (measured: 366 of 387); a dive that lost its ladder or its orders would not.
  EXPECT_GE(at_optimum, instances * 90 / 100) << at_optimum << " of " << instances;
}

// The driver's antichain bound reaches auto's members: a partial order whose max-weight
// antichain is above both the LOAD of its linear extension and every clique the greedy
// clique bound finds, and a member's plan meets it. auto then stops with a proof there
// (stop=lower_bound) instead of running to its limit, and says the bound is the
// antichain's. The gadget, found by a search over random_program instances (3 streams, 7
// buffers: antichain 18, greedy clique 16, LOAD of the linear extension 12, optimum 18),
// repeated 600 times one after the other (each copy's buffers wait for all of the
// previous copy's): above the 4,096 buffers exact searches, so no member proves 18 itself.
TEST(GraphDive, AutoStopsAtTheAntichain) {
  const std::vector<StreamBuffer> gadget = {sb(2, 1, 4),           sb(1, 4, 5), sb(0, 3, 4, {}, {{1, 5}}),
                                            sb(1, 1, 2, {0}, {{0, 5}}), sb(0, 1, 2), sb(2, 0, 2),
                                            sb(0, 4, 7)};
  const std::vector<int64_t> gadget_sizes = {4, 1, 3, 6, 6, 5, 6};
  const Problem one = problem_from_streams(gadget, gadget_sizes, 3);
  ASSERT_TRUE(antichain_bound(one));
  EXPECT_EQ(antichain_bound(one)->weight, 18);
  EXPECT_EQ(conflict_lower_bound(one), 16);
  EXPECT_EQ(lower_bound_of(one), 12);
  EXPECT_EQ(brute_opt(one), 18);
  constexpr int kCopies = 600, kOps = 8;  // the gadget's ops fit in 8 per stream
  std::vector<StreamBuffer> prog;
  std::vector<int64_t> sizes;
  for (int c = 0; c < kCopies; ++c)
    for (size_t i = 0; i < gadget.size(); ++i) {
      StreamBuffer b = gadget[i];
      b.lower += c * kOps, b.upper += c * kOps;
      for (auto& [t, q] : b.reads) q += c * kOps;
      for (int32_t& a : b.after) a += c * 7;
      for (int32_t k = 0; c > 0 && k < 7; ++k) b.after.push_back((c - 1) * 7 + k);
      prog.push_back(b);
      sizes.push_back(gadget_sizes[i]);
    }
  const Problem p = problem_from_streams(prog, sizes, 3);
  ASSERT_TRUE(antichain_bound(p));
  EXPECT_EQ(antichain_bound(p)->weight, 18);
  EXPECT_LT(conflict_lower_bound(p), 18);
  SolveOptions o;
  o.time_limit_seconds = 20;
  o.threads = 2;
  const SolveResult r = solve(p, "auto", o);
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.status, Status::kOptimal);
  EXPECT_EQ(r.solution->peak, 18);
  EXPECT_EQ(r.lower_bound, 18);
  EXPECT_NE(r.detail.find("stop=lower_bound"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("bound=antichain"), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace memplan
