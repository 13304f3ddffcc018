// Optimality proofs above LOAD against brute force, on instances where the exact search
// needs several rounds of doubling node budgets, so its failure memos carry from one round
// to the next.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

#include "memplan/bounds.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/exact/search.h"
#include "testing.h"

namespace memplan {
namespace {

// The optimal peak by trying every order of the buffers, each placed at its lowest aligned
// offset clear of those placed before it. Complete: from an optimal plan, placing buffers
// in increasing order of their offsets this way puts each one at or below its offset in that
// plan (by induction, the earlier ones end at or below it), so some order reaches the optimum.
// Branch and bound on the peak so far; fine up to about ten buffers.
int64_t brute_optimum_by_orders(const Problem& p) {
  const size_t n = p.buffers.size();
  std::vector<int64_t> off(n, -1);
  std::vector<char> used(n, 0);
  int64_t best = INT64_MAX;
  std::function<void(size_t, int64_t)> rec = [&](size_t placed, int64_t peak) {
    if (peak >= best) return;
    if (placed == n) {
      best = peak;
      return;
    }
    for (size_t i = 0; i < n; ++i) {
      if (used[i]) continue;
      const Buffer& b = p.buffers[i];
      int64_t x = 0;
      for (bool moved = true; moved;) {
        moved = false;
        for (size_t j = 0; j < n; ++j)
          if (used[j] && lifetimes_overlap(b, p.buffers[j]) && x < off[j] + p.buffers[j].size &&
              off[j] < x + b.size) {
            x = (off[j] + p.buffers[j].size + b.alignment - 1) / b.alignment * b.alignment;
            moved = true;
          }
      }
      used[i] = 1;
      off[i] = x;
      rec(placed + 1, std::max(peak, x + b.size));
      used[i] = 0;
    }
  };
  rec(0, 0);
  return best;
}

// Random instances whose optimum lies above LOAD, with their optimum.
std::vector<std::pair<Problem, int64_t>> hard_instances(uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<Problem, int64_t>> out;
  while (static_cast<int>(out.size()) < count) {
    testing::RandomSpec spec;
    spec.buffers = 9;
    spec.horizon = 6;
    spec.max_size = 40;
    spec.alignment = rng() % 2;
    const Problem p = testing::random_problem(rng, spec);
    const int64_t opt = brute_optimum_by_orders(p);
    if (opt > compute_load(p)) out.push_back({p, opt});
  }
  return out;
}

TEST(ExactBrute, BruteForceByOrdersAgreesWithOffsetEnumeration) {
  // The reference above against the exhaustive search over every offset (testing.h).
  std::mt19937_64 rng(40);
  for (int trial = 0; trial < 300; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 5;
    spec.horizon = 5;
    spec.max_size = 6;
    spec.alignment = trial % 2;
    const Problem p = testing::random_problem(rng, spec);
    ASSERT_EQ(brute_optimum_by_orders(p), testing::brute_force_optimum(p)) << "trial " << trial;
  }
}

TEST(ExactBrute, ProvesOptimaAboveLoadOverSeveralRounds) {
  int multi_round = 0;
  for (const auto& [p, opt] : hard_instances(41, 20)) {
    SolveOptions o;
    o.time_limit_seconds = 20;
    o.threads = 1;
    int64_t max_budget = 0;  // the ladder reports each round's node budget
    o.progress = [&](const std::string& s) {
      if (const auto at = s.find("budget="); at != std::string::npos)
        max_budget = std::max<int64_t>(max_budget, std::stoll(s.substr(at + 7)));
    };
    const SolveResult r = solve(p, "exact", o);
    ASSERT_TRUE(r.solution);
    EXPECT_EQ(r.status, Status::kOptimal) << r.detail;
    EXPECT_EQ(r.solution->peak, opt) << r.detail;
    EXPECT_EQ(r.lower_bound, opt) << r.detail;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok);
    // The first round's budget is 2n nodes per probe; a larger one means later rounds,
    // which continue the earlier rounds' memos at the capacities probed again.
    multi_round += max_budget > 2 * static_cast<int64_t>(p.buffers.size());
  }
  RecordProperty("multi_round", multi_round);
  EXPECT_GE(multi_round, 5);
}

TEST(ExactBrute, FailureMemosCarriedAcrossProbesStaySoundAndSaveNodes) {
  // As the solver's rounds do: one strategy at one capacity under doubling node budgets,
  // each probe continuing the memo of failed states its predecessors left. At the
  // brute-force optimum the probes must end with a plan (a memo entry never fails a state
  // that has one), at optimum - 1 with a proof; and there the carried memo must save nodes
  // over all probes against a fresh memo per probe (else it is not used).
  int saved = 0, proofs = 0;
  for (const auto& [p, opt] : hard_instances(42, 20)) {
    const std::optional<exact::Instance> in = exact::prepare(p, 1 << 20, Deadline());
    ASSERT_TRUE(in);
    for (const char* keys : {"TWA", "WAT"}) {
      const std::vector<int32_t> order = exact::preorder(*in, keys);
      for (const int64_t cap : {opt - 1, opt}) {
        exact::FailureMemo carried(0);
        exact::SearchResult a, b;
        int64_t nodes_a = 0, nodes_b = 0;  // over all probes
        for (int64_t budget = 4; budget < (int64_t{1} << 24); budget *= 2) {
          if (a.outcome == exact::Outcome::kBudget) {
            carried.reserve(budget);
            a = exact::search(*in, cap, order, budget, Deadline(), keys, &carried);
            nodes_a += a.nodes;
          }
          if (b.outcome == exact::Outcome::kBudget) {
            b = exact::search(*in, cap, order, budget, Deadline(), keys);
            nodes_b += b.nodes;
          }
          if (a.outcome != exact::Outcome::kBudget && b.outcome != exact::Outcome::kBudget) break;
        }
        if (cap == opt) {
          ASSERT_EQ(a.outcome, exact::Outcome::kFound) << "a carried memo failed a feasible state";
          EXPECT_TRUE(validate(p, a.offsets).ok);
          EXPECT_LE(peak_of(p, a.offsets), opt);
          continue;
        }
        ASSERT_EQ(a.outcome, exact::Outcome::kInfeasible) << "a plan below the brute-force optimum?";
        ASSERT_EQ(b.outcome, exact::Outcome::kInfeasible);
        ++proofs;
        saved += nodes_a < nodes_b;
      }
    }
  }
  RecordProperty("saved", saved);
  EXPECT_EQ(proofs, 40);
  EXPECT_GE(saved, 10);
}

}  // namespace
}  // namespace memplan
