// Order-search metaheuristics over first-fit placement orders, as the peer project
// OmniMalloc ships them (research notes omnimalloc.md §2.1), on our placement engine:
// random restarts, hill climbing, simulated annealing and tabu search. Each starts from the
// best standard greedy order, is seeded and honours the time limit (best plan so far).
#include <algorithm>
#include <cmath>
#include <random>

#include "memplan/orders.h"
#include "memplan/placement.h"
#include "solvers/families.h"

namespace memplan {
namespace {

struct Search {
  const Problem& p;
  Deadline deadline;  // before the engine: its construction (O(n log n)) counts and polls it
  // The plan of last resort, before the engine too: after the limit only the check is left
  // (nullopt: not even this was done in time, or in a portfolio).
  std::optional<Solution> fallback;
  PlacementEngine engine;
  std::mt19937_64 rng;
  std::vector<int32_t> best_order;
  std::optional<Solution> best;
  int64_t evaluations = 0;

  Search(const Problem& problem, const SolveOptions& o)
      : p(problem),
        deadline(o.time_limit_seconds, o.cancel),
        fallback(last_resort_plan(problem, o, deadline)),
        engine(problem, &deadline),
        rng(o.seed) {
    for (Order order : kAllOrders) {
      if (deadline.expired()) break;
      std::vector<int32_t> idx = make_order(p, order, &deadline);
      if (deadline.expired()) break;
      if (auto s = evaluate(idx, best ? best->peak - 1 : INT64_MAX)) {
        best = std::move(s);
        best_order = std::move(idx);
      }
    }
    // No first-fit pass completed within the time limit: the online allocator's plan, with
    // no order to search from (best_order stays empty).
    if (!best) best = std::move(fallback);
    fallback.reset();  // not kept through the search (n offsets)
  }

  bool can_search() const { return !best_order.empty(); }

  // First-fit in `order`; nullopt when the peak passes `abort_above` or the time is up.
  std::optional<Solution> evaluate(const std::vector<int32_t>& order, int64_t abort_above) {
    ++evaluations;
    GreedyResult g = place_in_order(engine, order, Fit::kFirst, abort_above, &deadline);
    if (!g.complete) return std::nullopt;
    return std::move(g.solution);
  }

  // The move of OmniMalloc's local searches: a buffer that reaches the peak swaps with a
  // random earlier buffer in the order whose lifetime overlaps it (any earlier one if none).
  bool peak_swap(std::vector<int32_t>& order, const Solution& plan, std::pair<int32_t, int32_t>* moved = nullptr) {
    std::vector<size_t> at_peak;
    for (size_t k = 0; k < order.size(); ++k)
      if (plan.offsets[order[k]] + p.buffers[order[k]].size == plan.peak) at_peak.push_back(k);
    if (at_peak.empty()) return false;
    const size_t k = at_peak[rng() % at_peak.size()];
    if (k == 0) return false;
    std::vector<size_t> earlier;
    for (size_t e = 0; e < k; ++e)
      if (lifetimes_overlap(p.buffers[order[e]], p.buffers[order[k]])) earlier.push_back(e);
    const size_t e = earlier.empty() ? rng() % k : earlier[rng() % earlier.size()];
    if (moved) *moved = {std::min(order[e], order[k]), std::max(order[e], order[k])};
    std::swap(order[e], order[k]);
    return true;
  }

  SolveResult result(const SolveOptions& o) {
    SolveResult r = result_from_plan(p, o, best);
    r.iterations = evaluations;
    return r;
  }
};

int64_t budget(const SolveOptions& o, int64_t fallback) { return o.iterations > 0 ? o.iterations : fallback; }

SolveResult random_restarts(const Problem& p, const SolveOptions& o) {
  Search s(p, o);
  std::vector<int32_t> order = s.best_order;
  for (int64_t it = 0, n = budget(o, 100); it < n && !s.deadline.expired() && s.can_search(); ++it) {
    std::shuffle(order.begin(), order.end(), s.rng);
    if (auto plan = s.evaluate(order, s.best->peak - 1)) s.best = std::move(plan), s.best_order = order;
  }
  return s.result(o);
}

// Simulated annealing (temperature 0 = hill climbing): accept a worse order with
// probability exp(-delta% / T), T from 3.0 times 0.998 per step.
SolveResult anneal(const Problem& p, const SolveOptions& o, bool annealing) {
  Search s(p, o);
  if (!s.can_search()) return s.result(o);
  std::vector<int32_t> cur_order = s.best_order;
  Solution cur = *s.best;
  double t = annealing ? 3.0 : 0.0;
  std::uniform_real_distribution<double> coin(0, 1);
  for (int64_t it = 0, n = budget(o, 3000); it < n && !s.deadline.expired(); ++it, t *= 0.998) {
    std::vector<int32_t> next = cur_order;
    if (!s.peak_swap(next, cur)) break;
    // A move worse than 10 T percent is accepted with probability < e^-10: abort early there.
    const int64_t limit = t > 0 ? static_cast<int64_t>(double(cur.peak) * (1 + t / 10)) : cur.peak;
    auto plan = s.evaluate(next, limit);
    if (!plan) continue;
    const double delta = 100.0 * double(plan->peak - cur.peak) / double(cur.peak);
    if (delta <= 0 || (t > 0 && coin(s.rng) < std::exp(-delta / t))) {
      cur = std::move(*plan);
      cur_order = std::move(next);
      if (cur.peak < s.best->peak) s.best = cur, s.best_order = cur_order;
    }
  }
  return s.result(o);
}

// Tabu search: each iteration samples 20 peak swaps, moves to the best one whose buffer pair
// is not tabu (tenure 15) unless it beats the best plan overall (aspiration).
SolveResult tabu(const Problem& p, const SolveOptions& o) {
  Search s(p, o);
  if (!s.can_search()) return s.result(o);
  std::vector<int32_t> cur_order = s.best_order;
  Solution cur = *s.best;
  std::vector<std::pair<std::pair<int32_t, int32_t>, int64_t>> tabu_until;
  for (int64_t it = 0, n = budget(o, 500); it < n && !s.deadline.expired(); ++it) {
    std::optional<Solution> pick;
    std::vector<int32_t> pick_order;
    std::pair<int32_t, int32_t> pick_move{-1, -1};
    for (int k = 0; k < 20 && !s.deadline.expired(); ++k) {
      std::vector<int32_t> next = cur_order;
      std::pair<int32_t, int32_t> move;
      if (!s.peak_swap(next, cur, &move)) break;
      auto plan = s.evaluate(next, pick ? pick->peak : INT64_MAX);
      if (!plan) continue;
      const bool is_tabu = std::any_of(tabu_until.begin(), tabu_until.end(),
                                       [&](const auto& t) { return t.first == move && t.second > it; });
      if (is_tabu && plan->peak >= s.best->peak) continue;
      pick = std::move(plan);
      pick_order = std::move(next);
      pick_move = move;
    }
    if (!pick) continue;
    cur = std::move(*pick);
    cur_order = std::move(pick_order);
    tabu_until.push_back({pick_move, it + 15});
    if (cur.peak < s.best->peak) s.best = cur, s.best_order = cur_order;
  }
  return s.result(o);
}

}  // namespace

void register_search(std::vector<SolverInfo>& out) {
  out.push_back({"random-restarts", "first-fit over random orders (default 100), best kept; seeded",
                 random_restarts});
  out.push_back({"hill-climb", "local search over first-fit orders: peak-buffer swaps, improving moves only",
                 [](const Problem& p, const SolveOptions& o) { return anneal(p, o, false); }});
  out.push_back({"simulated-annealing",
                 "peak-buffer swaps over first-fit orders, worse moves accepted with exp(-d%/T), T0=3, x0.998",
                 [](const Problem& p, const SolveOptions& o) { return anneal(p, o, true); }});
  out.push_back({"tabu-search", "20 sampled peak swaps per step, best non-tabu taken (tenure 15), aspiration",
                 tabu});
}

}  // namespace memplan
