#include "memplan/explain.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include "memplan/constraints.h"

namespace memplan {

LoadProfile load_profile(const Problem& p) {
  std::map<int64_t, int64_t> delta;  // time -> change of live bytes
  const bool chains = has_constraints(p);
  const std::vector<Buffer> merged = chains ? inplace_merged(p) : std::vector<Buffer>{};
  for (const Buffer& b : chains ? merged : p.buffers)
    for (const Piece& pc : pieces_of(b)) {
      delta[pc.start] += pc.hi - pc.lo;
      delta[pc.end] -= pc.hi - pc.lo;
    }
  LoadProfile out;
  int64_t cur = 0;
  for (const auto& [t, d] : delta) {
    cur += d;
    out.times.push_back(t);
    out.load.push_back(cur);
  }
  return out;
}

namespace {

// True when the subset does not fit (proof or no plan found); `proven` is cleared when the
// solver only failed to find a plan.
bool does_not_fit(const Problem& p, const std::vector<size_t>& subset, int64_t capacity,
                  const SolverInfo& algo, SolveOptions opt, double seconds, bool* proven) {
  Problem sub = subproblem(p, std::vector<int32_t>(subset.begin(), subset.end()));
  sub.capacity = capacity;
  opt.capacity = capacity;
  opt.explain = false;
  opt.time_limit_seconds = std::max(seconds, 0.001);
  const SolveResult r = solve(sub, algo, opt);
  if (r.solution) return false;
  if (r.status != Status::kInfeasible) *proven = false;
  return true;
}

std::string names(const Problem& p, const std::vector<size_t>& idx, size_t max_named) {
  std::ostringstream s;
  for (size_t k = 0; k < idx.size() && k < max_named; ++k)
    s << (k ? ", " : "") << p.buffers[idx[k]].id << " (" << p.buffers[idx[k]].size << ")";
  if (idx.size() > max_named) s << ", ... " << idx.size() - max_named << " more";
  return s.str();
}

}  // namespace

Explanation explain(const Problem& problem, int64_t capacity, const std::string& algo,
                    const SolveOptions& options) {
  const SolverInfo* info = find_solver(algo);
  if (!info) throw std::invalid_argument("unknown algorithm '" + algo + "' (see 'memplan list')");
  return explain(problem, capacity, *info, options);
}

Explanation explain(const Problem& problem, int64_t capacity, const SolverInfo& algo,
                    const SolveOptions& options) {
  const Deadline deadline(options.time_limit_seconds, options.cancel);
  Explanation e;
  e.capacity = capacity;
  const LoadProfile lp = load_profile(problem);
  for (size_t k = 0; k < lp.times.size(); ++k) {
    if (lp.load[k] > e.worst_load) {
      e.worst_load = lp.load[k];
      e.worst_time = lp.times[k];
    }
    if (lp.load[k] > capacity && k + 1 < lp.times.size()) {
      if (!e.overloaded.empty() && e.overloaded.back().second == lp.times[k])
        e.overloaded.back().second = lp.times[k + 1];
      else
        e.overloaded.push_back({lp.times[k], lp.times[k + 1]});
    }
  }
  e.load_exceeds = e.worst_load > capacity;
  const auto by_size = [&](size_t a, size_t b) {
    const int64_t sa = problem.buffers[a].size, sb = problem.buffers[b].size;
    return sa != sb ? sa > sb : a < b;
  };
  if (e.load_exceeds) {
    for (size_t i = 0; i < problem.buffers.size(); ++i)
      if (present_at(problem.buffers[i], e.worst_time)) e.live.push_back(i);
    std::sort(e.live.begin(), e.live.end(), by_size);
    return e;
  }
  // Best peak without a capacity: a quarter of the budget.
  {
    SolveOptions o = options;
    o.capacity.reset();
    o.explain = false;
    Problem free = problem;
    free.capacity.reset();
    o.time_limit_seconds = std::max(0.001, deadline.remaining_seconds() / 4);
    const SolveResult r = solve(free, algo, o);
    if (r.solution) e.best_peak = r.solution->peak;
  }
  // Deletion filter, smallest buffers tried first (likely inessential). Buffers with an
  // in-place partner or a group stay (removing one would change the others' constraints).
  std::vector<size_t> core(problem.buffers.size());
  for (size_t i = 0; i < core.size(); ++i) core[i] = i;
  std::sort(core.begin(), core.end(), [&](size_t a, size_t b) { return by_size(b, a); });
  // The core is proven infeasible when the check that made it the core (its last successful
  // deletion) was a proof. The whole set's own failure is the caller's and is not known
  // here: without a successful deletion it is checked at the end. (It started out "proven"
  // and only an unproven deletion cleared it: a heuristic's failure on the whole set, e.g.
  // first-fit at a capacity exact fits, was reported as a proven infeasible subset.)
  bool checked = false;
  e.core_minimal = true;
  for (size_t k = 0; k < core.size();) {
    const double left = deadline.remaining_seconds();
    if (deadline.expired()) {
      e.core_minimal = false;
      break;
    }
    const Buffer& b = problem.buffers[core[k]];
    if (!b.group.empty() || !b.inplace_of.empty()) {
      ++k;
      continue;
    }
    std::vector<size_t> rest = core;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
    bool proven = true;
    const double slice = std::min(left, std::max(0.01, left / static_cast<double>(core.size() - k)));
    if (!rest.empty() && does_not_fit(problem, rest, capacity, algo, options, slice, &proven)) {
      core = std::move(rest);
      checked = true;
      e.core_proven = proven;
    } else {
      ++k;
    }
  }
  if (!checked && !core.empty()) {
    bool proven = true;
    const bool fails = does_not_fit(problem, core, capacity, algo, options, deadline.remaining_seconds(), &proven);
    e.core_proven = fails && proven;
  }
  std::sort(core.begin(), core.end(), by_size);
  e.core = core;
  return e;
}

std::string Explanation::summary(const Problem& p) const {
  std::ostringstream s;
  if (load_exceeds) {
    s << "t=" << worst_time << ":load=" << worst_load << ">" << capacity
      << ":overloaded_runs=" << overloaded.size() << ":live=" << live.size();
  } else {
    s << "core=" << core.size() << (core_proven ? ":proven" : ":unproven")
      << (core_minimal ? "" : ":partial");
    s << ":best_peak=" << (best_peak ? std::to_string(*best_peak) : std::string("none"));
  }
  (void)p;
  return s.str();
}

std::string Explanation::report(const Problem& p, size_t max_named) const {
  std::ostringstream s;
  if (load_exceeds) {
    s << "explain: LOAD " << worst_load << " > capacity " << capacity
      << ": no plan of any solver fits\n";
    s << "explain: worst instant t=" << worst_time << " load " << worst_load << " (excess "
      << worst_load - capacity << ")\n";
    s << "explain: overloaded instants (" << overloaded.size() << (overloaded.size() == 1 ? " run):" : " runs):");
    for (size_t k = 0; k < overloaded.size() && k < max_named; ++k)
      s << " [" << overloaded[k].first << "," << overloaded[k].second << ")";
    if (overloaded.size() > max_named) s << " ... " << overloaded.size() - max_named << " more";
    s << "\n";
    s << "explain: live at t=" << worst_time << " (" << live.size()
      << " buffers, largest first): " << names(p, live, max_named) << "\n";
  } else {
    s << "explain: LOAD fits the capacity " << capacity
      << " but no plan was found; best peak without a capacity: "
      << (best_peak ? std::to_string(*best_peak) : std::string("none")) << "\n";
    s << "explain: " << (core_proven ? "infeasible" : "unsolved") << " subset of " << core.size()
      << " buffers" << (core_minimal ? " (deletion filter complete)" : " (filter stopped at the time limit)")
      << ": " << names(p, core, max_named) << "\n";
  }
  return s.str();
}

}  // namespace memplan
