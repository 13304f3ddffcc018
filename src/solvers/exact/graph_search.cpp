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
// Decomposition: the conflict graph's connected components are independent (§4.2 item 5;
// graph_components.cpp); this file searches one problem as a whole.
// At scale (no size cap): the search is an explicit stack of frames (one per placed buffer:
// O(depth) memory, no recursion), the floors minoff is computed from are kept incrementally
// with an undo log (O(total degree) at most), and a node costs O(n + clique budget + the
// pre-placed neighbours) — so each node is bounded and the budget/deadline polled per node.
// Not used here (interval-only): decomposition at time cut points, cell floors, the dives'
// time trees, failure memos; no threads (one search per call).
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

// Total clique membership kept for the inference (heaviest cliques first): a node scans
// every kept clique, so this bounds its cost. Dropping a clique only weakens the pruning.
constexpr int64_t kCliqueMembers = int64_t{1} << 20;

struct GraphSearch {
  GraphSearch(const Problem& problem, const ConflictGraph& graph, const Deadline& dl)
      : p(problem), g(graph), deadline(dl) {}
  const Problem& p;
  const ConflictGraph& g;
  const Deadline& deadline;
  std::vector<std::vector<int32_t>> cliques;   // sections with 2+ movable members
  std::vector<int32_t> rank, by_rank;          // static preorder: size desc, degree desc
  std::vector<int32_t> movable;                // ids of the buffers without an offset
  std::vector<int64_t> fixed_begin;            // per buffer: its pre-placed neighbours (CSR)
  std::vector<int32_t> fixed_adj;
  int64_t cap = 0;
  int64_t budget = 0, nodes = 0, total_nodes = 0;
  std::vector<int64_t> off;                    // -1: unplaced movable
  std::vector<char> fixed;
  // floor[i]: the highest top of i's placed movable neighbours; changes logged for undo.
  std::vector<int64_t> floor;
  std::vector<std::pair<int32_t, int64_t>> undo;
  // One frame per placed buffer: the state before it (cur), the candidate taken (o, rank r)
  // and the undo log's length then.
  struct Frame {
    int64_t cur, o;
    int32_t r;
    size_t mark;
  };
  std::vector<Frame> frames;
  std::vector<int64_t> mo;                     // minoff of each unplaced movable, per node
  int64_t lowest_top = 0;                      // min over unplaced of minoff + size

  // The lowest aligned offset >= floor clear of i's pre-placed neighbours.
  int64_t clear_fixed(int32_t i, int64_t at) const {
    const Buffer& b = p.buffers[i];
    int64_t x = align_up(at, b.alignment);
    for (bool moved = true; moved;) {
      moved = false;
      for (int64_t k = fixed_begin[i]; k < fixed_begin[i + 1]; ++k)
        if (const int32_t j = fixed_adj[k]; x < off[j] + p.buffers[j].size && off[j] < sat_add(x, b.size))
          x = align_up(off[j] + p.buffers[j].size, b.alignment), moved = true;
    }
    return x;
  }

  void place(int32_t i, int64_t o) {
    off[i] = o;
    const int64_t top = o + p.buffers[i].size;
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k)
      if (const int32_t j = g.adj[k]; off[j] < 0 && floor[j] < top) undo.emplace_back(j, floor[j]), floor[j] = top;
  }

  void unplace(int32_t i, size_t mark) {
    off[i] = -1;
    while (undo.size() > mark) floor[undo.back().first] = undo.back().second, undo.pop_back();
  }

  // The state's minoffs and lowest top; false when it cannot lead to a plan within cap
  // (a minoff only rises as more is placed; clique inference, item 2).
  bool evaluate(int64_t cur) {
    lowest_top = INT64_MAX;
    for (int32_t i : movable) {
      if (off[i] >= 0) continue;
      mo[i] = clear_fixed(i, floor[i]);
      const int64_t top = sat_add(mo[i], p.buffers[i].size);
      if (top > cap) return false;
      lowest_top = std::min(lowest_top, top);
    }
    for (const auto& k : cliques) {
      int64_t sum = 0, low = INT64_MAX;
      for (int32_t i : k)
        if (off[i] < 0) sum = sat_add(sum, p.buffers[i].size), low = std::min(low, mo[i]);
      if (sum > 0 && sat_add(std::max(cur, low), sum) > cap) return false;
    }
    return true;
  }

  // The first candidate after (o, r) in (minoff, rank) order: an unplaced buffer with
  // minoff >= cur (offsets never decrease along a branch) and, by dominance (item 3),
  // minoff < lowest_top (else an unplaced buffer fits entirely below it). (-1, -1) if none.
  std::pair<int64_t, int32_t> next_candidate(int64_t cur, std::pair<int64_t, int32_t> after) const {
    std::pair<int64_t, int32_t> best{-1, -1};
    for (int32_t i : movable) {
      if (off[i] >= 0 || mo[i] < cur || mo[i] >= lowest_top) continue;
      const std::pair<int64_t, int32_t> c{mo[i], rank[i]};
      if (c > after && (best.second < 0 || c < best)) best = c;
    }
    return best;
  }

  bool spend() { return ++nodes > budget || deadline.expired(); }

  // Depth-first over canonical placements, the same order and pruning as a recursion
  // (children by (minoff, rank), a budget hit abandons the whole probe).
  Answer decide(int64_t capacity, int64_t node_budget) {
    cap = capacity;
    budget = node_budget;
    total_nodes += nodes;
    nodes = 0;
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      off[i] = fixed[i] ? *p.buffers[i].offset : -1;
      floor[i] = 0;
      if (fixed[i] && sat_add(off[i], p.buffers[i].size) > cap) return Answer::kInfeasible;
    }
    undo.clear();
    frames.clear();
    int64_t cur = 0;
    size_t left = movable.size();
    while (true) {
      if (left == 0) return Answer::kFound;
      if (spend()) return Answer::kBudget;
      std::pair<int64_t, int32_t> c = evaluate(cur) ? next_candidate(cur, {-1, -1}) : std::pair<int64_t, int32_t>{-1, -1};
      while (c.second < 0) {  // backtrack to the deepest frame with another candidate
        if (frames.empty()) return Answer::kInfeasible;
        const Frame f = frames.back();
        frames.pop_back();
        unplace(by_rank[f.r], f.mark);
        ++left;
        cur = f.cur;
        if (spend()) return Answer::kBudget;
        evaluate(cur);  // the parent's state again (it passed before)
        c = next_candidate(cur, {f.o, f.r});
      }
      frames.push_back({cur, c.first, c.second, undo.size()});
      place(by_rank[c.second], c.first);
      --left;
      cur = c.first;
    }
  }
};

}  // namespace

SolveResult search_on_graph(const Problem& p, const ConflictGraph& g, const SolveOptions& opt, const Deadline& deadline,
                            int64_t enough) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  const auto cap = capacity_of(p, opt);
  bool proofs = true;  // gaps are searched as full rectangles: no proofs then
  for (const Buffer& b : p.buffers) proofs = proofs && b.gaps.empty();
  GraphSearch s(p, g, deadline);
  s.rank.assign(n, 0);
  s.off.assign(n, -1);
  s.fixed.assign(n, 0);
  s.floor.assign(n, 0);
  s.mo.assign(n, 0);
  for (int32_t i = 0; i < n; ++i) {
    s.fixed[i] = p.buffers[i].offset.has_value();
    if (!s.fixed[i]) s.movable.push_back(i);
  }
  s.fixed_begin.assign(n + 1, 0);
  for (int32_t i = 0; i < n; ++i) {
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k)
      if (s.fixed[g.adj[k]]) s.fixed_adj.push_back(g.adj[k]);
    s.fixed_begin[i + 1] = static_cast<int64_t>(s.fixed_adj.size());
  }
  {
    std::vector<int64_t> start(n), end(n), size(n);
    for (int32_t i = 0; i < n; ++i) start[i] = p.buffers[i].start, end[i] = p.buffers[i].end, size[i] = p.buffers[i].size;
    const Sections sec = sections_of(start, end, size);
    std::vector<std::vector<int32_t>> members(sec.count());
    std::vector<int64_t> weight(sec.count(), 0);
    for (int32_t i = 0; i < n; ++i)
      if (!s.fixed[i])
        for (int32_t k = sec.lo[i]; k < sec.hi[i]; ++k) members[k].push_back(i), weight[k] = sat_add(weight[k], size[i]);
    std::vector<int32_t> heavy(sec.count());
    std::iota(heavy.begin(), heavy.end(), 0);
    std::stable_sort(heavy.begin(), heavy.end(), [&](int32_t a, int32_t b) { return weight[a] > weight[b]; });
    int64_t kept = 0;
    for (int32_t k : heavy)
      if (members[k].size() >= 2 && kept + static_cast<int64_t>(members[k].size()) <= kCliqueMembers)
        kept += static_cast<int64_t>(members[k].size()), s.cliques.push_back(std::move(members[k]));
    std::vector<int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return size[a] != size[b] ? size[a] > size[b] : g.degree(a) > g.degree(b);
    });
    for (int32_t k = 0; k < n; ++k) s.rank[order[k]] = k;
    s.by_rank = std::move(order);
  }
  // The incumbent: first fit on the graph in the preorder and by weighted degree.
  const std::vector<int32_t>& by_rank = s.by_rank;
  int winner = -1;
  int64_t completed = 0;
  std::optional<Solution> best = best_on_graph(p, &g, {{by_rank, Fit::kFirst}, {by_rank, Fit::kBest}}, deadline, winner, completed);
  int64_t lb = std::max(lower_bound_of(p), conflict_lower_bound(p, [&] { return deadline.expired(); }, &g));
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
    if (enough == INT64_MAX) return finish(r, "not_searched");
    for (int64_t budget = 2 * std::max(n, 1); !deadline.expired(); budget = sat_add(budget, budget)) {
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
  // proves nothing: then one step below the incumbent, then twice the budget. `enough`:
  // the caller needs no plan below it (another component already sets the peak).
  auto upper = [&] {
    int64_t ub = best->peak;
    if (opt.shared_upper_bound) ub = std::min(ub, opt.shared_upper_bound->load());
    return ub;
  };
  for (int64_t budget = 2 * std::max(n, 1); lb < upper() && upper() > enough && !deadline.expired();) {
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
    if (!progress) budget = sat_add(budget, budget);
  }
  r = result_from_plan(p, opt, best);
  r.lower_bound = proofs ? std::min(lb, upper()) : 0;
  return finish(r, lb >= upper() ? (proofs ? "proven_optimal" : "exhausted_without_proof")
                   : upper() <= enough ? "enough" : "time_limit");
}

}  // namespace memplan::exact
