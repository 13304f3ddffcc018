// Brute-force references for the validator and for LOAD, written from the specification
// (validate.h, problem.h, constraints.h, two_ended.h) with their own simple code: a byte by
// time occupancy grid instead of a sweep, in-place sharing as a fixed point over pairs.
// For tiny instances only (small times, sizes and offsets).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "memplan/problem.h"

namespace memplan::brute {

// The bytes [lo, hi) of its extent that buffer b occupies at integer time t ({0, 0}: none).
inline std::pair<int64_t, int64_t> extent_at(const Buffer& b, int64_t t) {
  if (t < b.start || t >= b.end) return {0, 0};
  for (const Gap& g : b.gaps)
    if (g.start <= t && t < g.end) return g.has_window ? std::pair{g.window_lo, g.window_hi} : std::pair<int64_t, int64_t>{0, 0};
  return {0, b.size};
}

// target[i]: index of the buffer i reuses in place, -1 for none; nullopt if the relation
// is malformed (unknown or own id, a buffer reused twice, a cycle).
inline std::optional<std::vector<int>> inplace_targets(const Problem& p) {
  const int n = static_cast<int>(p.buffers.size());
  std::vector<int> target(n, -1);
  for (int i = 0; i < n; ++i) {
    if (p.buffers[i].inplace_of.empty()) continue;
    for (int j = 0; j < n; ++j)
      if (j != i && p.buffers[j].id == p.buffers[i].inplace_of) target[i] = j;
    if (target[i] < 0) return std::nullopt;
  }
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (target[i] >= 0 && target[i] == target[j]) return std::nullopt;
  for (int i = 0; i < n; ++i) {  // following targets from i must stop within n steps
    int k = i, steps = 0;
    while (k >= 0 && steps <= n) k = target[k], ++steps;
    if (k >= 0) return std::nullopt;
  }
  return target;
}

// share[i][j]: i and j may overlap. Direct pairs at one offset, closed transitively.
inline std::vector<std::vector<char>> sharing(const std::vector<int>& target, const std::vector<int64_t>& off) {
  const size_t n = target.size();
  std::vector<std::vector<char>> s(n, std::vector<char>(n, 0));
  for (size_t i = 0; i < n; ++i) {
    s[i][i] = 1;
    if (target[i] >= 0 && off[i] == off[target[i]]) s[i][target[i]] = s[target[i]][i] = 1;
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        for (size_t k = 0; k < n; ++k)
          if (s[i][k] && s[k][j] && !s[i][j]) s[i][j] = 1, grew = true;
  }
  return s;
}

// The plan-independent rules that do not involve other buffers' bytes.
inline bool alone_ok(const Buffer& b, int64_t o, std::optional<int64_t> cap) {
  if (o < 0 || o % b.alignment != 0) return false;
  if (b.offset && *b.offset != o) return false;
  return !cap || o + b.size <= *cap;
}

inline bool groups_ok(const Problem& p, const std::vector<int64_t>& off) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (!p.buffers[i].group.empty()) groups[p.buffers[i].group].push_back(i);
  for (auto& [g, m] : groups) {
    // Insertion sort by group_index keeps input order among equal indices.
    for (size_t a = 1; a < m.size(); ++a)
      for (size_t b = a; b > 0 && p.buffers[m[b]].group_index < p.buffers[m[b - 1]].group_index; --b)
        std::swap(m[b], m[b - 1]);
    for (size_t k = 1; k < m.size(); ++k)
      if (off[m[k]] != off[m[k - 1]] + p.buffers[m[k - 1]].size) return false;
  }
  return true;
}

inline bool two_ends_ok(const Problem& p, const std::vector<int64_t>& off, std::optional<int64_t> cap) {
  int64_t align = 1;
  for (const Buffer& b : p.buffers)
    if (b.from_top) align = std::max(align, b.alignment);
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    if (!p.buffers[i].from_top) continue;
    if (cap && off[i] + p.buffers[i].size > *cap / align * align) return false;
    for (size_t j = 0; j < p.buffers.size(); ++j)
      if (!p.buffers[j].from_top && off[j] + p.buffers[j].size > off[i]) return false;
  }
  return true;
}

// Every rule, with the footprints painted into a (time x byte) grid of owners.
inline bool valid(const Problem& p, const std::vector<int64_t>& off, std::optional<int64_t> cap = std::nullopt) {
  if (!cap) cap = p.capacity;
  const size_t n = p.buffers.size();
  if (off.size() != n) return false;
  const auto target = inplace_targets(p);
  if (!target) return false;
  int64_t tmax = 0, top = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!alone_ok(p.buffers[i], off[i], cap)) return false;
    tmax = std::max(tmax, p.buffers[i].end);
    top = std::max(top, off[i] + p.buffers[i].size);
  }
  if (!groups_ok(p, off) || !two_ends_ok(p, off, cap)) return false;
  const auto share = sharing(*target, off);
  for (int64_t t = 0; t < tmax; ++t) {
    std::vector<std::vector<int>> owners(static_cast<size_t>(top));
    for (size_t i = 0; i < n; ++i) {
      const auto [lo, hi] = extent_at(p.buffers[i], t);
      for (int64_t x = off[i] + lo; x < off[i] + hi; ++x) {
        for (int j : owners[x])
          if (!share[i][j]) return false;
        owners[x].push_back(static_cast<int>(i));
      }
    }
  }
  return true;
}

// The least peak over every offset vector with offsets below `limit` (nullopt: none is
// valid). Buffers in different in-place chains are checked pairwise as they are placed;
// the rest of the rules are checked on complete vectors by valid().
inline std::optional<int64_t> optimum(const Problem& p, int64_t limit) {
  const size_t n = p.buffers.size();
  const auto target = inplace_targets(p);
  if (!target) return std::nullopt;
  std::vector<int> chain(n);  // chain representative: never share across chains
  for (size_t i = 0; i < n; ++i) {
    int k = static_cast<int>(i);
    while ((*target)[k] >= 0) k = (*target)[k];
    chain[i] = k;
  }
  int64_t tmax = 0;
  for (const Buffer& b : p.buffers) tmax = std::max(tmax, b.end);
  auto clash = [&](size_t i, size_t j, int64_t oi, int64_t oj) {
    for (int64_t t = 0; t < tmax; ++t) {
      const auto [ilo, ihi] = extent_at(p.buffers[i], t);
      const auto [jlo, jhi] = extent_at(p.buffers[j], t);
      if (ilo < ihi && jlo < jhi && oi + ilo < oj + jhi && oj + jlo < oi + ihi) return true;
    }
    return false;
  };
  std::optional<int64_t> best;
  std::vector<int64_t> off(n, 0);
  std::function<void(size_t, int64_t)> rec = [&](size_t k, int64_t peak) {
    if (best && peak >= *best) return;
    if (k == n) {
      if (valid(p, off)) best = peak;
      return;
    }
    const Buffer& b = p.buffers[k];
    for (int64_t x = 0; x + b.size <= limit; ++x) {
      if (!alone_ok(b, x, p.capacity)) continue;
      bool ok = true;
      for (size_t j = 0; j < k && ok; ++j)
        if (chain[j] != chain[k] && clash(k, j, x, off[j])) ok = false;
      if (!ok) continue;
      off[k] = x;
      rec(k + 1, std::max(peak, x + b.size));
    }
  };
  rec(0, 0);
  return best;
}

}  // namespace memplan::brute
