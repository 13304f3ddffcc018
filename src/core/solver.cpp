#include "memplan/solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include "memplan/bounds.h"
#include "memplan/constraints.h"
#include "memplan/io.h"
#include "memplan/two_ended.h"
#include "memplan/validate.h"

namespace memplan {

Deadline::Deadline(double seconds, const std::atomic<bool>* cancel) : cancel_(cancel) {
  if (seconds > 0 && std::isfinite(seconds) && seconds < 1e9)
    end_ = start_ + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(seconds));
}

bool Deadline::expired() const {
  if (cancel_ && cancel_->load(std::memory_order_relaxed)) return true;
  return end_ && Clock::now() >= *end_;
}

double Deadline::remaining_seconds() const {
  if (!end_) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(*end_ - Clock::now()).count();
}

double Deadline::elapsed_seconds() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

const char* to_string(Status s) {
  switch (s) {
    case Status::kFeasible: return "feasible";
    case Status::kOptimal: return "optimal";
    case Status::kInfeasible: return "infeasible";
    case Status::kNoPlan: return "no_plan";
    case Status::kUnchecked: return "unchecked";
    case Status::kInvalid: return "invalid";
  }
  return "?";
}

std::optional<int64_t> capacity_of(const Problem& problem, const SolveOptions& options) {
  return options.capacity ? options.capacity : problem.capacity;
}

SolveResult result_from_plan(const Problem& problem, const SolveOptions& options,
                             std::optional<Solution> plan) {
  SolveResult r;
  const auto cap = capacity_of(problem, options);
  if (plan && (!cap || plan->peak <= *cap)) {
    r.status = Status::kFeasible;
    r.solution = std::move(plan);
  }
  return r;
}

const SolverInfo* find_solver(const std::string& name) {
  for (const SolverInfo& s : all_solvers())
    if (s.name == name) return &s;
  return nullptr;
}

namespace {

// Solvers see the lowered problem; their bounds and infeasibility proofs hold for it only
// (lowering restricts the plan space, see constraints.h), so both are dropped here.
SolveResult solve_lowered(const SolverInfo& info, const Problem& problem, const SolveOptions& options) {
  const Lowering lowered = lower_constraints(problem);
  SolveResult r = info.run(lowered.problem, options);
  if (r.solution) r.solution->offsets = lift_offsets(lowered, r.solution->offsets);
  r.lower_bound = 0;
  if (r.status == Status::kInfeasible) r.status = Status::kNoPlan;
  return r;
}

}  // namespace

SolveResult solve(const Problem& problem, const std::string& name, const SolveOptions& options) {
  const SolverInfo* info = find_solver(name);
  if (!info) throw std::invalid_argument("unknown algorithm '" + name + "' (see 'memplan list')");
  return solve(problem, *info, options);
}

SolveResult solve(const Problem& problem, const SolverInfo& solver, const SolveOptions& options) {
  // Solvers assume the model's rules (size > 0, power-of-two alignment, ...); a problem
  // built or edited in code is checked here as files are, before any solver thread starts.
  check_problem(problem, "problem");
  if (options.capacity && *options.capacity < 0)
    throw InputError("capacity: must be >= 0, got " + std::to_string(*options.capacity));
  const SolverInfo* info = &solver;
  const std::string& name = solver.name;
  if (!problem.conflicts.empty()) {
    if (!solver.supports.explicit_conflicts)
      throw std::invalid_argument("algorithm '" + name +
                                  "' needs interval lifetimes; the input has explicit conflicts "
                                  "(use 'auto' or 'conflict-greedy')");
    if (has_two_ends(problem) || has_constraints(problem))
      throw std::invalid_argument(
          "explicit conflicts together with in-place reuse, groups or a two-ended pool are not "
          "supported yet");
  }
  SolveOptions opt = options;
  opt.threads = std::clamp(options.threads, 1, kMaxThreads);
  const auto t0 = std::chrono::steady_clock::now();
  // Every plan's peak reaches LOAD (in-place chains merged) and every pre-placed buffer's top.
  int64_t load = std::max(has_constraints(problem) ? constrained_lower_bound(problem) : compute_load(problem),
                          fixed_top(problem));
  // The limit bounds the whole call: the solver gets it less a reserve for the check below
  // and what follows its last deadline check. The check (validate, O(n log n)) took 2.6-7.6
  // times as long as the LOAD sweep just done (1M buffers; 7.6 when all are live at once),
  // so the reserve is 8 times that sweep's time (which also tracks the machine's load) plus
  // 2 % of the limit, at most half the limit.
  const double limit = options.time_limit_seconds;
  const double sweep = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double reserve = std::min(0.5 * limit, 0.02 * limit + 8 * sweep);
  // A partial order (vector clocks): its max-weight antichain is at least LOAD (bounds.h);
  // a flow stopped early (at a quarter of the limit) still yields a true antichain.
  if (problem.clock_dim > 0) {
    const auto stop = [&] {
      return limit > 0 && std::isfinite(limit) &&
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > 0.25 * limit;
    };
    if (const auto a = antichain_bound(problem, stop)) load = std::max(load, a->weight);
  }
  // Pre-placed buffers that collide with each other make every plan impossible.
  {
    Problem fixed;
    std::vector<int64_t> offs;
    std::unordered_set<std::string> fixed_ids;
    for (const Buffer& b : problem.buffers)
      if (b.offset) fixed_ids.insert(b.id);
    for (const Buffer& b : problem.buffers)
      if (b.offset) {
        fixed.buffers.push_back(b);
        fixed.buffers.back().group.clear();  // checked when the group is lowered
        if (!fixed_ids.count(b.inplace_of)) fixed.buffers.back().inplace_of.clear();
        offs.push_back(*b.offset);
      }
    const Validation v = validate(fixed, offs, capacity_of(problem, opt), 1);
    if (!v.ok) {
      SolveResult r;
      r.status = Status::kInfeasible;
      r.lower_bound = load;
      r.detail = "reason=\"pre-placed buffers: " + v.errors.front() + "\"";
      return r;
    }
  }
  // What is left of the limit after the checks above, less the reserve.
  if (limit > 0 && std::isfinite(limit))
    opt.time_limit_seconds =
        std::max(0.001, limit - reserve - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  SolveResult r = has_two_ends(problem)     ? solve_two_ended(problem, name, opt)
                   : has_constraints(problem) ? solve_lowered(*info, problem, opt)
                                              : info->run(problem, opt);
  r.lower_bound = std::max(r.lower_bound, load);
  const auto cap = capacity_of(problem, opt);
  if (r.solution && cap && r.solution->peak > *cap) {
    r.solution.reset();
    r.status = Status::kNoPlan;
  }
  if (r.solution && opt.validate) {
    // The independent check (validate.h shares no code with the solvers). A plan that fails
    // it is never returned: a wrong offset would be silent memory corruption downstream.
    const Validation v = validate(problem, r.solution->offsets, cap, 1);
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
  return r;
}

}  // namespace memplan
