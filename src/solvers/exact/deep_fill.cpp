#include "solvers/exact/deep_fill.h"

#include "memplan/orders.h"
#include "memplan/placement.h"
#include "solvers/exact/dive.h"
#include "solvers/exact/search.h"

namespace memplan::exact {

std::optional<Solution> fill_deepest(const Problem& p, const std::vector<int64_t>& deepest, const Deadline& deadline) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  if (deepest.size() != p.buffers.size() || deadline.expired()) return std::nullopt;
  PlacementEngine engine(p, &deadline);
  if (!engine.built()) return std::nullopt;
  std::optional<Solution> best;
  for (Order order : {Order::kSizeDesc, Order::kLengthDesc}) {
    const std::vector<int32_t> rest = make_order(p, order, &deadline);
    for (Fit fit : {Fit::kFirst, Fit::kBest}) {
      if (deadline.expired() || rest.size() != deepest.size()) return best;
      engine.clear();
      for (int32_t i = 0; i < n; ++i) {
        if (deepest[i] < 0) continue;
        if (!engine.fits_at(i, deepest[i])) return std::nullopt;  // not a partial plan
        engine.place(i, deepest[i]);
      }
      int32_t k = 0;
      for (int32_t i : rest) {
        if (engine.is_placed(i)) continue;
        if ((++k & 255) == 0 && deadline.expired()) return best;
        engine.place(i, engine.find_offset(i, fit));
      }
      if (!best || engine.peak() < best->peak) best = Solution{engine.offsets(), engine.peak()};
    }
  }
  return best;
}

std::optional<Solution> dive_deepest(const Problem& p, const std::vector<int64_t>& deepest, int64_t below,
                                     const Deadline& deadline) {
  if (deepest.size() != p.buffers.size() || deadline.expired()) return std::nullopt;
  Problem pinned = p;
  bool any = false;
  for (size_t i = 0; i < deepest.size(); ++i)
    if (deepest[i] >= 0) pinned.buffers[i].offset = deepest[i], any = true;
  if (!any) return std::nullopt;
  // No overlap lists: the dive finds overlaps in its own tree (as the solver `dive` does).
  const std::optional<Instance> in = prepare(pinned, -1, deadline);
  if (!in) return std::nullopt;
  std::optional<Solution> best;
  for (const char* keys : {"TWA", "TWO", "WAT", "TAW"}) {
    if (deadline.expired()) break;
    if (auto offsets = dive(*in, below - 1, preorder(*in, keys), keys, deadline)) {
      const int64_t peak = peak_of(p, *offsets);
      if (peak < below) best = Solution{std::move(*offsets), peak}, below = peak;
    }
  }
  return best;
}

}  // namespace memplan::exact
