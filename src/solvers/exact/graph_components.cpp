// `exact` under explicit conflicts, component by component. Buffers of different connected
// components of the conflict graph never conflict, so their plans may share every byte:
// each component is planned on its own from offset 0 and the peak is the maximum over the
// components (research note parallel-streams.md §4.2 item 5). This also covers the partial
// order's cuts: when every buffer of one side is dead before every buffer of the other is
// born, no edge crosses the cut, so the sides are in different components. A component's
// lower bound is a lower bound of the whole (restricting any plan to it gives a plan of it),
// so the maximum of the components' bounds is sound and the whole is proven optimal as soon
// as the component that sets the peak is.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/arith.h"
#include "memplan/driver.h"
#include "solvers/exact/graph_search.h"
#include "solvers/greedy/graph_fit.h"

namespace memplan::exact {

int32_t conflict_components(const ConflictGraph& g, std::vector<int32_t>& component) {
  const int32_t n = static_cast<int32_t>(g.begin.size()) - 1;
  component.assign(std::max(n, 0), -1);
  int32_t count = 0;
  std::vector<int32_t> todo;
  for (int32_t s = 0; s < n; ++s) {
    if (component[s] >= 0) continue;
    component[s] = count;
    todo.assign(1, s);
    while (!todo.empty()) {
      const int32_t v = todo.back();
      todo.pop_back();
      for (int64_t k = g.begin[v]; k < g.begin[v + 1]; ++k)
        if (const int32_t u = g.adj[k]; component[u] < 0) component[u] = count, todo.push_back(u);
    }
    ++count;
  }
  return count;
}

namespace {

// The part of `g` between the buffers `ids` (increasing), renumbered by `local`.
void restrict_to(const ConflictGraph& g, const std::vector<int32_t>& ids, const std::vector<int32_t>& local,
                 ConflictGraph& sg) {
  sg.begin.assign(1, 0);
  sg.adj.clear();
  for (const int32_t i : ids) {
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k) sg.adj.push_back(local[g.adj[k]]);  // stays increasing
    sg.begin.push_back(static_cast<int64_t>(sg.adj.size()));
  }
}

}  // namespace

SolveResult run_exact_on_graph(const Problem& p, const SolveOptions& opt) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  ConflictGraph own;
  const ConflictGraph* graph = nullptr;
  if (auto stacked = conflict_graph_or_stacked(p, opt, deadline, own, graph)) return *stacked;
  const ConflictGraph& g = *graph;
  std::vector<int32_t> comp;
  const int32_t count = conflict_components(g, comp);
  // Links between buffers by id (in-place, groups) and several memories are not split.
  bool split = count > 1 && p.memories.empty();
  for (const Buffer& b : p.buffers) split = split && b.inplace_of.empty() && b.group.empty() && b.gaps.empty() && !b.from_top;
  if (!split) return search_on_graph(p, g, opt, deadline);
  std::vector<std::vector<int32_t>> members(count);
  std::vector<int32_t> local(n);
  std::vector<int64_t> weight(count, 0);
  for (int32_t i = 0; i < n; ++i) {
    local[i] = static_cast<int32_t>(members[comp[i]].size());
    members[comp[i]].push_back(i);
    weight[comp[i]] = sat_add(weight[comp[i]], p.buffers[i].size);
  }
  // An explicit conflict joins its ends: each lands in one component's problem.
  std::vector<Problem> subs = subproblems(p, members);
  std::vector<ConflictGraph> graphs(count);
  for (int32_t c = 0; c < count; ++c) restrict_to(g, members[c], local, graphs[c]);
  std::vector<SolveResult> res(count);
  int64_t iterations = 0;
  SolveOptions sub_opt = opt;  // the components are new problems: the whole's graph is not theirs
  sub_opt.conflict_graph.reset();
  auto run = [&](int32_t c, const Deadline& d, int64_t enough) {
    res[c] = search_on_graph(subs[c], graphs[c], sub_opt, d, enough);
    iterations = sat_add(iterations, res[c].iterations);
  };
  // Pass 1, no search: every component's first-fit plan and bound (linear in the input).
  for (int32_t c = 0; c < count; ++c) run(c, deadline, INT64_MAX);
  // Pass 2, the search, only where it can matter: minimization, the components whose plan
  // sets the peak (the others are at or below it already); decision, those first fit did
  // not fit. Heaviest first, each with the remaining time in proportion to its buffers
  // (what it leaves goes to the next); a component stops once at or below `enough`, the
  // largest peak among the others and the best bound.
  const auto cap = capacity_of(p, opt);
  int64_t peak = 0, lb = 0;
  for (const SolveResult& r : res) {
    if (r.solution) peak = std::max(peak, r.solution->peak);
    lb = std::max(lb, r.lower_bound);
  }
  std::vector<int32_t> todo;
  int64_t others = 0, left = 0;
  for (int32_t c = 0; c < count; ++c) {
    const bool redo = cap ? !res[c].solution : res[c].solution && res[c].solution->peak >= peak && res[c].lower_bound < peak;
    if (redo) todo.push_back(c), left += static_cast<int64_t>(members[c].size());
    else if (res[c].solution) others = std::max(others, res[c].solution->peak);
  }
  std::stable_sort(todo.begin(), todo.end(), [&](int32_t a, int32_t b) { return weight[a] > weight[b]; });
  const bool limited = std::isfinite(deadline.remaining_seconds());
  for (const int32_t c : todo) {
    if (deadline.expired()) break;
    const double share = limited ? deadline.remaining_seconds() * static_cast<double>(members[c].size()) / static_cast<double>(left) : 0.0;
    left -= static_cast<int64_t>(members[c].size());
    const SolveResult first = res[c];
    run(c, limited ? Deadline(std::max(share, 1e-6), opt.cancel) : Deadline(0, opt.cancel), std::max(lb, others));
    // Keep the better plan of the two passes (the second's incumbent is the stacked plan if
    // its share ran out before first fit ended) and the higher bound.
    const int64_t bound = std::max(res[c].lower_bound, first.lower_bound);
    if (res[c].status != Status::kInfeasible && first.solution && (!res[c].solution || res[c].solution->peak > first.solution->peak))
      res[c] = first;
    res[c].lower_bound = bound;
    lb = std::max(lb, res[c].lower_bound);
  }
  SolveResult out;
  out.iterations = iterations;
  const std::string tail = " graph_mode=1 components=" + std::to_string(count);
  Solution whole{std::vector<int64_t>(n, 0), 0};
  for (int32_t c = 0; c < count; ++c) {
    if (res[c].status == Status::kInfeasible) {  // one component beyond the capacity: the whole is
      out.status = Status::kInfeasible;
      out.lower_bound = res[c].lower_bound;
      out.detail = "reason=proven_infeasible" + tail;
      return out;
    }
  }
  for (int32_t c = 0; c < count; ++c) {
    if (!res[c].solution) {
      out.detail = "reason=time_limit" + tail;
      return out;
    }
    for (size_t k = 0; k < members[c].size(); ++k) whole.offsets[members[c][k]] = res[c].solution->offsets[k];
    whole.peak = std::max(whole.peak, res[c].solution->peak);
  }
  out = result_from_plan(p, opt, whole);
  out.lower_bound = lb;
  out.iterations = iterations;
  out.detail = std::string("reason=") + (lb >= whole.peak ? "proven_optimal" : "time_limit") + tail;
  return out;
}

}  // namespace memplan::exact
