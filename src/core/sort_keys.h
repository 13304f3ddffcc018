// Internal: sorting unsigned 64-bit keys (for example a value packed above an index).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace memplan {

// Sorts keys in increasing order: an LSD radix sort with 8-bit digits over the keys' span
// (max - min), or std::sort for a few keys. Comparison sorts of unordered keys mispredict
// about every other comparison, which costs more time than the radix sort's extra
// instructions from a few dozen keys on. `tmp` is scratch.
inline void sort_keys(std::vector<uint64_t>& v, std::vector<uint64_t>& tmp) {
  if (v.size() < 48) return std::sort(v.begin(), v.end());
  const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
  const uint64_t lo = *mn, span = *mx - lo;
  tmp.resize(v.size());
  for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += 8) {
    size_t count[257] = {};
    for (uint64_t k : v) ++count[((k - lo) >> shift & 255) + 1];
    for (size_t b = 0; b < 256; ++b) count[b + 1] += count[b];
    for (uint64_t k : v) tmp[count[(k - lo) >> shift & 255]++] = k;
    v.swap(tmp);
  }
}

}  // namespace memplan
