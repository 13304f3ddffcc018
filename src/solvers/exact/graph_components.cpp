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

// The component `ids` (increasing) of `p` as a problem of its own, with its part of `g`.
// `conflicts`: the explicit conflicts within it, already remapped.
void restrict_to(const Problem& p, const ConflictGraph& g, const std::vector<int32_t>& ids, const std::vector<int32_t>& local,
                 std::vector<std::pair<int32_t, int32_t>> conflicts, Problem& sub, ConflictGraph& sg) {
  const size_t S = static_cast<size_t>(std::max(p.clock_dim, 0));
  const bool clocks = S > 0 && p.clock_lower.size() == p.buffers.size() * S && p.clock_upper.size() == p.clock_lower.size();
  sub = Problem{};
  sub.capacity = p.capacity;
  sub.conflicts = std::move(conflicts);
  sub.buffers.reserve(ids.size());
  sg.begin.assign(1, 0);
  sg.adj.clear();
  if (clocks) sub.clock_dim = p.clock_dim;
  for (const int32_t i : ids) {
    sub.buffers.push_back(p.buffers[i]);
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k) sg.adj.push_back(local[g.adj[k]]);  // stays increasing
    sg.begin.push_back(static_cast<int64_t>(sg.adj.size()));
    if (clocks) {
      sub.clock_lower.insert(sub.clock_lower.end(), p.clock_lower.begin() + i * S, p.clock_lower.begin() + (i + 1) * S);
      sub.clock_upper.insert(sub.clock_upper.end(), p.clock_upper.begin() + i * S, p.clock_upper.begin() + (i + 1) * S);
    }
  }
}

}  // namespace

SolveResult run_exact_on_graph(const Problem& p, const SolveOptions& opt) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  ConflictGraph g;
  if (auto stacked = conflict_graph_or_stacked(p, opt, deadline, g)) return *stacked;
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
  std::vector<std::vector<std::pair<int32_t, int32_t>>> conflicts(count);
  for (auto [a, b] : p.conflicts)  // an explicit conflict joins its ends: one component
    if (a != b) conflicts[comp[a]].emplace_back(local[a], local[b]);
  // Heaviest first: the likeliest to set the peak, which then tells the others when to stop.
  std::vector<int32_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return weight[a] > weight[b]; });
  Solution whole{std::vector<int64_t>(n, 0), 0};
  int64_t lb = 0, iterations = 0, left = n;
  const bool limited = std::isfinite(deadline.remaining_seconds());
  for (const int32_t c : order) {
    // Each component gets the remaining time in proportion to its buffers (what it leaves
    // unused goes to the next).
    const double share = limited ? std::max(deadline.remaining_seconds(), 0.0) * static_cast<double>(members[c].size()) / static_cast<double>(left) : 0.0;
    const Deadline mine = limited ? Deadline(std::max(share, 1e-6), opt.cancel) : Deadline(0, opt.cancel);
    left -= static_cast<int64_t>(members[c].size());
    Problem sub;
    ConflictGraph sg;
    restrict_to(p, g, members[c], local, std::move(conflicts[c]), sub, sg);
    const SolveResult r = search_on_graph(sub, sg, opt, mine, whole.peak);
    iterations = sat_add(iterations, r.iterations);
    SolveResult out;
    out.iterations = iterations;
    if (r.status == Status::kInfeasible) {  // one component beyond the capacity: the whole is
      out.status = Status::kInfeasible;
      out.lower_bound = r.lower_bound;
      out.detail = "reason=proven_infeasible graph_mode=1 components=" + std::to_string(count);
      return out;
    }
    if (!r.solution) {
      out.detail = "reason=time_limit graph_mode=1 components=" + std::to_string(count);
      return out;
    }
    for (size_t k = 0; k < members[c].size(); ++k) whole.offsets[members[c][k]] = r.solution->offsets[k];
    whole.peak = std::max(whole.peak, r.solution->peak);
    lb = std::max(lb, r.lower_bound);
  }
  SolveResult r = result_from_plan(p, opt, whole);
  r.lower_bound = lb;
  r.iterations = iterations;
  r.detail = std::string("reason=") + (lb >= whole.peak ? "proven_optimal" : "time_limit") +
             " graph_mode=1 components=" + std::to_string(count);
  return r;
}

}  // namespace memplan::exact
