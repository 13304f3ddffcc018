// The solver interface's plain helpers (deadline, status names, result wrapping). Running a
// solver (memplan::solve) is the driver's job (src/driver/): core never calls a solver.
#include "memplan/solver.h"

#include <chrono>
#include <cmath>
#include <limits>

#include "memplan/placement.h"

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

std::optional<Solution> last_resort_plan(const Problem& problem, const SolveOptions& options,
                                         const Deadline& deadline) {
  if (options.shared_upper_bound) return std::nullopt;
  const Deadline clock = deadline.clock_only();
  return online_plan(problem, &clock);
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

}  // namespace memplan
