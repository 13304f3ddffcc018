// Solver `exact`: decides "does a plan with peak <= C exist?" and, without a capacity,
// minimizes the peak with proof. Restarts across static preorders with doubling node
// budgets (MiniMalloc's round robin); every probe is its own search, and a probe that runs
// out of budget or time is "unknown", never "infeasible".
#include <numeric>

#include "memplan/bounds.h"
#include "memplan/orders.h"
#include "memplan/placement.h"
#include "solvers/exact/search.h"
#include "solvers/families.h"

namespace memplan {
namespace {

constexpr int64_t kMaxPairs = 40'000'000;  // ~320 MB of overlap lists at most
const char* const kPreorders[] = {"WAT", "TAW", "TWA"};

bool has_gaps(const Problem& p) {
  for (const Buffer& b : p.buffers)
    if (!b.gaps.empty()) return true;
  return false;
}

int64_t round_up(int64_t x, int64_t g) { return (x + g - 1) / g * g; }

// The best first-fit plan over the standard orders: the first incumbent.
std::optional<Solution> incumbent(const Problem& p, const Deadline& deadline) {
  std::optional<Solution> best;
  PlacementEngine engine(p);
  // The conflict order first: on dense inputs it is both strong and the fastest to place.
  std::vector<Order> orders = {Order::kConflictDesc};
  for (Order o : kAllOrders)
    if (o != Order::kConflictDesc) orders.push_back(o);
  for (Order o : orders) {
    if (best && deadline.expired()) break;
    const std::vector<int32_t> order = make_order(p, o);
    GreedyResult g = place_in_order(engine, order, Fit::kFirst, best ? best->peak - 1 : INT64_MAX,
                                    best ? &deadline : nullptr);
    if (g.complete && (!best || g.solution.peak < best->peak)) best = std::move(g.solution);
  }
  return best;
}

struct Prober {
  const exact::Instance& in;
  std::vector<std::vector<int32_t>> orders;
  const Deadline& deadline;
  int64_t nodes = 0, probes = 0;

  // Round robin over preorders with budget `budget` each at capacity `cap`.
  exact::Outcome probe(int64_t cap, int64_t budget, std::vector<int64_t>& offsets) {
    for (const auto& order : orders) {
      if (deadline.expired()) return exact::Outcome::kBudget;
      exact::SearchResult r = exact::search(in, cap, order, budget, deadline);
      nodes += r.nodes;
      ++probes;
      if (r.outcome == exact::Outcome::kFound) offsets = std::move(r.offsets);
      if (r.outcome != exact::Outcome::kBudget) return r.outcome;
    }
    return exact::Outcome::kBudget;
  }
};

SolveResult run_exact(const Problem& p, const SolveOptions& opt) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const auto cap = capacity_of(p, opt);
  SolveResult r;
  const bool proofs = !has_gaps(p);  // gaps are searched as full rectangles: no proofs then
  std::optional<exact::Instance> in = exact::prepare(p, kMaxPairs, deadline);
  // In a portfolio the other members supply the incumbent through the shared bound.
  const bool shared = opt.shared_upper_bound && opt.shared_upper_bound->load() < INT64_MAX;
  std::optional<Solution> best;
  if (!shared) best = incumbent(p, deadline);
  if (!in) {
    r = result_from_plan(p, opt, best);
    r.detail = "exact=declined";
    return r;
  }
  const int64_t g = proofs ? in->granularity : 1;
  int64_t lb = round_up(compute_load(p), g);
  Prober prober{*in, {}, deadline};
  for (const char* keys : kPreorders) prober.orders.push_back(exact::preorder(*in, keys));
  auto plan_of = [&](std::vector<int64_t> offsets) {
    Solution s;
    s.peak = peak_of(p, offsets);
    s.offsets = std::move(offsets);
    return s;
  };
  auto finish = [&](SolveResult res, const char* reason) {
    res.iterations = prober.probes;
    res.detail = std::string("reason=") + reason + " nodes=" + std::to_string(prober.nodes) +
                 " granularity=" + std::to_string(g);
    return res;
  };

  if (cap) {  // Decision: is there a plan within the capacity?
    if (best && best->peak <= *cap) return finish(result_from_plan(p, opt, best), "heuristic");
    if (proofs && lb > *cap) {
      r.status = Status::kInfeasible;
      r.lower_bound = lb;
      return finish(r, "proven_infeasible");
    }
    std::vector<int64_t> offsets;
    for (int64_t budget = 2 * std::max(in->n, 1);; budget *= 2) {
      const exact::Outcome o = prober.probe(*cap, budget, offsets);
      if (o == exact::Outcome::kFound) return finish(result_from_plan(p, opt, plan_of(std::move(offsets))), "found");
      if (o == exact::Outcome::kInfeasible && proofs) {
        r.status = Status::kInfeasible;
        r.lower_bound = round_up(*cap + 1, g);
        return finish(r, "proven_infeasible");
      }
      if (deadline.expired()) return finish(r, "time_limit");
    }
  }

  // Minimization: a ladder of targets between the lower bound and the incumbent (the bound
  // itself, fractions of the gap, one step below the incumbent), probed round robin with
  // doubling node budgets. A found plan lowers the incumbent; an exhausted probe raises the
  // bound. The ladder does not depend on the number of threads.
  if (!best && !shared) return finish(r, "no_incumbent");
  // The best peak known anywhere: ours, or another portfolio member's.
  auto upper = [&] {
    int64_t ub = best ? best->peak : INT64_MAX;
    if (opt.shared_upper_bound) ub = std::min(ub, opt.shared_upper_bound->load());
    return ub;
  };
  for (int64_t budget = 2 * std::max(in->n, 1); lb < upper() && !deadline.expired(); budget *= 2) {
    bool progress = true;
    while (progress && lb < upper() && !deadline.expired()) {
      progress = false;
      const int64_t ub = upper();
      const int64_t gap = ub - lb;
      const int64_t rungs[] = {lb, round_up(lb + gap / 8, g), round_up(lb + gap / 4, g),
                               round_up(lb + gap / 2, g), ub - g};
      for (int64_t target : rungs) {
        if (target < lb || target >= ub || deadline.expired()) continue;
        std::vector<int64_t> offsets;
        const exact::Outcome o = prober.probe(target, budget, offsets);
        if (o == exact::Outcome::kFound) {
          best = plan_of(std::move(offsets));
          progress = true;  // re-derive the ladder at this budget
          break;
        }
        if (o == exact::Outcome::kInfeasible && proofs) {
          lb = target + g;
          progress = true;
          break;
        }
      }
      if (opt.progress)
        opt.progress("lb=" + std::to_string(lb) + " best=" + std::to_string(upper()) +
                     " budget=" + std::to_string(budget));
    }
  }
  r = result_from_plan(p, opt, best);
  // The bound may prove another member's plan optimal (lb >= shared bound).
  r.lower_bound = proofs ? std::min(lb, upper()) : 0;
  return finish(r, lb >= upper() ? "proven_optimal" : "time_limit");
}

}  // namespace

void register_exact(std::vector<SolverInfo>& out) {
  out.push_back({"exact",
                 "exact search over canonical plans (MiniMalloc method): decides a capacity, or "
                 "minimizes the peak with proof; anytime",
                 run_exact});
}

}  // namespace memplan
