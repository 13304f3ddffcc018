// Test-only brute force for stream programs (streams.h): happens-before as the explicit
// transitive closure of the op graph (program order on each stream plus the events), and
// the SOMAS rule from it. Shares nothing with the library's vector clocks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "memplan/streams.h"

namespace memplan {

// A stream buffer in one line (the worked examples).
inline StreamBuffer sb(int32_t stream, int64_t lower, int64_t upper, std::vector<int32_t> after = {},
                       std::vector<std::pair<int32_t, int64_t>> reads = {}) {
  StreamBuffer b;
  b.stream = stream, b.lower = lower, b.upper = upper, b.after = std::move(after), b.reads = std::move(reads);
  return b;
}

struct BruteOrder {
  bool cyclic = false;                  // some op happens before itself (a deadlock)
  std::vector<std::vector<char>> conflict;  // n x n, by the SOMAS rule
};

// a is dead before b iff every use of a (its last op on its stream and each read) reaches
// b's producer by a path of at least one edge.
inline BruteOrder brute_order(const std::vector<StreamBuffer>& bufs, int S) {
  const int n = static_cast<int>(bufs.size());
  std::vector<int64_t> ops(S, 0);
  auto uses = [&](int i) {
    std::vector<std::pair<int32_t, int64_t>> u = bufs[i].reads;
    u.emplace_back(bufs[i].stream, bufs[i].upper - 1);
    return u;
  };
  for (int i = 0; i < n; ++i) {
    ops[bufs[i].stream] = std::max(ops[bufs[i].stream], bufs[i].upper);
    for (auto [t, q] : bufs[i].reads) ops[t] = std::max(ops[t], q + 1);
  }
  std::vector<int64_t> base(S + 1, 0);
  for (int t = 0; t < S; ++t) base[t + 1] = base[t] + ops[t];
  const int64_t V = base[S];
  std::vector<std::vector<int64_t>> next(V);
  for (int t = 0; t < S; ++t)
    for (int64_t k = 0; k + 1 < ops[t]; ++k) next[base[t] + k].push_back(base[t] + k + 1);
  for (int b = 0; b < n; ++b)
    for (int a : bufs[b].after)
      for (auto [t, q] : uses(a)) next[base[t] + q].push_back(base[bufs[b].stream] + bufs[b].lower);
  // reach[u][v]: a path of >= 1 edge from u to v.
  std::vector<std::vector<char>> reach(V, std::vector<char>(V, 0));
  for (int64_t u = 0; u < V; ++u) {
    std::vector<int64_t> todo = next[u];
    while (!todo.empty()) {
      const int64_t v = todo.back();
      todo.pop_back();
      if (reach[u][v]) continue;
      reach[u][v] = 1;
      for (int64_t w : next[v]) todo.push_back(w);
    }
  }
  BruteOrder r;
  for (int64_t u = 0; u < V; ++u) r.cyclic = r.cyclic || reach[u][u];
  auto before = [&](int a, int b) {
    for (auto [t, q] : uses(a))
      if (!reach[base[t] + q][base[bufs[b].stream] + bufs[b].lower]) return false;
    return true;
  };
  r.conflict.assign(n, std::vector<char>(n, 0));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) r.conflict[a][b] = a != b && !before(a, b) && !before(b, a);
  return r;
}

inline std::vector<std::vector<char>> brute_conflicts(const std::vector<StreamBuffer>& bufs, int S) {
  return brute_order(bufs, S).conflict;
}

// The optimum peak under a conflict matrix: lowest-gap first-fit over every order reaches
// it for any conflict graph (parallel-streams.md §4.1). n <= 7.
inline int64_t brute_min_peak(const std::vector<int64_t>& size, const std::vector<std::vector<char>>& conflict) {
  const int n = static_cast<int>(size.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  int64_t best = INT64_MAX;
  do {
    std::vector<int64_t> off(n, -1);
    int64_t peak = 0;
    for (int i : order) {
      int64_t x = 0;
      for (bool moved = true; moved;) {
        moved = false;
        for (int j = 0; j < n; ++j)
          if (off[j] >= 0 && conflict[i][j] && x < off[j] + size[j] && off[j] < x + size[i]) x = off[j] + size[j], moved = true;
      }
      off[i] = x;
      peak = std::max(peak, x + size[i]);
    }
    best = std::min(best, peak);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

// A random stream program of n buffers on S streams (may be cyclic, and reads need not be
// ordered after their producer: the rule above covers both).
template <class Rng>
std::vector<StreamBuffer> random_program(Rng& rng, int S, int n) {
  std::vector<StreamBuffer> prog;
  for (int i = 0; i < n; ++i) {
    StreamBuffer b;
    b.stream = static_cast<int32_t>(rng() % S);
    b.lower = static_cast<int64_t>(rng() % 5);
    b.upper = b.lower + 1 + static_cast<int64_t>(rng() % 3);
    if (rng() % 3 == 0) b.reads.emplace_back(static_cast<int32_t>(rng() % S), static_cast<int64_t>(rng() % 6));
    if (i > 0 && rng() % 2) b.after.push_back(static_cast<int32_t>(rng() % i));
    prog.push_back(b);
  }
  return prog;
}

}  // namespace memplan
