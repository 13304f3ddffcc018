// The summary of a lowered graph and its plan (graph.h).
#include <algorithm>

#include "memplan/bounds.h"
#include "memplan/constraints.h"
#include "memplan/graph.h"

namespace memplan {

GraphSummary summarize(const LoweredGraph& lowered, const std::vector<int64_t>& offsets, size_t top) {
  const Problem& p = lowered.problem;
  GraphSummary s;
  s.buffers = static_cast<int64_t>(p.buffers.size());
  for (const Buffer& b : p.buffers) s.naive_bytes += b.size;
  s.weight_bytes = lowered.weight_bytes;
  s.peak = p.buffers.empty() ? 0 : peak_of(p, offsets);
  s.load = constrained_lower_bound(p);
  // The instant of the largest live total, in-place chains merged as in the bound above.
  const Problem merged = lower_constraints(p).problem;
  struct Event {
    int64_t time, delta;
  };
  std::vector<Event> events;
  for (const Buffer& b : merged.buffers)
    for (const Piece& piece : pieces_of(b)) {
      events.push_back({piece.start, piece.hi - piece.lo});
      events.push_back({piece.end, -(piece.hi - piece.lo)});
    }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.delta < b.delta;  // ends first
  });
  int64_t live = 0, best = -1;
  for (const Event& e : events) {
    live += e.delta;
    if (e.delta > 0 && live > best) {
      best = live;
      s.peak_instant = e.time;
    }
  }
  for (const Buffer& b : p.buffers)
    if (b.start <= s.peak_instant && s.peak_instant < b.end) s.live_at_peak.emplace_back(b.id, b.size);
  std::stable_sort(s.live_at_peak.begin(), s.live_at_peak.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (s.live_at_peak.size() > top) s.live_at_peak.resize(top);
  return s;
}

}  // namespace memplan
