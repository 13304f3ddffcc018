// The canonical search on a conflict graph (graph_search.h). What carries over from the
// interval search (research note parallel-streams.md §4.2) and why it stays exact:
//  - canonical placements: buffers are placed in non-decreasing offset, each at minoff = the
//    lowest aligned offset at or above its placed movable neighbours' tops that clears its
//    pre-placed neighbours. Complete: take an optimal plan, lower every buffer to its lowest
//    feasible offset until nothing moves; sorted by offset, each buffer then sits exactly at
//    its minoff given the buffers before it (§4.2 item 1). Only neighbours are compared.
//  - clique inference instead of sections: for any clique K, the unplaced members are
//    pairwise disjoint and all land at or above max(cur, min minoff), so that plus their
//    total size must fit (§4.2 item 2). The cliques used are the sections of the [start, end)
//    axis: overlapping lifetimes always conflict (timeline.h), so each is a clique.
//  - dominance: never place at o while an unplaced u has minoff(u) + size(u) <= o (item 3).
// Not used here (interval-only): decomposition at time cut points, cell floors, the dives'
// time trees, failure memos. Connected components would be the sound replacement for the
// decomposition (§4.2 item 5); not done.
#include "solvers/exact/graph_search.h"

#include <algorithm>
#include <numeric>

#include "core/arith.h"
#include "memplan/bounds.h"
#include "memplan/driver.h"
#include "memplan/timeline.h"
#include "solvers/greedy/graph_fit.h"

namespace memplan::exact {
namespace {

enum class Answer { kFound, kInfeasible, kBudget };

// Movable buffers above which the search is not run (only the incumbent and the bound): a
// node costs O(n + edges + clique sizes) and the recursion is one level per buffer (on the
// caller's stack; a few hundred bytes a level).
constexpr int32_t kMaxSearched = 4096;

struct GraphSearch {
  const Problem& p;
  const ConflictGraph& g;
  std::vector<std::vector<int32_t>> cliques;   // sections with 2+ movable members
  std::vector<int32_t> rank;                   // static preorder: size desc, degree desc
  const Deadline& deadline;
  int64_t cap = 0;
  int64_t budget = 0, nodes = 0, total_nodes = 0;
  std::vector<int64_t> off;                    // -1: unplaced movable
  std::vector<char> fixed;

  // The lowest aligned offset >= floor clear of i's pre-placed neighbours.
  int64_t clear_fixed(int32_t i, int64_t floor) const {
    const Buffer& b = p.buffers[i];
    int64_t x = align_up(floor, b.alignment);
    for (bool moved = true; moved;) {
      moved = false;
      for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k)
        if (const int32_t j = g.adj[k]; fixed[j] && x < off[j] + p.buffers[j].size && off[j] < sat_add(x, b.size))
          x = align_up(off[j] + p.buffers[j].size, b.alignment), moved = true;
    }
    return x;
  }

  int64_t min_offset(int32_t i) const {
    int64_t floor = 0;
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k)
      if (const int32_t j = g.adj[k]; !fixed[j] && off[j] >= 0) floor = std::max(floor, off[j] + p.buffers[j].size);
    return clear_fixed(i, floor);
  }

  Answer node(int64_t cur, int32_t left) {
    if (left == 0) return Answer::kFound;
    // A node costs O(n + edges + clique sizes): the clock is cheap next to it.
    if (++nodes > budget || deadline.expired()) return Answer::kBudget;
    const int32_t n = static_cast<int32_t>(p.buffers.size());
    std::vector<std::pair<int64_t, int32_t>> cand;  // (minoff, rank position)
    std::vector<int64_t> mo(n, -1);
    int64_t lowest_top = INT64_MAX;                 // min over unplaced of minoff + size
    for (int32_t i = 0; i < n; ++i) {
      if (off[i] >= 0) continue;
      mo[i] = min_offset(i);
      const int64_t top = sat_add(mo[i], p.buffers[i].size);
      if (top > cap) return Answer::kInfeasible;  // minoff only rises as more is placed
      lowest_top = std::min(lowest_top, top);
      if (mo[i] >= cur) cand.emplace_back(mo[i], rank[i]);
    }
    for (const auto& k : cliques) {
      int64_t sum = 0, low = INT64_MAX;
      for (int32_t i : k)
        if (off[i] < 0) sum = sat_add(sum, p.buffers[i].size), low = std::min(low, mo[i]);
      if (sum > 0 && sat_add(std::max(cur, low), sum) > cap) return Answer::kInfeasible;
    }
    std::sort(cand.begin(), cand.end());
    std::vector<int32_t> by_rank(n);
    for (int32_t i = 0; i < n; ++i) by_rank[rank[i]] = i;
    bool budget_hit = false;
    for (const auto& [o, r] : cand) {
      // Dominance: an unplaced buffer fits entirely below o; lowering it is always
      // possible, so no plan of this branch is canonical. Larger o: the same.
      if (lowest_top <= o) break;
      const int32_t i = by_rank[r];
      off[i] = o;
      const Answer a = node(o, left - 1);
      if (a == Answer::kFound) return a;
      off[i] = -1;
      if (a == Answer::kBudget) {
        budget_hit = true;
        break;
      }
    }
    return budget_hit ? Answer::kBudget : Answer::kInfeasible;
  }

  Answer decide(int64_t capacity, int64_t node_budget) {
    cap = capacity;
    budget = node_budget;
    total_nodes += nodes;
    nodes = 0;
    int32_t left = 0;
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      off[i] = fixed[i] ? *p.buffers[i].offset : -1;
      left += !fixed[i];
      if (fixed[i] && sat_add(off[i], p.buffers[i].size) > cap) return Answer::kInfeasible;
    }
    return node(0, left);
  }
};

}  // namespace

SolveResult run_exact_on_graph(const Problem& p, const SolveOptions& opt) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  const auto cap = capacity_of(p, opt);
  bool proofs = true;  // gaps are searched as full rectangles: no proofs then
  for (const Buffer& b : p.buffers) proofs = proofs && b.gaps.empty();
  ConflictGraph g;
  if (!conflict_graph(p, g, kMaxConflictPairs, [&] { return deadline.expired(); })) {
    SolveResult r = result_from_plan(p, opt, stacked_plan(p));
    r.detail = "reason=\"conflict graph above 40M pairs or time limit\" winner=stacked";
    return r;
  }
  GraphSearch s{p, g, {}, std::vector<int32_t>(n), deadline};
  s.off.assign(n, -1);
  s.fixed.assign(n, 0);
  for (int32_t i = 0; i < n; ++i) s.fixed[i] = p.buffers[i].offset.has_value();
  {
    std::vector<int64_t> start(n), end(n), size(n);
    for (int32_t i = 0; i < n; ++i) start[i] = p.buffers[i].start, end[i] = p.buffers[i].end, size[i] = p.buffers[i].size;
    const Sections sec = sections_of(start, end, size);
    std::vector<std::vector<int32_t>> members(sec.count());
    for (int32_t i = 0; i < n; ++i)
      if (!s.fixed[i])
        for (int32_t k = sec.lo[i]; k < sec.hi[i]; ++k) members[k].push_back(i);
    for (auto& m : members)
      if (m.size() >= 2) s.cliques.push_back(std::move(m));
    std::vector<int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return size[a] != size[b] ? size[a] > size[b] : g.degree(a) > g.degree(b);
    });
    for (int32_t k = 0; k < n; ++k) s.rank[order[k]] = k;
  }
  // The incumbent: first fit on the graph in the preorder and by weighted degree.
  std::vector<int32_t> by_rank(n);
  for (int32_t i = 0; i < n; ++i) by_rank[s.rank[i]] = i;
  int winner = -1;
  int64_t completed = 0;
  std::optional<Solution> best = best_on_graph(p, &g, {{by_rank, Fit::kFirst}, {by_rank, Fit::kBest}}, deadline, winner, completed);
  int64_t lb = std::max(lower_bound_of(p), conflict_lower_bound(p, [&] { return deadline.expired(); }, &g));
  if (n > kMaxSearched) {
    SolveResult r = result_from_plan(p, opt, best);
    r.lower_bound = proofs ? std::min(lb, best->peak) : 0;
    r.detail = "reason=too_large_to_search graph_mode=1";
    return r;
  }
  auto plan = [&] {
    Solution sol{s.off, 0};
    sol.peak = peak_of(p, sol.offsets);
    return sol;
  };
  auto finish = [&](SolveResult r, const char* reason) {
    r.iterations = s.total_nodes + s.nodes;  // search nodes, all probes
    r.detail = std::string("reason=") + reason + " graph_mode=1";
    return r;
  };
  SolveResult r;
  if (cap) {  // Decision: is there a plan within the capacity?
    if (best && best->peak <= *cap) return finish(result_from_plan(p, opt, best), "heuristic");
    for (int64_t budget = 2 * std::max(n, 1); !deadline.expired(); budget *= 2) {
      const Answer a = s.decide(*cap, budget);
      if (a == Answer::kFound) return finish(result_from_plan(p, opt, plan()), "found");
      if (a == Answer::kInfeasible) {
        if (!proofs) return finish(r, "exhausted_without_proof");  // gaps: full rectangles only
        r.status = Status::kInfeasible;
        r.lower_bound = sat_add(*cap, 1);
        return finish(r, "proven_infeasible");
      }
    }
    return finish(r, "time_limit");
  }
  // Minimization: bisection between the bound and the incumbent; a refuted target T raises
  // the bound to T + 1 (a proof without gaps; with gaps only the search's floor), a found
  // plan lowers the incumbent. A probe that runs out of nodes
  // proves nothing: then one step below the incumbent, then twice the budget.
  auto upper = [&] {
    int64_t ub = best->peak;
    if (opt.shared_upper_bound) ub = std::min(ub, opt.shared_upper_bound->load());
    return ub;
  };
  for (int64_t budget = 2 * std::max(n, 1); lb < upper() && !deadline.expired();) {
    bool progress = false;
    for (const int64_t target : {lb + (upper() - lb) / 2, upper() - 1}) {
      if (target < lb || deadline.expired()) continue;
      const Answer a = s.decide(target, budget);
      if (a == Answer::kFound) {
        best = plan();
        progress = true;
        break;
      }
      if (a == Answer::kInfeasible) {
        lb = target + 1;
        progress = true;
        break;
      }
    }
    if (!progress) budget *= 2;
  }
  r = result_from_plan(p, opt, best);
  r.lower_bound = proofs ? std::min(lb, upper()) : 0;
  return finish(r, lb < upper() ? "time_limit" : proofs ? "proven_optimal" : "exhausted_without_proof");
}

}  // namespace memplan::exact
