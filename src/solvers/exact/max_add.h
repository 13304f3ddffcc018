// Internal: the max segment tree with range add behind the stacking test (stacking.cpp,
// first_unstackable.cpp).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>

namespace memplan::exact {

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
  // The leftmost position of [l, r) (r <= m) whose value exceeds x, or r if none: a descent
  // from the root that enters only subtrees meeting [l, r) whose maximum exceeds x, so it
  // leaves the pending adds in place (`acc`: those of v's strict ancestors).
  int32_t first_above(int32_t l, int32_t r, int64_t x) const { return first_above(1, 0, m, l, r, x, 0); }

 private:
  int32_t first_above(int32_t v, int32_t a, int32_t b, int32_t l, int32_t r, int64_t x, int64_t acc) const {
    if (b <= l || r <= a || t[v] + acc <= x) return r;
    if (v >= m) return a;
    const int32_t mid = a + (b - a) / 2;
    const int32_t p = first_above(2 * v, a, mid, l, r, x, acc + d[v]);
    return p < r ? p : first_above(2 * v + 1, mid, b, l, r, x, acc + d[v]);
  }
};

}  // namespace memplan::exact
