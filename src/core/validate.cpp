// The independent checker: every rule is written here from the specification (validate.h
// lists them); nothing is shared with the solvers or the constraint lowering.
#include "memplan/validate.h"

#include <algorithm>
#include <bit>
#include <map>
#include <new>
#include <memory_resource>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/polled.h"  // a sort and a clock poll only: no placement logic
#include "core/sort_keys.h"  // an integer radix sort

namespace memplan {
namespace {

std::string str(int64_t x) { return std::to_string(x); }

struct Checker {
  const Problem& p;
  const std::vector<int64_t>& off;
  std::optional<int64_t> capacity;
  int max_errors;
  const Deadline* deadline;
  Validation v;

  std::string name(size_t i) const { return "buffer '" + p.buffers[i].id + "'"; }
  void fail(std::string msg) {
    v.ok = false;
    if (static_cast<int>(v.errors.size()) < max_errors) v.errors.push_back(std::move(msg));
  }
};

// Rule 1 for one buffer: its fields and gaps are well formed.
bool well_formed(Checker& c, size_t i) {
  const Buffer& b = c.p.buffers[i];
  std::string why;
  if (b.size <= 0) why = "size " + str(b.size) + " is not positive";
  else if (b.end <= b.start) why = "lifetime [" + str(b.start) + "," + str(b.end) + ") is empty";
  else if (b.alignment < 1 || (b.alignment & (b.alignment - 1)) != 0)
    why = "alignment " + str(b.alignment) + " is not a power of two";
  int64_t prev = b.start;
  for (const Gap& g : b.gaps) {
    if (!why.empty()) break;
    if (g.start < prev || g.end <= g.start || g.end > b.end)
      why = "gap [" + str(g.start) + "," + str(g.end) + ") is empty, out of order or outside the lifetime";
    else if (g.has_window && (g.window_lo < 0 || g.window_lo > g.window_hi || g.window_hi > b.size))
      why = "gap window " + str(g.window_lo) + ":" + str(g.window_hi) + " is outside [0, size]";
    prev = g.end;
  }
  if (why.empty()) return true;
  c.fail("problem: " + c.name(i) + ": " + why);
  return false;
}

// Rule 2 for one buffer. Returns false when the offset cannot be used further.
bool offset_ok(Checker& c, size_t i) {
  const Buffer& b = c.p.buffers[i];
  const int64_t o = c.off[i];
  int64_t top = 0;
  if (o < 0) {
    c.fail(c.name(i) + ": negative offset " + str(o));
    return false;
  }
  if (__builtin_add_overflow(o, b.size, &top)) {
    c.fail(c.name(i) + ": offset + size overflows 64 bits");
    return false;
  }
  c.v.peak = std::max(c.v.peak, top);
  if (o % b.alignment != 0) c.fail(c.name(i) + ": offset " + str(o) + " is not a multiple of " + str(b.alignment));
  if (b.offset && *b.offset != o)
    c.fail(c.name(i) + ": pre-placed at " + str(*b.offset) + " but planned at " + str(o));
  if (c.capacity && top > *c.capacity)
    c.fail(c.name(i) + ": ends at " + str(top) + ", above capacity " + str(*c.capacity));
  return true;
}

int32_t find_root(std::vector<int32_t>& parent, int32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// Rules 1 and 3 for in-place reuse: the sharing class of every buffer (buffers of one class
// sit at one offset and may overlap each other). Returns false on a malformed relation.
bool sharing_classes(Checker& c, std::vector<int32_t>& cls) {
  const auto& bufs = c.p.buffers;
  const int32_t n = static_cast<int32_t>(bufs.size());
  cls.resize(n);
  for (int32_t i = 0; i < n; ++i) cls[i] = i;
  bool any = false;
  for (const Buffer& b : bufs) any = any || !b.inplace_of.empty();
  if (!any) return true;
  std::unordered_map<std::string_view, int32_t> index;
  for (int32_t i = 0; i < n; ++i)
    if (!index.emplace(bufs[i].id, i).second) {
      c.fail("problem: duplicate id '" + bufs[i].id + "'");
      return false;
    }
  std::vector<int32_t> target(n, -1), reuser(n, -1);
  bool good = true;
  for (int32_t i = 0; i < n; ++i) {
    if (bufs[i].inplace_of.empty()) continue;
    auto it = index.find(bufs[i].inplace_of);
    if (it == index.end() || it->second == i) {
      c.fail("problem: " + c.name(i) + ": inplace_of '" + bufs[i].inplace_of + "' is not another buffer");
      good = false;
      continue;
    }
    if (reuser[it->second] >= 0) {
      c.fail("problem: " + c.name(it->second) + " is reused in place by both '" +
             bufs[reuser[it->second]].id + "' and '" + bufs[i].id + "'");
      good = false;
      continue;
    }
    target[i] = it->second;
    reuser[it->second] = i;
  }
  if (!good) return false;
  // Every node has at most one target and one reuser: walking from the chain heads visits
  // every buffer unless some lie on a cycle.
  std::vector<char> seen(n, 0);
  for (int32_t i = 0; i < n; ++i)
    if (target[i] < 0)
      for (int32_t k = i; k >= 0; k = reuser[k]) seen[k] = 1;
  for (int32_t i = 0; i < n; ++i)
    if (!seen[i]) {
      c.fail("problem: " + c.name(i) + ": in-place reuse forms a cycle");
      return false;
    }
  for (int32_t i = 0; i < n; ++i)
    if (target[i] >= 0 && c.off[i] == c.off[target[i]])
      cls[find_root(cls, i)] = find_root(cls, target[i]);
  for (int32_t i = 0; i < n; ++i) cls[i] = find_root(cls, i);
  return true;
}

// Rule 4.
void check_groups(Checker& c) {
  std::map<std::string_view, std::vector<size_t>> groups;
  for (size_t i = 0; i < c.p.buffers.size(); ++i)
    if (!c.p.buffers[i].group.empty()) groups[c.p.buffers[i].group].push_back(i);
  for (auto& [g, members] : groups) {
    std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      return c.p.buffers[a].group_index < c.p.buffers[b].group_index;
    });
    for (size_t k = 0; k + 1 < members.size(); ++k) {
      const size_t a = members[k], b = members[k + 1];
      const int64_t want = c.off[a] + c.p.buffers[a].size;
      if (c.off[b] != want)
        c.fail("group '" + std::string(g) + "': " + c.name(b) + " at " + str(c.off[b]) +
               " does not follow " + c.name(a) + " (which ends at " + str(want) + ")");
    }
  }
}

// Rule 5.
void check_two_ends(Checker& c) {
  const auto& bufs = c.p.buffers;
  int64_t high_align = 1;
  int64_t low_top = -1, high_base = -1;  // -1: no buffer on that side
  size_t low_at = 0, high_at = 0;
  for (size_t i = 0; i < bufs.size(); ++i) {
    if (bufs[i].from_top) {
      high_align = std::max(high_align, bufs[i].alignment);
      if (high_base < 0 || c.off[i] < high_base) high_base = c.off[i], high_at = i;
    } else if (c.off[i] + bufs[i].size > low_top) {
      low_top = c.off[i] + bufs[i].size, low_at = i;
    }
  }
  if (high_base < 0) return;
  if (low_top > high_base)
    c.fail("two-ended pool: low-end " + c.name(low_at) + " ends at " + str(low_top) +
           ", above high-end " + c.name(high_at) + " at " + str(high_base));
  if (!c.capacity || *c.capacity < 0) return;
  const int64_t top = *c.capacity / high_align * high_align;
  for (size_t i = 0; i < bufs.size(); ++i)
    if (bufs[i].from_top && c.off[i] + bufs[i].size > top)
      c.fail("two-ended pool: high-end " + c.name(i) + " ends at " + str(c.off[i] + bufs[i].size) +
             ", above the top " + str(top) + " (capacity rounded down to alignment " + str(high_align) + ")");
}

// One rectangle of a footprint in absolute addresses.
struct Rect {
  int64_t start, end, lo, hi;
  int32_t buffer;
};

void add_footprint(const Buffer& b, int32_t i, int64_t o, std::vector<Rect>& out) {
  int64_t t = b.start;
  for (const Gap& g : b.gaps) {
    if (g.start > t) out.push_back({t, g.start, o, o + b.size, i});
    if (g.has_window && g.window_hi > g.window_lo) out.push_back({g.start, g.end, o + g.window_lo, o + g.window_hi, i});
    t = g.end;
  }
  if (t < b.end) out.push_back({t, b.end, o, o + b.size, i});
}

// Occupied addresses as disjoint segments, each owned by one sharing class and counting how
// many live rectangles of that class cover it.
struct Segment {
  int64_t hi;
  int32_t cls;
  int32_t count;
  int32_t buffer;  // a buffer that covers it, for messages
};
// Nodes from a pool: a million live segments (all buffers live at once) are a million
// nodes; the pool's reuse and locality take ~15 % off the whole check there.
using Segments = std::pmr::map<int64_t, Segment>;

// Splits the segment containing x (if any) at x.
void split_at(Segments& segs, int64_t x) {
  auto it = segs.upper_bound(x);
  if (it == segs.begin()) return;
  --it;
  if (it->first < x && x < it->second.hi) {
    Segment right = it->second;
    it->second.hi = x;
    segs.emplace(x, right);
  }
}

// The first segment that ends after x.
Segments::iterator first_after(Segments& segs, int64_t x) {
  auto it = segs.upper_bound(x);
  if (it != segs.begin() && std::prev(it)->second.hi > x) --it;
  return it;
}

struct Event {
  int64_t time;
  int32_t rect;
  bool is_end;
};

// Events by time, ends before starts at equal times, then by rectangle. When the time span
// and the rectangle count fit in 63 bits, as one radix sort of packed keys (1M buffers: ~30
// ms of CPU instead of ~0.15 s for the comparison sort; the check is what the driver
// reserves time for); else by the polled comparison sort. False once the deadline passed.
bool sort_events(std::vector<Event>& events, const Deadline* deadline) {
  const auto less = [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.is_end != b.is_end) return a.is_end;
    return a.rect < b.rect;
  };
  // A total order (a rectangle's two events differ in is_end): std::sort's blocks will do.
  if (events.size() < 4096) return sort_total_until(events, less, deadline);
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const Event& e : events) lo = std::min(lo, e.time), hi = std::max(hi, e.time);
  const int rect_bits = std::bit_width(events.size());
  int64_t span = 0;
  if (__builtin_sub_overflow(hi, lo, &span) || std::bit_width(static_cast<uint64_t>(span)) + 1 + rect_bits > 64)
    return sort_total_until(events, less, deadline);  // too wide to pack
  std::vector<uint64_t> keys(events.size()), tmp;
  for (size_t k = 0; k < events.size(); ++k) {
    const Event& e = events[k];
    keys[k] = static_cast<uint64_t>(e.time - lo) << (rect_bits + 1) | uint64_t{!e.is_end} << rect_bits |
              static_cast<uint64_t>(e.rect);
  }
  sort_keys(keys, tmp);
  const uint64_t rect_mask = (uint64_t{1} << rect_bits) - 1;
  for (size_t k = 0; k < events.size(); ++k)
    events[k] = {lo + static_cast<int64_t>(keys[k] >> (rect_bits + 1)), static_cast<int32_t>(keys[k] & rect_mask),
                 (keys[k] >> rect_bits & 1) == 0};
  return !(deadline && deadline->expired());
}

// Rule 3: a sweep over time, ends before starts at equal times (half-open lifetimes).
void check_footprints(Checker& c, const std::vector<int32_t>& cls) {
  std::vector<Rect> rects;
  rects.reserve(c.p.buffers.size());
  for (size_t i = 0; i < c.p.buffers.size(); ++i)
    add_footprint(c.p.buffers[i], static_cast<int32_t>(i), c.off[i], rects);
  std::vector<Event> events;
  events.reserve(2 * rects.size());
  for (size_t r = 0; r < rects.size(); ++r) {
    events.push_back({rects[r].start, static_cast<int32_t>(r), false});
    events.push_back({rects[r].end, static_cast<int32_t>(r), true});
  }
  // The time limit stops the check (see Validation::complete); the sort and the sweep poll it.
  const auto stopped = [&c] {
    c.v.complete = false;
    c.fail("the check stopped at the time limit");
  };
  if ((c.deadline && c.deadline->expired()) || !sort_events(events, c.deadline)) return stopped();
  std::pmr::unsynchronized_pool_resource pool;
  // The map lives in storage whose destructor is never run: its nodes are the pool's, which
  // frees them in bulk, and the tree's own destructor would visit every node first (a check
  // stopped at the limit with 1M buffers live: ~60 ms past the limit, on nodes of plain
  // integers that need no destruction).
  alignas(Segments) unsigned char storage[sizeof(Segments)];
  Segments& segs = *new (storage) Segments(&pool);
  std::vector<char> inserted(rects.size(), 0);
  Poll poll(c.deadline);
  for (const Event& e : events) {
    if (poll()) return stopped();
    const Rect& r = rects[e.rect];
    const int32_t k = cls[r.buffer];
    if (e.is_end) {
      if (!inserted[e.rect]) continue;
      // Usually the rectangle is a segment of its own.
      if (auto it = segs.find(r.lo); it != segs.end() && it->second.hi == r.hi && it->second.count == 1) {
        segs.erase(it);
        continue;
      }
      split_at(segs, r.lo);
      split_at(segs, r.hi);
      for (auto it = segs.find(r.lo); it != segs.end() && it->first < r.hi;)
        it = --it->second.count == 0 ? segs.erase(it) : std::next(it);
      continue;
    }
    const auto first = first_after(segs, r.lo);
    if (first == segs.end() || first->first >= r.hi) {  // free bytes: usually so
      inserted[e.rect] = 1;
      segs.emplace_hint(first, r.lo, Segment{r.hi, k, 1, r.buffer});
      continue;
    }
    bool clash = false;
    for (auto it = first; it != segs.end() && it->first < r.hi; ++it) {
      if (it->second.cls == k) continue;
      const Buffer& a = c.p.buffers[it->second.buffer];
      const Buffer& b = c.p.buffers[r.buffer];
      c.fail(c.name(it->second.buffer) + " [" + str(a.start) + "," + str(a.end) + ") and " + c.name(r.buffer) +
             " [" + str(b.start) + "," + str(b.end) + ") both occupy bytes [" + str(std::max(it->first, r.lo)) +
             "," + str(std::min(it->second.hi, r.hi)) + ") at time " + str(e.time));
      clash = true;
      break;
    }
    if (clash) continue;  // left out, so the live segments stay disjoint between classes
    inserted[e.rect] = 1;
    split_at(segs, r.lo);
    split_at(segs, r.hi);
    int64_t cursor = r.lo;
    for (auto it = segs.lower_bound(r.lo); it != segs.end() && it->first < r.hi; ++it) {
      if (it->first > cursor) segs.emplace(cursor, Segment{it->first, k, 1, r.buffer});
      ++it->second.count;
      cursor = it->second.hi;
    }
    if (cursor < r.hi) segs.emplace(cursor, Segment{r.hi, k, 1, r.buffer});
  }
}

// Rule 6: explicit conflicts. A listed pair may be live at the same moment whatever their
// [start, end) say (e.g. on two streams), so their whole extents must be disjoint, unless
// they share memory in place (same sharing class). Every pair is checked directly.
void check_conflicts(Checker& c, const std::vector<int32_t>& cls) {
  const int64_t n = static_cast<int64_t>(c.p.buffers.size());
  for (const auto& [a, b] : c.p.conflicts) {
    if (a < 0 || b < 0 || a >= n || b >= n || a == b) {
      c.fail("problem: conflict pair (" + str(a) + "," + str(b) + ") does not name two buffers");
      continue;
    }
    if (cls[a] == cls[b]) continue;
    const int64_t a_hi = c.off[a] + c.p.buffers[a].size, b_hi = c.off[b] + c.p.buffers[b].size;
    if (c.off[a] < b_hi && c.off[b] < a_hi)
      c.fail(c.name(a) + " at [" + str(c.off[a]) + "," + str(a_hi) + ") and " + c.name(b) + " at [" +
             str(c.off[b]) + "," + str(b_hi) + ") conflict (explicit conflict) but share bytes");
  }
}

// Rule 7: the partial order given by vector clocks. a is dead before b iff upper(a) <=
// lower(b) componentwise; every two buffers whose extents share a byte must be ordered so.
// Sweep over addresses keeping the buffers that cover the current address sorted by the
// sum of their lower clock (a < b implies a strictly smaller sum, as lower <= upper and
// lower != upper). Each newcomer is checked against its two neighbours there: if both are
// ordered with it, so is every member (transitivity), so the covering set stays a chain
// and every pair that shares a byte is checked while both cover it. O(n (log n + dim)).
void check_clocks(Checker& c) {
  const Problem& p = c.p;
  const size_t n = p.buffers.size(), S = static_cast<size_t>(p.clock_dim);
  if (p.clock_dim == 0 && p.clock_lower.empty() && p.clock_upper.empty()) return;
  if (p.clock_dim < 1 || p.clock_lower.size() != n * S || p.clock_upper.size() != n * S) {
    c.fail("problem: vector clocks must have clock_dim >= 1 and clock_dim components per buffer");
    return;
  }
  const int64_t *lo = p.clock_lower.data(), *up = p.clock_upper.data();
  std::vector<__int128> key(n, 0);
  for (size_t i = 0; i < n; ++i) {
    bool less = false, ok = true;
    for (size_t t = 0; t < S; ++t) {
      ok = ok && lo[i * S + t] <= up[i * S + t];
      less = less || lo[i * S + t] < up[i * S + t];
      key[i] += lo[i * S + t];
    }
    if (!ok || !less) {
      c.fail("problem: " + c.name(i) + ": its lower clock must be <= its upper clock componentwise, and differ");
      return;
    }
    if (!p.buffers[i].inplace_of.empty()) {
      c.fail("problem: " + c.name(i) + ": in-place reuse together with vector clocks is not supported");
      return;
    }
  }
  auto before = [&](size_t a, size_t b) {
    for (size_t t = 0; t < S; ++t)
      if (up[a * S + t] > lo[b * S + t]) return false;
    return true;
  };
  struct Event {
    int64_t at;
    bool add;
    int32_t i;
  };
  std::vector<Event> ev;
  ev.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    ev.push_back({c.off[i], true, static_cast<int32_t>(i)});
    ev.push_back({c.off[i] + p.buffers[i].size, false, static_cast<int32_t>(i)});
  }
  // Half-open extents: at one address, ends first.
  std::sort(ev.begin(), ev.end(), [](const Event& x, const Event& y) {
    return x.at != y.at ? x.at < y.at : x.add != y.add ? !x.add : x.i < y.i;
  });
  std::set<std::pair<__int128, int32_t>> live;
  std::vector<char> in(n, 0);
  auto clash = [&](size_t a, size_t b) {
    c.fail(c.name(a) + " at [" + str(c.off[a]) + "," + str(c.off[a] + p.buffers[a].size) + ") and " + c.name(b) +
           " at [" + str(c.off[b]) + "," + str(c.off[b] + p.buffers[b].size) +
           ") share bytes but neither is dead before the other (vector clocks)");
  };
  for (const Event& e : ev) {
    if (!e.add) {
      if (in[e.i]) live.erase({key[e.i], e.i});
      continue;
    }
    auto next = live.lower_bound({key[e.i], e.i});
    if (next != live.end() && !before(e.i, next->second)) {
      clash(e.i, next->second);
      continue;  // left out, so the covering set stays a chain
    }
    if (next != live.begin() && !before(std::prev(next)->second, e.i)) {
      clash(std::prev(next)->second, e.i);
      continue;
    }
    live.emplace(key[e.i], e.i);
    in[e.i] = 1;
  }
}

}  // namespace

Validation validate(const Problem& problem, const std::vector<int64_t>& offsets,
                    std::optional<int64_t> capacity, int max_errors, const Deadline* deadline) {
  Checker c{problem, offsets, capacity ? capacity : problem.capacity, max_errors, deadline, {}};
  if (offsets.size() != problem.buffers.size()) {
    c.fail("plan has " + str(static_cast<int64_t>(offsets.size())) + " offsets for " +
           str(static_cast<int64_t>(problem.buffers.size())) + " buffers");
    return c.v;
  }
  bool usable = true;  // every offset and the problem can be swept
  for (size_t i = 0; i < problem.buffers.size(); ++i)
    usable = well_formed(c, i) && offset_ok(c, i) && usable;
  std::vector<int32_t> cls;
  if (!usable || !sharing_classes(c, cls)) return c.v;
  check_groups(c);
  check_two_ends(c);
  check_footprints(c, cls);
  check_conflicts(c, cls);
  check_clocks(c);
  return c.v;
}

}  // namespace memplan
