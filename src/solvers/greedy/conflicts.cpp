// `conflict-greedy`: lowest-gap first-fit on the conflict graph of the timeline module
// (interval overlap + explicit conflicts - in-place links), so it honours Problem::conflicts
// (parallel streams). Per buffer it gathers the placed neighbours' extents and takes the
// lowest aligned gap; a few orders are tried and the lowest peak kept. For any conflict graph
// some order reaches the optimum (research note parallel-streams.md §4.1), so this is also
// the building block of an order search. Gaps are ignored (full rectangles: conservative).
#include <algorithm>
#include <numeric>

#include "core/arith.h"
#include "memplan/driver.h"
#include "memplan/timeline.h"
#include "solvers/families.h"
#include "solvers/greedy/graph_fit.h"

namespace memplan {
namespace {

SolveResult run(const Problem& p, const SolveOptions& opt) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  ConflictGraph own;
  const ConflictGraph* graph = nullptr;
  if (auto stacked = conflict_graph_or_stacked(p, opt, deadline, own, graph)) return *stacked;
  const ConflictGraph& g = *graph;
  std::vector<int64_t> weighted = weighted_degrees(p, g, deadline);
  weighted.resize(n);  // out of time: the passes below then stop at once
  std::vector<int32_t> base(n);
  std::iota(base.begin(), base.end(), 0);
  auto by = [&](auto key) {
    std::vector<int32_t> o = base;
    std::stable_sort(o.begin(), o.end(), [&](int32_t a, int32_t b) { return key(a) > key(b); });
    return o;
  };
  const std::vector<GraphVariant> variants = {
      {by([&](int32_t i) { return p.buffers[i].size; })},    // size desc
      {by([&](int32_t i) { return weighted[i]; })},          // weighted degree
      {by([&](int32_t i) { return g.degree(i); })},          // degree
      {by([&](int32_t i) { return -p.buffers[i].start; })},  // start asc
  };
  int winner = -1;
  int64_t tried = 0;
  SolveResult r = result_from_plan(p, opt, best_on_graph(p, &g, variants, deadline, winner, tried));
  r.iterations = tried;
  if (winner < 0) r.detail = last_resort_detail(winner);
  // Sound for any conflict graph: a clique's buffers need disjoint bytes (on the graph
  // just built; the driver would build it again).
  r.lower_bound = conflict_lower_bound(p, [&] { return deadline.expired(); }, &g);
  return r;
}

}  // namespace

void register_conflict_greedy(std::vector<SolverInfo>& out) {
  out.push_back({"conflict-greedy",
                 "first-fit on the conflict graph (interval overlap + explicit conflicts), four orders "
                 "made for graphs (size, weighted degree, degree, start); lower bound from a greedy clique",
                 run, Supports{.explicit_conflicts = true, .proves_optimal = true}});
}

}  // namespace memplan
