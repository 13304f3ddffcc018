// plan_scheduled(): the mode's order and the graph order, each planned; the better kept.
#include "memplan/schedule_plan.h"

#include <chrono>
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
  p.order = p.schedule.order;
  p.order_load = p.schedule.load;
  p.lowered = lower(g, p.order, lower_options);
  p.result = solve(p.lowered.problem, algo, solve_options);
  p.schedule_peak = peak_of(p.result);
  const std::vector<int32_t> go = graph_order(g);
  if (p.order == go) {
    p.graph_peak = p.schedule_peak;
  } else {
    LoweredGraph lowered = lower(g, go, lower_options);
    SolveResult r = solve(lowered.problem, algo, solve_options);
    p.graph_peak = peak_of(r);
    if (!better(p.schedule_peak, p.schedule.load, p.graph_peak, p.schedule.graph_order_load)) {
      p.kept_graph_order = true;
      p.order = go;
      p.order_load = p.schedule.graph_order_load;
      p.lowered = std::move(lowered);
      p.result = std::move(r);
    }
  }
  p.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
