#include "solvers/greedy/graph_fit.h"

#include <algorithm>

#include "core/arith.h"

namespace memplan {
namespace {

// The buffers of order[from, end) not yet placed, stacked in that order above every placed
// one: each clear of all the others in addresses, so valid under any conflict relation.
void stack_rest(const Problem& p, const std::vector<int32_t>& order, size_t from, const std::vector<char>& placed,
                std::vector<int64_t>& offsets) {
  int64_t top = 0;
  for (size_t i = 0; i < offsets.size(); ++i)
    if (placed[i]) top = std::max(top, sat_add(offsets[i], p.buffers[i].size));
  for (size_t at = from; at < order.size(); ++at) {
    const int32_t i = order[at];
    if (placed[i]) continue;
    offsets[i] = align_up(top, p.buffers[i].alignment);
    top = sat_add(offsets[i], p.buffers[i].size);
  }
}

// The lowest aligned offset >= x whose [x, x + size) misses every segment (sorted by lo).
int64_t settle(const std::vector<std::pair<int64_t, int64_t>>& segs, int64_t x, int64_t size, int64_t align) {
  for (const auto& [lo, hi] : segs) {
    if (sat_add(x, size) <= lo) break;
    if (x < hi) x = align_up(hi, align);
  }
  return x;
}

// As PlacementEngine's best fit: among the feasible holes, the one with the least slack
// (distance to the next forbidden offset), ties to the lowest; the top when none is bounded.
int64_t best_hole(const std::vector<std::pair<int64_t, int64_t>>& segs, int64_t size, int64_t align) {
  int64_t x = settle(segs, 0, size, align), best = -1, best_slack = INT64_MAX;
  for (;;) {
    int64_t next = INT64_MAX;
    for (const auto& [lo, hi] : segs)
      if (lo >= sat_add(x, size)) {
        next = lo - size + 1;
        break;  // sorted by lo: the first one above is the lowest
      }
    if (next == INT64_MAX) return best >= 0 ? best : x;
    if (next - x < best_slack) best_slack = next - x, best = x;
    x = settle(segs, next, size, align);
  }
}

}  // namespace

std::optional<Solution> fit_on_graph(const Problem& p, const ConflictGraph& g, const std::vector<int32_t>& order,
                                     Fit fit, const Deadline& deadline, bool* cut) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::vector<char> placed(n, 0);
  Solution s;
  s.offsets.assign(n, 0);
  for (int32_t i = 0; i < n; ++i)
    if (p.buffers[i].offset) s.offsets[i] = *p.buffers[i].offset, placed[i] = 1;
  std::vector<std::pair<int64_t, int64_t>> segs;
  // The deadline is polled by work done, buffers plus neighbours scanned: on dense graphs
  // (bert_base's) 1,024 buffers alone took 0.2 s of CPU.
  int64_t scanned = 0;
  for (size_t at = 0; at < order.size(); ++at) {
    const int32_t i = order[at];
    scanned += 1 + g.degree(i);
    if (scanned >= 4096) {
      scanned = 0;
      if (deadline.expired()) {
        if (!cut) return std::nullopt;
        *cut = true;
        stack_rest(p, order, at, placed, s.offsets);
        break;
      }
    }
    if (placed[i]) continue;
    const Buffer& b = p.buffers[i];
    segs.clear();
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k)
      if (const int32_t j = g.adj[k]; placed[j]) segs.emplace_back(s.offsets[j], s.offsets[j] + p.buffers[j].size);
    std::sort(segs.begin(), segs.end());
    s.offsets[i] = fit == Fit::kFirst ? settle(segs, 0, b.size, b.alignment) : best_hole(segs, b.size, b.alignment);
    placed[i] = 1;
  }
  s.peak = peak_of(p, s.offsets);
  return s;
}

std::optional<SolveResult> conflict_graph_or_stacked(const Problem& p, const SolveOptions& opt, const Deadline& deadline,
                                                     ConflictGraph& own, const ConflictGraph*& g) {
  g = conflict_graph_of(p, opt.conflict_graph.get(), own, kMaxConflictPairs, [&] { return deadline.expired(); });
  if (g) return std::nullopt;
  SolveResult r = result_from_plan(p, opt, stacked_plan(p));
  r.detail = "reason=\"conflict graph above 40M pairs or time limit\" winner=stacked";
  return r;
}

Solution stacked_plan(const Problem& p) {
  // stack_rest with only the pre-placed buffers placed, the rest in input order.
  const size_t n = p.buffers.size();
  Solution s;
  s.offsets.assign(n, 0);
  std::vector<char> placed(n, 0);
  std::vector<int32_t> order(n);
  for (size_t i = 0; i < n; ++i) {
    order[i] = static_cast<int32_t>(i);
    if (p.buffers[i].offset) s.offsets[i] = *p.buffers[i].offset, placed[i] = 1;
  }
  stack_rest(p, order, 0, placed, s.offsets);
  s.peak = peak_of(p, s.offsets);
  return s;
}

const char* last_resort_detail(int winner) {
  return winner == kCutPass ? "reason=time_limit winner=cut_pass" : "reason=time_limit winner=stacked";
}

Solution best_on_graph(const Problem& p, const ConflictGraph* g, const std::vector<GraphVariant>& variants,
                       const Deadline& deadline, int& winner, int64_t& completed) {
  std::optional<Solution> best;
  winner = -1;
  completed = 0;
  for (size_t k = 0; g && k < variants.size() && (k == 0 || !deadline.expired()); ++k) {
    // The first pass, cut by the deadline, still gives its placements (the rest stacked
    // above them): the plan of last resort when no pass completes, far below the stacked
    // plan (200k buffers on 4 streams, `-a conflict-greedy --time-limit 3`: 368-624 MB
    // against 30 GB).
    bool cut = false;
    std::optional<Solution> s = fit_on_graph(p, *g, variants[k].order, variants[k].fit, deadline, k == 0 ? &cut : nullptr);
    if (cut) {
      best = std::move(s), winner = kCutPass;
      break;
    }
    if (!s) break;
    ++completed;
    if (!best || s->peak < best->peak) best = std::move(s), winner = static_cast<int>(k);
  }
  return best ? std::move(*best) : stacked_plan(p);
}

std::vector<int64_t> weighted_degrees(const Problem& p, const ConflictGraph& g, const Deadline& deadline) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::vector<int64_t> weighted(n);
  for (int32_t i = 0; i < n; ++i) {
    if ((i & 1023) == 0 && deadline.expired()) return {};
    weighted[i] = p.buffers[i].size;
    for (int64_t k = g.begin[i]; k < g.begin[i + 1]; ++k) weighted[i] = sat_add(weighted[i], p.buffers[g.adj[k]].size);
  }
  return weighted;
}

}  // namespace memplan
