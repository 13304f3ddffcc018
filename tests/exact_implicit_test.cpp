// The exact search without overlap lists (Instance::implicit, used beyond a pair limit) and
// on deep recursions (deep_threads.h).
#include <gtest/gtest.h>

#include <random>

#include "memplan/validate.h"
#include "solvers/exact/deep_threads.h"
#include "solvers/exact/search.h"
#include "exact_testing.h"
#include "testing.h"

namespace memplan {
namespace {

TEST(ExactImplicit, DecidesTinyInstancesLikeBruteForce) {
  exact::check_keys = true;
  std::mt19937_64 rng(777);
  int decided = 0;
  const int trials = static_cast<int>(testing::sanitizer_scaled(1500, 300));  // instrumented: fewer
  for (int trial = 0; trial < trials; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 2 + trial % 7;
    spec.horizon = 6 + trial % 5;
    spec.max_size = 4;
    spec.alignment = trial % 3 == 0;
    Problem p = testing::random_problem(rng, spec);
    if (trial % 5 == 0) p.buffers[0].offset = 0;
    const int64_t opt = testing::brute_force_optimum(p);
    const exact::Instance in = testing::exact_instance(p, true);
    ASSERT_TRUE(in.implicit);
    for (const char* keys : {"", "TWA"}) {
      testing::expect_decides_like_brute_force(p, in, exact::preorder(in, keys[0] ? keys : "WAT"), keys, opt, trial);
      if (::testing::Test::HasFatalFailure()) return;
      ++decided;
    }
  }
  EXPECT_EQ(decided, 2 * trials);
  exact::check_keys = false;
}

// Pruning only cuts failing subtrees, so without lists (a weaker lift) the search still
// meets the same first plan, after at least as many nodes.
TEST(ExactImplicit, FindsTheSamePlanAsWithOverlapLists) {
  std::mt19937_64 rng(99);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 12 + trial % 20;
    spec.horizon = 20;
    spec.max_size = 16;
    const Problem p = testing::random_problem(rng, spec);
    const int64_t cap = testing::brute_force_load(p) + trial % 3;
    const exact::Instance lists = testing::exact_instance(p), scan = testing::exact_instance(p, true);
    for (const char* keys : {"", "TWA"}) {
      const auto order = exact::preorder(lists, "TWA");
      const exact::SearchResult a = exact::search(lists, cap, order, 200000, Deadline(), keys);
      const exact::SearchResult b = exact::search(scan, cap, order, 2000000, Deadline(), keys);
      if (a.outcome == exact::Outcome::kBudget) continue;
      ASSERT_EQ(a.outcome, b.outcome) << "trial " << trial;
      EXPECT_EQ(a.offsets, b.offsets) << "trial " << trial;
      EXPECT_GE(b.nodes, a.nodes) << "trial " << trial;
      ++compared;
    }
  }
  EXPECT_GT(compared, 400);
}

// A chain of 16,000 short buffers under one that spans them all (and is ranked last, so it
// is placed last): nothing decomposes, and the search recurses 16,000 levels, about 9 MB of
// stack, more than a default 8 MB thread stack holds. On a run_deep thread it finds the
// plan; on an ordinary thread it stops at the depth limit as "budget spent", never
// overflowing.
TEST(ExactImplicit, DeepRecursionRunsOnDeepStacksAndStopsSafelyElsewhere) {
  Problem p;
  const int n = 16000;
  for (int k = 0; k < n; ++k) p.buffers.push_back(testing::make_buffer("c" + std::to_string(k), k, k + 3, 1));
  p.buffers.push_back(testing::make_buffer("span", 0, n + 2, 1));
  for (const bool implicit : {false, true}) {
    const exact::Instance in = testing::exact_instance(p, implicit);
    std::vector<int32_t> order(n + 1);
    for (int k = 0; k <= n; ++k) order[k] = k;  // the spanning buffer last
    const int64_t cap = 4;                      // LOAD: three rows for the chain, one above
    exact::SearchResult deep;
    exact::run_deep(1, n + 3, [&] { deep = exact::search(in, cap, order, INT64_MAX, Deadline()); });
    ASSERT_EQ(deep.outcome, exact::Outcome::kFound) << implicit;
    EXPECT_TRUE(validate(p, deep.offsets).ok);
    EXPECT_EQ(peak_of(p, deep.offsets), cap);
    EXPECT_GE(deep.nodes, n);
    const exact::SearchResult shallow = exact::search(in, cap, order, INT64_MAX, Deadline());
    EXPECT_EQ(shallow.outcome, exact::Outcome::kBudget) << implicit;
    EXPECT_LE(shallow.nodes, exact::depth_limit() + 1);
  }
}

}  // namespace
}  // namespace memplan
