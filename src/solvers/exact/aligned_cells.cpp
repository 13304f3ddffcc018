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

}  // namespace memplan::exact
