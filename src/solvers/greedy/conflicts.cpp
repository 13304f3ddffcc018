// `conflict-greedy`: lowest-gap first-fit on the conflict graph of the timeline module
// (interval overlap + explicit conflicts - in-place links), so it honours Problem::conflicts
// (parallel streams). Per buffer it gathers the placed neighbours' extents and takes the
// lowest aligned gap; a few orders are tried and the lowest peak kept. For any conflict graph
// some order reaches the optimum (research note parallel-streams.md §4.1), so this is also
// the building block of an order search. Gaps are ignored (full rectangles: conservative).
#include <algorithm>
#include <numeric>

#include "core/arith.h"
#include "memplan/timeline.h"
#include "solvers/families.h"

namespace memplan {
namespace {

// Pairs beyond which the graph is not built (16 bytes a pair in the CSR lists and sweep).
constexpr int64_t kMaxPairs = 40'000'000;

// First-fit in `order` (fixed buffers first, at their offsets); peak of the plan, or -1
// when the deadline passes first (checked every 4096 neighbours scanned: on dense graphs,
// bert_base's, 1024 buffers took 0.2 s of CPU).
int64_t first_fit(const Problem& p, const ConflictGraph& g, const std::vector<int32_t>& order,
                  std::vector<int64_t>& off, const Deadline& deadline) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::vector<char> placed(n, 0);
  off.assign(n, 0);
  int64_t peak = 0;
  for (int32_t i = 0; i < n; ++i)
    if (p.buffers[i].offset) off[i] = *p.buffers[i].offset, placed[i] = 1, peak = std::max(peak, sat_add(off[i], p.buffers[i].size));
  std::vector<std::pair<int64_t, int64_t>> segs;
  int64_t scanned = 0;
  for (int32_t i : order) {
    scanned += 1 + g.begin[i + 1] - g.begin[i];
    if (scanned >= 4096) {
      scanned = 0;
      if (deadline.expired()) return -1;
    }
    if (placed[i]) continue;
    const Buffer& b = p.buffers[i];
    segs.clear();
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k)
      if (const int32_t j = g.adj[k]; placed[j]) segs.emplace_back(off[j], off[j] + p.buffers[j].size);
    std::sort(segs.begin(), segs.end());
    int64_t x = 0;
    for (const auto& [lo, hi] : segs) {
      if (sat_add(x, b.size) <= lo) break;
      if (x < hi) x = align_up(hi, b.alignment);
    }
    off[i] = x, placed[i] = 1;
    peak = std::max(peak, sat_add(x, b.size));
  }
  return peak;
}

// The fallback: every movable buffer stacked above the fixed ones, each at its own bytes.
// Valid under any conflict relation; O(n).
Solution stacked(const Problem& p) {
  Solution s;
  int64_t top = 0;
  for (const Buffer& b : p.buffers)
    if (b.offset) top = std::max(top, sat_add(*b.offset, b.size));
  for (const Buffer& b : p.buffers) {
    if (b.offset) {
      s.offsets.push_back(*b.offset);
      continue;
    }
    top = align_up(top, b.alignment);
    s.offsets.push_back(top);
    top = sat_add(top, b.size);
  }
  s.peak = peak_of(p, s.offsets);
  return s;
}

SolveResult run(const Problem& p, const SolveOptions& opt) {
  const Deadline deadline(opt.time_limit_seconds, opt.cancel);
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  ConflictGraph g;
  if (!conflict_graph(p, g, kMaxPairs, [&] { return deadline.expired(); })) {
    SolveResult r = result_from_plan(p, opt, stacked(p));
    r.detail = "reason=\"conflict graph above 40M pairs or time limit\" winner=stacked";
    return r;
  }
  std::vector<int64_t> size(n), weighted(n);
  for (int32_t i = 0; i < n; ++i) {
    if ((i & 1023) == 0 && deadline.expired()) break;  // the passes below then stop at once
    size[i] = p.buffers[i].size;
    weighted[i] = size[i];
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k) weighted[i] = sat_add(weighted[i], p.buffers[g.adj[k]].size);
  }
  std::vector<int32_t> base(n);
  std::iota(base.begin(), base.end(), 0);
  auto by = [&](auto key) {
    std::vector<int32_t> o = base;
    std::stable_sort(o.begin(), o.end(), [&](int32_t a, int32_t b) { return key(a) > key(b); });
    return o;
  };
  const std::vector<std::vector<int32_t>> orders = {
      by([&](int32_t i) { return size[i]; }),                                   // size desc
      by([&](int32_t i) { return weighted[i]; }),                               // weighted degree
      by([&](int32_t i) { return g.degree(i); }),                               // degree
      by([&](int32_t i) { return -p.buffers[i].start; }),                       // start asc
  };
  std::optional<Solution> best;
  std::vector<int64_t> off;
  int64_t tried = 0;
  for (const auto& order : orders) {
    if (deadline.expired()) break;
    const int64_t peak = first_fit(p, g, order, off, deadline);
    if (peak < 0) break;
    ++tried;
    if (!best || peak < best->peak) best = Solution{off, peak};
  }
  const bool fell_back = !best;
  if (!best) best = stacked(p);
  SolveResult r = result_from_plan(p, opt, std::move(best));
  r.iterations = tried;
  if (fell_back) r.detail = "reason=time_limit winner=stacked";
  // Sound for any conflict graph: a clique's buffers need disjoint bytes.
  r.lower_bound = std::max(r.lower_bound, greedy_clique_bound(g, size, 50'000'000, [&] { return deadline.expired(); }));
  return r;
}

}  // namespace

void register_conflict_greedy(std::vector<SolverInfo>& out) {
  out.push_back({"conflict-greedy",
                 "first-fit on the conflict graph (interval overlap + explicit conflicts), four orders; "
                 "lower bound from a greedy clique",
                 run, Supports{.explicit_conflicts = true}});
}

}  // namespace memplan
