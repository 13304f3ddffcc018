// First fit on the conflict graph when the time limit cuts its pass (graph_fit.h): the
// placements made so far are kept and the rest stacked above them, the plan of last resort
// of conflict-greedy and greedy under explicit conflicts (it was every buffer stacked: 30 GB
// for a 200k-buffer streams program whose first pass the limit cut).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>

#include "memplan/generate.h"
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

}  // namespace
}  // namespace memplan
