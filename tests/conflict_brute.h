// Test helpers for explicit conflicts (Problem::conflicts): small random problems and the
// brute-force conflict relation, optimum and heaviest clique, from the definitions (they
// share no code with the library). Used by streams_test.cpp and driver_test.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "memplan/problem.h"
#include "stream_brute.h"

namespace memplan {

inline Buffer buf(std::string id, int64_t start, int64_t end, int64_t size) {
  Buffer b;
  b.id = std::move(id), b.start = start, b.end = end, b.size = size;
  return b;
}

inline Problem random_intervals(std::mt19937& rng, int n, int horizon, int max_size) {
  Problem p;
  for (int i = 0; i < n; ++i) {
    const int s = static_cast<int>(rng() % horizon);
    const int e = s + 1 + static_cast<int>(rng() % (horizon - s));
    p.buffers.push_back(buf("b" + std::to_string(i), s, e, 1 + static_cast<int64_t>(rng() % max_size)));
  }
  return p;
}

// Brute-force conflict relation, from the definition in timeline.h.
inline bool brute_conflict(const Problem& p, int a, int b) {
  const Buffer &x = p.buffers[a], &y = p.buffers[b];
  if (x.inplace_of == y.id || y.inplace_of == x.id) return false;
  if (x.start < y.end && y.start < x.end) return true;
  for (auto [u, v] : p.conflicts)
    if ((u == a && v == b) || (u == b && v == a)) return true;
  return false;
}

// The optimum: lowest-gap first-fit over every order reaches it for any conflict graph
// (parallel-streams.md §4.1; stream_brute.h's brute_min_peak). n <= 7.
inline int64_t brute_opt(const Problem& p) {
  const int n = static_cast<int>(p.buffers.size());
  std::vector<std::vector<char>> conflict(n, std::vector<char>(n, 0));
  std::vector<int64_t> size(n);
  for (int a = 0; a < n; ++a) {
    size[a] = p.buffers[a].size;
    for (int b = 0; b < n; ++b) conflict[a][b] = a != b && brute_conflict(p, a, b);
  }
  return brute_min_peak(size, conflict);
}

// The heaviest clique of the brute-force relation (n <= 10).
inline int64_t brute_max_clique(const Problem& p) {
  const int n = static_cast<int>(p.buffers.size());
  int64_t best = 0;
  for (uint32_t m = 1; m < (1u << n); ++m) {
    bool ok = true;
    int64_t w = 0;
    for (int a = 0; a < n && ok; ++a) {
      if (!(m >> a & 1)) continue;
      w += p.buffers[a].size;
      for (int b = a + 1; b < n && ok; ++b) ok = !(m >> b & 1) || brute_conflict(p, a, b);
    }
    if (ok) best = std::max(best, w);
  }
  return best;
}

}  // namespace memplan
