#include "memplan/validate.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "core/arith.h"
#include "memplan/constraints.h"

namespace memplan {
namespace {

struct Span {
  int64_t time;
  bool is_end;
  int32_t buffer;
  int64_t lo, hi;  // absolute addresses
};

std::string name_of(const Problem& p, int32_t i) { return "buffer '" + p.buffers[i].id + "'"; }

// Members of a contiguous group must sit back to back in group order.
template <class Fail>
void check_groups(const Problem& p, const std::vector<int64_t>& offsets, Fail&& fail) {
  std::map<std::string, std::vector<int32_t>> groups;
  for (int32_t i = 0; i < static_cast<int32_t>(p.buffers.size()); ++i)
    if (!p.buffers[i].group.empty()) groups[p.buffers[i].group].push_back(i);
  for (auto& [name, members] : groups) {
    std::stable_sort(members.begin(), members.end(), [&](int32_t a, int32_t b) {
      return p.buffers[a].group_index < p.buffers[b].group_index;
    });
    for (size_t k = 0; k + 1 < members.size(); ++k) {
      const int32_t a = members[k], b = members[k + 1];
      if (offsets[a] + p.buffers[a].size != offsets[b])
        fail("group '" + name + "': " + name_of(p, b) + " at " + std::to_string(offsets[b]) +
             " does not follow " + name_of(p, a) + " (ends at " +
             std::to_string(offsets[a] + p.buffers[a].size) + ")");
    }
  }
}

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
  bool broken = false;  // an offset the sweep cannot use
  for (int32_t i = 0; i < static_cast<int32_t>(bufs.size()); ++i) {
    const Buffer& b = bufs[i];
    const int64_t off = offsets[i];
    if (off < 0) {
      fail(name_of(problem, i) + ": negative offset " + std::to_string(off));
      broken = true;
      continue;
    }
    int64_t top;
    if (__builtin_add_overflow(off, b.size, &top)) {
      fail(name_of(problem, i) + ": offset + size overflows 64 bits");
      broken = true;
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
  }
  // Footprints: in-place chain members sharing an offset count once, as their merged shape.
  std::vector<int64_t> merged_offsets;
  Problem merged;
  if (broken) return v;
  const bool constrained = has_constraints(problem);
  if (constrained) {
    check_groups(problem, offsets, fail);
    try {
      merged = merge_shared_inplace(problem, offsets, merged_offsets);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
      return v;
    }
  }
  const Problem& fp = constrained ? merged : problem;
  const std::vector<int64_t>& fo = constrained ? merged_offsets : offsets;
  for (int32_t i = 0; i < static_cast<int32_t>(fp.buffers.size()); ++i) {
    for (const Piece& pc : pieces_of(fp.buffers[i])) {
      if (pc.hi <= pc.lo || pc.end <= pc.start) continue;
      spans.push_back({pc.start, false, i, fo[i] + pc.lo, fo[i] + pc.hi});
      spans.push_back({pc.end, true, i, fo[i] + pc.lo, fo[i] + pc.hi});
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
      const Buffer& a = fp.buffers[clash->buffer];
      const Buffer& b = fp.buffers[s.buffer];
      fail(name_of(fp, clash->buffer) + " [" + std::to_string(a.start) + "," +
           std::to_string(a.end) + ") at [" + std::to_string(clash->lo) + "," +
           std::to_string(clash->hi) + ") and " + name_of(fp, s.buffer) + " [" +
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
