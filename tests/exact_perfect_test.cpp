// Perfect packings (every section's total equals the capacity): the exact search tries the
// lowest-cell search with the fewest branches first there (exact.cpp, strategies), which
// finds generated tilings in about n nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/exact/deep_threads.h"
#include "solvers/exact/search.h"
#include "exact_testing.h"
#include "testing.h"

namespace memplan {
namespace {

TEST(ExactPerfect, TilingsAreFoundInAboutOneNodePerBuffer) {
  // Seeds 100-103, 800 buffers. The fewest-branches search under TAW alone finds each within
  // 2n nodes; the round robin runs it third, after the two least-slack searches (2n nodes
  // each in the first round at the capacity): 2,457-4,228 nodes in all. With the general
  // order (the fewest-branches search last, as in 3c47bcf) 2,457-15,277.
  for (uint64_t seed = 100; seed <= 103; ++seed) {
    GenerateOptions g;
    g.kind = "tiling";
    g.buffers = 800;
    g.seed = seed;
    const Problem p = generate(g);
    const exact::Instance in = *exact::prepare(p, int64_t{1} << 30, Deadline());
    // On a stack deep enough for one level per buffer, as solve() runs it: the calling
    // thread's default depth limit is lower under ASan (larger frames) and would stop it.
    exact::SearchResult alone;
    exact::run_deep(1, g.buffers + 3, [&] {
      alone = exact::search_cells(in, g.capacity, exact::preorder(in, "TAW"), exact::CellChoice::kFewestBranches,
                                  2 * g.buffers, Deadline());
    });
    EXPECT_EQ(alone.outcome, exact::Outcome::kFound) << "seed " << seed;
    SolveOptions o;
    o.capacity = g.capacity;
    o.threads = 1;
    o.time_limit_seconds = 600;  // a guard only: node counts decide
    const SolveResult r = solve(p, "exact", o);
    ASSERT_TRUE(r.solution) << "seed " << seed;
    EXPECT_EQ(r.solution->peak, g.capacity) << "seed " << seed;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok) << "seed " << seed;
    const int64_t nodes = r.nodes;
    EXPECT_GT(nodes, 0) << r.detail;
    // The count is the one the summary line prints.
    EXPECT_NE(r.detail.find(" nodes=" + std::to_string(nodes) + " "), std::string::npos) << r.detail;
    EXPECT_LE(nodes, 6 * g.buffers) << "seed " << seed << ": " << r.detail;
  }
}

TEST(ExactPerfect, OnlyTheBoundIsProbedWhileItIsPerfect) {
  // Minimizing a perfect pinwheel (800 buffers, seed 2) that the first rounds do not solve.
  // While every section's total is at the bound, a round probes the bound alone (exact.cpp,
  // the ladder's `bound_only`): no rung above it finds a plan, so no round is repeated at its
  // budget, the budget doubles from one round to the next, and each round runs the same
  // probes: every strategy of the list once, the restarts included. (Before, the rungs above
  // the bound found plans there, each round was repeated at the same budget without its
  // seven restart strategies, and those rungs' canonical searches took most of the CPU: seed
  // 19, which served here before, took 386,492 nodes to solve then, 116,030 now.)
  // --iterations N stops after the round in which the nodes reach N: 1 gives the first
  // round, its nodes + 1 the first two.
  GenerateOptions g;
  g.kind = "pinwheel";
  g.buffers = 800;
  g.seed = 2;
  const Problem p = generate(g);
  auto run = [&](int64_t iterations, std::vector<std::string>* rounds) {
    SolveOptions o;
    o.threads = 1;
    o.time_limit_seconds = 600;  // a guard only: node counts decide
    o.iterations = iterations;
    o.progress = [rounds](const std::string& line) {
      if (line.rfind("lb=", 0) == 0) rounds->push_back(line);
    };
    return solve(p, "exact", o);
  };
  std::vector<std::string> one, two;
  const SolveResult first = run(1, &one);
  const SolveResult both = run(first.nodes + 1, &two);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 2u);
  ASSERT_TRUE(first.solution && both.solution);
  EXPECT_GT(first.solution->peak, g.capacity);  // the premise: unsolved after two rounds
  EXPECT_GT(both.solution->peak, g.capacity);
  EXPECT_TRUE(validate(p, both.solution->offsets).ok);
  auto budget_of = [](const std::string& line) { return std::stoll(line.substr(line.find("budget=") + 7)); };
  EXPECT_EQ(budget_of(two[1]), 2 * budget_of(two[0])) << two[0] << " / " << two[1];
  // Neither round is repeated at its budget, so each runs the restarts (Strategy::restart)
  // with the rest (RoundsRepeatedAtABudgetSkipTheRestarts checks that repeated rounds do not).
  for (const std::string& line : two) EXPECT_EQ(line.find(" restarts=0"), std::string::npos) << line;
  EXPECT_EQ(both.iterations, 2 * first.iterations) << first.detail << " / " << both.detail;
}

// Minimizes, then decides at the bound, a packing whose every section totals `bound` but
// that needs `optimum`: both must end in a proof (exact.cpp, `cells_at_perfect`: without
// alignment the bound is probed by the cell searches alone, which must refute it; with
// alignment the canonical searches stay).
void expect_perfect_bound_refuted(const Problem& p, int64_t bound, int64_t optimum) {
  EXPECT_EQ(compute_load(p), bound);
  SolveOptions o;
  o.threads = 1;
  o.time_limit_seconds = 5;  // a guard: the proofs take a few nodes
  const SolveResult best = solve(p, "exact", o);
  ASSERT_TRUE(best.solution) << best.detail;
  EXPECT_EQ(best.solution->peak, optimum) << best.detail;
  EXPECT_EQ(best.status, Status::kOptimal) << best.detail;
  EXPECT_EQ(best.lower_bound, optimum) << best.detail;
  o.capacity = bound;
  const SolveResult at = solve(p, "exact", o);
  EXPECT_EQ(at.status, Status::kInfeasible) << at.detail;
  EXPECT_EQ(at.lower_bound, optimum) << at.detail;
}

using testing::make_buffer;

Buffer aligned(Buffer b, int64_t alignment) {
  b.alignment = alignment;
  return b;
}

using testing::nine_that_need_ten;

TEST(ExactPerfect, APerfectTotalThatDoesNotFitIsRefuted) {
  Problem p;
  p.buffers = nine_that_need_ten();
  expect_perfect_bound_refuted(p, 9, 10);
}

TEST(ExactPerfect, RoundsRepeatedAtABudgetSkipTheRestarts) {
  // The perfect list's restarts (Strategy::restart: the jittered and random-order cell
  // searches) run once per budget: a round the ladder repeats at the same budget (the round
  // before found a plan) skips them (exact.cpp, Target::repeat). Perfect packings probe the
  // bound alone while it is perfect, so no round repeats there; this instance gets past
  // that: nine_that_need_ten under a band of capacity - 9 bytes live over all its sections,
  // then, from the time they end, the pinwheel that two rounds do not solve
  // (OnlyTheBoundIsProbedWhileItIsPerfect). Every section totals the capacity, the bound is
  // refuted (lb = capacity + 1), and the ladder's rungs then find plans round after round.
  GenerateOptions g;
  g.kind = "pinwheel";
  g.buffers = 800;
  g.seed = 2;
  Problem p = generate(g);
  for (Buffer& b : p.buffers) b.start += 6, b.end += 6;
  for (const Buffer& b : nine_that_need_ten()) p.buffers.push_back(b);
  p.buffers.push_back(make_buffer("band", 1, 6, g.capacity - 9));
  ASSERT_EQ(compute_load(p), g.capacity);
  std::vector<std::string> rounds;
  SolveOptions o;
  o.threads = 1;
  o.time_limit_seconds = 600;  // a guard only: node counts decide
  o.iterations = 100000;
  o.progress = [&rounds](const std::string& line) {
    if (line.rfind("lb=", 0) == 0) rounds.push_back(line);
  };
  const SolveResult r = solve(p, "exact", o);
  ASSERT_TRUE(r.solution) << r.detail;
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
  auto field = [](const std::string& line, const std::string& key) {
    return std::stoll(line.substr(line.find(" " + key + "=") + key.size() + 2));
  };
  ASSERT_FALSE(rounds.empty());
  EXPECT_GT(std::stoll(rounds[0].substr(3)), g.capacity);  // the bound refuted in the first round
  int repeated = 0;
  for (size_t k = 1; k < rounds.size(); ++k) {
    SCOPED_TRACE(rounds[k]);
    if (field(rounds[k], "budget") != field(rounds[k - 1], "budget")) continue;
    ++repeated;
    // The bound's probes ran (none decides there) and the rungs' after them, yet no restart
    // (OnlyTheBoundIsProbedWhileItIsPerfect shows them running in rounds not repeated).
    EXPECT_GT(field(rounds[k], "probes"), 0);
    EXPECT_EQ(field(rounds[k], "restarts"), 0);
  }
  EXPECT_GE(repeated, 2);  // the premise
}

TEST(ExactPerfect, AnAlignedPerfectTotalThatDoesNotFitIsRefuted) {
  // Both sections total 4. In [0, 1) P (3 bytes, aligned to 2) fits only at 0, so Y sits at
  // 3; in [1, 2) S (aligned to 4) fits only at 0, so R (2 bytes, aligned to 2) at 2, over
  // Y's byte 3. 5 fits (Y at 4).
  Problem p;
  p.buffers = {make_buffer("Y", 0, 2, 1), aligned(make_buffer("P", 0, 1, 3), 2), aligned(make_buffer("R", 1, 2, 2), 2),
               aligned(make_buffer("S", 1, 2, 1), 4)};
  expect_perfect_bound_refuted(p, 4, 5);
}

TEST(ExactPerfect, RandomOrdersArePermutationsFixedBySeed) {
  // The restarts' orders (strategies): each a permutation, the same for the same seed (so
  // the same plan for the same seed and thread count), different across seeds.
  const std::vector<int32_t> a = exact::random_order(1000, 7), b = exact::random_order(1000, 7),
                             c = exact::random_order(1000, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::vector<int32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int32_t k = 0; k < 1000; ++k) ASSERT_EQ(sorted[k], k);
  int fixed_points = 0;  // a uniform permutation has about one
  for (int32_t k = 0; k < 1000; ++k) fixed_points += a[k] == k;
  EXPECT_LT(fixed_points, 10);
}

TEST(ExactPerfect, CellSearchUnderRandomOrdersKeepsPlansValid) {
  // Every kind of generated packing, small (capacity 64), under random orders: the cell
  // search keeps minimum offsets incrementally (raised per placement, restored from the
  // trail); a stale one would place a buffer over another (an invalid plan) or refute a
  // packing that exists.
  int solved = 0;
  for (const char* kind : {"tiling", "pinwheel", "aligned"})
    for (uint64_t seed = 1; seed <= 30; ++seed) {
      GenerateOptions g;
      g.kind = kind;
      g.buffers = 10 + static_cast<int>(seed % 25);
      g.capacity = 64;
      g.horizon = 40;
      g.seed = seed;
      const Problem p = generate(g);
      const exact::Instance in = *exact::prepare(p, int64_t{1} << 30, Deadline());
      for (uint64_t order_seed = 1; order_seed <= 3; ++order_seed) {
        const exact::SearchResult r = exact::search_cells(in, 64, exact::random_order(in.n, order_seed),
                                                          exact::CellChoice::kFewestBranches, 100000, Deadline());
        ASSERT_NE(r.outcome, exact::Outcome::kInfeasible) << kind << " seed " << seed;
        if (r.outcome != exact::Outcome::kFound) continue;
        ASSERT_TRUE(validate(p, r.offsets).ok) << kind << " seed " << seed;
        ASSERT_LE(peak_of(p, r.offsets), 64) << kind << " seed " << seed;
        ++solved;
      }
    }
  EXPECT_GT(solved, 200);  // of 270
}

}  // namespace
}  // namespace memplan
