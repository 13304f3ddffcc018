// The time window and the instant-subset relaxation of a problem (bounds.h): the
// sub-problems behind the window and instant lower bounds.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "memplan/bounds.h"

namespace memplan {
namespace {

void refuse_explicit_conflicts(const Problem& p, const char* what) {
  if (!p.conflicts.empty() || p.clock_dim > 0)
    throw std::invalid_argument(std::string(what) + ": explicit conflicts (streams) are not supported");
}

// A kept buffer with lifetime [start, end): its restriction is modelled only for a plain
// interval buffer.
Buffer restricted(const Buffer& b, int64_t start, int64_t end, const char* what) {
  auto refuse = [&](const char* feature) {
    throw std::invalid_argument(std::string(what) + ": buffer '" + b.id + "' has " + feature + " (not supported)");
  };
  if (!b.gaps.empty()) refuse("gaps");
  if (!b.inplace_of.empty()) refuse("an in-place link (inplace_of)");
  if (!b.group.empty()) refuse("a group");
  if (b.from_top) refuse("a high-end placement (from_top)");
  Buffer c;
  c.id = b.id;
  c.start = start;
  c.end = end;
  c.size = b.size;
  c.alignment = b.alignment;
  c.offset = b.offset;
  return c;
}

}  // namespace

bool relaxable(const Buffer& b) {
  return b.gaps.empty() && b.inplace_of.empty() && b.group.empty() && !b.from_top;
}

bool relaxable(const Problem& p) {
  if (!p.conflicts.empty() || p.clock_dim > 0) return false;
  return std::all_of(p.buffers.begin(), p.buffers.end(), [](const Buffer& b) { return relaxable(b); });
}

Problem window_problem(const Problem& p, int64_t from, int64_t to) {
  if (from >= to)
    throw std::invalid_argument("window [" + std::to_string(from) + ", " + std::to_string(to) + ") is empty");
  refuse_explicit_conflicts(p, "window");
  Problem w;
  for (const Buffer& b : p.buffers)
    if (b.start < to && b.end > from)
      w.buffers.push_back(restricted(b, std::max(b.start, from), std::min(b.end, to), "window"));
  return w;
}

Problem instants_problem(const Problem& p, std::vector<int64_t> instants) {
  if (instants.empty()) throw std::invalid_argument("instants: the set of instants is empty");
  refuse_explicit_conflicts(p, "instants");
  std::sort(instants.begin(), instants.end());
  instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
  Problem r;
  for (const Buffer& b : p.buffers) {
    // The instants in [start, end): a run i..j-1 of the sorted set.
    const auto i = std::lower_bound(instants.begin(), instants.end(), b.start);
    const auto j = std::lower_bound(i, instants.end(), b.end);
    if (i == j) continue;
    r.buffers.push_back(restricted(b, *i, *(j - 1) + 1, "instants"));
  }
  return r;
}

}  // namespace memplan
