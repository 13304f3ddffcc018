// The canonical search with re-ranking on decomposition (search.cpp, given preorder keys):
// against brute force on tiny instances, and on MiniMalloc's E and I, which it solves and
// the plain search does not, under node budgets (no clock involved).
#include <gtest/gtest.h>

#include <random>

#include "memplan/io.h"
#include "memplan/validate.h"
#include "solvers/exact/search.h"
#include "exact_testing.h"
#include "testing.h"

namespace memplan {
namespace {

TEST(ExactReRank, DecidesTinyInstancesLikeBruteForce) {
  exact::check_keys = true;  // every incremental memo key is checked (throws on a difference)
  std::mt19937_64 rng(4242);
  int decided = 0;  // each: a plan found at the optimum and the optimum - 1 refuted
  const int trials = static_cast<int>(testing::sanitizer_scaled(2000, 300));  // instrumented: fewer
  for (int trial = 0; trial < trials; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 2 + trial % 7;
    spec.horizon = 6 + trial % 5;
    spec.max_size = 4;
    spec.alignment = trial % 3 == 0;
    const Problem p = testing::random_problem(rng, spec);
    const int64_t opt = testing::brute_force_optimum(p);
    const exact::Instance in = testing::exact_instance(p);
    for (const char* keys : {"WAT", "TAW", "TWA"}) {
      testing::expect_decides_like_brute_force(p, in, exact::preorder(in, keys), keys, opt, trial);
      if (::testing::Test::HasFatalFailure()) return;
      ++decided;
    }
  }
  EXPECT_EQ(decided, 3 * trials);
  exact::check_keys = false;
}

TEST(ExactReRank, SolvesMiniMallocEAndIWhereThePlainSearchDoesNot) {
  // Under TWA, E needs about 90k nodes and I about 20k with re-ranking; the plain search
  // exhausts 200k nodes on both (it does not solve them in millions).
  for (const char* name : {"E", "I"}) {
    const Problem p =
        read_csv_file(testing::source_path(std::string("benchmarks/minimalloc/") + name + ".1048576.csv")).problem;
    const exact::Instance in = testing::exact_instance(p);
    const std::vector<int32_t> order = exact::preorder(in, "TWA");
    const exact::SearchResult rr = exact::search(in, 1048576, order, 200'000, Deadline(), "TWA");
    ASSERT_EQ(rr.outcome, exact::Outcome::kFound) << name;
    const Validation v = validate(p, rr.offsets);
    EXPECT_TRUE(v.ok) << name;
    EXPECT_LE(peak_of(p, rr.offsets), 1048576) << name;
    const exact::SearchResult plain = exact::search(in, 1048576, order, 200'000, Deadline());
    EXPECT_EQ(plain.outcome, exact::Outcome::kBudget) << name;
  }
}

TEST(ExactReRank, KeptMemoGivesTheSamePlanWithFewerNodes) {
  // A failed state fails under any budget: doubling probes that share one memo reach the
  // plan a fresh probe reaches, having skipped what the earlier probes exhausted.
  const Problem p =
      read_csv_file(testing::source_path("benchmarks/minimalloc/I.1048576.csv")).problem;
  const exact::Instance in = testing::exact_instance(p);
  const std::vector<int32_t> order = exact::preorder(in, "TWA");
  exact::FailureMemo memo(0);
  exact::SearchResult kept;
  int64_t budget = 2 * in.n;
  for (;; budget *= 2) {
    memo.reserve(budget);
    kept = exact::search(in, 1048576, order, budget, Deadline(), "TWA", &memo);
    if (kept.outcome != exact::Outcome::kBudget) break;
  }
  ASSERT_EQ(kept.outcome, exact::Outcome::kFound);
  const exact::SearchResult fresh = exact::search(in, 1048576, order, INT64_MAX, Deadline(), "TWA");
  ASSERT_EQ(fresh.outcome, exact::Outcome::kFound);
  EXPECT_EQ(kept.offsets, fresh.offsets);
  EXPECT_LT(kept.nodes, fresh.nodes);
}

}  // namespace
}  // namespace memplan
