// The online allocator: what a runtime heap would do with the buffers, in O(n log n).
// Buffers are allocated in time order and freed at their ends, each into the smallest free
// block that holds it (best fit, coalescing neighbours on free), else at the top of the
// heap. It never looks ahead, so its peak is often well above the planners', but it is the
// cheapest valid plan there is: solvers whose first real plan takes long on huge inputs
// (first fit on Y_1, 62k buffers: about 2 s) hold it as the plan of last resort, so that a
// short time limit is still honored.
#include <algorithm>
#include <map>
#include <set>

#include "core/arith.h"
#include "core/polled.h"
#include "memplan/placement.h"

namespace memplan {
namespace {

class Heap {
 public:
  // Offset of a new block of `size` bytes at a multiple of `align`.
  int64_t allocate(int64_t size, int64_t align) {
    // Best fit: the smallest blocks that can hold the size; a few are tried for alignment.
    int tries = 0;
    for (auto it = by_size_.lower_bound({size, INT64_MIN}); it != by_size_.end() && tries < 8; ++it, ++tries) {
      const auto [len, off] = *it;
      const int64_t at = align_up(off, align);
      if (at + size > off + len) continue;
      take(off, len);
      if (at > off) give(off, at - off);
      if (at + size < off + len) give(at + size, off + len - (at + size));
      return at;
    }
    const int64_t at = align_up(top_, align);
    if (at > top_) give(top_, at - top_);
    top_ = at + size;
    peak_ = std::max(peak_, top_);
    return at;
  }

  void free(int64_t off, int64_t size) {
    int64_t lo = off, hi = off + size;
    auto next = by_offset_.lower_bound(lo);
    if (next != by_offset_.end() && next->first == hi) {
      hi += next->second;
      take(next->first, next->second);
    }
    auto prev = by_offset_.lower_bound(lo);
    if (prev != by_offset_.begin() && std::prev(prev)->first + std::prev(prev)->second == lo) {
      --prev;
      lo = prev->first;
      take(prev->first, prev->second);
    }
    if (hi == top_) top_ = lo;  // the heap shrinks back
    else give(lo, hi - lo);
  }

  int64_t peak() const { return peak_; }

 private:
  void give(int64_t off, int64_t len) {
    by_offset_.emplace(off, len);
    by_size_.insert({len, off});
  }
  void take(int64_t off, int64_t len) {
    by_offset_.erase(off);
    by_size_.erase({len, off});
  }
  std::map<int64_t, int64_t> by_offset_;         // free blocks: offset -> length
  std::set<std::pair<int64_t, int64_t>> by_size_;  // the same blocks as (length, offset)
  int64_t top_ = 0, peak_ = 0;
};

}  // namespace

Solution online_plan(const Problem& p) { return *online_plan(p, nullptr); }

std::optional<Solution> online_plan(const Problem& p, const Deadline* deadline) { return online_plan(p, deadline, {}); }

std::optional<Solution> online_plan(const Problem& p, const Deadline* deadline, std::span<const int64_t> ends) {
  Poll poll(deadline);
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  Solution s;
  s.offsets.assign(n, 0);
  // Pre-placed buffers keep their offsets; the heap starts above the highest of them, so
  // nothing it hands out can meet one.
  int64_t base = 0;
  for (int32_t i = 0; i < n; ++i)
    if (p.buffers[i].offset) base = std::max(base, *p.buffers[i].offset + p.buffers[i].size);
  // Events in time order; at equal times frees come first (half-open lifetimes), then the
  // larger allocations. A buffer's gaps are ignored: it holds its block for its whole life.
  struct Event {
    int64_t time;
    int kind;  // 0 free, 1 allocate
    int64_t size;
    int32_t buffer;
  };
  // Polled too: 1M buffers make 32 MB of fresh events, and page faults on a loaded VM cost
  // more than the sort (a passed limit spent ~80 % of the whole plan's time here).
  std::vector<Event> events;
  events.reserve(2 * static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    if (poll()) return std::nullopt;
    const Buffer& b = p.buffers[i];
    if (b.offset) continue;
    events.push_back({b.start, 1, b.size, i});
    events.push_back({ends.empty() ? b.end : ends[static_cast<size_t>(i)], 0, b.size, i});
  }
  const bool sorted = sort_total_until(events, [](const Event& a, const Event& b) {  // total: ends in the id
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.size != b.size ? a.size > b.size : a.buffer < b.buffer;
  }, deadline);
  if (!sorted) return std::nullopt;
  // Alignment is relative to address 0: the heap's base is rounded to the largest alignment.
  int64_t max_align = 1;
  for (const Buffer& b : p.buffers) max_align = std::max(max_align, b.alignment);
  base = align_up(base, max_align);
  Heap heap;
  std::vector<int64_t> at(n, 0);
  for (const Event& e : events) {
    if (poll()) return std::nullopt;
    if (e.kind == 1) at[e.buffer] = heap.allocate(e.size, p.buffers[e.buffer].alignment);
    else heap.free(at[e.buffer], e.size);
  }
  for (int32_t i = 0; i < n; ++i) s.offsets[i] = p.buffers[i].offset ? *p.buffers[i].offset : base + at[i];
  s.peak = peak_of(p, s.offsets);
  return s;
}

}  // namespace memplan
