// Internal 64-bit arithmetic helpers. Problems are checked on input so that the sum of all
// sizes and alignments fits comfortably in int64 (see check_problem); these helpers still
// saturate rather than wrap, so a bug cannot turn into a silent negative offset.
#pragma once

#include <cstdint>
#include <limits>

namespace memplan {

inline int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return (b > 0) ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return r;
}

// a * b for a, b >= 0, saturating at INT64_MAX (node budgets double without end).
inline int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::numeric_limits<int64_t>::max();
  return r;
}

// Smallest multiple of `align` (a power of two) that is >= x, for x >= 0.
inline int64_t align_up(int64_t x, int64_t align) {
  if (align <= 1) return x;
  const int64_t r = x & (align - 1);
  return r == 0 ? x : sat_add(x, align - r);
}

inline bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// SplitMix64 (Steele, Lea and Flood 2014): advances `state` by the golden-ratio step and
// returns its mix. The seeded orders and per-iteration RNGs derive their streams from it.
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace memplan
