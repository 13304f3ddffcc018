// memplan: the one interface every solver implements, and the registry of solvers.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

struct Explanation;  // explain.h
struct PlanCheck;    // validate.h
struct ConflictGraph;  // timeline.h

// A wall-clock budget plus an optional cancellation flag, checked cheaply by solvers.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  Deadline() = default;  // never expires
  explicit Deadline(double seconds, const std::atomic<bool>* cancel = nullptr);
  bool expired() const;
  double remaining_seconds() const;  // +inf when unlimited
  double elapsed_seconds() const;
  const std::atomic<bool>* cancel_flag() const { return cancel_; }
  // The same end, without the cancellation flag: for the plan of last resort (the online
  // plan), which a cancelled solver still returns but a passed time limit stops.
  Deadline clock_only() const {
    Deadline d = *this;
    d.cancel_ = nullptr;
    return d;
  }
  // The same deadline `seconds` earlier (an unlimited one stays unlimited): a solver's main
  // work stops there and keeps the rest for a short last step (exact: fill_deepest).
  Deadline sooner(double seconds) const {
    Deadline d = *this;
    if (d.end_ && seconds > 0)
      d.end_ = std::max(d.start_, *d.end_ - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
    return d;
  }

 private:
  Clock::time_point start_ = Clock::now();
  std::optional<Clock::time_point> end_;
  const std::atomic<bool>* cancel_ = nullptr;
};

// The time-limit rule: a call given `seconds` (> 0, finite) returns within
// seconds + time_limit_tolerance(seconds) of wall time, i.e. max(10 %, 0.1 s) late at most
// (issue 20 point 4). The driver's check of a plan and auto's checks of its members' plans
// may run into this slack (a fraction of it each); nothing else may.
inline double time_limit_tolerance(double seconds) { return std::max(0.1 * seconds, 0.1); }

// solve() takes at most this many threads (a larger `threads` is taken as kMaxThreads), and
// a thread that cannot be started is not an error: the work runs on the threads there are.
constexpr int kMaxThreads = 64;

struct SolveOptions {
  std::optional<int64_t> capacity;  // overrides problem.capacity when set
  double time_limit_seconds = 10.0; // <= 0 or inf: no limit
  uint64_t seed = 1;
  int threads = 1;                  // clamped to [1, kMaxThreads] by solve()
  int64_t iterations = 0;           // 0: the solver's default (iterative solvers only)
  const std::atomic<bool>* cancel = nullptr;
  // Called by long-running solvers with a short status text; may be empty.
  std::function<void(const std::string&)> progress;
  // Best peak known from elsewhere (portfolio sharing); solvers may prune against it.
  const std::atomic<int64_t>* shared_upper_bound = nullptr;
  // A lower bound on the peak already proven for this problem (0: none). solve() sets it to
  // its own bound (LOAD, pre-placed tops, and under a partial order the max-weight antichain,
  // bounds.h), overwriting the caller's, before it runs the solver: a portfolio starts its
  // shared bound from it and stops at a plan that meets it; a dive starts its ladder there.
  // A solver never reports it as its own proof unless it declares proves_optimal.
  int64_t proven_lower_bound = 0;
  // solve() sets it when proven_lower_bound is at least lower_bound_of(the problem the
  // solver gets) (bounds.h): the solver need not run that sweep again (`auto` skips it).
  bool bound_has_load = false;
  // solve() checks the plan with validate() (O(n log n)) before it reports it, and only a
  // plan that passes is kFeasible or kOptimal. false: the caller validates; the plan is then
  // returned as kUnchecked, never kOptimal.
  bool validate = true;
  // When a capacity is in force and no plan fits it, solve() says why (explain.h) in
  // SolveResult::explanation and adds "explain=<summary>" to detail. When LOAD exceeds the
  // capacity this costs one sweep; otherwise the deletion filter runs in what is left of the
  // time limit (1 s when there is none), so the limit still bounds the whole call.
  // false: no explanation (solve()'s inner calls: subsets, memories, swap rounds).
  bool explain = true;
  // The conflict graph (timeline.h) of exactly the problem the solver is given, built once
  // by a caller that runs several solvers on it (auto, under explicit conflicts: 12.6M pairs
  // at 8 streams x 62k buffers, which each member built for itself). Read only; a solver
  // that plans on the graph uses it instead of building its own (conflict_graph_of). null:
  // the solver builds it. A caller that does not run the solver on that same problem must
  // not pass it (the driver's lowering and two-ended split make new problems: see solve()).
  std::shared_ptr<const ConflictGraph> conflict_graph;
  // A plan to start from (offsets by buffer index), for solvers that improve a given plan
  // (`lns`; the CLI's `solve --initial PLAN`); the others ignore it. A start that is not a
  // valid plan of the problem the solver gets (another buffer count after the driver's
  // lowering, or a violation) is not used.
  std::shared_ptr<const std::vector<int64_t>> initial;
};

enum class Status {
  kFeasible,    // a plan is returned; optimality unknown
  kOptimal,     // a plan is returned and its peak equals a proven lower bound
  kInfeasible,  // proven: no plan fits the capacity
  kNoPlan,      // no plan found that fits (heuristic failure or time limit)
  kUnchecked,   // a plan is returned but was not validated (SolveOptions::validate = false)
  kInvalid,     // the solver's plan failed validation (a bug): no plan is returned, and
                // detail names the first violation (invalid_plan="...")
};

const char* to_string(Status s);

struct SolveResult {
  Status status = Status::kNoPlan;
  std::optional<Solution> solution;
  int64_t lower_bound = 0;   // best proven lower bound on the peak (at least LOAD)
  int64_t iterations = 0;    // iterations/probes/restarts run, where meaningful
  int64_t nodes = 0;         // search nodes visited, by solvers that count them (exact, lns); else 0
  std::string detail;        // extra key=value text for the summary line
  // Why no plan fits the capacity (SolveOptions::explain); null when a plan was found, no
  // capacity was set, or the plan failed validation. Include memplan/explain.h to read it.
  std::shared_ptr<const Explanation> explanation;
  // validate()'s verdict on this plan, from a solver that declares Supports::checks_plans
  // (validate.h, PlanCheck); null otherwise. solve() re-checks unless the offsets match.
  std::shared_ptr<const PlanCheck> check;
};

using SolverFn = std::function<SolveResult(const Problem&, const SolveOptions&)>;

// What a solver can honour beyond plain interval lifetimes, declared by each registered
// solver. The driver (src/driver/, driver.h) reads it before running the solver: a feature the
// solver lacks is either lowered away where that is sound (in-place/groups, two-ended pools,
// proofs) or the combination is refused with a message naming the solver and the feature,
// never answered with a wrong plan.
struct Supports {
  // Problem::conflicts: a conflict relation beyond interval overlap (parallel streams),
  // read through the timeline module's conflict graph. Interval-only solvers (sections,
  // time trees, boxing) leave it false and are refused on such problems.
  bool explicit_conflicts = false;
  // Pre-placed buffers (Buffer::offset) are kept at their offsets. false: refused when any
  // buffer is pre-placed.
  bool fixed_offsets = true;
  // Gaps and windows are used to share bytes. false: each buffer is planned as its full
  // rectangle (still valid, possibly more memory); never refused.
  bool gaps = false;
  // In-place reuse and contiguous groups natively. false (every solver today): the driver
  // lowers them first (constraints.h; sound, it only restricts the plan space) and drops
  // the solver's bound and infeasibility proof, which hold for the lowered problem only.
  bool inplace_groups = false;
  // Two-ended pools natively. false (every solver today): the driver plans each end as its
  // own problem (two_ended.h).
  bool two_ended = false;
  // The solver may raise SolveResult::lower_bound above the driver's own bound (a proof of
  // optimality when the plan meets it). false: the driver ignores the solver's bound.
  bool proves_optimal = false;
  // The solver may answer kInfeasible (a proof). false: such an answer becomes kNoPlan.
  bool proves_infeasible = false;
  // The solver uses SolveOptions::threads > 1. false: it runs on one thread whatever asked.
  bool threads = false;
  // The solver ran validate() on the plan it returns and hands the verdict on in
  // SolveResult::check (`auto` only): solve() then reserves no time for a second check.
  bool checks_plans = false;
};

struct SolverInfo {
  std::string name;
  std::string description;  // one line
  SolverFn run;
  Supports supports{};
};

// Every registered solver, in listing order.
const std::vector<SolverInfo>& all_solvers();
// nullptr when unknown.
const SolverInfo* find_solver(const std::string& name);

// The driver layer (src/driver/, see driver.h). Runs solver `name` (throws
// std::invalid_argument, naming the solver and the feature, when the solver does not
// support what the problem needs, see Supports and unsupported_feature), fills in lower_bound (>= LOAD and >= every pre-placed buffer's
// offset + size), checks the capacity, validates the plan (unless options.validate is
// false) and sets kOptimal when a validated plan's peak meets the lower bound. Throws
// std::invalid_argument for an unknown name; an exception from the solver (including one
// raised on a portfolio's worker thread) reaches the caller. Throws InputError (io.h; naming
// the buffer and field) for a problem that breaks the model's rules (check_problem) or a
// negative capacity, before any solver runs.
SolveResult solve(const Problem& problem, const std::string& name, const SolveOptions& options);
// The same for a solver given directly (one of the caller's own, say): the same bounds,
// capacity check and validation.
SolveResult solve(const Problem& problem, const SolverInfo& solver, const SolveOptions& options);

// Helper for solvers: wrap a plan into a result under the capacity in force.
SolveResult result_from_plan(const Problem& problem, const SolveOptions& options,
                             std::optional<Solution> plan);

// Helper for solvers: the plan of last resort, made first so that a limit that passes in a
// solver's set-up still leaves a plan: the online allocator's (online_plan, placement.h;
// O(n log n)), stopped by the time limit but not by a cancel (Deadline::clock_only).
// nullopt inside a portfolio (options.shared_upper_bound set), which holds its own, and
// when the limit passes first.
std::optional<Solution> last_resort_plan(const Problem& problem, const SolveOptions& options,
                                         const Deadline& deadline);

// The capacity in force: options.capacity, else problem.capacity.
std::optional<int64_t> capacity_of(const Problem& problem, const SolveOptions& options);

}  // namespace memplan
