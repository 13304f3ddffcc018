#include "solvers/exact/stacking.h"

#include <algorithm>
#include <bit>
#include <climits>

#include "core/arith.h"
#include "solvers/exact/max_add.h"

namespace memplan::exact {

bool stacks_fit_direct(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi,
                       int64_t base, int64_t cap, std::vector<int64_t>& low) {
  if (s_lo < s_hi) std::fill(low.begin() + s_lo, low.begin() + s_hi, base);
  for (const StackItem& it : items)
    for (int32_t s = it.lo; s < it.hi; ++s) {
      low[s] = std::max(low[s], it.release) + it.size;
      if (low[s] > cap) return false;
    }
  return true;
}

bool stacks_fit_tree(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                     int64_t cap, std::vector<int64_t>& tree) {
  const int32_t n = s_hi - s_lo;
  if (n <= 0) return true;
  int32_t m = 1, h = 0;
  while (m < n) m <<= 1, ++h;
  tree.assign(4 * static_cast<size_t>(m), 0);
  MaxAdd t{tree.data(), tree.data() + 2 * m, m, h};
  // Decreasing release; a group of equal releases is added whole before it is checked
  // (release + everything released at or after it).
  for (size_t end = items.size(); end > 0;) {
    size_t begin = end - 1;
    while (begin > 0 && items[begin - 1].release == items[end - 1].release) --begin;
    for (size_t k = begin; k < end; ++k)
      t.add(items[k].lo - s_lo, items[k].hi - s_lo, items[k].size);
    for (size_t k = begin; k < end; ++k)
      if (items[k].release + t.t[1] > cap &&  // the overall max (root) first: O(1)
          items[k].release + t.max(items[k].lo - s_lo, items[k].hi - s_lo) > cap)
        return false;
    end = begin;
  }
  return base + t.max(0, n) <= cap;
}

bool stacking_tree_pays(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi) {
  int64_t span_sum = 0;
  for (const StackItem& it : items) span_sum += it.hi - it.lo;
  const int64_t k = static_cast<int64_t>(items.size());
  // Direct: the range fill plus one step per section entry. Tree: clearing 4 * (range
  // rounded up to a power of two) entries, plus two tree walks per item.
  const int64_t range = s_hi - s_lo;
  return span_sum > 16 * k + 4 * static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(range, 1))));
}

bool compress_sections(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, std::vector<int32_t>& ends,
                       std::vector<StackItem>& packed) {
  // Few items over a wide range (the filtered buffers of a large part: 2,000 items over 40k
  // sections): between two consecutive item ends every section holds the same items, so
  // each such run is one section of a compressed range of at most 2k - 1 sections. The
  // test is the same; the tree to clear is far smaller.
  if (s_hi - s_lo <= 4 * static_cast<int64_t>(items.size()) + 64) return false;
  ends.clear();
  for (const StackItem& it : items) ends.push_back(it.lo), ends.push_back(it.hi);
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  auto at = [&](int32_t x) { return static_cast<int32_t>(std::lower_bound(ends.begin(), ends.end(), x) - ends.begin()); };
  packed.clear();
  for (const StackItem& it : items) packed.push_back({at(it.lo), at(it.hi), it.release, it.size});
  return true;
}

bool stacks_fit(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                int64_t cap, std::vector<int64_t>& low, std::vector<int64_t>& tree) {
  thread_local std::vector<int32_t> ends;
  thread_local std::vector<StackItem> packed;
  if (compress_sections(items, s_lo, s_hi, ends, packed))
    items = packed, s_lo = 0, s_hi = static_cast<int32_t>(ends.size()) - 1;
  return stacking_tree_pays(items, s_lo, s_hi) ? stacks_fit_tree(items, s_lo, s_hi, base, cap, tree)
                                               : stacks_fit_direct(items, s_lo, s_hi, base, cap, low);
}

namespace {

// The lowest top of the items live in one section, exactly (alignment padding included):
// a dynamic program over subsets, best[S] = the lowest top of a stacking of S (items listed
// by offset, each at the lowest aligned offset at or above the previous top and its release:
// any stacking is at or above that greedy one, item by item). Adding an item above S places
// it at align_up(max(top, release)) + size, non-decreasing in top, so the lowest top of S
// is the only state needed. Returns whether that top is at most cap.
bool subsets_fit(const std::vector<const StackItem*>& live, int64_t base, int64_t cap,
                 std::vector<int64_t>& best) {
  const size_t k = live.size(), full = (size_t{1} << k) - 1;
  best.assign(full + 1, INT64_MAX);
  best[0] = base;
  for (size_t mask = 0; mask < full; ++mask) {
    const int64_t top = best[mask];
    if (top == INT64_MAX) continue;
    for (size_t i = 0; i < k; ++i) {
      if (mask >> i & 1) continue;
      const StackItem& it = *live[i];
      const int64_t x = std::max(top, it.release);
      if (x > cap - it.size) continue;  // cannot fit (and no overflow below)
      const int64_t end = align_up(x, it.align) + it.size;
      if (end <= cap) best[mask | size_t{1} << i] = std::min(best[mask | size_t{1} << i], end);
    }
  }
  return best[full] <= cap;
}

// Whether the items live in one section stack below cap, exactly (alignment padding
// included): a depth-first search over stacking orders (items listed by offset, each at the
// lowest aligned offset at or above the previous top and its release: any stacking is at or
// above that greedy one, item by item). A subset's continuations depend only on its top, and
// adding an item above a top lands at align_up(max(top, release)) + size, non-decreasing in
// top; so a subset met again at a top no lower than one already expanded (and failed) fails
// too (`seen`: the lowest such top per subset). Unlike the subset program over all 2^k
// subsets (subsets_fit above), it stops at the first order that fits: on aligned
// packings of 800 buffers most sections that the two greedy orders miss fit on an early
// descent. A state is also cut when its remaining items cannot stack above its top even
// without padding (the release-date bound of stacks_fit over the remaining items, which
// are taken by release). A subset can be met again at ever lower tops, so the expansions are capped at
// 2 x 2^k: past that, the answer is the program's (the same answer, at its fixed cost).
// Returns 1 (fits), 0 (does not), or -1 (cap reached: undecided).
class SectionOrders {
 public:
  SectionOrders(const std::vector<const StackItem*>& live, int64_t cap, int64_t expansions)
      : cap_(cap), left_(expansions) {
    live_ = live;
    std::stable_sort(live_.begin(), live_.end(),
                     [](const StackItem* a, const StackItem* b) { return a->release < b->release; });
    const size_t states = size_t{1} << live.size();
    if (seen_.size() < states) seen_.resize(states), stamp_.resize(states, 0);
    if (++epoch_ == 0) std::fill(stamp_.begin(), stamp_.end(), 0), epoch_ = 1;  // wrapped
  }
  int fits(int64_t base) {
    const bool yes = fits_above(0, base);
    return left_ < 0 ? -1 : yes;
  }

 private:
  bool fits_above(size_t mask, int64_t top) {
    const size_t k = live_.size();
    if (mask == (size_t{1} << k) - 1) return true;
    if (--left_ < 0) return true;  // unwinds at once; fits() reports -1
    if (stamp_[mask] == epoch_ && seen_[mask] <= top) return false;
    stamp_[mask] = epoch_, seen_[mask] = top;
    int64_t after = 0;  // the sizes left released at or after the item at hand
    for (size_t i = k; i-- > 0;) {
      if (mask >> i & 1) continue;
      after += live_[i]->size;
      if (std::max(top, live_[i]->release) > cap_ - after) return false;  // (no overflow)
    }
    for (size_t i = 0; i < k; ++i) {
      if (mask >> i & 1) continue;
      const StackItem& it = *live_[i];
      const int64_t x = std::max(top, it.release);  // <= cap - size: checked above
      const int64_t end = align_up(x, it.align) + it.size;
      if (end <= cap_ && fits_above(mask | size_t{1} << i, end)) return true;
    }
    return false;
  }

  static thread_local std::vector<const StackItem*> live_;  // by release
  const int64_t cap_;
  int64_t left_;  // expansions left
  static thread_local std::vector<int64_t> seen_;
  static thread_local std::vector<uint32_t> stamp_;
  static thread_local uint32_t epoch_;
};
thread_local std::vector<const StackItem*> SectionOrders::live_;
thread_local std::vector<int64_t> SectionOrders::seen_;
thread_local std::vector<uint32_t> SectionOrders::stamp_;
thread_local uint32_t SectionOrders::epoch_ = 0;

// Whether stacking `live` in the listed order, each item at the lowest aligned offset at or
// above the previous top and its release, ends at or below cap: one of the orders the
// dynamic program above takes the minimum over, so a yes from it is the program's yes.
bool stacks_in_order(const std::vector<const StackItem*>& live, int64_t base, int64_t cap) {
  int64_t top = base;
  for (const StackItem* it : live) {
    const int64_t x = std::max(top, it->release);
    if (x > cap - it->size) return false;  // (and no overflow below)
    top = align_up(x, it->align) + it->size;
    if (top > cap) return false;
  }
  return true;
}

}  // namespace

bool section_fits(const std::vector<const StackItem*>& live, int64_t base, int64_t cap, int64_t expansions) {
  if (live.empty()) return base <= cap;
  const int orders = SectionOrders(live, cap, expansions < 0 ? int64_t{2} << live.size() : expansions).fits(base);
  if (orders >= 0) return orders == 1;
  thread_local std::vector<int64_t> best;
  return subsets_fit(live, base, cap, best);
}

bool sections_fit_exactly(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                          int64_t cap) {
  constexpr size_t kMaxLive = 10;  // 2^10 states of 10 steps: about the cost of a node
  int64_t span_sum = 0;
  for (const StackItem& it : items) span_sum += it.hi - it.lo;
  if (span_sum > 4096 || s_hi <= s_lo) return true;  // too costly here: the relaxations above stand
  // Each section's live items, in the items' order: bucketed in O(sections + span_sum), not
  // by scanning every item for every section (that scan was 95 % of the search's time on
  // aligned packings of 800 buffers).
  thread_local std::vector<int32_t> first, count;
  thread_local std::vector<const StackItem*> cell;
  const size_t S = static_cast<size_t>(s_hi - s_lo);
  count.assign(S + 1, 0);
  for (const StackItem& it : items)
    for (int32_t s = std::max(it.lo, s_lo); s < std::min(it.hi, s_hi); ++s) ++count[s - s_lo];
  first.assign(S + 1, 0);
  for (size_t s = 0; s < S; ++s) first[s + 1] = first[s] + count[s];
  cell.resize(first[S]);
  for (size_t s = 0; s < S; ++s) count[s] = first[s];
  for (const StackItem& it : items)
    for (int32_t s = std::max(it.lo, s_lo); s < std::min(it.hi, s_hi); ++s) cell[count[s - s_lo]++] = &it;
  thread_local std::vector<const StackItem*> live, prev, by_align;
  prev.clear();
  for (size_t s = 0; s < S; ++s) {
    live.assign(cell.begin() + first[s], cell.begin() + first[s + 1]);
    bool mixed = false;
    for (const StackItem* it : live) mixed |= it->align != live.front()->align;
    // One alignment level is exact by rounding (aligned_stacks_fit); the same set as the
    // section before needs no second look.
    if (live.size() < 2 || live.size() > kMaxLive || !mixed || live == prev) continue;
    prev = live;
    // Two stacking orders first (by release, then largest alignment first): when one fits,
    // so does the program's best, which is skipped. Only a section that may not fit pays
    // for the search over orders (SectionOrders), and only when that runs long, for the
    // 2^k program.
    if (stacks_in_order(live, base, cap)) continue;
    by_align = live;
    std::stable_sort(by_align.begin(), by_align.end(),
                     [](const StackItem* a, const StackItem* b) { return a->align > b->align; });
    if (stacks_in_order(by_align, base, cap)) continue;
    if (!section_fits(live, base, cap)) return false;
  }
  return true;
}

bool aligned_stacks_fit(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                        int64_t cap, std::vector<StackItem>& rounded, std::vector<int64_t>& low,
                        std::vector<int64_t>& tree) {
  uint64_t levels = 0;  // bit k: some item has alignment 2^k (k >= 1)
  for (const StackItem& it : items) levels |= static_cast<uint64_t>(it.align) & ~uint64_t{1};
  while (levels != 0) {
    const int64_t a = int64_t{1} << (63 - std::countl_zero(levels));  // the largest left
    levels &= ~static_cast<uint64_t>(a);
    auto up = [a](int64_t x) { return align_up(x, a); };  // saturating (arith.h)
    auto down = [a](int64_t x) { return x >= 0 ? x / a * a : -((-x + a - 1) / a * a); };
    rounded.clear();
    int64_t cap_a = INT64_MIN;
    bool changed = up(base) != base;
    for (const StackItem& it : items) {
      if (it.align < a) continue;
      const int64_t release = up(it.release), size = up(it.size);
      changed |= release != it.release || size != it.size;
      cap_a = std::max(cap_a, down(cap - it.size) + size);
      rounded.push_back({it.lo, it.hi, release, size, it.align});
    }
    if (rounded.empty()) continue;
    changed |= cap_a < cap;
    if (!changed) continue;  // the unaligned test on a subset of the items: implied
    if (!stacks_fit(rounded, s_lo, s_hi, up(base), cap_a, low, tree)) return false;
  }
  return sections_fit_exactly(items, s_lo, s_hi, base, cap);
}

}  // namespace memplan::exact
