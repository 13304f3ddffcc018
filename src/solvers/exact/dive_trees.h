// Internal: the dives' trees (dive.cpp on the time axis, graph_dive.cpp on a conflict
// graph): a tournament tree of least (key, tie) entries and range maxima of section totals.
#pragma once

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <vector>

#include "solvers/exact/search.h"  // range_max

namespace memplan::exact {

// A tournament tree over positions [0, n): each node holds the least (key, tie) among the
// present leaves below it, and that leaf's position (-1: none). Values sit in the nodes,
// so an update compares neighbours in memory, and stops where a node does not change.
class MinTree {
 public:
  struct Entry {
    int64_t key = INT64_MAX;
    int32_t tie = INT32_MAX, pos = -1;
    bool operator<(const Entry& o) const { return key != o.key ? key < o.key : tie < o.tie; }
    bool operator==(const Entry& o) const = default;
  };
  explicit MinTree(int32_t n) : m_(std::bit_ceil(static_cast<uint32_t>(std::max(n, 1)))), node_(2 * static_cast<size_t>(m_)) {}
  void remove(int32_t p) {
    node_[m_ + p] = Entry{};
    fix(p);
  }
  // Sets leaf p, without the path above: call rebuild() or rebuild_at() for those.
  void assign(int32_t p, int64_t key, int32_t tie) { node_[m_ + p] = {key, tie, p}; }
  void rebuild(int32_t lo, int32_t hi) {
    if (lo >= hi) return;
    for (int32_t l = (lo + m_) >> 1, h = (hi - 1 + m_) >> 1; l >= 1; l >>= 1, h >>= 1)
      for (int32_t k = l; k <= h; ++k) node_[k] = std::min(node_[2 * k], node_[2 * k + 1]);
  }
  // rebuild() above the given leaves only: `ks` ascending positions (used as scratch).
  void rebuild_at(std::vector<int32_t>& ks) {
    for (int32_t& k : ks) k = (k + m_) >> 1;
    while (!ks.empty()) {
      size_t w = 0;
      for (size_t u = 0; u < ks.size(); ++u)
        if (w == 0 || ks[w - 1] != ks[u]) ks[w++] = ks[u];
      ks.resize(w);
      for (int32_t k : ks) node_[k] = std::min(node_[2 * k], node_[2 * k + 1]);
      if (ks[0] == 1) break;
      for (int32_t& k : ks) k >>= 1;
    }
  }
  // The least present leaf in [l, r) (pos -1: none).
  Entry best(int32_t l, int32_t r) const {
    Entry b;
    for (l += m_, r += m_; l < r; l >>= 1, r >>= 1) {
      if (l & 1) b = std::min(b, node_[l++]);
      if (r & 1) b = std::min(b, node_[--r]);
    }
    return b;
  }

 private:
  void fix(int32_t p) {
    for (int32_t k = (p + m_) >> 1; k >= 1; k >>= 1) {
      const Entry e = std::min(node_[2 * k], node_[2 * k + 1]);
      if (e == node_[k]) return;  // nothing above changes either
      node_[k] = e;
    }
  }
  int32_t m_;
  std::vector<Entry> node_;
};

// Range adds and range maxima over sections [0, n), each in O(log n): a segment tree whose
// nodes hold the maximum of their range with their own pending add included (adds are not
// pushed down). (Blocks of 64 sections
// made an add O(span): on training traces, where activations span most sections, a dive
// step was O(n). Used for the dive's crossing counts; the section totals stay in
// SectionMax below, whose vectorised scans are faster on the short spans most buffers have.)
class LazyMax {
 public:
  LazyMax() = default;
  explicit LazyMax(const std::vector<int64_t>& v)
      : m_(std::bit_ceil(std::max<size_t>(v.size(), 1))), max_(2 * m_, INT64_MIN), add_(2 * m_, 0) {
    std::copy(v.begin(), v.end(), max_.begin() + static_cast<ptrdiff_t>(m_));
    for (size_t k = m_ - 1; k >= 1; --k) max_[k] = std::max(max_[2 * k], max_[2 * k + 1]);
  }
  void add(int32_t lo, int32_t hi, int64_t delta) {
    if (lo < hi) add(1, 0, static_cast<int32_t>(m_), lo, hi, delta);
  }
  // INT64_MIN for an empty range.
  int64_t max(int32_t lo, int32_t hi) const { return lo < hi ? max(1, 0, static_cast<int32_t>(m_), lo, hi) : INT64_MIN; }

 private:
  // Node k covers [a, b). Sections past n are INT64_MIN and never inside an added range.
  void add(size_t k, int32_t a, int32_t b, int32_t lo, int32_t hi, int64_t delta) {
    if (hi <= a || b <= lo) return;
    if (lo <= a && b <= hi) {
      max_[k] += delta, add_[k] += delta;
      return;
    }
    const int32_t mid = a + (b - a) / 2;
    add(2 * k, a, mid, lo, hi, delta), add(2 * k + 1, mid, b, lo, hi, delta);
    max_[k] = std::max(max_[2 * k], max_[2 * k + 1]) + add_[k];
  }
  int64_t max(size_t k, int32_t a, int32_t b, int32_t lo, int32_t hi) const {
    if (hi <= a || b <= lo) return INT64_MIN;
    if (lo <= a && b <= hi) return max_[k];
    const int32_t mid = a + (b - a) / 2;
    const int64_t below = std::max(max(2 * k, a, mid, lo, hi), max(2 * k + 1, mid, b, lo, hi));
    return below == INT64_MIN ? below : below + add_[k];
  }
  size_t m_ = 1;
  std::vector<int64_t> max_, add_;
};

// Maxima of per-section totals by blocks of 64 sections, for exact range maxima in
// O(range / 64 + 128) and the first section reaching a value.
class SectionMax {
 public:
  explicit SectionMax(std::vector<int64_t> v) : v_(std::move(v)), block_((v_.size() >> kBits) + 1, 0) {
    for (size_t b = 0; b < block_.size(); ++b) refresh(static_cast<int32_t>(b));
  }
  int64_t at(int32_t s) const { return v_[s]; }
  void add(int32_t lo, int32_t hi, int64_t delta) {
    if (lo >= hi) return;
    for (int32_t s = lo; s < hi; ++s) v_[s] += delta;
    for (int32_t b = lo >> kBits; b <= (hi - 1) >> kBits; ++b) refresh(b);
  }
  int64_t max(int32_t lo, int32_t hi) const {
    const int32_t b_lo = (lo + kBlock - 1) >> kBits, b_hi = hi >> kBits;
    if (b_lo >= b_hi) return range_max(v_, lo, hi);
    return std::max({range_max(block_, b_lo, b_hi), range_max(v_, lo, b_lo << kBits), range_max(v_, b_hi << kBits, hi)});
  }
  // The first section of [lo, hi) holding `value`, which must be max(lo, hi).
  int32_t first(int32_t lo, int32_t hi, int64_t value) const {
    int32_t s = lo;
    const int32_t b_lo = (lo + kBlock - 1) >> kBits, b_hi = hi >> kBits;
    if (b_lo < b_hi) {
      for (; s < (b_lo << kBits); ++s)
        if (v_[s] == value) return s;
      int32_t b = b_lo;
      while (b < b_hi && block_[b] != value) ++b;
      s = b << kBits;
    }
    while (v_[s] != value) ++s;
    return s;
  }

 private:
  static constexpr int kBits = 6, kBlock = 1 << kBits;
  void refresh(int32_t b) {
    const int32_t from = b << kBits;
    block_[b] = range_max(v_, from, std::min<int32_t>(from + kBlock, static_cast<int32_t>(v_.size())));
  }
  std::vector<int64_t> v_, block_;
};

}  // namespace memplan::exact
