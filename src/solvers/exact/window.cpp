#include "solvers/exact/window.h"

#include <algorithm>

#include "core/arith.h"
#include "memplan/orders.h"
#include "memplan/placement.h"

namespace memplan::exact {

std::optional<std::vector<int64_t>> window_plan(const Problem& p, const Instance& in, int64_t target, int32_t half,
                                                const Decide& decide, const Deadline& deadline) {
  // Pre-placed buffers outside the window could overlap the window's buffers there (or
  // the bands): the window would have to know them all. Not worth it on real models.
  if (in.sections == 0 || std::find(in.fixed.begin(), in.fixed.end(), true) != in.fixed.end()) return std::nullopt;
  const int32_t peak = static_cast<int32_t>(
      std::max_element(in.section_total.begin(), in.section_total.end()) - in.section_total.begin());
  const int32_t lo = std::max(peak - half, 0), hi = std::min(peak + half + 1, in.sections);
  // Buffers live in the window; those live through all of it are set aside (bands).
  // Two buffers of the window that overlap in time overlap inside it (each reaches into
  // it), so the window's plan keeps them apart over their whole lifetimes.
  std::vector<int32_t> inside, bands;
  for (int32_t i = 0; i < in.n; ++i)
    if (in.sec_lo[i] < hi && in.sec_hi[i] > lo) inside.push_back(i);
  Problem window;
  int64_t band_total = 0;
  for (int32_t i : inside) {
    if (in.sec_lo[i] <= lo && in.sec_hi[i] >= hi) {
      bands.push_back(i);
      band_total = sat_add(band_total, in.size[i]);
      continue;
    }
    Buffer b;  // clipped to the window, in section units; gaps as full rectangles
    b.id = p.buffers[i].id;
    b.start = std::max(in.sec_lo[i], lo), b.end = std::min(in.sec_hi[i], hi);
    b.size = in.size[i], b.alignment = in.align[i];
    window.buffers.push_back(std::move(b));
  }
  if (band_total > target) return std::nullopt;
  const int64_t below = target - band_total;  // the window's buffers go under the bands
  std::optional<std::vector<int64_t>> sub = decide(window, below, deadline);
  if (!sub) return std::nullopt;

  // Fix the window's plan, bands stacked above it, and place the rest around it.
  Problem rest = p;
  size_t k = 0;
  int64_t top = below;
  for (int32_t i : inside) {
    if (std::binary_search(bands.begin(), bands.end(), i)) {  // bands: ascending, as inside
      top = align_up(top, in.align[i]);
      rest.buffers[i].offset = top;
      top = sat_add(top, in.size[i]);
      continue;
    }
    rest.buffers[i].offset = (*sub)[k++];
  }
  if (top > target || deadline.expired()) return std::nullopt;  // alignment of the bands
  PlacementEngine engine(rest);
  for (Order o : kAllOrders) {
    if (deadline.expired()) return std::nullopt;
    GreedyResult g = place_in_order(engine, make_order(rest, o), Fit::kFirst, target, &deadline);
    if (g.complete && g.solution.peak <= target) return std::move(g.solution.offsets);
  }
  return std::nullopt;
}

}  // namespace memplan::exact
