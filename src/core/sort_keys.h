// Internal: sorting unsigned 64-bit keys (for example a value packed above an index).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace memplan {

// Sorts keys in increasing order: an LSD radix sort over the keys' span (max - min), or
// std::sort for a few keys. Comparison sorts of unordered keys mispredict about every other
// comparison, which costs more time than the radix sort's extra instructions from a few
// dozen keys on. A pass costs the keys twice plus its buckets twice, so the digit width
// follows the key count (about log2 of it, 4 to 8 bits) and is then evened out over the
// passes the span needs: 100 keys over 18 bits take 3 passes of 64 buckets, not 3 of 256.
// `tmp` is scratch.
// With `payload_bits`, the keys' low bits are a payload, not sorted on: the keys end in
// increasing order of key >> payload_bits, and keys equal there keep their input order in
// the radix sort (std::sort on a few keys orders them by the payload). The payload's
// passes are saved.
inline void sort_keys(std::vector<uint64_t>& v, std::vector<uint64_t>& tmp, int payload_bits = 0) {
  if (v.size() < 48) return std::sort(v.begin(), v.end());
  const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
  const uint64_t lo = *mn >> payload_bits, span = (*mx >> payload_bits) - lo;
  const int bits = std::bit_width(span);
  if (bits == 0) return;
  const int want = std::clamp(static_cast<int>(std::bit_width(v.size())) - 1, 4, 8);
  const int passes = (bits + want - 1) / want;
  const int digit = (bits + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << digit) - 1;
  const size_t buckets = size_t{1} << digit;
  tmp.resize(v.size());
  size_t count[257];
  for (int shift = 0; shift < bits; shift += digit) {
    auto bucket = [&](uint64_t k) { return ((k >> payload_bits) - lo) >> shift & mask; };
    std::fill(count, count + buckets + 1, size_t{0});
    for (uint64_t k : v) ++count[bucket(k) + 1];
    for (size_t b = 0; b < buckets; ++b) count[b + 1] += count[b];
    for (uint64_t k : v) tmp[count[bucket(k)]++] = k;
    v.swap(tmp);
  }
}

}  // namespace memplan
