#include "memplan/bounds.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/arith.h"

namespace memplan {
namespace {

struct Event {
  int64_t time;
  int64_t delta;  // negative for an end: sorts before starts at equal times
};

// A buffer's in-place component: buffers linked by inplace_of (in either direction, through
// any number of links) get one id; unrelated buffers get their own. Empty when no buffer
// names an in-place target.
std::vector<int32_t> inplace_components(const Problem& p) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::unordered_map<std::string_view, int32_t> index;
  for (int32_t i = 0; i < n; ++i)
    if (!p.buffers[i].inplace_of.empty()) index.emplace(p.buffers[i].inplace_of, -1);
  if (index.empty()) return {};
  for (int32_t i = 0; i < n; ++i)
    if (auto it = index.find(p.buffers[i].id); it != index.end() && it->second < 0) it->second = i;
  std::vector<int32_t> parent(n);
  for (int32_t i = 0; i < n; ++i) parent[i] = i;
  auto root = [&](int32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int32_t i = 0; i < n; ++i)
    if (auto it = index.find(p.buffers[i].inplace_of); it != index.end() && it->second >= 0)
      parent[root(i)] = root(it->second);
  for (int32_t i = 0; i < n; ++i) parent[i] = root(i);
  return parent;
}

}  // namespace

// Plain buffers: one event per piece. In-place components: the component contributes the
// widest of its live members' pieces, kept in a multiset of live widths per component.
int64_t compute_load(const Problem& p) {
  const std::vector<int32_t> comp = inplace_components(p);
  struct CEvent {
    int64_t time;
    int64_t delta;
    int32_t comp;
  };
  std::vector<CEvent> ev;
  ev.reserve(2 * p.buffers.size());
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    const int32_t k = comp.empty() ? static_cast<int32_t>(i) : comp[i];
    if (b.gaps.empty()) {
      ev.push_back({b.start, b.size, k});
      ev.push_back({b.end, -b.size, k});
      continue;
    }
    for (const Piece& pc : pieces_of(b)) {
      ev.push_back({pc.start, pc.hi - pc.lo, k});
      ev.push_back({pc.end, -(pc.hi - pc.lo), k});
    }
  }
  std::sort(ev.begin(), ev.end(), [](const CEvent& a, const CEvent& b) {
    return a.time != b.time ? a.time < b.time : a.delta < b.delta;
  });
  // Components of two or more buffers get a multiset of live widths (slot[k] + 1 indexes
  // it; slot[k] == -1 for a single buffer).
  std::vector<int32_t> slot;
  int32_t shared = 0;
  if (!comp.empty()) {
    std::vector<int32_t> members(p.buffers.size(), 0);
    for (int32_t k : comp) ++members[k];
    slot.assign(p.buffers.size(), -1);
    for (size_t k = 0; k < members.size(); ++k)
      if (members[k] > 1) slot[k] = shared++;
  }
  std::vector<std::multiset<int64_t>> widths(shared);
  int64_t live = 0, load = 0;
  for (const CEvent& e : ev) {
    if (slot.empty() || slot[e.comp] < 0) {
      live = sat_add(live, e.delta);
    } else {
      std::multiset<int64_t>& w = widths[slot[e.comp]];
      const int64_t before = w.empty() ? 0 : *w.rbegin();
      if (e.delta > 0) w.insert(e.delta);
      else w.erase(w.find(-e.delta));
      live = sat_add(live, (w.empty() ? 0 : *w.rbegin()) - before);
    }
    load = std::max(load, live);
  }
  return load;
}

int64_t fixed_top(const Problem& p) {
  int64_t top = 0;
  for (const Buffer& b : p.buffers)
    if (b.offset && !b.from_top) top = std::max(top, sat_add(*b.offset, b.size));
  return top;
}

int64_t lower_bound_of(const Problem& p) { return std::max(compute_load(p), fixed_top(p)); }

InstanceStats compute_stats(const Problem& p) {
  InstanceStats s;
  s.buffers = static_cast<int64_t>(p.buffers.size());
  if (p.buffers.empty()) return s;
  s.time_min = p.buffers[0].start;
  s.time_max = p.buffers[0].end;
  s.size_min = s.size_max = p.buffers[0].size;
  std::vector<Event> ev;  // buffer-level events with delta = +-1
  std::vector<int64_t> times;
  for (const Buffer& b : p.buffers) {
    s.time_min = std::min(s.time_min, b.start);
    s.time_max = std::max(s.time_max, b.end);
    s.size_min = std::min(s.size_min, b.size);
    s.size_max = std::max(s.size_max, b.size);
    s.total_size = sat_add(s.total_size, b.size);
    s.fixed += b.offset.has_value();
    s.aligned += b.alignment > 1;
    s.with_gaps += !b.gaps.empty();
    ev.push_back({b.start, 1});
    ev.push_back({b.end, -1});
    times.push_back(b.start);
    times.push_back(b.end);
  }
  std::sort(times.begin(), times.end());
  s.distinct_times = std::unique(times.begin(), times.end()) - times.begin();
  std::sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.delta < b.delta;
  });
  int64_t live = 0;
  for (const Event& e : ev) {
    if (e.delta > 0) s.overlapping_pairs += live;  // the new buffer meets every live one
    live += e.delta;
    s.max_live_buffers = std::max(s.max_live_buffers, live);
  }
  s.size_ratio = static_cast<double>(s.size_max) / static_cast<double>(s.size_min);
  const double n = static_cast<double>(s.buffers);
  s.overlap_density = s.buffers > 1 ? s.overlapping_pairs / (n * (n - 1) / 2) : 0.0;
  s.load = compute_load(p);
  return s;
}

}  // namespace memplan
