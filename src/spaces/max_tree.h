// Internal: a segment tree over positions 0..n-1 with range add and range maximum.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace memplan {

class MaxTree {
 public:
  explicit MaxTree(size_t n) : n_(std::max<size_t>(n, 1)), mx_(4 * n_, 0), add_(4 * n_, 0) {}
  void add(size_t lo, size_t hi, int64_t v) { if (lo < hi) add(1, 0, n_, lo, hi, v); }
  int64_t max(size_t lo, size_t hi) const { return lo < hi ? max(1, 0, n_, lo, hi) : INT64_MIN; }

 private:
  void add(size_t x, size_t l, size_t r, size_t lo, size_t hi, int64_t v) {
    if (hi <= l || r <= lo) return;
    if (lo <= l && r <= hi) {
      mx_[x] += v;
      add_[x] += v;
      return;
    }
    const size_t m = (l + r) / 2;
    add(2 * x, l, m, lo, hi, v);
    add(2 * x + 1, m, r, lo, hi, v);
    mx_[x] = add_[x] + std::max(mx_[2 * x], mx_[2 * x + 1]);
  }
  int64_t max(size_t x, size_t l, size_t r, size_t lo, size_t hi) const {
    if (hi <= l || r <= lo) return INT64_MIN;
    if (lo <= l && r <= hi) return mx_[x];
    const size_t m = (l + r) / 2;
    return add_[x] + std::max(max(2 * x, l, m, lo, hi), max(2 * x + 1, m, r, lo, hi));
  }
  size_t n_;
  std::vector<int64_t> mx_, add_;
};

}  // namespace memplan
