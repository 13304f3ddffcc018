#include "solvers/exact/aligned_cells.h"

#include <algorithm>
#include <bit>

namespace memplan::exact {

int top_valuation(int64_t position, int64_t cap) {
  if (position <= 0 || position >= cap) return 64;
  return std::countr_zero(static_cast<uint64_t>(position));
}

void order_by_top_valuation(const Instance& in, int64_t h, int64_t cap, std::vector<int32_t>& candidates,
                            size_t from) {
  std::stable_sort(candidates.begin() + static_cast<ptrdiff_t>(from), candidates.end(), [&](int32_t x, int32_t y) {
    return top_valuation(h + in.size[x], cap) > top_valuation(h + in.size[y], cap);
  });
}

SearchResult rotate_root_cells(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                               int64_t node_budget, const Deadline& deadline, FailureMemo* memo) {
  const int64_t each = std::max(kRotationNodes * std::max<int64_t>(in.n, 1), node_budget / kRotationsPerCall);
  SearchResult total;
  std::vector<uint32_t> weights;
  for (int64_t rotation = 1;; ++rotation) {
    SearchResult r = search_cells(in, capacity, order, CellChoice::kWells, std::min(each, node_budget - total.nodes),
                                  deadline, memo, &weights, rotation);
    const bool declined = r.nodes == 0;  // pre-placed buffers: the cell search declines
    r.nodes += total.nodes;
    total = std::move(r);
    if (declined || total.outcome != Outcome::kBudget || total.nodes >= node_budget || deadline.expired()) break;
  }
  return total;
}

}  // namespace memplan::exact
