// plan_scheduled (schedule_plan.h): the kept plan is of the graph lowered in the kept order,
// validates, and its peak is the lower of the mode's order's and the graph order's, each
// planned here again with the same deterministic solver.
#include <gtest/gtest.h>

#include "memplan/generate_graph.h"
#include "memplan/graph.h"
#include "memplan/schedule_plan.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

TEST(SchedulePlan, KeepsTheLowerPeakOfTheModesOrderAndGraphOrder) {
  int reordered = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    for (bool wired : {false, true}) {
      const Graph g = wired ? generate_random_wired_graph(150, seed) : generate_dnn_graph(150, seed);
      ScheduleOptions o;
      o.mode = ScheduleMode::kMemory;
      o.seed = seed;
      SolveOptions so;
      so.threads = 1;
      so.time_limit_seconds = 20;
      const ScheduledPlan p = plan_scheduled(g, o, "greedy", so);
      ASSERT_TRUE(p.result.solution);
      ASSERT_TRUE(is_topological(g, p.order));
      const LoweredGraph again = lower(g, p.order);
      ASSERT_EQ(again.problem.buffers.size(), p.lowered.problem.buffers.size());
      for (size_t b = 0; b < again.problem.buffers.size(); ++b) {
        EXPECT_EQ(again.problem.buffers[b].id, p.lowered.problem.buffers[b].id);
        EXPECT_EQ(again.problem.buffers[b].start, p.lowered.problem.buffers[b].start);
        EXPECT_EQ(again.problem.buffers[b].end, p.lowered.problem.buffers[b].end);
      }
      const Validation v = validate(again.problem, p.result.solution->offsets);
      EXPECT_TRUE(v.ok) << (v.errors.empty() ? "" : v.errors[0]);
      EXPECT_EQ(v.peak, p.result.solution->peak);
      const SolveResult graph = solve(lower(g, graph_order(g)).problem, "greedy", so);
      const SolveResult mode = solve(lower(g, p.schedule.order).problem, "greedy", so);
      ASSERT_TRUE(graph.solution && mode.solution);
      EXPECT_EQ(p.graph_peak, graph.solution->peak);
      EXPECT_EQ(p.schedule_peak, mode.solution->peak);
      EXPECT_EQ(p.result.solution->peak, std::min(graph.solution->peak, mode.solution->peak));
      EXPECT_LE(p.result.solution->peak, graph.solution->peak);
      EXPECT_EQ(p.kept_graph_order, p.order == graph_order(g) && p.order != p.schedule.order);
      if (mode.solution->peak < graph.solution->peak) {
        EXPECT_FALSE(p.kept_graph_order);
        ++reordered;
      }
    }
  }
  EXPECT_GT(reordered, 0);  // the graphs are made so that graph order is worse
}

TEST(SchedulePlan, GraphModePlansOnce) {
  const Graph g = generate_random_wired_graph(100, 3);
  ScheduleOptions o;
  o.mode = ScheduleMode::kGraph;
  const ScheduledPlan p = plan_scheduled(g, o, "greedy", SolveOptions{});
  EXPECT_EQ(p.order, graph_order(g));
  EXPECT_FALSE(p.kept_graph_order);
  EXPECT_EQ(p.schedule_peak, p.graph_peak);
  EXPECT_EQ(kept_schedule(g, p).method, "graph");
}

}  // namespace
}  // namespace memplan
