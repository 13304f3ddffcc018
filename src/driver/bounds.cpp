// The driver's lower bound (driver.h).
#include <algorithm>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/driver.h"
#include "memplan/timeline.h"

namespace memplan {

int64_t conflict_lower_bound(const Problem& p, const std::function<bool()>& stop, const ConflictGraph* graph) {
  // Pairs beyond which the graph is not built (as conflict-greedy: 16 bytes a pair).
  constexpr int64_t kMaxPairs = 40'000'000;
  // The graph counts whole lifetimes; with gaps two overlapping buffers may share bytes
  // (a gap without window), so its cliques would not be a sound bound.
  for (const Buffer& b : p.buffers)
    if (!b.gaps.empty()) return 0;
  ConflictGraph own;
  if (!graph && !conflict_graph(p, own, kMaxPairs, stop)) return 0;
  std::vector<int64_t> size;
  size.reserve(p.buffers.size());
  for (const Buffer& b : p.buffers) size.push_back(b.size);
  return greedy_clique_bound(graph ? *graph : own, size, 50'000'000, stop);
}

int64_t driver_lower_bound(const Problem& p, const std::function<bool()>& stop) {
  const int64_t lb = lower_bound_of(p);
  return p.conflicts.empty() ? lb : std::max(lb, conflict_lower_bound(p, stop));
}

}  // namespace memplan
