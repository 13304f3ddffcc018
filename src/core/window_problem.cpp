// The time window of a problem (bounds.h): the sub-problem behind the window lower bound.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "memplan/bounds.h"

namespace memplan {

Problem window_problem(const Problem& p, int64_t from, int64_t to) {
  if (from >= to)
    throw std::invalid_argument("window [" + std::to_string(from) + ", " + std::to_string(to) + ") is empty");
  if (!p.conflicts.empty() || p.clock_dim > 0)
    throw std::invalid_argument("window: explicit conflicts (streams) are not supported");
  Problem w;
  for (const Buffer& b : p.buffers) {
    if (b.start >= to || b.end <= from) continue;
    auto refuse = [&](const char* what) {
      throw std::invalid_argument("window: buffer '" + b.id + "' has " + what + " (not supported)");
    };
    if (!b.gaps.empty()) refuse("gaps");
    if (!b.inplace_of.empty()) refuse("an in-place link (inplace_of)");
    if (!b.group.empty()) refuse("a group");
    if (b.from_top) refuse("a high-end placement (from_top)");
    Buffer c;
    c.id = b.id;
    c.start = std::max(b.start, from);
    c.end = std::min(b.end, to);
    c.size = b.size;
    c.alignment = b.alignment;
    c.offset = b.offset;
    w.buffers.push_back(std::move(c));
  }
  return w;
}

}  // namespace memplan
