#include "solvers/exact/stacking.h"

#include <algorithm>

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

// Max segment tree with lazy range add over positions [0, n): node v covers [l, r); its
// entry holds the max of its range including its own pending add (tree[2*size + v]).
struct MaxAdd {
  std::vector<int64_t>& t;  // [0, 2m): max; [2m, 4m): pending add
  int32_t n, m;

  void add(int32_t v, int32_t l, int32_t r, int32_t ql, int32_t qr, int64_t x) {
    if (qr <= l || r <= ql) return;
    if (ql <= l && r <= qr) {
      t[v] += x;
      t[2 * m + v] += x;
      return;
    }
    const int32_t mid = (l + r) / 2;
    add(2 * v, l, mid, ql, qr, x);
    add(2 * v + 1, mid, r, ql, qr, x);
    t[v] = std::max(t[2 * v], t[2 * v + 1]) + t[2 * m + v];
  }
  int64_t max(int32_t v, int32_t l, int32_t r, int32_t ql, int32_t qr) const {
    if (qr <= l || r <= ql) return INT64_MIN;
    if (ql <= l && r <= qr) return t[v];
    const int32_t mid = (l + r) / 2;
    const int64_t inner = std::max(max(2 * v, l, mid, ql, qr), max(2 * v + 1, mid, r, ql, qr));
    return inner == INT64_MIN ? inner : inner + t[2 * m + v];
  }
};

}  // namespace

bool stacks_fit_tree(std::span<const StackItem> items, int32_t s_lo, int32_t s_hi, int64_t base,
                     int64_t cap, std::vector<int64_t>& tree) {
  const int32_t n = s_hi - s_lo;
  if (n <= 0) return true;
  int32_t m = 1;
  while (m < n) m <<= 1;
  tree.assign(4 * static_cast<size_t>(m), 0);
  MaxAdd t{tree, n, m};
  // Decreasing release; a group of equal releases is added whole before it is checked
  // (release + everything released at or after it).
  for (size_t end = items.size(); end > 0;) {
    size_t begin = end - 1;
    while (begin > 0 && items[begin - 1].release == items[end - 1].release) --begin;
    for (size_t k = begin; k < end; ++k)
      t.add(1, 0, m, items[k].lo - s_lo, items[k].hi - s_lo, items[k].size);
    for (size_t k = begin; k < end; ++k)
      if (items[k].release + t.max(1, 0, m, items[k].lo - s_lo, items[k].hi - s_lo) > cap) return false;
    end = begin;
  }
  return base + t.max(1, 0, m, 0, n) <= cap;
}

}  // namespace memplan::exact
