// first_unstackable (stacking.h): the leftmost section that fails the stacking test, in one
// pass over the items rather than a bisection of stacks_fit calls (which, on pinwheel
// packings of 3,200 buffers, cost about as much again as the failed test itself at every
// node refuted by inference). A section's verdict depends on its own items only, so the
// leftmost failing one is well defined and is what the bisection finds.
#include <algorithm>
#include <span>
#include <vector>

#include "solvers/exact/max_add.h"
#include "solvers/exact/stacking.h"

namespace memplan::exact {
namespace {

// Direct: each section's final top (low only rises as items are added, so a section found
// above cap fails, and only sections left of the leftmost such one need stacking further).
int32_t first_unstackable_direct(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                                 int64_t cap, std::vector<int64_t>& low) {
  int32_t first = s_hi;
  if (s_lo < s_hi) std::fill(low.begin() + s_lo, low.begin() + s_hi, base);
  for (const StackItem& it : items)
    for (int32_t s = it.lo, end = std::min(it.hi, first); s < end; ++s) {
      low[s] = std::max(low[s], it.release) + it.size;
      if (low[s] > cap) {  // s fails; this item's sections after it are right of it
        first = s;
        break;
      }
    }
  return first;
}

// Tree: as stacks_fit_tree, the items added by decreasing release, each group checked over
// its items' spans, but a failing check asks the tree for its leftmost section above cap -
// release (only left of the best found so far) instead of stopping.
int32_t first_unstackable_tree(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                               int64_t cap, std::vector<int64_t>& tree) {
  const int32_t n = s_hi - s_lo;
  if (n <= 0) return s_hi;
  int32_t m = 1, h = 0;
  while (m < n) m <<= 1, ++h;
  tree.assign(4 * static_cast<size_t>(m), 0);
  MaxAdd t{tree.data(), tree.data() + 2 * m, m, h};
  int32_t first = n;  // relative to s_lo
  for (size_t end = items.size(); end > 0 && first > 0;) {
    size_t begin = end - 1;
    while (begin > 0 && items[begin - 1].release == items[end - 1].release) --begin;
    for (size_t k = begin; k < end; ++k) t.add(items[k].lo - s_lo, items[k].hi - s_lo, items[k].size);
    for (size_t k = begin; k < end; ++k) {
      const int32_t l = items[k].lo - s_lo, r = std::min(items[k].hi - s_lo, first);
      if (l >= r || items[k].release + t.t[1] <= cap) continue;  // the root first: O(1)
      if (const int32_t p = t.first_above(l, r, cap - items[k].release); p < r) first = p;
    }
    end = begin;
  }
  if (const int32_t p = t.first_above(0, first, cap - base); p < first) first = p;
  return s_lo + first;
}

}  // namespace

int32_t first_unstackable(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                          int64_t cap, std::vector<int64_t>& low, std::vector<int64_t>& tree) {
  thread_local std::vector<int32_t> ends;
  thread_local std::vector<StackItem> packed;
  if (compress_sections(items, s_lo, s_hi, ends, packed)) {
    // Sections outside [ends.front(), ends.back()) hold no item and pass (base <= cap); a
    // compressed section stands for a run of sections with the same items: its first.
    const int32_t c_hi = static_cast<int32_t>(ends.size()) - 1;
    const int32_t c = stacking_tree_pays(packed, 0, c_hi) ? first_unstackable_tree(packed, 0, c_hi, base, cap, tree)
                                                          : first_unstackable_direct(packed, 0, c_hi, base, cap, low);
    return c < c_hi ? ends[c] : s_hi;
  }
  return stacking_tree_pays(items, s_lo, s_hi) ? first_unstackable_tree(items, s_lo, s_hi, base, cap, tree)
                                               : first_unstackable_direct(items, s_lo, s_hi, base, cap, low);
}

}  // namespace memplan::exact
