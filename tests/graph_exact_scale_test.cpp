// `exact` under explicit conflicts at scale (solvers/exact/graph_components.cpp and
// graph_search.cpp): connected components solved apart against brute force, decomposition
// never changing the optimum, proofs through many components, the search past the old
// 4,096-buffer cap, and the derivation of a partial order's conflicts stopping at a deadline.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "memplan/solver.h"
#include "memplan/streams.h"
#include "memplan/timeline.h"
#include "memplan/validate.h"
#include "conflict_brute.h"
#include "stream_brute.h"
#include "solvers/exact/graph_search.h"

namespace memplan {
namespace {

// 2-3 blocks on disjoint time ranges (no overlap between blocks), random explicit edges
// inside each block, so the conflict graph has 2+ components; n <= 7 for brute_opt.
Problem random_blocks(std::mt19937& rng) {
  Problem p;
  const int blocks = 2 + static_cast<int>(rng() % 2);
  for (int k = 0; k < blocks; ++k) {
    const int first = static_cast<int>(p.buffers.size());
    const int m = 1 + static_cast<int>(rng() % (blocks == 2 ? 3 : 2));
    for (int i = 0; i < m; ++i) {
      const int s = static_cast<int>(rng() % 4), e = s + 1 + static_cast<int>(rng() % 3);
      p.buffers.push_back(buf("b" + std::to_string(p.buffers.size()), 10 * k + s, 10 * k + e, 1 + static_cast<int64_t>(rng() % 5)));
    }
    for (int t = static_cast<int>(rng() % 4); t > 0; --t) {
      const int a = first + static_cast<int>(rng() % m), b = first + static_cast<int>(rng() % m);
      if (a != b) p.conflicts.emplace_back(a, b);
    }
  }
  return p;
}

int32_t components_of(const Problem& p) {
  ConflictGraph g;
  EXPECT_TRUE(conflict_graph(p, g, 1 << 20));
  std::vector<int32_t> comp;
  return exact::conflict_components(g, comp);
}

// Several components: `exact` proves the brute-force optimum, its plan passes the
// independent validator, and searching the whole graph at once (no decomposition) gives the
// same optimum.
TEST(GraphExactScale, ComponentsMatchBruteForce) {
  std::mt19937 rng(18);
  int split = 0;
  for (int round = 0; round < 200; ++round) {
    const Problem p = random_blocks(rng);
    const int64_t opt = brute_opt(p);
    const SolveResult r = solve(p, "exact", SolveOptions{});
    ASSERT_TRUE(r.solution) << round;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok) << round;
    EXPECT_EQ(r.solution->peak, opt) << round;
    EXPECT_EQ(r.status, Status::kOptimal) << round;
    EXPECT_LE(r.lower_bound, opt) << round;
    if (!p.conflicts.empty() && components_of(p) > 1) {  // without explicit edges: interval exact
      ++split;
      EXPECT_NE(r.detail.find("components="), std::string::npos) << r.detail << " conflicts=" << p.conflicts.size();
    }
    ConflictGraph g;
    ASSERT_TRUE(conflict_graph(p, g, 1 << 20));
    const SolveResult whole = exact::search_on_graph(p, g, SolveOptions{}, Deadline());
    ASSERT_TRUE(whole.solution);
    EXPECT_EQ(whole.solution->peak, opt) << round;
    EXPECT_EQ(whole.lower_bound, opt) << round;
  }
  EXPECT_GT(split, 100);  // the generator does give several components with explicit edges
}

// Random stream programs (stream_brute.h; the relation by the explicit transitive closure):
// `exact` on the derived problem proves the brute-force optimum of the brute-force relation,
// with several components on many of them (buffers ordered on one stream do not conflict).
TEST(GraphExactScale, StreamProgramsMatchBruteForce) {
  std::mt19937 rng(11);
  int split = 0, checked = 0;
  for (int round = 0; round < 400; ++round) {
    const int S = 2 + static_cast<int>(rng() % 2), n = 3 + static_cast<int>(rng() % 5);
    const std::vector<StreamBuffer> prog = random_program(rng, S, n);
    const BruteOrder brute = brute_order(prog, S);
    if (brute.cyclic) continue;
    std::vector<int64_t> sizes(n);
    for (auto& x : sizes) x = 1 + static_cast<int64_t>(rng() % 4);
    Problem p;
    try {
      p = problem_from_streams(prog, sizes, S);
    } catch (const std::invalid_argument&) {
      continue;  // a read before its producer: not a program the brute force orders either
    }
    const int64_t opt = brute_min_peak(sizes, brute.conflict);
    const SolveResult r = solve(p, "exact", SolveOptions{});
    ASSERT_TRUE(r.solution) << round;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok) << round;
    EXPECT_EQ(r.solution->peak, opt) << round;
    EXPECT_EQ(r.status, Status::kOptimal) << round;
    ++checked;
    split += !p.conflicts.empty() && components_of(p) > 1;
  }
  EXPECT_GT(checked, 150);
  EXPECT_GT(split, 20);
}

// Decision through components: the optimum fits, one byte less is proven infeasible.
TEST(GraphExactScale, ComponentsDecideCapacity) {
  std::mt19937 rng(7);
  for (int round = 0; round < 60; ++round) {
    const Problem p = random_blocks(rng);
    const int64_t opt = brute_opt(p);
    SolveOptions fit;
    fit.capacity = opt;
    const SolveResult f = solve(p, "exact", fit);
    ASSERT_TRUE(f.solution) << round;
    EXPECT_LE(f.solution->peak, opt);
    SolveOptions tight;
    tight.capacity = opt - 1;
    const SolveResult t = solve(p, "exact", tight);
    EXPECT_FALSE(t.solution) << round;
    EXPECT_EQ(t.status, Status::kInfeasible) << round;
  }
}

// The 5-cycle (research note §7: clique bound 2, optimum 3), 1,000 times on disjoint time
// ranges: 5,000 buffers, above the old cap, where `exact` returned its first-fit plan
// unproven. Per component the search refutes 2, so the whole is proven optimal at 3.
TEST(GraphExactScale, ManyFiveCyclesProvenThroughComponents) {
  Problem p;
  for (int c = 0; c < 1000; ++c)
    for (int i = 0; i < 5; ++i) {
      p.buffers.push_back(buf("c" + std::to_string(c) + "_" + std::to_string(i), 10 * c + 2 * i, 10 * c + 2 * i + 1, 1));
      p.conflicts.emplace_back(5 * c + i, 5 * c + (i + 1) % 5);
    }
  SolveOptions opt;
  opt.time_limit_seconds = 60;
  const SolveResult r = solve(p, "exact", opt);
  ASSERT_TRUE(r.solution);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
  EXPECT_EQ(r.solution->peak, 3);
  EXPECT_EQ(r.lower_bound, 3);
  EXPECT_EQ(r.status, Status::kOptimal);
  EXPECT_NE(r.detail.find("components=1000"), std::string::npos) << r.detail;
}

// 10,000 weighted 5-cycles (five size patterns): the optimum is the largest of the five
// patterns' brute-force optima. Every component gets its first-fit plan before any search
// (a share of the limit per component once left most of them with the stacked plan under
// load: peak 15 here instead of 9), so the whole is proven optimal at once.
TEST(GraphExactScale, ManyWeightedComponentsAllGetFirstFit) {
  Problem p;
  int64_t expect = 0;
  for (int c = 0; c < 10000; ++c) {
    Problem one;
    for (int i = 0; i < 5; ++i) {
      const int64_t size = 1 + (c * 7 + i) % 5;
      p.buffers.push_back(buf("c" + std::to_string(c) + "_" + std::to_string(i), 10 * c + 2 * i, 10 * c + 2 * i + 1, size));
      p.conflicts.emplace_back(5 * c + i, 5 * c + (i + 1) % 5);
      one.buffers.push_back(buf("x" + std::to_string(i), 2 * i, 2 * i + 1, size));
      one.conflicts.emplace_back(i, (i + 1) % 5);
    }
    if (c < 5) expect = std::max(expect, brute_opt(one));
  }
  SolveOptions opt;
  opt.time_limit_seconds = 30;
  const SolveResult r = solve(p, "exact", opt);
  ASSERT_TRUE(r.solution);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
  EXPECT_EQ(r.solution->peak, expect);
  EXPECT_EQ(r.status, Status::kOptimal) << r.detail;
}

// One connected component of 5,000 buffers: the search runs (nodes are counted) instead of
// stopping at first fit, keeps within its time limit and returns a valid plan no worse
// than first fit's.
TEST(GraphExactScale, SearchRunsAboveOldCap) {
  std::mt19937 rng(5);
  Problem p;
  const int n = 5000;
  for (int i = 0; i < n; ++i) {
    const int s = static_cast<int>(rng() % 20000);
    p.buffers.push_back(buf("b" + std::to_string(i), s, s + 1 + static_cast<int>(rng() % 40), 1 + static_cast<int64_t>(rng() % 64)));
    if (i > 0) p.conflicts.emplace_back(i - 1, i);  // a chain: one component
  }
  ASSERT_EQ(components_of(p), 1);
  SolveOptions opt;
  opt.time_limit_seconds = 2;
  const SolveResult ff = solve(p, "conflict-greedy", opt);
  const SolveResult r = solve(p, "exact", opt);
  ASSERT_TRUE(r.solution && ff.solution);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
  EXPECT_GT(r.iterations, 0) << r.detail;
  EXPECT_EQ(r.detail.find("too_large"), std::string::npos) << r.detail;
  EXPECT_LE(r.lower_bound, r.solution->peak);
}

// Deriving a partial order's conflicts polls its stop: a stop that fires at once throws
// DerivationStopped (no Problem), for vector clocks and for stream programs alike.
TEST(GraphExactScale, DerivationStopsAtItsDeadline) {
  std::vector<int64_t> lo, up, sizes;
  std::vector<std::string> ids;
  for (int i = 0; i < 2000; ++i) {
    lo.insert(lo.end(), {i, 0}), up.insert(up.end(), {i + 1, 1});
    sizes.push_back(1), ids.push_back("b" + std::to_string(i));
  }
  EXPECT_THROW(problem_from_clocks(2, lo, up, sizes, ids, 50'000'000, [] { return true; }), DerivationStopped);
  const Problem full = problem_from_clocks(2, lo, up, sizes, ids, 50'000'000, [] { return false; });
  // Component 1 makes every pair conflict; [start, end) = [i, i + 2) overlaps only
  // neighbours, so all but those 1,999 pairs are explicit.
  EXPECT_EQ(full.conflicts.size(), 2000u * 1999u / 2u - 1999u);
  std::vector<StreamBuffer> prog(2000);
  for (int i = 0; i < 2000; ++i) prog[i].stream = i % 2, prog[i].lower = i / 2, prog[i].upper = i / 2 + 1000;
  EXPECT_THROW(problem_from_streams(prog, sizes, 2, 50'000'000, nullptr, [] { return true; }), DerivationStopped);
  EXPECT_NO_THROW(problem_from_streams(prog, sizes, 2, 50'000'000, nullptr, [] { return false; }));
}

}  // namespace
}  // namespace memplan
