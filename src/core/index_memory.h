// memplan internal: counts a vector of sets into IndexMemory (the occupancy and crossing
// indexes' memory(), for bench/training_bench --memory).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "memplan/placement.h"

namespace memplan {

// glibc's malloc chunk for n bytes: n + 8 rounded up to 16, at least 32.
inline int64_t malloc_chunk(int64_t n) { return n == 0 ? 0 : std::max<int64_t>(32, (n + 8 + 15) / 16 * 16); }

// One set (its header is counted by the caller).
template <class T>
void count_set(const std::vector<T>& s, IndexMemory& m, IndexMemory::Kind k) {
  if (s.capacity() == 0) return;
  const int64_t cap = static_cast<int64_t>(s.capacity() * sizeof(T));
  m.reserved_bytes[k] += cap;
  m.heap_bytes[k] += malloc_chunk(cap);
  if (s.empty()) return;
  const int64_t n = static_cast<int64_t>(s.size());
  ++m.sets[k];
  m.entries[k] += n;
  m.used_bytes[k] += n * static_cast<int64_t>(sizeof(T));
  // Buckets: 1, 2-3, then powers of 4.
  const int b = n == 1 ? 0 : n < 4 ? 1 : 1 + (std::bit_width(static_cast<uint64_t>(n)) - 1) / 2;
  ++m.by_size[k][std::min(b, IndexMemory::kBuckets - 1)];
}

template <class T>
void count_sets(const std::vector<std::vector<T>>& sets, IndexMemory& m, IndexMemory::Kind k) {
  m.headers[k] += static_cast<int64_t>(sets.size());
  for (const std::vector<T>& s : sets) count_set(s, m, k);
}

}  // namespace memplan
