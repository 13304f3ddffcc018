// Conflict-directed backjumping in the cell search (src/solvers/exact/conflicts.h,
// cells.cpp): it may skip an alternative only when the node is proven infeasible, so the
// search with it must decide exactly what the plain search and brute force decide.
#include <gtest/gtest.h>

#include <random>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/validate.h"
#include "solvers/exact/conflicts.h"
#include "solvers/exact/deep_threads.h"
#include "solvers/exact/search.h"
#include "exact_testing.h"
#include "testing.h"

namespace memplan {
namespace {

constexpr exact::CellChoice kChoices[] = {exact::CellChoice::kLeastSlack, exact::CellChoice::kFewestBranches,
                                          exact::CellChoice::kWells};

// One cell search with backjumping on or off; the skipped alternatives added to `skipped`.
exact::SearchResult cells(const exact::Instance& in, int64_t cap, const std::vector<int32_t>& order,
                          exact::CellChoice choice, int64_t budget, bool backjump, int64_t* skipped = nullptr) {
  exact::backjump_cells = backjump ? exact::Backjump::kAlways : exact::Backjump::kNever;
  exact::backjump_counts = {};
  exact::SearchResult r = exact::search_cells(in, cap, order, choice, budget, Deadline());
  if (skipped) *skipped += exact::backjump_counts.skipped;
  exact::backjump_cells = exact::Backjump::kPerfect;
  return r;
}

TEST(ExactBackjump, DecidesTinyInstancesLikeBruteForce) {
  // Random instances, with and without alignment: a plan at the optimum is found (and
  // valid), the optimum - 1 refuted. Backjumps must happen, else this tests nothing.
  std::mt19937_64 rng(2121);
  int64_t skipped = 0;
  int decided = 0;
  const int trials = static_cast<int>(testing::sanitizer_scaled(900, 200));
  for (int trial = 0; trial < trials; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 3 + trial % 6;
    spec.horizon = 8;
    spec.max_size = 4;
    spec.alignment = trial % 3 == 0;
    const Problem p = testing::random_problem(rng, spec);
    const int64_t opt = testing::brute_force_optimum(p);
    const exact::Instance in = testing::exact_instance(p);
    for (const char* keys : {"WAT", "TAW"})
      for (exact::CellChoice choice : kChoices) {
        const std::vector<int32_t> order = exact::preorder(in, keys);
        const exact::SearchResult yes = cells(in, opt, order, choice, INT64_MAX, true, &skipped);
        ASSERT_EQ(yes.outcome, exact::Outcome::kFound) << "trial " << trial << " " << keys;
        ASSERT_TRUE(testing::brute_force_valid(p, yes.offsets, opt)) << "trial " << trial;
        const exact::SearchResult no = cells(in, opt - 1, order, choice, INT64_MAX, true, &skipped);
        ASSERT_EQ(no.outcome, exact::Outcome::kInfeasible) << "trial " << trial << " " << keys;
        ++decided;
      }
  }
  EXPECT_EQ(decided, trials * 6);
  EXPECT_GT(skipped, 0);
}

TEST(ExactBackjump, SameAnswersAsThePlainSearch) {
  // Generated packings (tiling, pinwheel, aligned: a plan exists at 64) and random
  // instances, at capacities from below to above their optimum, every cell choice, under
  // random orders: wherever both searches decide within the budget they agree, backjumping
  // never refutes a capacity at which a plan exists, every plan is valid, and backjumping
  // visits fewer nodes in all.
  int64_t nodes_plain = 0, nodes_cbj = 0, skipped = 0;
  int decided = 0, refuted = 0;
  std::mt19937_64 rng(77);
  const int seeds = static_cast<int>(testing::sanitizer_scaled(36, 9));
  exact::run_deep(1, 1 << 12, [&] {
    for (int seed = 1; seed <= seeds; ++seed) {
      const char* kind = seed % 4 == 0 ? "tiling" : seed % 4 == 1 ? "pinwheel" : seed % 4 == 2 ? "aligned" : "random";
      Problem p;
      if (seed % 4 == 3) {
        testing::RandomSpec spec;
        spec.buffers = 12;
        spec.horizon = 14;
        spec.max_size = 6;
        spec.alignment = seed % 8 == 3;
        p = testing::random_problem(rng, spec);
      } else {
        p = testing::packing(kind, 14 + seed % 18, static_cast<uint64_t>(seed), 64, 40);
      }
      const exact::Instance in = testing::exact_instance(p);
      const int64_t load = lower_bound_of(p);
      const int64_t plan_at = seed % 4 == 3 ? INT64_MAX : 64;  // a plan exists at or above
      for (int64_t cap : {load - 2, load - 1, load, load + 1, load + 3})
        for (exact::CellChoice choice : kChoices) {
          const std::vector<int32_t> order = exact::random_order(in.n, static_cast<uint64_t>(seed * 31 + cap));
          const exact::SearchResult a = cells(in, cap, order, choice, 200000, false);
          const exact::SearchResult b = cells(in, cap, order, choice, 200000, true, &skipped);
          nodes_plain += a.nodes, nodes_cbj += b.nodes;
          if (b.outcome == exact::Outcome::kFound) ASSERT_TRUE(validate(p, b.offsets).ok);
          if (b.outcome == exact::Outcome::kFound) ASSERT_LE(peak_of(p, b.offsets), cap);
          if (cap >= plan_at) ASSERT_NE(b.outcome, exact::Outcome::kInfeasible) << kind << " seed " << seed;
          if (a.outcome == exact::Outcome::kBudget || b.outcome == exact::Outcome::kBudget) continue;
          ASSERT_EQ(a.outcome, b.outcome) << kind << " seed " << seed << " cap " << cap;
          ++decided;
          refuted += b.outcome == exact::Outcome::kInfeasible;
        }
    }
  });
  EXPECT_GT(decided, seeds * 10);
  EXPECT_GT(refuted, seeds * 2);
  EXPECT_GT(skipped, 0);
  EXPECT_LT(nodes_cbj, nodes_plain);
}

TEST(ExactBackjump, ByDefaultOnlyInPerfectPackings) {
  // Backjump::kPerfect (the default): a cell search backjumps when every section's total is
  // its capacity, and is the plain search otherwise (its reasons' upkeep cost ~10 % of CPU on
  // A-K, conflicts.h). The same generated packings at their capacity (perfect) and one
  // above: skips at the first; none at the second, where kAlways does skip (so the gate, not
  // the instances, is what keeps them plain).
  int64_t perfect = 0, above = 0, above_always = 0;
  exact::run_deep(1, 1 << 12, [&] {
    for (int seed = 1; seed <= 12; ++seed) {
      const Problem p = testing::packing(seed % 2 ? "pinwheel" : "aligned", 20 + seed, static_cast<uint64_t>(seed), 64, 40);
      const exact::Instance in = testing::exact_instance(p);
      const int64_t load = lower_bound_of(p);
      for (int k = 0; k < 4; ++k) {
        const std::vector<int32_t> order = exact::random_order(in.n, static_cast<uint64_t>(seed * 7 + k));
        for (int64_t cap : {load - 1, load, load + 1}) {
          exact::backjump_counts = {};
          exact::search_cells(in, cap, order, exact::CellChoice::kWells, 20000, Deadline());
          (cap == load ? perfect : above) += cap >= load ? exact::backjump_counts.skipped : 0;
          if (cap > load) cells(in, cap, order, exact::CellChoice::kWells, 20000, true, &above_always);
        }
      }
    }
  });
  EXPECT_GT(perfect, 0);
  EXPECT_EQ(above, 0);
  EXPECT_GT(above_always, 0);
}

}  // namespace
}  // namespace memplan
