#include "memplan/orders.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <tuple>

#include "core/polled.h"

namespace memplan {

const char* order_name(Order o) {
  switch (o) {
    case Order::kSizeDesc: return "size";
    case Order::kAreaDesc: return "area";
    case Order::kLengthDesc: return "length";
    case Order::kStartAsc: return "start";
    case Order::kConflictDesc: return "conflicts";
    case Order::kConflictSizeDesc: return "conflict-size";
    case Order::kPressureDesc: return "pressure";
    case Order::kLengthAreaPressure: return "wat";
  }
  return "?";
}

namespace {

// Per buffer: sum over the buffers overlapping it of weight(j) (itself excluded), as
// (sum of weights of buffers starting before my end) - (those ending at or before my start).
// Empty once the deadline (if any) has passed.
template <class Weight>
std::vector<int64_t> overlap_sums(const Problem& p, Weight weight, const Deadline* deadline) {
  const size_t n = p.buffers.size();
  std::vector<std::pair<int64_t, int64_t>> starts(n), ends(n);
  for (size_t i = 0; i < n; ++i) {
    starts[i] = {p.buffers[i].start, weight(i)};
    ends[i] = {p.buffers[i].end, weight(i)};
  }
  if (!sort_until(starts, std::less<>(), deadline) || !sort_until(ends, std::less<>(), deadline)) return {};
  std::vector<int64_t> ps(n + 1, 0), pe(n + 1, 0);
  for (size_t k = 0; k < n; ++k) ps[k + 1] = ps[k] + starts[k].second, pe[k + 1] = pe[k] + ends[k].second;
  std::vector<int64_t> out(n);
  Poll poll(deadline);
  for (size_t i = 0; i < n; ++i) {
    if (poll()) return {};
    const size_t a = std::lower_bound(starts.begin(), starts.end(), std::pair{p.buffers[i].end, INT64_MIN}) - starts.begin();
    const size_t b = std::upper_bound(ends.begin(), ends.end(), std::pair{p.buffers[i].start, INT64_MAX}) - ends.begin();
    out[i] = ps[a] - pe[b] - weight(i);
  }
  return out;
}

}  // namespace

std::vector<int64_t> conflict_counts(const Problem& p, const Deadline* deadline) {
  return overlap_sums(p, [](size_t) { return int64_t{1}; }, deadline);
}

std::vector<int64_t> conflict_sizes(const Problem& p, const Deadline* deadline) {
  return overlap_sums(p, [&](size_t i) { return p.buffers[i].size; }, deadline);
}

std::vector<int64_t> lifetime_pressure(const Problem& p, const Deadline* deadline) {
  const size_t n = p.buffers.size();
  Poll poll(deadline);
  std::vector<int64_t> times;
  for (const Buffer& b : p.buffers) times.push_back(b.start), times.push_back(b.end);
  if (!sort_until(times, std::less<>(), deadline)) return {};
  times.erase(std::unique(times.begin(), times.end()), times.end());
  const size_t m = times.size();
  std::vector<int64_t> delta(m + 1, 0);
  auto at = [&](int64_t t) { return std::lower_bound(times.begin(), times.end(), t) - times.begin(); };
  for (const Buffer& b : p.buffers) delta[at(b.start)] += b.size, delta[at(b.end)] -= b.size;
  // level[k] = live total during [times[k], times[k+1]).
  std::vector<std::vector<int64_t>> sparse(1, std::vector<int64_t>(m, 0));
  int64_t live = 0;
  for (size_t k = 0; k < m; ++k) sparse[0][k] = (live += delta[k]);
  for (size_t w = 1; (size_t{1} << w) <= m; ++w) {
    sparse.emplace_back(m - (size_t{1} << w) + 1);
    for (size_t k = 0; k + (size_t{1} << w) <= m; ++k)
      if (poll()) return {};
      else sparse[w][k] = std::max(sparse[w - 1][k], sparse[w - 1][k + (size_t{1} << (w - 1))]);
  }
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (poll()) return {};
    const size_t lo = at(p.buffers[i].start), hi = at(p.buffers[i].end);  // levels [lo, hi)
    const size_t w = std::bit_width(hi - lo) - 1;
    out[i] = std::max(sparse[w][lo], sparse[w][hi - (size_t{1} << w)]);
  }
  return out;
}

std::vector<int32_t> make_order(const Problem& p, Order o, const Deadline* deadline) {
  const auto& b = p.buffers;
  std::vector<int32_t> idx(b.size());
  std::iota(idx.begin(), idx.end(), 0);
  auto len = [&](int32_t i) { return b[i].end - b[i].start; };
  auto area = [&](int32_t i) { return static_cast<__int128>(b[i].size) * len(i); };
  bool sorted = true;  // every key below ends in the index: a total order
  switch (o) {
    case Order::kSizeDesc:
      sorted = sort_total_until(idx, [&](int32_t x, int32_t y) {
        return std::tuple(-b[x].size, -len(x), b[x].start, x) <
               std::tuple(-b[y].size, -len(y), b[y].start, y);
      }, deadline);
      break;
    case Order::kAreaDesc:
      sorted = sort_total_until(idx, [&](int32_t x, int32_t y) {
        if (area(x) != area(y)) return area(x) > area(y);
        return std::tuple(-b[x].size, x) < std::tuple(-b[y].size, y);
      }, deadline);
      break;
    case Order::kLengthDesc:
      sorted = sort_total_until(idx, [&](int32_t x, int32_t y) {
        return std::tuple(-len(x), -b[x].size, x) < std::tuple(-len(y), -b[y].size, y);
      }, deadline);
      break;
    case Order::kStartAsc:
      sorted = sort_total_until(idx, [&](int32_t x, int32_t y) {
        return std::tuple(b[x].start, -b[x].size, x) < std::tuple(b[y].start, -b[y].size, y);
      }, deadline);
      break;
    case Order::kConflictDesc:
    case Order::kConflictSizeDesc: {
      const std::vector<int64_t> key =
          o == Order::kConflictDesc ? conflict_counts(p, deadline) : conflict_sizes(p, deadline);
      if (key.size() != b.size()) return {};
      sorted = sort_total_until(idx, [&](int32_t x, int32_t y) {
        return std::tuple(-key[x], -b[x].size, x) < std::tuple(-key[y], -b[y].size, y);
      }, deadline);
      break;
    }
    case Order::kPressureDesc:
    case Order::kLengthAreaPressure: {
      const std::vector<int64_t> t = lifetime_pressure(p, deadline);
      if (t.size() != b.size()) return {};
      const bool taw = o == Order::kPressureDesc;
      sorted = sort_total_until(idx, [&](int32_t x, int32_t y) {
        const auto kx = taw ? std::tuple(-t[x], -area(x), -len(x)) : std::tuple(-len(x), -area(x), -t[x]);
        const auto ky = taw ? std::tuple(-t[y], -area(y), -len(y)) : std::tuple(-len(y), -area(y), -t[y]);
        return kx != ky ? kx < ky : x < y;
      }, deadline);
      break;
    }
  }
  if (!sorted) return {};
  return idx;
}

}  // namespace memplan
