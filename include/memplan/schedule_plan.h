// memplan: a model's plan on a chosen execution order (schedule.h), never worse than the
// graph order. The order of `options.mode` and the graph order are each lowered and planned
// with the same algorithm, and the order whose plan has the lower peak is kept (on equal
// peaks the lower LOAD, then the graph order): so `memory` and `exact` never give a larger
// peak than `graph`, whatever the offset planner does on each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/graph.h"
#include "memplan/schedule.h"
#include "memplan/solver.h"

namespace memplan {

struct ScheduledPlan {
  ScheduleResult schedule;        // what the mode chose (its order, LOAD, each heuristic)
  bool kept_graph_order = false;  // the graph order's plan was kept instead of the mode's
  std::vector<int32_t> order;     // the order kept: schedule.order or graph_order(g)
  int64_t order_load = 0;         // LOAD of `order`
  LoweredGraph lowered;           // g lowered in `order`
  SolveResult result;             // the plan of lowered.problem
  int64_t schedule_peak = -1;     // peak on schedule.order (-1: no plan found)
  int64_t graph_peak = -1;        // peak on the graph order (-1: no plan found)
  double solve_seconds = 0;       // both plans
};

// Schedules g (every tensor of known size), lowers it in the chosen order and in graph order
// with options.lower, plans both with `algo`, and keeps the better (see above). With mode
// graph, or when the mode returns the graph order, one plan is made. solve_options'
// time limit covers both plans (the first gets half of it, the second what is left). Throws as schedule(),
// lower() and solve() do (std::invalid_argument for an unknown algorithm).
ScheduledPlan plan_scheduled(const Graph& g, const ScheduleOptions& options, const std::string& algo,
                             const SolveOptions& solve_options);
// The same from a schedule already made (schedule(g, o) with o.lower == lower).
ScheduledPlan plan_scheduled(const Graph& g, ScheduleResult scheduled, const LowerOptions& lower,
                             const std::string& algo, const SolveOptions& solve_options);

// The schedule result describing what was kept, for write_order_json: when the graph order
// was kept, its order, LOAD, and method "graph".
ScheduleResult kept_schedule(const Graph& g, const ScheduledPlan& p);

}  // namespace memplan
