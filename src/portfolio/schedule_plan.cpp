// plan_scheduled(): the mode's order and the graph order, each planned; the better kept.
#include "memplan/schedule_plan.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace memplan {

namespace {

int64_t peak_of(const SolveResult& r) { return r.solution ? r.solution->peak : -1; }

// True iff plan a (peak, LOAD) is strictly better than plan b; no plan is worst.
bool better(int64_t peak_a, int64_t load_a, int64_t peak_b, int64_t load_b) {
  if (peak_a < 0) return false;
  if (peak_b < 0) return true;
  return peak_a != peak_b ? peak_a < peak_b : load_a < load_b;
}

}  // namespace

ScheduledPlan plan_scheduled(const Graph& g, const ScheduleOptions& options, const std::string& algo,
                             const SolveOptions& solve_options) {
  return plan_scheduled(g, schedule(g, options), options.lower, algo, solve_options);
}

ScheduledPlan plan_scheduled(const Graph& g, ScheduleResult scheduled, const LowerOptions& lower_options,
                             const std::string& algo, const SolveOptions& solve_options) {
  ScheduledPlan p;
  p.schedule = std::move(scheduled);
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  p.order = p.schedule.order;
  p.order_load = p.schedule.load;
  const std::vector<int32_t> go = graph_order(g);
  const bool two = p.order != go;
  // One time limit for both plans: the first gets half, the second what is left.
  const double limit = solve_options.time_limit_seconds;
  const bool limited = limit > 0 && std::isfinite(limit);
  SolveOptions first = solve_options;
  if (limited && two) first.time_limit_seconds = limit / 2;
  p.lowered = lower(g, p.order, lower_options);
  p.result = solve(p.lowered.problem, algo, first);
  p.schedule_peak = peak_of(p.result);
  if (!two) {
    p.graph_peak = p.schedule_peak;
  } else {
    SolveOptions second = solve_options;
    if (limited) second.time_limit_seconds = std::max(0.01, limit - elapsed());
    LoweredGraph lowered = lower(g, go, lower_options);
    SolveResult r = solve(lowered.problem, algo, second);
    p.graph_peak = peak_of(r);
    if (!better(p.schedule_peak, p.schedule.load, p.graph_peak, p.schedule.graph_order_load)) {
      p.kept_graph_order = true;
      p.order = go;
      p.order_load = p.schedule.graph_order_load;
      p.lowered = std::move(lowered);
      p.result = std::move(r);
    }
  }
  p.solve_seconds = elapsed();
  return p;
}

ScheduleResult kept_schedule(const Graph& g, const ScheduledPlan& p) {
  ScheduleResult r = p.schedule;
  if (!p.kept_graph_order) return r;
  r.order = graph_order(g);
  r.load = p.schedule.graph_order_load;
  r.method = "graph";
  r.proven_optimal = r.load == r.lower_bound;
  r.fell_back = false;
  r.fell_back_reason.clear();
  return r;
}

}  // namespace memplan
