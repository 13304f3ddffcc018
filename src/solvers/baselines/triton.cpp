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

// Rectangle index over all records (lifetime x address range): a kd-tree whose leaves are
// the records split alternately by lifetime midpoint and by offset, laid out as a complete
// binary tree; every node keeps the bounding box of its subtree (min start, max end, min
// offset, max top). A query reports exactly the records whose rectangle intersects the
// given one (the pairs the source finds by testing all pairs), skipping subtrees whose box
// misses it. Offsets only grow during colouring, so boxes are updated in place and the
// tree is rebuilt (re-split) after n moves to keep the boxes tight.
class RectIndex {
 public:
  RectIndex(const std::vector<Rec>& recs, const std::vector<int64_t>& offsets)
      : recs_(recs), offsets_(offsets) {
    const int32_t n = static_cast<int32_t>(recs.size());
    while (leaves_ < n) leaves_ *= 2;
    rebuild();
  }
  // Call after offsets[i] changed.
  void update(int32_t i) {
    int32_t v = leaves_ + pos_of_[i];
    node_[v] = leaf(i);
    for (v /= 2; v >= 1; v /= 2) node_[v] = merge(node_[2 * v], node_[2 * v + 1]);
    if (++moves_ > static_cast<int64_t>(recs_.size())) rebuild();
  }
  // Calls f(j) for every record j with start_j < end, end_j > start, offset_j < hi and
  // offset_j + size_j > lo.
  template <class F>
  void for_each(int64_t start, int64_t end, int64_t lo, int64_t hi, F&& f) const {
    auto useful = [&](int32_t v) {
      const Node& nd = node_[v];
      return nd.start < end && nd.end > start && nd.lo < hi && nd.hi > lo;
    };
    if (!useful(1)) return;
    int32_t stack[64];
    int depth = 0;
    stack[depth++] = 1;
    while (depth > 0) {
      const int32_t v = stack[--depth];
      if (v >= leaves_) {
        f(rec_at_[v - leaves_]);
        continue;
      }
      if (useful(2 * v + 1)) stack[depth++] = 2 * v + 1;
      if (useful(2 * v)) stack[depth++] = 2 * v;
    }
  }

 private:
  struct Node {
    int64_t start = kInf;                                  // min start
    int64_t end = std::numeric_limits<int64_t>::min();     // max end
    int64_t lo = kInf;                                     // min offset
    int64_t hi = std::numeric_limits<int64_t>::min();      // max top
  };
  static Node merge(const Node& a, const Node& b) {
    return Node{std::min(a.start, b.start), std::max(a.end, b.end), std::min(a.lo, b.lo),
                std::max(a.hi, b.hi)};
  }
  Node leaf(int32_t i) const {
    return Node{recs_[i].start, recs_[i].end, offsets_[i], sat_add(offsets_[i], recs_[i].size)};
  }
  void rebuild() {
    const int32_t n = static_cast<int32_t>(recs_.size());
    moves_ = 0;
    rec_at_.assign(leaves_, -1);
    pos_of_.assign(n, 0);
    std::vector<int32_t> items(n);
    for (int32_t i = 0; i < n; ++i) items[i] = i;
    // Iterative split: (first item, item count, first leaf, leaf width, axis).
    struct Job {
      int32_t first, count, leaf, width, axis;
    };
    std::vector<Job> jobs{{0, n, 0, leaves_, 0}};
    while (!jobs.empty()) {
      const Job j = jobs.back();
      jobs.pop_back();
      if (j.count == 0) continue;
      if (j.width == 1) {
        rec_at_[j.leaf] = items[j.first];
        pos_of_[items[j.first]] = j.leaf;
        continue;
      }
      const int32_t half = j.width / 2;
      const int32_t left = std::min(half, j.count);
      auto key = [&](int32_t i) {
        // Lifetime midpoint (overflow-safe) or offset.
        return j.axis == 0 ? recs_[i].start / 2 + recs_[i].end / 2 : offsets_[i];
      };
      auto first = items.begin() + j.first;
      if (left < j.count)
        std::nth_element(first, first + left, first + j.count,
                         [&](int32_t a, int32_t b) { return key(a) < key(b); });
      jobs.push_back({j.first, left, j.leaf, half, 1 - j.axis});
      jobs.push_back({j.first + left, j.count - left, j.leaf + half, half, 1 - j.axis});
    }
    node_.assign(2 * static_cast<size_t>(leaves_), Node{});
    for (int32_t p = 0; p < leaves_; ++p)
      if (rec_at_[p] >= 0) node_[leaves_ + p] = leaf(rec_at_[p]);
    for (int32_t v = leaves_ - 1; v >= 1; --v) node_[v] = merge(node_[2 * v], node_[2 * v + 1]);
  }
  const std::vector<Rec>& recs_;
  const std::vector<int64_t>& offsets_;
  std::vector<int32_t> rec_at_, pos_of_;
  std::vector<Node> node_;
  int32_t leaves_ = 1;
  int64_t moves_ = 0;
};

}  // namespace

Plan triton_shared_memory(const std::vector<Rec>& recs, const Deadline& dl) {
  const int32_t n = static_cast<int32_t>(recs.size());
  Plan plan;
  plan.offsets.assign(n, 0);
  std::vector<int32_t> order(n);
  for (int32_t i = 0; i < n; ++i) order[i] = i;
  if (!sort_or_give_up(order, dl, plan, "triton",
                       [&](int32_t a, int32_t b) { return recs[a].size > recs[b].size; }))
    return plan;
  auto live = [&](int32_t i) { return Range{recs[i].start, recs[i].end}; };
  auto give_up = [&](const char* what) {
    plan.complete = false;
    plan.detail = std::string("time limit (triton ") + what + ")";
    return plan;
  };
  // calculateStarts: multimap offset -> time range; equal offsets pop in insertion order.
  std::multimap<int64_t, Range> triples;
  auto insert = [&](int64_t offset, Range r) { triples.insert({offset, r}); };
  insert(0, Range{std::numeric_limits<int64_t>::min(), kInf});
  std::list<int32_t> remaining(order.begin(), order.end());
  // One triple can scan every remaining buffer against every triple (all buffers live at
  // once: 1M buffers took seconds for one), so the deadline is polled inside the scans.
  int64_t steps = 0;
  while (!remaining.empty() && !triples.empty()) {
    if (dl.expired()) return give_up("starts");
    const auto [slot, range] = *triples.begin();
    triples.erase(triples.begin());
    auto found = remaining.end();
    for (auto it = remaining.begin(); it != remaining.end(); ++it) {
      if ((++steps & 4095) == 0 && dl.expired()) return give_up("starts");
      const Range x = live(*it);
      if (!x.intersects(range)) continue;
      bool clear = true;
      for (const auto& [off, other] : triples) {
        if ((++steps & 4095) == 0 && dl.expired()) return give_up("starts");
        if (other.intersects(x)) {
          clear = false;
          break;
        }
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
    insert(sat_add(off, recs[b].size), Range{std::max(range.lo, x.lo), std::min(range.hi, x.hi)});
    // Leftover triples exactly as the source writes them (they over-approximate; the
    // colouring below repairs any resulting overlap).
    if (range.lo < x.lo) insert(slot, Range{range.lo, x.hi});
    if (x.hi < range.hi) insert(slot, Range{x.lo, range.hi});
  }
  // Buffers never picked keep offset 0 (the source leaves them at their default start);
  // colouring moves them.
  for (int32_t b : remaining) plan.offsets[b] = 0;
  // Colouring + bumping until the interference graph (time and address overlap) is
  // empty. The graph is rebuilt each round as in the source, but incrementally: only the
  // edges of buffers that moved can change, so only those are recomputed (same graph).
  RectIndex all(recs, plan.offsets);
  std::vector<std::vector<int32_t>> adj(n);
  std::vector<int32_t> colour(n);
  std::vector<char> used, moved_flag(n, 0);
  int64_t edges = 0;
  auto interferes = [&](int32_t x, int32_t y) {
    return y != x && plan.offsets[y] < sat_add(plan.offsets[x], recs[x].size) &&
           plan.offsets[x] < sat_add(plan.offsets[y], recs[y].size);
  };
  auto near = [&](int32_t x, auto&& f) {
    all.for_each(recs[x].start, recs[x].end, plan.offsets[x],
                 sat_add(plan.offsets[x], recs[x].size), f);
  };
  for (int32_t x = 0; x < n; ++x) {
    if ((x & 1023) == 1023 && dl.expired()) return give_up("interference graph");
    near(x, [&](int32_t y) {
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
        all.update(x);
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
      near(x, [&](int32_t y) {
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
