#include "solvers/exact/restarts.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/arith.h"

namespace memplan::exact {
std::vector<int32_t> jittered_order(const Instance& in, uint64_t seed) {
  uint64_t x = seed;
  std::vector<std::pair<double, int32_t>> keyed(static_cast<size_t>(in.n));
  for (int32_t i = 0; i < in.n; ++i) {
    const double u = static_cast<double>(splitmix64(x) >> 11) * 0x1.0p-53;  // [0, 1)
    const double w = static_cast<double>(std::max<int64_t>(in.end[i] - in.start[i], 1));
    keyed[static_cast<size_t>(i)] = {-std::log(w) + kJitter * (2 * u - 1), i};
  }
  std::sort(keyed.begin(), keyed.end());  // ties (never in practice) by index
  std::vector<int32_t> order(static_cast<size_t>(in.n));
  for (size_t k = 0; k < keyed.size(); ++k) order[k] = keyed[k].second;
  return order;
}

int64_t restart_length(int32_t n, int64_t node_budget) {
  return std::max(kRestartNodes * std::max<int64_t>(n, 1), node_budget / kRestartsPerCall);
}

SearchResult restart_cells(const Instance& in, int64_t capacity, uint64_t seed, int64_t node_budget,
                           const Deadline& deadline, FailureMemo* memo) {
  const int64_t each = restart_length(in.n, node_budget);
  SearchResult total;
  uint64_t mix = seed ^ (static_cast<uint64_t>(node_budget) * 0xd1b54a32d192ed03ULL);
  std::vector<uint32_t> weights;  // dead ends learnt by one restart guide the next
  do {
    const std::vector<int32_t> order = jittered_order(in, splitmix64(mix));
    SearchResult r = search_cells(in, capacity, order, CellChoice::kWells,
                                  std::min(each, node_budget - total.nodes), deadline, memo, &weights);
    const bool declined = r.nodes == 0;  // pre-placed buffers: the cell search declines
    r.nodes += total.nodes;
    total = std::move(r);
    if (declined) break;
  } while (total.outcome == Outcome::kBudget && total.nodes < node_budget && !deadline.expired());
  return total;
}

}  // namespace memplan::exact
