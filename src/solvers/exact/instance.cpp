#include <algorithm>
#include <bit>
#include <climits>
#include <map>
#include <numeric>
#include <tuple>

#include "core/arith.h"
#include "core/polled.h"
#include "memplan/timeline.h"
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
    if (!b.offset && b.alignment > 1) in.aligned = true;
    if (b.offset) {
      in.fixed[i] = true;
      in.fixed_offset[i] = *b.offset;
      g = std::gcd(g, *b.offset);
    }
  }
  in.granularity = std::max<int64_t>(g, 1);
  // The timeline steps below take 0.1-0.2 s of CPU each on 1,000,000 buffers; the deadline
  // is checked between them.
  if (deadline.expired()) return std::nullopt;

  // Sections, totals, degrees and the pair count from the timeline module, each polling the
  // deadline (a stopped step returns short; the check after it sees the deadline passed).
  const auto stop = [&] { return deadline.expired(); };
  {
    Sections sec = sections_of(in.start, in.end, in.size, stop);
    in.sections = sec.count();
    in.sec_lo = std::move(sec.lo), in.sec_hi = std::move(sec.hi);
    in.section_total = std::move(sec.total);
  }
  if (deadline.expired()) return std::nullopt;
  const std::vector<int32_t> by_start = order_by_start(in.start, stop);
  if (deadline.expired()) return std::nullopt;
  in.degree = overlap_degrees(in.start, in.end, stop);
  if (deadline.expired()) return std::nullopt;
  const int64_t pairs = std::accumulate(in.degree.begin(), in.degree.end(), int64_t{0}) / 2;
  in.by_start = by_start;
  // (The lists' offsets are 32-bit: 2 x pairs entries must stay below 2^31.)
  if (pairs > std::min<int64_t>(max_pairs, INT32_MAX / 2)) {
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
  // The overlap lists (CSR), each by increasing (size, id): the search's smallest unplaced
  // neighbour is then the first unplaced one on its list. The timeline module's lists come in
  // sweep order; rather than sorting each one, every buffer, visited by increasing (size,
  // id), is appended to its neighbours' final lists, which come out sorted. Sorting the
  // lists took most of the set-up on dense inputs (uniform, 20,000 buffers, 9.8M pairs: 44 %
  // of the first 2.5 s of `exact` under `perf`; `exact_scale_bench setup` prints the times).
  std::vector<int32_t> unsorted;
  {
    std::vector<int64_t> begin;
    if (!overlap_lists(in.start, in.end, by_start, begin, unsorted, stop, &in.degree)) return std::nullopt;
    in.adj_begin.assign(begin.begin(), begin.end());  // below 2^31 (above)
  }
  std::vector<int32_t> by_size(n);
  std::iota(by_size.begin(), by_size.end(), 0);
  if (!sort_total_until(by_size, [&](int32_t a, int32_t b) { return in.size[a] != in.size[b] ? in.size[a] < in.size[b] : a < b; },
                        &deadline))
    return std::nullopt;
  in.adj.resize(in.adj_begin[n]);
  std::vector<int32_t> fill(in.adj_begin.begin(), in.adj_begin.end() - 1);
  for (int32_t r = 0; r < n; ++r) {
    const int32_t b = by_size[r];
    for (int32_t k = in.adj_begin[b]; k < in.adj_begin[b + 1]; ++k) in.adj[fill[unsorted[k]]++] = b;
    if ((r & 63) == 63 && deadline.expired()) return std::nullopt;
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

std::vector<int32_t> twins(const Instance& in, const std::vector<int32_t>& order, const Deadline* deadline) {
  std::vector<int32_t> prev(in.n, -1);
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, int32_t> last;
  Poll poll(deadline);
  for (int32_t i : order) {
    if (poll()) return {};
    if (in.fixed[i]) continue;
    auto key = std::tuple(in.start[i], in.end[i], in.size[i], in.align[i]);
    if (auto it = last.find(key); it != last.end()) prev[i] = it->second;
    last[key] = i;
  }
  return prev;
}

bool sort_by_keys(const Instance& in, const std::string& keys, const std::vector<int64_t>& pressure,
                  std::vector<int32_t>& ids, const Deadline* deadline) {
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
    const auto row_less = [](const Row& a, const Row& b) {
      for (size_t c = 0; c < kMax; ++c)
        if (a.k[c] != b.k[c]) return a.k[c] < b.k[c];
      return a.id < b.id;
    };
    // A total order (the id breaks ties): the polled stable sort gives std::sort's result.
    if (deadline) {
      if (!sort_until(rows, row_less, deadline)) return false;
    } else {
      std::sort(rows.begin(), rows.end(), row_less);
    }
    for (size_t u = 0; u < ids.size(); ++u) ids[u] = rows[u].id;
    return true;
  }
  const auto id_less = [&](int32_t a, int32_t b) {
    for (char c : keys) {
      const __int128 ka = key(c, a), kb = key(c, b);
      if (ka != kb) return ka < kb;
    }
    return a < b;
  };
  if (deadline) return sort_until(ids, id_less, deadline);
  std::sort(ids.begin(), ids.end(), id_less);
  return true;
}

std::vector<int32_t> preorder(const Instance& in, const std::string& keys, const Deadline* deadline) {
  // T: each buffer's largest section total (the timeline module's pressure).
  Sections sec;
  sec.lo = in.sec_lo, sec.hi = in.sec_hi, sec.total = in.section_total;
  const std::vector<int64_t> pressure = section_pressure(sec);
  std::vector<int32_t> order(in.n);
  std::iota(order.begin(), order.end(), 0);
  if (!sort_by_keys(in, keys, pressure, order, deadline)) return {};
  return order;
}

std::vector<int32_t> random_order(int32_t n, uint64_t seed) {
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  uint64_t x = seed;
  for (int32_t k = n - 1; k > 0; --k)
    std::swap(order[k], order[static_cast<int32_t>(splitmix64(x) % static_cast<uint64_t>(k + 1))]);
  return order;
}

}  // namespace memplan::exact
