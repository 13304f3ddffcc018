#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <tuple>

#include "core/arith.h"
#include "solvers/exact/search.h"

namespace memplan::exact {

std::optional<Instance> prepare(const Problem& p, int64_t max_pairs, const Deadline& deadline) {
  Instance in;
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  in.n = n;
  in.size.resize(n), in.align.resize(n), in.start.resize(n), in.end.resize(n);
  in.fixed.assign(n, false);
  in.fixed_offset.assign(n, 0);
  int64_t g = 0;
  for (int32_t i = 0; i < n; ++i) {
    const Buffer& b = p.buffers[i];  // gaps are ignored: full rectangles (conservative)
    in.size[i] = b.size, in.align[i] = b.alignment, in.start[i] = b.start, in.end[i] = b.end;
    g = std::gcd(g, b.size);
    if (b.alignment > 1) g = std::gcd(g, b.alignment);
    if (b.offset) {
      in.fixed[i] = true;
      in.fixed_offset[i] = *b.offset;
      g = std::gcd(g, *b.offset);
    }
  }
  in.granularity = std::max<int64_t>(g, 1);

  // Sections: the elementary intervals between consecutive distinct event times.
  std::vector<int64_t> times;
  times.reserve(2 * n);
  for (int32_t i = 0; i < n; ++i) times.push_back(in.start[i]), times.push_back(in.end[i]);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  in.sections = std::max<int32_t>(static_cast<int32_t>(times.size()) - 1, 0);
  in.sec_lo.resize(n), in.sec_hi.resize(n);
  in.section_total.assign(in.sections, 0);
  for (int32_t i = 0; i < n; ++i) {
    in.sec_lo[i] = static_cast<int32_t>(std::lower_bound(times.begin(), times.end(), in.start[i]) - times.begin());
    in.sec_hi[i] = static_cast<int32_t>(std::lower_bound(times.begin(), times.end(), in.end[i]) - times.begin());
  }
  // Section totals by a difference array.
  std::vector<int64_t> diff(in.sections + 1, 0);
  for (int32_t i = 0; i < n; ++i) diff[in.sec_lo[i]] += in.size[i], diff[in.sec_hi[i]] -= in.size[i];
  int64_t run = 0;
  for (int32_t s = 0; s < in.sections; ++s) in.section_total[s] = (run += diff[s]);

  // Overlap lists by a sweep in start order; first count, so a huge instance declines
  // before allocating anything.
  std::vector<int32_t> by_start(n), by_end(n);
  std::iota(by_start.begin(), by_start.end(), 0);
  std::iota(by_end.begin(), by_end.end(), 0);
  std::sort(by_start.begin(), by_start.end(), [&](int32_t a, int32_t b) {
    return in.start[a] != in.start[b] ? in.start[a] < in.start[b] : a < b;
  });
  std::sort(by_end.begin(), by_end.end(), [&](int32_t a, int32_t b) { return in.end[a] < in.end[b]; });
  int64_t pairs = 0;
  {
    size_t e = 0;
    int64_t live = 0;
    for (int32_t i : by_start) {
      while (e < by_end.size() && in.end[by_end[e]] <= in.start[i]) ++e, --live;
      pairs += live;
      ++live;
    }
  }
  if (deadline.expired()) return std::nullopt;
  // Overlap counts (the preorder key O) without the lists: buffers starting before i ends,
  // less those ending by its start, less i itself.
  {
    std::vector<int64_t> starts(n), ends(n);
    for (int32_t k = 0; k < n; ++k) starts[k] = in.start[by_start[k]], ends[k] = in.end[by_end[k]];
    in.degree.resize(n);
    for (int32_t i = 0; i < n; ++i)
      in.degree[i] = static_cast<int32_t>((std::lower_bound(starts.begin(), starts.end(), in.end[i]) - starts.begin()) -
                                          (std::upper_bound(ends.begin(), ends.end(), in.start[i]) - ends.begin()) - 1);
  }
  in.by_start = by_start;
  if (pairs > max_pairs) {
    // Too many pairs to list: the search finds overlaps by scanning its part instead.
    in.implicit = true;
    std::vector<int32_t> fixed;
    for (int32_t i : by_start)
      if (in.fixed[i]) fixed.push_back(i);
    in.fixed_near.resize(n);
    for (int32_t i = 0; i < n; ++i) {
      for (int32_t f : fixed) {
        if (in.start[f] >= in.end[i]) break;
        if (f != i && in.end[f] > in.start[i]) in.fixed_near[i].push_back(f);
      }
      std::sort(in.fixed_near[i].begin(), in.fixed_near[i].end(),
                [&](int32_t a, int32_t b) { return in.fixed_offset[a] < in.fixed_offset[b]; });
      if ((i & 1023) == 1023 && deadline.expired()) return std::nullopt;
    }
    return in;
  }
  std::vector<int32_t> degree(n, 0);
  std::vector<std::pair<int32_t, int32_t>> edges;
  edges.reserve(pairs);
  {
    // Active buffers kept in a vector; a buffer leaves when its end <= the next start.
    std::vector<int32_t> active;
    int32_t seen = 0;
    for (int32_t i : by_start) {
      if ((++seen & 255) == 0 && deadline.expired()) return std::nullopt;
      size_t w = 0;
      for (int32_t a : active)
        if (in.end[a] > in.start[i]) active[w++] = a;
      active.resize(w);
      for (int32_t a : active) edges.emplace_back(a, i), ++degree[a], ++degree[i];
      active.push_back(i);
    }
  }
  in.adj_begin.assign(n + 1, 0);
  for (int32_t i = 0; i < n; ++i) in.adj_begin[i + 1] = in.adj_begin[i] + degree[i];
  in.adj.resize(in.adj_begin[n]);
  std::vector<int32_t> fill(in.adj_begin.begin(), in.adj_begin.end() - 1);
  for (size_t e = 0; e < edges.size(); ++e) {
    const auto [a, b] = edges[e];
    in.adj[fill[a]++] = b, in.adj[fill[b]++] = a;
    if ((e & 0xfffff) == 0xfffff && deadline.expired()) return std::nullopt;
  }
  // Each list by increasing size: the search's smallest unplaced neighbour is then the
  // first unplaced one on the list.
  for (int32_t i = 0; i < n; ++i) {
    std::sort(in.adj.begin() + in.adj_begin[i], in.adj.begin() + in.adj_begin[i + 1], [&](int32_t a, int32_t b) {
      return in.size[a] != in.size[b] ? in.size[a] < in.size[b] : a < b;
    });
    if ((i & 63) == 63 && deadline.expired()) return std::nullopt;
  }
  in.fixed_near.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t k = in.adj_begin[i]; k < in.adj_begin[i + 1]; ++k)
      if (in.fixed[in.adj[k]]) in.fixed_near[i].push_back(in.adj[k]);
    std::sort(in.fixed_near[i].begin(), in.fixed_near[i].end(),
              [&](int32_t a, int32_t b) { return in.fixed_offset[a] < in.fixed_offset[b]; });
  }
  return in;
}

std::vector<int32_t> twins(const Instance& in, const std::vector<int32_t>& order) {
  std::vector<int32_t> prev(in.n, -1);
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, int32_t> last;
  for (int32_t i : order) {
    if (in.fixed[i]) continue;
    auto key = std::tuple(in.start[i], in.end[i], in.size[i], in.align[i]);
    if (auto it = last.find(key); it != last.end()) prev[i] = it->second;
    last[key] = i;
  }
  return prev;
}

void sort_by_keys(const Instance& in, const std::string& keys, const std::vector<int64_t>& pressure,
                  std::vector<int32_t>& ids) {
  auto key = [&](char c, int32_t i) -> __int128 {
    const int64_t w = in.end[i] - in.start[i];
    switch (c) {
      case 'W': return -static_cast<__int128>(w);
      case 'A': return -static_cast<__int128>(w) * in.size[i];
      case 'T': return -static_cast<__int128>(pressure[i]);
      case 'Z': return -static_cast<__int128>(in.size[i]);
      case 'L': return in.start[i];
      case 'U': return -static_cast<__int128>(in.end[i]);
      case 'O': return -static_cast<__int128>(in.degree[i]);
      case 'C': return -static_cast<__int128>(in.sec_hi[i] - in.sec_lo[i]);
      default: return 0;
    }
  };
  // The keys are computed once per buffer, not per comparison (re-ranking sorts millions
  // of buffers on large models).
  constexpr size_t kMax = 3;
  if (keys.size() <= kMax) {
    struct Row {
      __int128 k[kMax];
      int32_t id;
    };
    std::vector<Row> rows(ids.size());
    for (size_t u = 0; u < ids.size(); ++u) {
      rows[u].id = ids[u];
      for (size_t c = 0; c < kMax; ++c) rows[u].k[c] = c < keys.size() ? key(keys[c], ids[u]) : 0;
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      for (size_t c = 0; c < kMax; ++c)
        if (a.k[c] != b.k[c]) return a.k[c] < b.k[c];
      return a.id < b.id;
    });
    for (size_t u = 0; u < ids.size(); ++u) ids[u] = rows[u].id;
    return;
  }
  std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
    for (char c : keys) {
      const __int128 ka = key(c, a), kb = key(c, b);
      if (ka != kb) return ka < kb;
    }
    return a < b;
  });
}

std::vector<int32_t> preorder(const Instance& in, const std::string& keys) {
  // T: each buffer's largest section total, from a sparse table of range maxima (O(1) a
  // buffer; reading every section of every lifetime is 192M reads on Y_1).
  const int32_t s = in.sections;
  std::vector<std::vector<int64_t>> table = {in.section_total};
  for (int32_t w = 1; 2 * w <= s; w *= 2) {
    const std::vector<int64_t>& prev = table.back();
    std::vector<int64_t> next(static_cast<size_t>(s - 2 * w + 1));
    for (size_t k = 0; k < next.size(); ++k) next[k] = std::max(prev[k], prev[k + static_cast<size_t>(w)]);
    table.push_back(std::move(next));
  }
  std::vector<int64_t> pressure(in.n, 0);
  for (int32_t i = 0; i < in.n; ++i) {
    const int32_t lo = in.sec_lo[i], hi = in.sec_hi[i];
    if (lo >= hi) continue;
    const int j = std::bit_width(static_cast<uint32_t>(hi - lo)) - 1;
    pressure[i] = std::max(table[j][lo], table[j][hi - (1 << j)]);
  }
  std::vector<int32_t> order(in.n);
  std::iota(order.begin(), order.end(), 0);
  sort_by_keys(in, keys, pressure, order);
  return order;
}

}  // namespace memplan::exact
