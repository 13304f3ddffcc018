// Solver `lns`: a large-neighbourhood search over a plan (issue 21 item 2). The target is
// the largest multiple of the granule (peak_granule) below the current peak: every optimal
// peak is such a multiple, so nothing between is lost. Each step draws a neighbourhood
// around one buffer above the target (the anchor: lns::pick) and asks `exact` whether the
// freed buffers fit below the target around the kept ones, within a node budget (a
// decision, not a minimization; the kept buffers above the target are clipped to their part
// below it, lns::sub_of). A plan found is merged, validated against the whole and kept:
// fewer buffers above the target (the anchor at least went below), and when none is left
// the peak has dropped and the next target is one granule lower. So the buffers at the peak
// are moved down a few at a time, not all at once (on D they lie across the horizon: one
// neighbourhood holding them all is the whole problem). A step that fails (refuted or out
// of nodes) keeps the plan. After kPatience failures in a row the
// neighbourhoods grow by half; past the whole problem they start small again with twice the
// node budget. Every choice is drawn from the seed and every decision is bounded by nodes,
// so a run given --iterations (steps) repeats step for step under any load; the time limit
// only caps it, returning the best plan so far. With T threads the steps run in batches of
// T decided in parallel against one plan (run_steps) and applied in draw order: the plan
// depends on the seed and T, not on timing. A heuristic: its plans are never claimed
// optimal here (the driver's own bound may still meet one).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "core/arith.h"
#include "core/workers.h"
#include "memplan/bounds.h"
#include "memplan/instant_bound.h"
#include "memplan/validate.h"
#include "solvers/families.h"
#include "solvers/lns/neighbourhood.h"

namespace memplan {

namespace {

constexpr size_t kFirstSize = 24;              // buffers freed by the first neighbourhoods
constexpr int kPatience = 8;                   // failures in a row before they grow
constexpr int kShakeEvery = 4;                 // a shake after this many failures in a row
constexpr int64_t kFirstStepNodes = 1 << 14;   // a step's node budget, doubled each cycle
constexpr int64_t kStartNodes = 1 << 20;       // exact's start plan, when none is given
constexpr int64_t kDefaultSteps = 2000;        // with neither a time limit nor --iterations
constexpr double kLambdas[] = {0.0, 0.3, 0.7, 1.0};  // neighbourhood shapes (Draw::lambda)

SolveOptions exact_options(const Deadline& deadline, const SolveOptions& opt, int64_t nodes) {
  SolveOptions o;
  o.cancel = opt.cancel;
  const double left = deadline.remaining_seconds();
  o.time_limit_seconds = std::isfinite(left) ? std::max(0.001, left) : 0;  // 0: no limit
  o.iterations = nodes;  // exact stops after the round in which its settled nodes reach it
  o.threads = 1;
  o.validate = false;
  o.explain = false;
  return o;
}

// The start: opt.initial when it is a valid plan of p, else `exact` minimizing for
// kStartNodes nodes (one thread: the same plan under any load).
std::optional<std::vector<int64_t>> start_plan(const Problem& p, const SolveOptions& opt, const Deadline& deadline,
                                               const SolverInfo& exact, std::string& how) {
  if (opt.initial && opt.initial->size() == p.buffers.size() && validate(p, *opt.initial, capacity_of(p, opt), 1).ok) {
    how = "initial";
    return *opt.initial;
  }
  how = opt.initial ? "exact(initial_unusable)" : "exact";
  const SolveResult r = exact.run(p, exact_options(deadline, opt, kStartNodes));
  if (!r.solution) return std::nullopt;
  return r.solution->offsets;
}

// One step of a batch: the buffers it frees and, once decided, exact's answer for them.
struct Step {
  bool shake = false;
  std::vector<int32_t> freed;
  std::optional<std::vector<int64_t>> solution;  // offsets of `freed`, in its order
  Status status = Status::kNoPlan;
  int64_t nodes = 0;
};

// Decides every step of a batch against the same plan, on up to one thread a step (exact on
// one thread within its node budget, so the answers do not depend on the threads' timing).
// An exception in a step is rethrown here, after every thread has joined.
void run_steps(const Problem& p, const std::vector<int64_t>& offsets, const SolverInfo& exact,
               const SolveOptions& base, int64_t peak, int64_t target, std::vector<Step>& steps) {
  std::vector<std::exception_ptr> errors(steps.size());
  std::atomic<size_t> next{0};
  run_workers(static_cast<int>(steps.size()), [&] {
    for (size_t k; (k = next.fetch_add(1)) < steps.size();) {
      try {
        Step& t = steps[k];
        SolveOptions o = base;
        o.capacity = t.shake ? peak : target;
        const lns::Sub sub = lns::sub_of(p, offsets, t.freed, *o.capacity);
        SolveResult r = exact.run(sub.problem, o);
        t.status = r.status;
        t.nodes = r.nodes;
        if (r.solution) t.solution = std::move(r.solution->offsets);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

SolveResult run_lns(const Problem& p, const SolveOptions& opt) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const SolverInfo* exact = find_solver("exact");
  std::string how;
  std::optional<std::vector<int64_t>> start = start_plan(p, opt, deadline, *exact, how);
  if (!start) {
    SolveResult r = result_from_plan(p, opt, std::nullopt);
    r.detail = "start=" + how + " reason=no_start_plan";
    return r;
  }
  std::vector<int64_t> offsets = std::move(*start);
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  const int64_t g = std::max<int64_t>(peak_granule(p), 1);
  const int64_t floor = (sat_add(lower_bound_of(p), g - 1)) / g * g;  // no plan is below it
  const int64_t start_peak = peak_of(p, offsets);
  const int64_t steps = opt.iterations > 0 ? opt.iterations
                        : opt.time_limit_seconds > 0 && std::isfinite(opt.time_limit_seconds) ? INT64_MAX
                                                                                              : kDefaultSteps;
  uint64_t state = opt.seed;
  size_t size = std::min<size_t>(kFirstSize, static_cast<size_t>(n));
  int64_t step_nodes = kFirstStepNodes, nodes = 0;
  int fails = 0;
  int64_t step = 0, found = 0, moved = 0, shaken = 0, refuted = 0, undecided = 0, stale = 0;
  size_t max_found = 0, max_refuted = 0;
  const char* reason = "steps";
  const int64_t threads = std::max(1, opt.threads);
  while (step < steps) {
    if (deadline.expired()) {
      reason = "time_limit";
      break;
    }
    const int64_t peak = peak_of(p, offsets);
    if (peak <= floor) {
      reason = "at_lower_bound";
      break;
    }
    const int64_t target = (peak - 1) / g * g;
    std::vector<int32_t> must;  // the buffers above the target
    for (int32_t i = 0; i < n; ++i)
      if (sat_add(offsets[i], p.buffers[i].size) > target) must.push_back(i);
    if (std::any_of(must.begin(), must.end(), [&](int32_t i) { return p.buffers[i].offset.has_value(); })) {
      reason = "preplaced_at_peak";
      break;
    }
    // A batch of `threads` steps, drawn in turn from the seed and decided in parallel
    // against the same plan, then applied in draw order as if run one after another: so
    // the plan depends on the seed and the thread count, never on timing (each decision is
    // bounded by nodes). One thread: one step per batch, each drawn from the plan the last
    // one left.
    const int64_t batch = std::min<int64_t>(threads, steps - step);
    std::vector<Step> todo(static_cast<size_t>(batch));
    for (int64_t k = 0; k < batch; ++k) {
      lns::Draw draw;
      draw.anchor = must[splitmix64(state) % must.size()];
      const Buffer& c = p.buffers[draw.anchor];
      draw.center = c.start + static_cast<int64_t>(splitmix64(state) % static_cast<uint64_t>(c.end - c.start));
      draw.lambda = kLambdas[splitmix64(state) % std::size(kLambdas)];
      draw.size = size;
      draw.seed = splitmix64(state);
      // Every kShakeEvery-th failure in a row, a shake: the same kind of neighbourhood
      // decided at the current peak instead, so the search's plan of it (each buffer pushed
      // down onto the ones below, exact's canonical form) replaces the old one at no higher
      // peak: the kept buffers around the next anchors are then others (on D no anchor moved
      // in 300 steps without them). In a batch, counted as if the steps before it failed.
      Step& t = todo[static_cast<size_t>(k)];
      t.shake = (fails + k) > 0 && (fails + k) % kShakeEvery == 0;
      t.freed = lns::pick(p, offsets, draw);
    }
    run_steps(p, offsets, *exact, exact_options(deadline, opt, step_nodes), peak, target, todo);
    bool cut = false;  // the limit stopped a merge's check: the steps from there are dropped
    for (const Step& t : todo) {
      nodes = sat_add(nodes, t.nodes);
      const int64_t before = peak_of(p, offsets);
      bool ok = false;
      if (t.solution) {
        std::vector<int64_t> merged = offsets;
        for (size_t k = 0; k < t.freed.size(); ++k) merged[t.freed[k]] = (*t.solution)[k];
        // The freed buffers are below the target now, the kept ones where they were: fewer
        // buffers above it, and the peak no higher (lower once none is left above it). A
        // later step of a batch was decided around the batch's plan: if an earlier one moved
        // its neighbours, the merge may collide, and the validator turns it down (stale).
        // The check polls the limit (on 1M buffers it takes ~0.3 s): an unfinished one
        // leaves the plan as it was and ends the run.
        const Validation v = validate(p, merged, capacity_of(p, opt), 1, &deadline);
        if (!v.complete) {
          cut = true;
          break;
        }
        if (v.ok) {
          offsets = std::move(merged);
          ok = true;
        } else {
          ++stale;
        }
      }
      if (ok && t.shake) {
        ++shaken;
        ++fails;  // a shake is not progress: the neighbourhoods still grow
      } else if (ok) {
        ++moved;
        if (peak_of(p, offsets) < before) ++found;
        max_found = std::max(max_found, t.freed.size());
        fails = 0;
      } else {
        if (!t.shake && t.status == Status::kInfeasible) ++refuted, max_refuted = std::max(max_refuted, t.freed.size());
        else if (!t.shake && !t.solution) ++undecided;
        ++fails;
      }
      if (fails >= kPatience) {
        fails = 0;
        if (size >= static_cast<size_t>(n)) {  // a whole cycle failed: small again, deeper
          size = std::min<size_t>(kFirstSize, static_cast<size_t>(n));
          step_nodes = sat_mul(step_nodes, 2);
        } else {
          size = std::min<size_t>(size + size / 2, static_cast<size_t>(n));
        }
      }
      if (opt.progress)
        opt.progress("step=" + std::to_string(step) + " peak=" + std::to_string(peak_of(p, offsets)) +
                     " size=" + std::to_string(size) + " budget=" + std::to_string(step_nodes));
      ++step;
    }
    if (cut) {
      reason = "time_limit";
      break;
    }
  }
  Solution plan{offsets, peak_of(p, offsets)};
  SolveResult res = result_from_plan(p, opt, std::move(plan));
  res.iterations = step;
  res.nodes = nodes;  // the steps' searches (not the start plan's)
  res.detail = "reason=" + std::string(reason) + " start=" + how + " start_peak=" + std::to_string(start_peak) +
               " steps=" + std::to_string(step) + " improved=" + std::to_string(found) +
               " moved=" + std::to_string(moved) + " shaken=" + std::to_string(shaken) + " refuted=" + std::to_string(refuted) +
               " undecided=" + std::to_string(undecided) + " stale=" + std::to_string(stale) + " max_moved_size=" + std::to_string(max_found) + " max_refuted_size=" + std::to_string(max_refuted) +
               " size=" + std::to_string(size) + " step_nodes=" + std::to_string(step_nodes) +
               " nodes=" + std::to_string(nodes) + " granule=" + std::to_string(g);
  return res;
}

}  // namespace

void register_lns(std::vector<SolverInfo>& out) {
  out.push_back({"lns",
                 "large-neighbourhood search: from a plan (--initial, or exact's), frees buffers "
                 "near the peak and re-places them with the exact search one granule lower; "
                 "seeded, node-budgeted; --threads N decides N neighbourhoods at once; heuristic",
                 run_lns, Supports{.threads = true}});
}

}  // namespace memplan
