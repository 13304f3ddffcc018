#include "memplan/bounds.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/arith.h"
#include "memplan/timeline.h"

namespace memplan {
namespace {

struct Event {
  int64_t time;
  int64_t delta;  // negative for an end: sorts before starts at equal times
};

}  // namespace

int64_t compute_load(const Problem& p) { return interval_load(p); }

int64_t fixed_top(const Problem& p) {
  int64_t top = 0;
  for (const Buffer& b : p.buffers)
    if (b.offset && !b.from_top) top = std::max(top, sat_add(*b.offset, b.size));
  return top;
}

int64_t lower_bound_of(const Problem& p, const Deadline* deadline) {
  // LOAD is sound under explicit conflicts too: overlapping lifetimes always conflict
  // (timeline.h), so every instant's live set is a clique.
  const int64_t load = interval_load(p, deadline);
  return load < 0 ? -1 : std::max(load, fixed_top(p));
}

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
