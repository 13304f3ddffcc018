// schedule(): split at cut operators, then per block the heuristic portfolio, the local
// search and (exact) the dynamic program; the blocks' orders are concatenated.
#include "memplan/schedule.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "schedule/heuristics.h"

namespace memplan {

const char* to_string(ScheduleMode m) {
  switch (m) {
    case ScheduleMode::kGraph: return "graph";
    case ScheduleMode::kMemory: return "memory";
    case ScheduleMode::kExact: return "exact";
  }
  return "?";
}

ScheduleMode parse_schedule_mode(const std::string& s) {
  if (s == "graph") return ScheduleMode::kGraph;
  if (s == "memory") return ScheduleMode::kMemory;
  if (s == "exact") return ScheduleMode::kExact;
  throw std::invalid_argument("unknown schedule mode '" + s + "' (graph, memory or exact)");
}

int64_t order_load(const Graph& g, const std::vector<int32_t>& order, const LowerOptions& options) {
  if (!is_topological(g, order)) throw std::invalid_argument("order_load: not a topological order");
  return sched::score(sched::build_model(g, options), order);
}

namespace {

using namespace sched;

// The local search's budget: orders scored per block. Each costs O(block), so the total
// work is about kSearchWork steps over the graph, but at most kSearchPerNode per operator.
constexpr int64_t kSearchWork = 20'000'000;
constexpr int64_t kSearchPerNode = 100;

struct BlockPlan {
  int32_t lo = 0, hi = 0;
  std::vector<int32_t> order;
  int64_t peak = 0;
  int64_t lower_bound = 0;  // on this block's peak in every order
  bool proven = false;      // peak is the block's optimum
  BlockStart start;         // kept for the exact pass (small blocks only)
};

// The largest block peak: the LOAD of the blocks' orders concatenated.
int64_t max_peak(const Model& m, const std::vector<BlockPlan>& plans) {
  int64_t load = m.n == 0 ? m.initial_live : 0;
  for (const BlockPlan& p : plans) load = std::max(load, p.peak);
  return load;
}

// One block from the state in `sweep`: graph order, or (search) the best of the heuristics
// and then the local search; a block whose peak is not lower keeps the graph order.
// Out of time, the block keeps the graph order (never worse). Raises per_heuristic.
BlockPlan plan_block(const BlockView& b, Sweep& sweep, bool search, int64_t evals,
                     std::mt19937_64& rng, const Clock& clock, std::vector<int64_t>& per_heuristic) {
  BlockPlan p;
  p.lo = b.lo;
  p.hi = b.hi;
  p.order = heuristic_order(Heuristic::kGraph, b, sweep, clock);
  const BlockScore graph = score_block(p.order, sweep);
  BlockScore best = graph;
  if (search && b.size() > 1 && !clock.expired()) {
    for (size_t h = 0; h < std::size(kAllHeuristics); ++h) {
      std::vector<int32_t> order = heuristic_order(kAllHeuristics[h], b, sweep, clock);
      const BlockScore s = score_block(order, sweep);
      per_heuristic[h] = std::max(per_heuristic[h], s.peak);
      if (s.peak < best.peak) {  // ties keep the earlier (graph order first)
        best = s;
        p.order = std::move(order);
      }
    }
    best = local_search(b, sweep, p.order, evals, rng, clock);
    if (best.peak == graph.peak) {  // no lower peak: keep the graph order (stable diffs)
      p.order = heuristic_order(Heuristic::kGraph, b, sweep, clock);
      best = graph;
    }
  } else {
    for (auto& h : per_heuristic) h = std::max(h, graph.peak);
  }
  p.peak = best.peak;
  // A single operator's step is the same in every order: its peak is its optimum.
  p.lower_bound = b.size() == 1 ? p.peak : 0;
  for (int32_t v : p.order) p.lower_bound = std::max(p.lower_bound, step_lower_bound(*b.m, v));
  p.proven = p.peak == p.lower_bound;
  return p;
}

// The exact pass over the blocks, highest peaks first: a block at or below the bound
// proven so far (lb) cannot lower LOAD, and each block the program solves raises lb to its
// optimum. Returns why a block was left unsolved (the first reason), or "".
std::string solve_exactly(const Model& m, std::vector<BlockPlan>& plans, int64_t& lb,
                          const ScheduleOptions& opt, const Clock& clock, int64_t& solved) {
  const int exact_max = std::min(opt.exact_max_nodes, 64);
  std::vector<size_t> idx(plans.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t c) { return plans[a].peak > plans[c].peak; });
  std::string reason;
  auto note = [&](const std::string& why) {
    if (reason.empty()) reason = why;
  };
  for (size_t i : idx) {
    BlockPlan& p = plans[i];
    if (p.proven || p.peak <= lb) continue;
    const BlockView b{&m, p.lo, p.hi};
    const std::string ops = std::to_string(b.size()) + " operators";
    if (clock.expired()) {
      note("time limit reached before a block of " + ops);
      break;
    }
    if (b.size() > exact_max) {
      note("block of " + ops + " over the exact limit of " + std::to_string(exact_max));
      continue;
    }
    const ExactResult e = exact_block(b, p.start, p.peak, opt.exact_max_states, clock);
    if (e.status != ExactResult::kSolved) {
      note(e.status == ExactResult::kTimeout
               ? "time limit reached in a block of " + ops
               : "block of " + ops + " over " + std::to_string(opt.exact_max_states) + " states");
      continue;
    }
    ++solved;
    if (!e.order.empty()) {
      p.order = e.order;
      p.peak = e.peak;
    }
    p.proven = true;
    p.lower_bound = std::max(p.lower_bound, p.peak);
    lb = std::max(lb, p.peak);
  }
  return reason;
}

}  // namespace

ScheduleResult schedule(const Graph& g, const ScheduleOptions& opt) {
  const Clock clock(opt.time_limit);
  const Model m = build_model(g, opt.lower);
  ScheduleResult r;
  r.method = to_string(opt.mode);
  r.graph_order_load = score(m, m.gorder);
  const std::vector<int32_t> bounds = split_blocks(m);
  r.blocks = static_cast<int64_t>(bounds.size()) - 1;
  const bool search = opt.mode != ScheduleMode::kGraph;
  const bool exact = opt.mode == ScheduleMode::kExact;

  std::vector<int64_t> per_heuristic(std::size(kAllHeuristics), m.n == 0 ? m.initial_live : 0);
  std::vector<BlockPlan> plans;
  std::mt19937_64 rng(opt.seed);
  const int64_t evals_per_block = m.n > 0 ? kSearchWork / m.n : 0;
  Sweep sweep(m);
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    const BlockView b{&m, bounds[k], bounds[k + 1]};
    r.largest_block = std::max<int64_t>(r.largest_block, b.size());
    const int64_t evals = std::min<int64_t>(kSearchPerNode * b.size(), evals_per_block);
    BlockPlan p = plan_block(b, sweep, search, evals, rng, clock, per_heuristic);
    if (exact && !p.proven && b.size() <= std::min(opt.exact_max_nodes, 64)) p.start = capture_start(b, sweep);
    for (int32_t v : p.order) sweep.run(v);  // the state at the next block's start
    plans.push_back(std::move(p));
  }
  for (size_t h = 0; h < std::size(kAllHeuristics); ++h)
    if (search && kAllHeuristics[h] != Heuristic::kGraph)
      r.heuristics.push_back({heuristic_name(kAllHeuristics[h]), per_heuristic[h]});
  r.local_search_load = max_peak(m, plans);

  int64_t lb = m.n == 0 ? m.initial_live : 0;
  for (const BlockPlan& p : plans) lb = std::max(lb, p.lower_bound);
  if (exact) {
    const std::string reason = solve_exactly(m, plans, lb, opt, clock, r.exact_blocks);
    if (max_peak(m, plans) > lb) {
      r.fell_back = true;
      r.fell_back_reason = reason.empty() ? "not proven" : reason;
    }
  }

  for (const BlockPlan& p : plans) r.order.insert(r.order.end(), p.order.begin(), p.order.end());
  r.load = score(m, r.order);  // one sweep over the final order, not the blocks' maximum
  r.lower_bound = lb;
  r.proven_optimal = r.load == lb;
  r.seconds = clock.elapsed();
  return r;
}

}  // namespace memplan
