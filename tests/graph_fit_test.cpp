// First fit on the conflict graph when the time limit cuts its pass (graph_fit.h): the
// placements made so far are kept and the rest stacked above them, the plan of last resort
// of conflict-greedy and greedy under explicit conflicts (it was every buffer stacked: 30 GB
// for a 200k-buffer streams program whose first pass the limit cut).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>

#include "memplan/generate.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"
#include "memplan/validate.h"
#include "solvers/greedy/graph_fit.h"

namespace memplan {
namespace {

Problem streams_program() {
  GenerateOptions g;
  g.kind = "streams";
  g.streams = 4;
  g.buffers = 3000;
  g.seed = 3;
  return generate(g);
}

TEST(GraphFit, ACutPassKeepsItsPlacementsAndStacksTheRest) {
  const Problem p = streams_program();
  ASSERT_FALSE(p.conflicts.empty());
  ConflictGraph g;
  ASSERT_TRUE(conflict_graph(p, g, 100'000'000));
  std::vector<int32_t> order(p.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  const std::atomic<bool> cancelled{true};  // expired from the start: cut at the first poll
  const Deadline passed(1000, &cancelled);
  EXPECT_FALSE(fit_on_graph(p, g, order, Fit::kFirst, passed).has_value());  // no cut asked: nothing
  bool cut = false;
  const std::optional<Solution> part = fit_on_graph(p, g, order, Fit::kFirst, passed, &cut);
  const std::optional<Solution> full = fit_on_graph(p, g, order, Fit::kFirst, Deadline());
  ASSERT_TRUE(part && full);
  EXPECT_TRUE(cut);
  const Validation v = validate(p, part->offsets);
  ASSERT_TRUE(v.ok) << v.errors.front();
  EXPECT_EQ(v.peak, part->peak);
  // A prefix of the order placed as the full pass places it (the first poll comes after
  // 4,096 buffers and neighbours scanned), then each buffer above all before it.
  size_t same = 0;
  while (same < order.size() && part->offsets[order[same]] == full->offsets[order[same]]) ++same;
  EXPECT_GT(same, 10u);
  EXPECT_LT(same, order.size() / 2);
  int64_t top = 0;
  for (size_t k = 0; k < same; ++k) top = std::max(top, full->offsets[order[k]] + p.buffers[order[k]].size);
  for (size_t k = same; k < order.size(); ++k) {
    const Buffer& b = p.buffers[order[k]];
    EXPECT_EQ(part->offsets[order[k]], (top + b.alignment - 1) / b.alignment * b.alignment) << k;
    top = part->offsets[order[k]] + b.size;
  }
  EXPECT_LT(part->peak, stacked_plan(p).peak);  // the prefix reuses memory

  // best_on_graph falls back to that pass (kCutPass), not to the stacked plan; an unbuilt
  // graph still gives the stacked plan.
  int winner = 0;
  int64_t completed = -1;
  const Solution best = best_on_graph(p, &g, {{order, Fit::kFirst}, {order, Fit::kBest}}, passed, winner, completed);
  EXPECT_EQ(winner, kCutPass);
  EXPECT_EQ(completed, 0);
  EXPECT_EQ(best.offsets, part->offsets);
  const Solution none = best_on_graph(p, nullptr, {{order, Fit::kFirst}}, passed, winner, completed);
  EXPECT_EQ(winner, -1);
  EXPECT_EQ(none.offsets, stacked_plan(p).offsets);
}

// ends_covering_conflicts (timeline.h): every explicit pair overlaps on the stretched
// lifetimes, no end moves earlier, and the online allocator on them (what `online-best-fit`
// does under explicit conflicts) gives plans the validator accepts under the conflicts,
// on random problems and on a streams program (red if a pair apart in time is left so:
// the online heap then reuses one's block for the other).
TEST(GraphFit, StretchedLifetimesCoverEveryConflict) {
  std::mt19937 rng(17);
  int stretched = 0;
  auto check = [&](const Problem& p) {
    const std::vector<int64_t> end = ends_covering_conflicts(p);
    ASSERT_EQ(end.size(), p.buffers.size());
    for (size_t i = 0; i < end.size(); ++i) {
      EXPECT_GE(end[i], p.buffers[i].end);
      stretched += end[i] > p.buffers[i].end;
    }
    for (const auto& [a, b] : p.conflicts)
      EXPECT_TRUE(p.buffers[a].start < end[b] && p.buffers[b].start < end[a]) << a << " " << b;
    const std::optional<Solution> plan = online_plan(p, nullptr, end);
    ASSERT_TRUE(plan);
    const Validation v = validate(p, plan->offsets);
    ASSERT_TRUE(v.ok) << v.errors.front();
    EXPECT_EQ(v.peak, plan->peak);
    const SolveResult r = solve(p, "online-best-fit", {});
    ASSERT_TRUE(r.solution) << r.detail;
    EXPECT_EQ(r.solution->offsets, plan->offsets);
  };
  for (int round = 0; round < 300; ++round) {
    Problem p;
    const int n = 2 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      Buffer b;
      b.id = "b" + std::to_string(i);
      b.start = static_cast<int64_t>(rng() % 10);
      b.end = b.start + 1 + static_cast<int64_t>(rng() % 4);
      b.size = 1 + static_cast<int64_t>(rng() % 8);
      p.buffers.push_back(b);
    }
    for (int k = static_cast<int>(rng() % 12); k > 0; --k) {
      const int32_t a = static_cast<int32_t>(rng() % n), b = static_cast<int32_t>(rng() % n);
      if (a != b) p.conflicts.emplace_back(a, b);
    }
    check(p);
  }
  check(streams_program());
  EXPECT_GT(stretched, 100);  // the premise: pairs apart in time, often
}

}  // namespace
}  // namespace memplan
