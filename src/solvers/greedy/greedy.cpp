// Greedy solvers: one placement order, first-fit or best-fit, on the shared engine; and
// `greedy`, which runs every (order, fit) pair and keeps the lowest peak.
#include <atomic>
#include <mutex>

#include "core/workers.h"
#include "memplan/orders.h"
#include "memplan/placement.h"
#include "memplan/timeline.h"
#include "solvers/families.h"
#include "solvers/greedy/graph_fit.h"

namespace memplan {
namespace {

std::string variant_name(Order order, Fit fit) {
  return std::string(fit == Fit::kFirst ? "first" : "best") + "-fit-" + order_name(order);
}

// Under explicit conflicts (Problem::conflicts): the same orders, each placed by the same
// fit on the conflict graph (graph_fit.h) instead of the time axis; one thread, so the
// plan is the same for every thread count. The orders' time keys (area, length, pressure)
// read the [start, end) hints, which is still an order (research note §4.1); any order
// gives a valid plan. Plan of last resort: the stacked one.
SolveResult run_on_graph(const Problem& p, const SolveOptions& opt, const std::vector<std::pair<Order, Fit>>& variants) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  ConflictGraph own;
  const ConflictGraph* g =
      conflict_graph_of(p, opt.conflict_graph.get(), own, kMaxConflictPairs, [&] { return deadline.expired(); });
  const bool built = g != nullptr;
  std::vector<GraphVariant> orders;
  for (const auto& [order, fit] : variants) {
    if (!built || deadline.expired()) break;
    orders.push_back({make_order(p, order), fit});
  }
  int winner = -1;
  int64_t completed = 0;
  SolveResult r = result_from_plan(p, opt, best_on_graph(p, g, orders, deadline, winner, completed));
  r.iterations = completed;
  r.detail = winner >= 0 ? "winner=" + variant_name(variants[winner].first, variants[winner].second)
                         : last_resort_detail(winner);
  return r;
}

// One order; a pass the time limit stops (checked every 256 placements) gives way to the
// online allocator's plan, as in `greedy`.
// The fallback is computed first (O(n log n): 1M buffers, 0.4 s of CPU) so that nothing but
// the check is left to do once the time is up. Every step polls the deadline; a limit too
// short for the fallback itself gives no plan (reason=time_limit), never an overrun.
SolveResult run_one(const Problem& p, const SolveOptions& opt, Order order, Fit fit) {
  if (!p.conflicts.empty()) return run_on_graph(p, opt, {{order, fit}});
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  std::optional<Solution> fallback = last_resort_plan(p, opt, deadline);
  GreedyResult g;  // not complete: the time is up before the order or the index is built
  if (!deadline.expired()) {
    const std::vector<int32_t> idx = make_order(p, order, &deadline);
    if (!deadline.expired()) g = place_in_order(p, idx, fit, INT64_MAX, &deadline);
  }
  SolveResult r = result_from_plan(p, opt, g.complete ? std::move(g.solution) : std::move(fallback));
  r.iterations = g.complete;
  if (!g.complete) r.detail = r.solution ? "reason=time_limit winner=online-best-fit" : "reason=time_limit";
  return r;
}

SolveResult run_all(const Problem& p, const SolveOptions& opt) {
  struct Variant {
    Order order;
    Fit fit;
  };
  std::vector<Variant> variants;
  // Strongest orders first, each with both fits, so that a time limit cuts the weakest.
  for (Order o : {Order::kConflictDesc, Order::kSizeDesc, Order::kAreaDesc, Order::kConflictSizeDesc,
                  Order::kLengthDesc, Order::kPressureDesc, Order::kStartAsc, Order::kLengthAreaPressure})
    for (Fit fit : {Fit::kFirst, Fit::kBest}) variants.push_back({o, fit});
  if (!p.conflicts.empty()) {
    std::vector<std::pair<Order, Fit>> pairs;
    for (const Variant& v : variants) pairs.emplace_back(v.order, v.fit);
    return run_on_graph(p, opt, pairs);
  }
  std::vector<std::optional<Solution>> plans(variants.size());
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  // The fallback first, so that after the limit only the check is left; in a portfolio
  // (shared bound set) the portfolio has its own.
  std::optional<Solution> fallback = last_resort_plan(p, opt, deadline);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    std::optional<PlacementEngine> engine;  // one index per thread (1M buffers: 0.3 s to build)
    for (size_t k; (k = next.fetch_add(1)) < variants.size();) {
      // Every variant stops at the time limit; if none completes, the online allocator's
      // plan is returned (below).
      if (deadline.expired()) continue;
      const std::vector<int32_t> idx = make_order(p, variants[k].order, &deadline);
      if (deadline.expired()) continue;
      if (!engine) engine.emplace(p, &deadline);
      GreedyResult g = place_in_order(*engine, idx, variants[k].fit, INT64_MAX, &deadline);
      if (g.complete) plans[k] = std::move(g.solution);
    }
  };
  run_workers(std::max(1, std::min<int>(opt.threads, variants.size())), worker);
  // Lowest peak wins; ties go to the earliest variant, so the thread count does not matter.
  size_t best = variants.size();
  for (size_t k = 0; k < variants.size(); ++k)
    if (plans[k] && (best == variants.size() || plans[k]->peak < plans[best]->peak)) best = k;
  const std::string detail = best < variants.size() ? "winner=" + variant_name(variants[best].order, variants[best].fit)
                              : fallback ? "winner=online-best-fit"
                                         : "reason=time_limit";
  SolveResult r = result_from_plan(p, opt, best < variants.size() ? plans[best] : std::move(fallback));
  r.iterations = 0;
  for (auto& pl : plans) r.iterations += pl.has_value();
  r.detail = detail;
  return r;
}

}  // namespace

// One order and fit: gaps on intervals, the conflict graph under explicit conflicts.
constexpr Supports kFitSupports{.explicit_conflicts = true, .gaps = true};

void register_greedy(std::vector<SolverInfo>& out) {
  register_conflict_greedy(out);
  out.push_back({"greedy", "every first-fit and best-fit order below; keeps the lowest peak",
                 run_all, Supports{.explicit_conflicts = true, .gaps = true, .threads = true}});
  // Under explicit conflicts on lifetimes stretched until every conflicting pair overlaps
  // (ends_covering_conflicts): O(n log n + pairs), and valid there too. In `auto` it is the
  // first member under explicit conflicts: a plan when the limit ends the first-fit pass on
  // the conflict graph (4 streams x 200k buffers at `--time-limit 3`: 33.7 MB, against 30 GB
  // stacked or none; README "Streams programs whose first pass the limit cuts").
  out.push_back({"online-best-fit",
                 "a runtime heap: allocates in time order into the smallest free block (best fit, "
                 "coalescing), no look-ahead; O(n log n); under explicit conflicts on lifetimes stretched to cover them",
                 [](const Problem& p, const SolveOptions& o) {
                   const Deadline deadline(o.time_limit_seconds);  // a cancel still gives the plan
                   const std::vector<int64_t> ends =
                       p.conflicts.empty() ? std::vector<int64_t>{} : ends_covering_conflicts(p, [&] { return deadline.expired(); });
                   std::optional<Solution> plan;
                   if (p.conflicts.empty() || !ends.empty()) plan = online_plan(p, &deadline, ends);
                   const bool timed_out = !plan;
                   SolveResult r = result_from_plan(p, o, std::move(plan));
                   r.iterations = !timed_out;
                   if (timed_out) r.detail = "reason=time_limit";
                   return r;
                 },
                 Supports{.explicit_conflicts = true}});
  out.push_back({"first-fit", "first-fit, size descending (alias of first-fit-size)",
                 [](const Problem& p, const SolveOptions& o) {
                   return run_one(p, o, Order::kSizeDesc, Fit::kFirst);
                 },
                 kFitSupports});
  out.push_back({"best-fit", "best-fit, size descending (alias of best-fit-size)",
                 [](const Problem& p, const SolveOptions& o) {
                   return run_one(p, o, Order::kSizeDesc, Fit::kBest);
                 },
                 kFitSupports});
  for (Fit fit : {Fit::kFirst, Fit::kBest}) {
    for (Order order : kAllOrders) {
      const std::string fit_name = fit == Fit::kFirst ? "first-fit" : "best-fit";
      out.push_back({fit_name + "-" + order_name(order),
                     fit_name + " in " + order_name(order) + " order",
                     [order, fit](const Problem& p, const SolveOptions& o) {
                       return run_one(p, o, order, fit);
                     },
                     kFitSupports});
    }
  }
}

}  // namespace memplan
