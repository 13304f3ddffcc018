#include "memplan/validate.h"

#include <algorithm>
#include <map>
#include <string>

#include "core/arith.h"

namespace memplan {
namespace {

struct Span {
  int64_t time;
  bool is_end;
  int32_t buffer;
  int64_t lo, hi;  // absolute addresses
};

std::string name_of(const Problem& p, int32_t i) { return "buffer '" + p.buffers[i].id + "'"; }

}  // namespace

Validation validate(const Problem& problem, const std::vector<int64_t>& offsets,
                    std::optional<int64_t> capacity, int max_errors) {
  Validation v;
  auto fail = [&](std::string msg) {
    v.ok = false;
    if (static_cast<int>(v.errors.size()) < max_errors) v.errors.push_back(std::move(msg));
  };
  const auto& bufs = problem.buffers;
  if (offsets.size() != bufs.size()) {
    fail("plan has " + std::to_string(offsets.size()) + " offsets for " +
         std::to_string(bufs.size()) + " buffers");
    return v;
  }
  if (!capacity) capacity = problem.capacity;
  std::vector<Span> spans;
  spans.reserve(2 * bufs.size());
  for (int32_t i = 0; i < static_cast<int32_t>(bufs.size()); ++i) {
    const Buffer& b = bufs[i];
    const int64_t off = offsets[i];
    if (off < 0) {
      fail(name_of(problem, i) + ": negative offset " + std::to_string(off));
      continue;
    }
    int64_t top;
    if (__builtin_add_overflow(off, b.size, &top)) {
      fail(name_of(problem, i) + ": offset + size overflows 64 bits");
      continue;
    }
    v.peak = std::max(v.peak, top);
    if (b.alignment > 1 && off % b.alignment != 0)
      fail(name_of(problem, i) + ": offset " + std::to_string(off) + " is not a multiple of " +
           std::to_string(b.alignment));
    if (b.offset && *b.offset != off)
      fail(name_of(problem, i) + ": pre-placed at " + std::to_string(*b.offset) +
           " but planned at " + std::to_string(off));
    if (capacity && top > *capacity)
      fail(name_of(problem, i) + ": ends at " + std::to_string(top) + ", above capacity " +
           std::to_string(*capacity));
    for (const Piece& pc : pieces_of(b)) {
      if (pc.hi <= pc.lo || pc.end <= pc.start) continue;
      spans.push_back({pc.start, false, i, off + pc.lo, off + pc.hi});
      spans.push_back({pc.end, true, i, off + pc.lo, off + pc.hi});
    }
  }
  // Ends before starts at equal times: half-open lifetimes may touch.
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.is_end > b.is_end;
  });
  // Live pieces keyed by their low address; they are pairwise disjoint by induction, so a
  // newcomer only needs checking against its neighbours in address order.
  std::multimap<int64_t, const Span*> live;
  for (const Span& s : spans) {
    if (s.is_end) {
      auto [first, last] = live.equal_range(s.lo);
      for (auto it = first; it != last; ++it)
        if (it->second->buffer == s.buffer && it->second->hi == s.hi) {
          live.erase(it);
          break;
        }
      continue;
    }
    auto next = live.lower_bound(s.lo);
    const Span* clash = nullptr;
    if (next != live.end() && next->second->lo < s.hi) clash = next->second;
    if (!clash && next != live.begin() && std::prev(next)->second->hi > s.lo)
      clash = std::prev(next)->second;
    if (clash) {
      const Buffer& a = bufs[clash->buffer];
      const Buffer& b = bufs[s.buffer];
      fail(name_of(problem, clash->buffer) + " [" + std::to_string(a.start) + "," +
           std::to_string(a.end) + ") at [" + std::to_string(clash->lo) + "," +
           std::to_string(clash->hi) + ") and " + name_of(problem, s.buffer) + " [" +
           std::to_string(b.start) + "," + std::to_string(b.end) + ") at [" +
           std::to_string(s.lo) + "," + std::to_string(s.hi) + ") overlap at time " +
           std::to_string(s.time));
      // Keep the live set disjoint: the clashing piece is not inserted.
      continue;
    }
    live.emplace(s.lo, &s);
  }
  return v;
}

}  // namespace memplan
