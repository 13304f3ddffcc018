// The dive (solvers/exact/dive.h): one descent of the canonical search without
// backtracking. Its plans must be valid, within the capacity, and be plans the search itself
// reaches under every pruning rule (search_following on the dive's offsets): the dive makes
// the search's choices, only faster.
#include <gtest/gtest.h>

#include <atomic>
#include <random>

#include "exact_testing.h"
#include "memplan/bounds.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/exact/dive.h"
#include "solvers/exact/dive_trees.h"

namespace memplan {
namespace {

// The dive's section trees (dive_trees.h: range add and range max in O(log sections) for
// LazyMax; SectionMax also the leftmost section holding the max) against a plain array under random operations, negative values
// included (the dive keeps minus its crossing counts in one).
TEST(DiveTrees, LazyMaxAgreesWithAPlainArray) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const int32_t n = 1 + static_cast<int32_t>(rng() % 70);
    std::vector<int64_t> v(n);
    for (int64_t& x : v) x = static_cast<int64_t>(rng() % 21) - 10;
    exact::LazyMax tree(v);
    exact::SectionMax totals(std::vector<int64_t>(n, 5));
    std::vector<int64_t> t(n, 5);
    for (int op = 0; op < 300; ++op) {
      const int32_t lo = static_cast<int32_t>(rng() % (n + 1)), hi = lo + static_cast<int32_t>(rng() % (n + 1 - lo));
      if (rng() % 2) {
        const int64_t d = static_cast<int64_t>(rng() % 7) - 3;
        tree.add(lo, hi, d);
        for (int32_t s = lo; s < hi; ++s) v[s] += d;
        const int64_t e = static_cast<int64_t>(rng() % 3);  // totals only fall, never below 0
        bool fits = true;
        for (int32_t s = lo; s < hi; ++s) fits = fits && t[s] >= e;
        if (fits) {
          totals.add(lo, hi, -e);
          for (int32_t s = lo; s < hi; ++s) t[s] -= e;
        }
      }
      const int64_t want = lo < hi ? *std::max_element(v.begin() + lo, v.begin() + hi) : INT64_MIN;
      ASSERT_EQ(tree.max(lo, hi), want) << round << " " << op;
      ASSERT_EQ(totals.max(lo, hi), std::max<int64_t>(0, lo < hi ? *std::max_element(t.begin() + lo, t.begin() + hi) : 0));
      if (lo < hi) {
        const int64_t tm = totals.max(lo, hi);
        ASSERT_EQ(totals.first(lo, hi, tm), std::find(t.begin() + lo, t.begin() + hi, tm) - t.begin());
      }
    }
  }
}

const char* const kKeys[] = {"TWA", "WAT", "TAW", "TWO"};

// A random instance; with `fixed`, one buffer pre-placed at an aligned offset.
Problem instance(std::mt19937_64& rng, int buffers, bool fixed) {
  testing::RandomSpec spec;
  spec.buffers = buffers;
  spec.horizon = 4 + int64_t(rng() % 16);
  spec.max_size = 12;
  spec.alignment = rng() % 2;
  Problem p = testing::random_problem(rng, spec);
  if (fixed && !p.buffers.empty()) {
    Buffer& b = p.buffers[rng() % p.buffers.size()];
    b.offset = b.alignment * int64_t(rng() % 4);
  }
  return p;
}

// Dives at a few capacities under every preorder, plain and re-ranking; checks each plan
// found. Returns how many dives found a plan.
int check_dives(const Problem& p, const exact::Instance& in, int trial) {
  int found = 0;
  const int64_t load = compute_load(p);
  const int64_t online = online_plan(p).peak;
  for (int64_t cap : {load, load + load / 8, online}) {
    for (const char* keys : kKeys) {
      const std::vector<int32_t> order = exact::preorder(in, keys);
      for (const std::string& rerank : {std::string(), std::string(keys)}) {
        const auto offsets = exact::dive(in, cap, order, rerank, Deadline());
        if (!offsets) continue;
        ++found;
        EXPECT_TRUE(testing::brute_force_valid(p, *offsets, cap)) << "trial " << trial << " " << keys;
        // The search, allowed only the dive's offsets, reaches the same plan: the dive's
        // sequence is one of the search's, with no rule of the search cutting it.
        const exact::SearchResult r = exact::search_following(in, cap, order, *offsets, Deadline(60), rerank);
        EXPECT_EQ(r.outcome, exact::Outcome::kFound) << "trial " << trial << " keys " << keys << " rerank '" << rerank << "'";
        if (r.outcome == exact::Outcome::kFound) EXPECT_EQ(r.offsets, *offsets) << "trial " << trial;
      }
    }
  }
  return found;
}

TEST(ExactDive, PlansAreValidAndTheSearchReachesThem) {
  std::mt19937_64 rng(20261124);
  int found = 0;
  const int trials = static_cast<int>(testing::sanitizer_scaled(400, 100));  // instrumented: fewer
  for (int trial = 0; trial < trials; ++trial) {
    const Problem p = instance(rng, 3 + int(rng() % 12), trial % 4 == 0);
    found += check_dives(p, testing::exact_instance(p), trial);
  }
  EXPECT_GT(found, 1000 * trials / 400);  // the check above is not vacuous
}

TEST(ExactDive, ImplicitOverlapsGiveTheSamePlans) {
  // Without overlap lists the dive is unchanged (it finds overlaps in its own tree): same
  // plans from both instances.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    const Problem p = instance(rng, 5 + int(rng() % 20), false);
    const exact::Instance lists = testing::exact_instance(p), scan = testing::exact_instance(p, true);
    const int64_t cap = online_plan(p).peak;
    const std::vector<int32_t> order = exact::preorder(lists, "TWA");
    EXPECT_EQ(exact::dive(lists, cap, order, "TWA", Deadline()), exact::dive(scan, cap, order, "TWA", Deadline()))
        << "trial " << trial;
  }
}

TEST(ExactDive, ReachesLoadOnAnEasyLargeInstance) {
  // Buffers in two interleaved chains of equal sizes: LOAD is reachable in canonical
  // order, by stacking each time step's pair; a dive over 4,000 buffers must find it.
  Problem p;
  for (int k = 0; k < 2000; ++k) {
    p.buffers.push_back(testing::make_buffer("a" + std::to_string(k), k, k + 2, 64));
    p.buffers.push_back(testing::make_buffer("b" + std::to_string(k), k, k + 1, 32));
  }
  const exact::Instance in = testing::exact_instance(p);
  const int64_t load = compute_load(p);
  const auto offsets = exact::dive(in, load, exact::preorder(in, "TWA"), "TWA", Deadline());
  ASSERT_TRUE(offsets.has_value());
  EXPECT_TRUE(validate(p, *offsets).ok);
  EXPECT_EQ(peak_of(p, *offsets), load);
}

TEST(ExactDive, CancelledDiveReturnsNothing) {
  std::mt19937_64 rng(3);
  const Problem p = instance(rng, 12, false);
  const exact::Instance in = testing::exact_instance(p);
  std::atomic<bool> cancel{true};
  // Cancelled before it starts: it stops at its first clock check, within 256 steps, and
  // claims nothing (a 12-buffer dive may finish first, but then with a valid plan).
  const auto offsets = exact::dive(in, online_plan(p).peak, exact::preorder(in, "TWA"), "TWA", Deadline(60, &cancel));
  if (offsets) EXPECT_TRUE(testing::brute_force_valid(p, *offsets));
  Problem big;
  for (int k = 0; k < 5000; ++k) big.buffers.push_back(testing::make_buffer("x" + std::to_string(k), k, k + 3, 8));
  const exact::Instance large = testing::exact_instance(big);
  EXPECT_FALSE(exact::dive(large, INT64_MAX / 4, exact::preorder(large, "TWA"), "", Deadline(60, &cancel)).has_value());
}

TEST(ExactDive, SolverGivesValidPlansWithinTheCapacity) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const Problem p = instance(rng, 4 + int(rng() % 20), trial % 3 == 0);
    SolveOptions opt;
    opt.time_limit_seconds = 10;
    const SolveResult r = solve(p, "dive", opt);
    ASSERT_TRUE(r.solution.has_value()) << "trial " << trial;  // the online plan at least
    EXPECT_TRUE(testing::brute_force_valid(p, r.solution->offsets)) << "trial " << trial;
    EXPECT_GE(r.solution->peak, compute_load(p));
    opt.capacity = r.solution->peak;
    const SolveResult c = solve(p, "dive", opt);
    ASSERT_TRUE(c.solution.has_value()) << "trial " << trial;
    EXPECT_LE(c.solution->peak, r.solution->peak);
    EXPECT_TRUE(testing::brute_force_valid(p, c.solution->offsets, r.solution->peak)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace memplan
