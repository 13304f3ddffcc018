// Triton shared-memory allocation (lib/Analysis/Allocation.cpp): Gergov-style triple map
// for initial offsets, then first-fit graph colouring and bumping until no two buffers
// interfere (heuristics.md §5). Half-open lifetimes, per-buffer alignment, as the source.
#include <algorithm>
#include <limits>
#include <list>
#include <map>

#include "core/arith.h"
#include "solvers/baselines/baselines.h"

namespace memplan::baselines {
namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max();

struct Range {
  int64_t lo, hi;  // [lo, hi)
  bool intersects(const Range& o) const { return std::max(lo, o.lo) < std::min(hi, o.hi); }
};

}  // namespace

Plan triton_shared_memory(const std::vector<Rec>& recs, const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Plan plan;
  plan.offsets.assign(n, 0);
  std::vector<int32_t> order(n);
  for (int32_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return recs[a].size > recs[b].size; });
  auto live = [&](int32_t i) { return Range{recs[i].start, recs[i].end}; };
  auto give_up = [&](const char* what) {
    plan.complete = false;
    plan.detail = std::string("time limit (triton ") + what + ")";
    return plan;
  };
  // calculateStarts: multimap offset -> time range; equal offsets pop in insertion order.
  std::multimap<int64_t, Range> triples;
  triples.insert({0, Range{std::numeric_limits<int64_t>::min(), kInf}});
  std::list<int32_t> remaining(order.begin(), order.end());
  while (!remaining.empty() && !triples.empty()) {
    if (dl.expired()) return give_up("starts");
    const auto [slot, range] = *triples.begin();
    triples.erase(triples.begin());
    auto found = remaining.end();
    for (auto it = remaining.begin(); it != remaining.end(); ++it) {
      const Range x = live(*it);
      if (!x.intersects(range)) continue;
      bool clear = true;
      for (const auto& [off, other] : triples)
        if (other.intersects(x)) {
          clear = false;
          break;
        }
      if (clear) {
        found = it;
        break;
      }
    }
    if (found == remaining.end()) continue;  // drop the triple
    const int32_t b = *found;
    remaining.erase(found);
    const Range x = live(b);
    const int64_t off = round_up(slot, recs[b].align);
    plan.offsets[b] = off;
    triples.insert({sat_add(off, recs[b].size),
                    Range{std::max(range.lo, x.lo), std::min(range.hi, x.hi)}});
    // Leftover triples exactly as the source writes them (they over-approximate; the
    // colouring below repairs any resulting overlap).
    if (range.lo < x.lo) triples.insert({slot, Range{range.lo, x.hi}});
    if (x.hi < range.hi) triples.insert({slot, Range{x.lo, range.hi}});
  }
  // Buffers never picked keep offset 0 (the source leaves them at their default start);
  // colouring moves them.
  for (int32_t b : remaining) plan.offsets[b] = 0;
  // Colouring + bumping until the interference graph (time and address overlap) is
  // empty. The graph is rebuilt each round as in the source, but incrementally: only the
  // edges of buffers that moved can change, so only those are recomputed (same graph).
  OverlapIndex all(recs);
  for (int32_t i = 0; i < n; ++i) all.insert(i);
  std::vector<std::vector<int32_t>> adj(n);
  std::vector<int32_t> colour(n);
  std::vector<char> used, moved_flag(n, 0);
  int64_t edges = 0;
  auto interferes = [&](int32_t x, int32_t y) {
    return y != x && plan.offsets[y] < sat_add(plan.offsets[x], recs[x].size) &&
           plan.offsets[x] < sat_add(plan.offsets[y], recs[y].size);
  };
  for (int32_t x = 0; x < n; ++x) {
    all.for_each(recs[x].start, recs[x].end, [&](int32_t y) {
      if (interferes(x, y)) adj[x].push_back(y);
    });
    edges += static_cast<int64_t>(adj[x].size());
  }
  std::vector<int32_t> moved;
  for (int round = 0;; ++round) {
    if (dl.expired()) return give_up("colouring");
    if (edges == 0) {
      plan.detail = "rounds=" + std::to_string(round);
      break;
    }
    // First-fit colouring in size order.
    std::fill(colour.begin(), colour.end(), -1);
    for (int32_t x : order) {
      used.assign(adj[x].size() + 1, 0);
      for (int32_t y : adj[x])
        if (colour[y] >= 0 && colour[y] < static_cast<int32_t>(used.size())) used[colour[y]] = 1;
      int32_t c = 0;
      while (used[c]) ++c;
      colour[x] = c;
    }
    // Bump every colour != 0 buffer above its interfering buffers (current offsets).
    moved.clear();
    for (int32_t x : order) {
      if (colour[x] == 0) continue;
      int64_t top = 0;
      for (int32_t y : adj[x]) top = std::max(top, sat_add(plan.offsets[y], recs[y].size));
      const int64_t off = round_up(top, recs[x].align);
      if (off != plan.offsets[x]) {
        plan.offsets[x] = off;
        moved.push_back(x);
        moved_flag[x] = 1;
      }
    }
    // Rebuild the edges of moved buffers.
    for (int32_t x : moved) {
      for (int32_t y : adj[x]) {
        if (moved_flag[y]) continue;  // y's list is rebuilt anyway
        auto& l = adj[y];
        l.erase(std::find(l.begin(), l.end(), x));
        --edges;
      }
    }
    for (int32_t x : moved) {
      edges -= static_cast<int64_t>(adj[x].size());
      adj[x].clear();
    }
    for (int32_t x : moved) {
      all.for_each(recs[x].start, recs[x].end, [&](int32_t y) {
        if (!interferes(x, y)) return;
        adj[x].push_back(y);
        ++edges;
        if (!moved_flag[y]) {
          adj[y].push_back(x);
          ++edges;
        }
      });
    }
    for (int32_t x : moved) moved_flag[x] = 0;
  }
  for (int32_t i = 0; i < n; ++i) plan.total = std::max(plan.total, sat_add(plan.offsets[i], recs[i].size));
  return plan;
}

void register_triton(std::vector<SolverInfo>& out) {
  add_solver(out, "triton-shared-memory",
             "Triton Allocation.cpp: Gergov triple map, then colour-and-bump until no interference",
             [](const std::vector<Rec>& recs, const SolveOptions&, const Deadline& dl) {
               return with_fixed_below(recs, [&](const std::vector<Rec>& r) {
                 return triton_shared_memory(r, dl);
               });
             });
}

}  // namespace memplan::baselines
