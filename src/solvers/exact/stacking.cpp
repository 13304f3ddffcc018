#include "solvers/exact/stacking.h"

#include <algorithm>
#include <bit>

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

namespace {

// Max segment tree with range add over positions [0, m), bottom-up without recursion:
// leaves at [m, 2m); t[v] = max of v's subtree including every add stored at v or below;
// d[v] = an add pending for all of v's subtree (internal nodes only).
struct MaxAdd {
  int64_t* t;
  int64_t* d;
  int32_t m, h;  // m = 2^h

  void apply(int32_t v, int64_t x) {
    t[v] += x;
    if (v < m) d[v] += x;
  }
  void rebuild(int32_t v) {  // v's ancestors, after adds below them
    for (v >>= 1; v >= 1; v >>= 1) t[v] = std::max(t[2 * v], t[2 * v + 1]) + d[v];
  }
  void push(int32_t v) {  // hands the pending adds on v's ancestors down, top first
    for (int32_t s = h; s > 0; --s) {
      const int32_t i = v >> s;
      if (d[i] != 0) apply(2 * i, d[i]), apply(2 * i + 1, d[i]), d[i] = 0;
    }
  }
  void add(int32_t l, int32_t r, int64_t x) {
    l += m, r += m;
    const int32_t l0 = l, r0 = r;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) apply(l++, x);
      if (r & 1) apply(--r, x);
    }
    rebuild(l0), rebuild(r0 - 1);
  }
  int64_t max(int32_t l, int32_t r) {
    l += m, r += m;
    push(l), push(r - 1);
    int64_t best = INT64_MIN;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) best = std::max(best, t[l++]);
      if (r & 1) best = std::max(best, t[--r]);
    }
    return best;
  }
};

}  // namespace

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

namespace {

// Picks direct or tree stacking by cost.
bool stacks_fit_uncompressed(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                             int64_t cap, std::vector<int64_t>& low, std::vector<int64_t>& tree) {
  int64_t span_sum = 0;
  for (const StackItem& it : items) span_sum += it.hi - it.lo;
  const int64_t k = static_cast<int64_t>(items.size());
  // Direct: the range fill plus one step per section entry. Tree: clearing 4 * (range
  // rounded up to a power of two) entries, plus two tree walks per item.
  const int64_t range = s_hi - s_lo;
  return span_sum > 16 * k + 4 * static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(range, 1))))
             ? stacks_fit_tree(items, s_lo, s_hi, base, cap, tree)
             : stacks_fit_direct(items, s_lo, s_hi, base, cap, low);
}

}  // namespace

bool stacks_fit(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                int64_t cap, std::vector<int64_t>& low, std::vector<int64_t>& tree) {
  // Few items over a wide range (the filtered buffers of a large part: 2,000 items over 40k
  // sections): between two consecutive item ends every section holds the same items, so
  // each such run is one section of a compressed range of at most 2k - 1 sections. The
  // test is the same; the tree to clear is far smaller.
  if (s_hi - s_lo > 4 * static_cast<int64_t>(items.size()) + 64) {
    thread_local std::vector<int32_t> ends;
    thread_local std::vector<StackItem> packed;
    ends.clear();
    for (const StackItem& it : items) ends.push_back(it.lo), ends.push_back(it.hi);
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    auto at = [&](int32_t x) { return static_cast<int32_t>(std::lower_bound(ends.begin(), ends.end(), x) - ends.begin()); };
    packed.clear();
    for (const StackItem& it : items) packed.push_back({at(it.lo), at(it.hi), it.release, it.size});
    return stacks_fit_uncompressed(packed, 0, static_cast<int32_t>(ends.size()) - 1, base, cap, low, tree);
  }
  return stacks_fit_uncompressed(items, s_lo, s_hi, base, cap, low, tree);
}


}  // namespace memplan::exact
