#include "solvers/exact/window.h"

#include <algorithm>

#include "core/arith.h"
#include "memplan/orders.h"
#include "memplan/placement.h"

namespace memplan::exact {
namespace {

// The orders in which to stack the bands (bottom first). Any order is a valid plan of the
// window, but outside it the bands go on, and their order decides where the memory they
// leave opens for the rest. Going left from the window, the bands drop out in the order of
// their starts: stacked by start, what they free opens as one run at the bottom or the top
// of the stack instead of as holes in the middle of it, and a large buffer there finds
// room; likewise by end on the right. First the input's order (the only stack before),
// then by start (latest at the bottom, then earliest), then by end. On S_1 the input's
// order leaves a 64 MiB buffer just left of the 129-section window without a hole at LOAD
// under every first-fit order; the stack with the latest start at the bottom reaches LOAD.
// pangu_2.6B reaches LOAD only with the stacks by end.
std::vector<std::vector<int32_t>> band_stacks(const Instance& in, const std::vector<int32_t>& bands) {
  std::vector<std::vector<int32_t>> stacks{bands};
  auto by = [&](auto key) {
    std::vector<int32_t> s = bands;
    std::stable_sort(s.begin(), s.end(), [&](int32_t a, int32_t b) { return key(a) < key(b); });
    if (std::find(stacks.begin(), stacks.end(), s) == stacks.end()) stacks.push_back(std::move(s));
  };
  by([&](int32_t i) { return -static_cast<int64_t>(in.sec_lo[i]); });  // latest start at the bottom
  by([&](int32_t i) { return static_cast<int64_t>(in.sec_lo[i]); });   // earliest start at the bottom
  by([&](int32_t i) { return -static_cast<int64_t>(in.sec_hi[i]); });  // latest end at the bottom
  by([&](int32_t i) { return static_cast<int64_t>(in.sec_hi[i]); });   // earliest end at the bottom
  return stacks;
}

// The buffers of `engine`'s problem without an offset in `preset` (-1) placed around those
// with one by first fit, every standard order until one fits under `target`.
std::optional<std::vector<int64_t>> fit_around(PlacementEngine& engine, const std::vector<int64_t>& preset,
                                               int64_t target, const Deadline& deadline) {
  for (Order o : kAllOrders) {
    if (deadline.expired()) return std::nullopt;
    const std::vector<int32_t> order = make_order(engine.problem(), o, &deadline);
    GreedyResult g = place_in_order(engine, order, Fit::kFirst, target, &deadline, preset);
    if (g.complete && g.solution.peak <= target) return std::move(g.solution.offsets);
  }
  return std::nullopt;
}

}  // namespace

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

  // Fix the window's plan, and place the rest around it, with the bands stacked above it
  // in each stacking order in turn. The fixed offsets go to the placement as `preset`, not
  // into a copy of the problem (1M buffers: 0.35 s of copying that no deadline could stop).
  std::vector<int64_t> preset(p.buffers.size(), -1);
  size_t k = 0;
  for (int32_t i : inside)
    if (!std::binary_search(bands.begin(), bands.end(), i)) preset[i] = (*sub)[k++];  // bands: ascending
  // The bands are stacked right on the window's packing, and (when that is lower) from
  // target - band_total as before; the lower plan is kept. Stacked only from there, under a
  // capacity well above the load the plan's peak was the capacity (one 10-byte buffer at
  // --capacity 100: offset 90). At a target the peak section totals (LOAD), both starts are
  // the same and there is one pass.
  int64_t packed = 0;
  for (size_t j = 0; j < window.buffers.size(); ++j) packed = std::max(packed, sat_add((*sub)[j], window.buffers[j].size));
  PlacementEngine engine(p, &deadline);
  std::optional<std::vector<int64_t>> best;
  int64_t best_peak = INT64_MAX;
  for (int pass = 0; pass < (packed < below ? 2 : 1); ++pass) {
    const int64_t start = pass == 0 ? packed : below;
    for (const std::vector<int32_t>& stack : band_stacks(in, bands)) {
      if (deadline.expired()) return best;
      int64_t top = start;
      for (int32_t i : stack) {
        top = align_up(top, in.align[i]);
        preset[i] = top;
        top = sat_add(top, in.size[i]);
      }
      if (top > target) continue;  // alignment of the bands
      if (auto offsets = fit_around(engine, preset, target, deadline)) {
        const int64_t peak = peak_of(p, *offsets);
        if (peak < best_peak) best = std::move(offsets), best_peak = peak;
        break;
      }
    }
  }
  return best;
}

}  // namespace memplan::exact
