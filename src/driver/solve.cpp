// memplan::solve, the driver (driver.h): everything between the library entry and a solver.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <unordered_set>

#include "core/polled.h"
#include "memplan/bounds.h"
#include "memplan/constraints.h"
#include "memplan/driver.h"
#include "memplan/explain.h"
#include "memplan/io.h"
#include "memplan/two_ended.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

// Solvers see the lowered problem; their bounds and infeasibility proofs hold for it only
// (lowering restricts the plan space, see constraints.h), so both are dropped here.
SolveResult solve_lowered(const SolverInfo& info, const Problem& problem, const SolveOptions& options) {
  // Polled on the clock (1M buffers: ~0.5 s of CPU): a cancel is the solver's to answer.
  const Deadline clock(options.time_limit_seconds);
  const Lowering lowered = lower_constraints(problem, &clock);
  if (!lowered.complete) {
    SolveResult r;
    r.detail = "reason=time_limit_in_lowering";
    return r;
  }
  // A start plan (SolveOptions::initial) in the lowered problem's terms: each lowered buffer
  // at its members' offset less their delta (lift_offsets backwards). Passed as it was, it
  // had the wrong length and lns dropped it (start=exact(initial_unusable)); a plan whose
  // in-place members sit apart maps to one lns finds invalid and drops, as before.
  SolveOptions o = options;
  if (options.initial && options.initial->size() == problem.buffers.size()) {
    auto lowered_initial = std::make_shared<std::vector<int64_t>>(lowered.problem.buffers.size(), 0);
    for (size_t i = 0; i < problem.buffers.size(); ++i)
      (*lowered_initial)[lowered.rep[i]] = (*options.initial)[i] - lowered.delta[i];
    o.initial = std::move(lowered_initial);
  }
  SolveResult r = info.run(lowered.problem, o);
  if (r.solution) r.solution->offsets = lift_offsets(lowered, r.solution->offsets);
  r.lower_bound = 0;
  if (r.status == Status::kInfeasible) r.status = Status::kNoPlan;
  return r;
}

}  // namespace

// driver.h. Its copy loops poll too (1M pre-placed buffers: ~0.3 s of CPU to copy).
std::optional<std::string> fixed_collision(const Problem& problem, std::optional<int64_t> cap,
                                           const Deadline* deadline) {
  // Nothing pre-placed (the usual case): no copies, nothing to check.
  if (std::none_of(problem.buffers.begin(), problem.buffers.end(), [](const Buffer& b) { return b.offset.has_value(); }))
    return std::string();
  Poll poll(deadline);
  Problem fixed;
  std::vector<int64_t> offs;
  std::unordered_set<std::string> fixed_ids;
  std::vector<int32_t> index_in_fixed(problem.buffers.size(), -1);
  for (const Buffer& b : problem.buffers) {
    if (poll()) return std::nullopt;
    if (b.offset) fixed_ids.insert(b.id);
  }
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    if (poll()) return std::nullopt;
    if (!b.offset) continue;
    index_in_fixed[i] = static_cast<int32_t>(fixed.buffers.size());
    fixed.buffers.push_back(b);
    fixed.buffers.back().group.clear();  // checked when the group is lowered
    if (!fixed_ids.count(b.inplace_of)) fixed.buffers.back().inplace_of.clear();
    offs.push_back(*b.offset);
  }
  // Explicit conflicts between two pre-placed buffers count too.
  for (const auto& [a, b] : problem.conflicts)
    if (index_in_fixed[a] >= 0 && index_in_fixed[b] >= 0) fixed.conflicts.emplace_back(index_in_fixed[a], index_in_fixed[b]);
  const Validation v = validate(fixed, offs, cap, 1, deadline);
  if (!v.complete) return std::nullopt;
  return v.ok ? std::string() : v.errors.front();
}

SolveResult solve(const Problem& problem, const std::string& name, const SolveOptions& options) {
  const SolverInfo* info = find_solver(name);
  if (!info) throw std::invalid_argument("unknown algorithm '" + name + "' (see 'memplan list')");
  return solve(problem, *info, options);
}

SolveResult solve(const Problem& problem, const SolverInfo& solver, const SolveOptions& options) {
  // Solvers assume the model's rules (size > 0, power-of-two alignment, ...); a problem
  // built or edited in code is checked here as files are, before any solver thread starts.
  // The limit bounds the whole call, these checks included (1M buffers: ~0.35 s of CPU for
  // both, several times that in wall time on a loaded machine): stopped, they give no plan.
  const double limit = options.time_limit_seconds;
  const Deadline whole(limit);
  check_problem(problem, "problem", &whole);
  if (options.capacity && *options.capacity < 0)
    throw InputError("capacity: must be >= 0, got " + std::to_string(*options.capacity));
  if (const std::string why = unsupported_feature(problem, solver); !why.empty()) throw std::invalid_argument(why);
  const Supports& can = solver.supports;
  SolveOptions opt = options;
  opt.threads = can.threads ? std::clamp(options.threads, 1, kMaxThreads) : 1;
  const auto t0 = std::chrono::steady_clock::now();
  // Every plan's peak reaches LOAD (in-place chains merged) and every pre-placed buffer's top.
  int64_t load = whole.expired() ? -1 : lower_bound_of(problem, &whole);
  const auto out_of_time = [] {
    SolveResult r;
    r.status = Status::kNoPlan;
    r.detail = "reason=time_limit_in_input_check";
    return r;
  };
  if (load < 0) return out_of_time();
  // The limit bounds the whole call: the solver gets it less a reserve for what follows its
  // last deadline check: 2 % of the limit, and the check of its plan below (validate, O(n
  // log n); its events radix-sorted), which costs 1.3-2.7 times the LOAD sweep just done
  // (1M buffers, 2.7 when all are live at once: `scripts/overrun.sh large`, first table), so
  // 3 times that sweep's time (which also tracks the machine's load), at most half the limit.
  // A solver that checks its own plan (Supports::checks_plans: `auto`, within its limit)
  // hands the verdict on and none is reserved. (It was 8 sweeps for every solver, sized
  // for `auto`'s two checks, one of them done twice: 1M buffers then got no plan at 1 s.)
  const double sweep = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double reserve = std::min(0.5 * limit, 0.02 * limit + (can.checks_plans ? 0 : 3 * sweep));
  // A partial order (vector clocks): its max-weight antichain is at least LOAD (bounds.h);
  // a flow stopped early (at a quarter of the limit) still yields a true antichain.
  bool antichain_won = false;  // the antichain is above LOAD: reported as bound=antichain
  if (problem.clock_dim > 0) {
    const auto stop = [&] { return limit > 0 && std::isfinite(limit) && whole.elapsed_seconds() > 0.25 * limit; };
    if (const auto a = antichain_bound(problem, stop); a && a->weight > load) load = a->weight, antichain_won = true;
  }
  const auto cap = capacity_of(problem, opt);
  const std::optional<std::string> collision = fixed_collision(problem, cap, &whole);
  if (!collision) return out_of_time();
  if (const std::string& why = *collision; !why.empty()) {
    SolveResult r;
    r.status = Status::kInfeasible;
    r.lower_bound = load;
    r.detail = "reason=\"pre-placed buffers: " + why + "\"";
    return r;
  }
  // What is left of the limit after the checks above, less the reserve.
  if (limit > 0 && std::isfinite(limit))
    opt.time_limit_seconds =
        std::max(0.001, limit - reserve - whole.elapsed_seconds());
  // Sound for the lowered problem too (lowering only restricts the plan space); each end of
  // a two-ended pool is a new solve() with its own bound.
  opt.proven_lower_bound = has_two_ends(problem) && !can.two_ended ? 0 : load;
  const bool direct = !(has_two_ends(problem) && !can.two_ended) && !(has_constraints(problem) && !can.inplace_groups);
  opt.bound_has_load = direct;  // the solver gets `problem` itself, whose LOAD `load` holds
  // A caller's conflict graph is of `problem`: the lowered problem and the two ends are
  // new problems, whose solvers build their own.
  if ((has_two_ends(problem) && !can.two_ended) || (has_constraints(problem) && !can.inplace_groups))
    opt.conflict_graph.reset();
  SolveResult r = direct                                          ? solver.run(problem, opt)
                  : has_two_ends(problem) && !can.two_ended ? solve_two_ended(problem, solver, opt)
                                                            : solve_lowered(solver, problem, opt);
  // A verdict is reused only for the plan it judged: a solver that declares it, run on this
  // very problem, these offsets and this capacity (PlanCheck, validate.h).
  const bool judged = can.checks_plans && direct && r.solution && r.check && r.check->capacity == cap &&
                      r.check->offsets == r.solution->offsets;
  const bool checked = judged && r.check->verdict.complete;
  const bool check_cut = judged && !r.check->verdict.complete;  // the solver's check hit the limit
  // Only a solver that declares proofs may raise the bound or claim infeasibility.
  if (!can.proves_optimal) r.lower_bound = 0;
  if (!can.proves_infeasible && r.status == Status::kInfeasible) r.status = Status::kNoPlan;
  r.lower_bound = std::max(r.lower_bound, load);
  // Under explicit conflicts, a clique of the relation on top, in the time the solver left
  // (less the check's share): solvers that declare proofs derive it themselves.
  if (!problem.conflicts.empty() && !can.proves_optimal && (!r.solution || r.solution->peak > r.lower_bound)) {
    const bool limited = limit > 0 && std::isfinite(limit);
    const double left = limited ? limit - 3 * sweep - whole.elapsed_seconds() : 0;
    if (!limited || left > 0) {
      const Deadline bound_time(left, options.cancel);
      r.lower_bound = std::max(r.lower_bound, conflict_lower_bound(problem, [&] { return bound_time.expired(); }));
    }
  }
  if (r.solution && cap && r.solution->peak > *cap) {
    r.solution.reset();
    r.status = Status::kNoPlan;
  }
  if (r.solution && opt.validate) {
    // The independent check (validate.h shares no code with the solvers). A plan that fails
    // it is never returned: a wrong offset would be silent memory corruption downstream.
    // The reserve above normally leaves it the time it needs; on a machine so loaded that it
    // does not, the check stops at the limit plus half the tolerance (time_limit_tolerance), and
    // the call returns no plan (reason=time_limit_in_check) rather than overrun or return
    // an unchecked plan.
    const Deadline check_deadline = limit > 0 && std::isfinite(limit)
        ? Deadline(std::max(1e-9, limit + 0.5 * time_limit_tolerance(limit) - whole.elapsed_seconds()))
        : Deadline();
    // A check the solver's limit already cut is not started again past it (only dropped).
    const Validation v = checked || check_cut ? r.check->verdict
                                              : validate(problem, r.solution->offsets, cap, 1, &check_deadline);
    if (!v.complete) {
      r.solution.reset();
      r.status = Status::kNoPlan;
      r.detail += std::string(r.detail.empty() ? "" : " ") + "reason=time_limit_in_check";
      return r;
    }
    if (!v.ok || v.peak != r.solution->peak) {
      const std::string why = !v.ok ? v.errors.front()
                                    : "reported peak " + std::to_string(r.solution->peak) + ", actual " +
                                          std::to_string(v.peak);
      r.solution.reset();
      r.status = Status::kInvalid;
      r.lower_bound = load;  // the solver's own bound is suspect too
      r.detail += std::string(r.detail.empty() ? "" : " ") + "invalid_plan=\"" + why + "\"";
      return r;
    }
  }
  if (r.solution) {
    // A solver that proves optimality by other means raises lower_bound to the peak.
    r.status = !opt.validate                       ? Status::kUnchecked
               : r.solution->peak <= r.lower_bound ? Status::kOptimal
                                                   : Status::kFeasible;
  } else if (r.status != Status::kInfeasible) {
    r.status = Status::kNoPlan;
  }
  if (cap && r.lower_bound > *cap && !r.solution) r.status = Status::kInfeasible;
  if (antichain_won && r.lower_bound == load) r.detail += std::string(r.detail.empty() ? "" : " ") + "bound=antichain";
  if (cap && !r.solution && options.explain) {
    // Why nothing fits (explain.h), in what is left of the limit (1 s when there is none).
    SolveOptions e = opt;
    e.explain = false;
    const double used = whole.elapsed_seconds();
    e.time_limit_seconds = limit > 0 && std::isfinite(limit) ? std::max(0.001, limit - used) : 1.0;
    auto ex = std::make_shared<Explanation>(explain(problem, *cap, solver, e));
    r.detail += std::string(r.detail.empty() ? "" : " ") + "explain=" + ex->summary(problem);
    r.explanation = std::move(ex);
  }
  return r;
}

}  // namespace memplan
