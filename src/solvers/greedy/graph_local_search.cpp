// A local search over first-fit orders on the conflict graph (explicit conflicts, parallel
// streams; graph_fit.h), run by the graph dive after its ladder. Why it is enough to search orders: lowest-gap first-fit in
// increasing offset of any plan puts every buffer at or below its offset there (research
// note parallel-streams.md §4.1), so some order reaches the optimum, and re-fitting the
// current plan's offset order never raises its peak. A move takes a buffer that reaches the
// peak (its top is the peak) and fits it earlier in that order (to a random earlier
// position), then re-fits everything; the new plan is kept when it is no worse by (peak,
// buffers reaching it), so the walk crosses plateaus. One thread, a seeded generator: the
// same seed gives the same plan, and a longer limit only runs more moves (the best never
// gets worse); it ends early after 1,000 + 50 n moves in a row without a lower peak.
// A heuristic: no proof.
#include <algorithm>
#include <numeric>
#include <random>

#include "core/arith.h"
#include "memplan/timeline.h"
#include "solvers/greedy/graph_fit.h"

namespace memplan {
namespace {

// (peak, how many movable buffers reach it): smaller is better.
std::pair<int64_t, int64_t> score(const Problem& p, const Solution& s) {
  int64_t at_peak = 0;
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (!p.buffers[i].offset && sat_add(s.offsets[i], p.buffers[i].size) == s.peak) ++at_peak;
  return {s.peak, at_peak};
}

}  // namespace

Solution improve_on_graph(const Problem& p, const ConflictGraph& g, Solution start, uint64_t seed, int64_t lower,
                          const Deadline& deadline, int64_t& moves) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::optional<Solution> cur = std::move(start);
  Solution best = *cur;
  auto cur_score = score(p, *cur);
  std::mt19937_64 rng(seed);
  // Stops after this many moves in a row that do not lower the best peak (independent of
  // the clock, so a longer limit never ends it earlier).
  const int64_t stall_limit = 1000 + 50 * static_cast<int64_t>(n);
  int64_t since_best = 0;
  moves = 0;
  std::vector<int32_t> order(n), critical;
  while (since_best < stall_limit && best.peak > lower && !deadline.expired()) {
    // The current plan's offset order (ties by index): first-fit on it gives the plan or a
    // lower one.
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return cur->offsets[a] != cur->offsets[b] ? cur->offsets[a] < cur->offsets[b] : a < b;
    });
    critical.clear();
    for (int32_t k = 0; k < n; ++k)
      if (const int32_t i = order[k]; !p.buffers[i].offset && sat_add(cur->offsets[i], p.buffers[i].size) == cur->peak)
        critical.push_back(k);
    if (critical.empty()) break;  // the peak is a pre-placed buffer's: no move lowers it
    const int32_t from = critical[rng() % critical.size()];
    const int32_t to = from == 0 ? 0 : static_cast<int32_t>(rng() % static_cast<uint64_t>(from));
    std::rotate(order.begin() + to, order.begin() + from, order.begin() + from + 1);
    ++moves, ++since_best;
    std::optional<Solution> next = fit_on_graph(p, g, order, Fit::kFirst, deadline);
    if (!next) break;
    if (const auto s = score(p, *next); s <= cur_score) {
      cur = std::move(next), cur_score = s;
      if (cur->peak < best.peak) best = *cur, since_best = 0;
    }
  }
  return best;
}

}  // namespace memplan
