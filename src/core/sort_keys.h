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
// Below 48 keys the radix sort is taken only when its passes cost less than the
// comparisons (about 3 buckets-or-keys steps of a pass per comparison, measured on 24-47
// keys over 15 bits: 32 such keys radix sort in 0.30 us, std::sort takes 0.44 us).
// `tmp` is scratch.
// With `payload_bits`, the keys' low bits are a payload, not sorted on: the keys end in
// increasing order of key >> payload_bits, and keys equal there keep their input order in
// the radix sort (std::sort on a few keys orders them by the payload). The payload's
// passes are saved.
inline void sort_keys(std::vector<uint64_t>& v, std::vector<uint64_t>& tmp, int payload_bits = 0) {
  const size_t k = v.size();
  if (k < 24) return std::sort(v.begin(), v.end());
  const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
  const uint64_t lo = *mn >> payload_bits, span = (*mx >> payload_bits) - lo;
  const int bits = std::bit_width(span);
  if (bits == 0) return;
  const int want = std::clamp(static_cast<int>(std::bit_width(k)) - 1, 4, 8);
  const int passes = (bits + want - 1) / want;
  const int digit = (bits + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << digit) - 1;
  const size_t buckets = size_t{1} << digit;
  if (k < 48 && static_cast<size_t>(passes) * (2 * buckets + 2 * k) >= 3 * k * std::bit_width(k))
    return std::sort(v.begin(), v.end());
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
