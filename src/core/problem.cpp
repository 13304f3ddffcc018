#include "memplan/problem.h"

#include <algorithm>

namespace memplan {

std::vector<Piece> pieces_of(const Buffer& b) {
  std::vector<Piece> out;
  int64_t t = b.start;
  for (const Gap& g : b.gaps) {
    if (g.start > t) out.push_back({t, g.start, 0, b.size});
    if (g.has_window && g.window_hi > g.window_lo && g.end > g.start)
      out.push_back({g.start, g.end, g.window_lo, g.window_hi});
    t = std::max(t, g.end);
  }
  if (t < b.end) out.push_back({t, b.end, 0, b.size});
  return out;
}

bool present_at(const Buffer& b, int64_t t) {
  for (const Piece& pc : pieces_of(b))
    if (pc.start <= t && t < pc.end && pc.hi > pc.lo) return true;
  return false;
}

int64_t peak_of(const Problem& p, const std::vector<int64_t>& offsets) {
  int64_t peak = 0;
  for (size_t i = 0; i < p.buffers.size() && i < offsets.size(); ++i)
    peak = std::max(peak, offsets[i] + p.buffers[i].size);
  return peak;
}

}  // namespace memplan
