#include "memplan/validate_spaces.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace memplan {

namespace {

void fail(Validation& v, const std::string& msg) {  // the same error once (two checks may find it)
  v.ok = false;
  if (v.errors.size() < 10 && std::find(v.errors.begin(), v.errors.end(), msg) == v.errors.end()) v.errors.push_back(msg);
}

}  // namespace

Validation validate_spaces(const Problem& p, const std::vector<std::string>& space,
                           const std::vector<int64_t>& offsets, std::vector<int64_t>* peaks) {
  Validation v;
  if (space.size() != p.buffers.size() || offsets.size() != p.buffers.size()) {
    fail(v, "expected one memory and one offset per buffer");
    return v;
  }
  std::map<std::string, size_t> mem;
  for (size_t m = 0; m < p.memories.size(); ++m) mem[p.memories[m].name] = m;
  std::map<std::string, std::string> group_mem;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    const auto it = mem.find(space[i]);
    if (it == mem.end()) {
      fail(v, "buffer " + b.id + ": memory '" + space[i] + "' is not declared");
      continue;
    }
    const bool allowed = b.spaces.empty() ? it->second == 0
                                          : std::find(b.spaces.begin(), b.spaces.end(), space[i]) != b.spaces.end();
    if (!allowed) fail(v, "buffer " + b.id + ": memory '" + space[i] + "' is not allowed for it");
    const int64_t a = p.memories[it->second].alignment;
    if (a > 0 && offsets[i] % a != 0)
      fail(v, "buffer " + b.id + ": offset " + std::to_string(offsets[i]) + " not a multiple of " +
                  space[i] + "'s alignment " + std::to_string(a));
    if (!b.group.empty()) {
      const auto [g, fresh] = group_mem.emplace(b.group, space[i]);
      if (!fresh && g->second != space[i]) fail(v, "group " + b.group + " spans memories " + g->second + " and " + space[i]);
    }
  }
  if (!v.ok) return v;
  if (peaks) peaks->assign(p.memories.size(), 0);
  for (size_t m = 0; m < p.memories.size(); ++m) {
    Problem sub;
    std::vector<int64_t> offs;
    std::set<std::string> ids;
    for (size_t i = 0; i < p.buffers.size(); ++i)
      if (space[i] == p.memories[m].name) ids.insert(p.buffers[i].id);
    for (size_t i = 0; i < p.buffers.size(); ++i)
      if (space[i] == p.memories[m].name) {
        sub.buffers.push_back(p.buffers[i]);
        if (!ids.count(sub.buffers.back().inplace_of)) sub.buffers.back().inplace_of.clear();
        offs.push_back(offsets[i]);
      }
    const Validation w = validate(sub, offs, p.memories[m].capacity);
    for (const std::string& e : w.errors) fail(v, "memory " + p.memories[m].name + ": " + e);
    if (peaks) (*peaks)[m] = w.peak;
    v.peak = std::max(v.peak, w.peak);
  }
  return v;
}

namespace {

// validate_swaps, and without `transfers` (nullptr) validate_absences: the copy rules skipped.
Validation swaps_checked(const Problem& p, const std::vector<int64_t>& offsets, int64_t capacity,
                         const std::vector<Eviction>& evictions, const std::vector<Transfer>* copies,
                         const SwapOptions& swap) {
  Validation v;
  const std::vector<Transfer> none;
  const std::vector<Transfer>& transfers = copies ? *copies : none;
  // Time units of the steps [s, t): durations[k] inside the vector, 1 beyond it. Wide and in
  // closed form beyond the vector, so that neither huge durations nor a copy spanning 2^62
  // steps overflows or loops.
  auto units_between = [&](int64_t s, int64_t t) -> __int128 {
    if (s >= t) return 0;
    __int128 u = static_cast<__int128>(t) - s;
    const int64_t n = static_cast<int64_t>(swap.durations.size());
    for (int64_t k = std::max<int64_t>(s, 0); k < std::min(t, n); ++k) u += swap.durations[static_cast<size_t>(k)] - 1;
    return u;
  };
  Problem q = p;
  std::multiset<std::tuple<size_t, bool, int64_t, int64_t>> pending;  // (buffer, out, start, end)
  for (const Transfer& x : transfers) pending.insert({x.buffer, x.out, x.start, x.end});
  for (const Eviction& e : evictions) {
    if (e.buffer >= p.buffers.size()) {
      fail(v, "eviction of an unknown buffer");
      continue;
    }
    const Buffer& b = p.buffers[e.buffer];
    const std::string who = "buffer " + b.id + " evicted [" + std::to_string(e.lo) + "," + std::to_string(e.hi) + ")";
    if (!b.evictable) fail(v, who + ": not evictable");
    if (!(e.lo < e.hi)) fail(v, who + ": empty absence");
    std::vector<int64_t> uses = b.uses;
    if (uses.empty()) uses = {b.start, b.end - 1};
    int64_t before = INT64_MIN, after = INT64_MAX;
    for (int64_t u : uses) {
      if (e.lo <= u && u < e.hi) fail(v, who + ": use at " + std::to_string(u) + " inside the absence");
      if (u < e.lo) before = std::max(before, u);
      if (u >= e.hi) after = std::min(after, u);
    }
    if (before == INT64_MIN || after == INT64_MAX) {
      fail(v, who + ": not between two uses");
      continue;
    }
    for (const Gap& g : q.buffers[e.buffer].gaps)
      if (g.start < e.hi && e.lo < g.end) fail(v, who + ": overlaps another absence or gap");
    q.buffers[e.buffer].gaps.push_back({e.lo, e.hi, false, 0, 0});
    std::sort(q.buffers[e.buffer].gaps.begin(), q.buffers[e.buffer].gaps.end(),
              [](const Gap& x, const Gap& y) { return x.start < y.start; });
    // Its two copies.
    if (!copies) continue;
    bool got_out = false, got_in = false;
    for (auto it = pending.begin(); it != pending.end();) {
      const auto [buf, out, s, t] = *it;
      const bool match = buf == e.buffer && (out ? t == e.lo && !got_out : s == e.hi && !got_in);
      if (!match) {
        ++it;
        continue;
      }
      if (!swap.allow_stall && swap.bandwidth > 0 && units_between(s, t) * swap.bandwidth < b.size)
        fail(v, who + ": copy " + (out ? "out" : "in") + " too short for " + std::to_string(b.size) + " bytes");
      if (s > t) fail(v, who + ": copy with negative length");
      if (out && s <= before) fail(v, who + ": copy out starts at or before the use at " + std::to_string(before));
      if (!out && t > after) fail(v, who + ": copy in ends after the use at " + std::to_string(after));
      (out ? got_out : got_in) = true;
      it = pending.erase(it);
    }
    if (!got_out) fail(v, who + ": no copy out ending at " + std::to_string(e.lo));
    if (!got_in) fail(v, who + ": no copy in starting at " + std::to_string(e.hi));
  }
  if (!pending.empty()) fail(v, std::to_string(pending.size()) + " transfers belong to no eviction");
  // Channels: copies running at each step, swept over the copies' ends (a copy's steps are
  // [start, end)); each run of steps with too many is reported at its first step.
  if (!swap.allow_stall) {
    std::vector<std::pair<int64_t, int>> ends;  // (step, +1 a copy starts / -1 one ends)
    for (const Transfer& x : transfers)
      if (x.start < x.end) ends.push_back({x.start, 1}), ends.push_back({x.end, -1});
    std::sort(ends.begin(), ends.end());
    int64_t running = 0;
    bool over = false;
    for (size_t k = 0; k < ends.size(); ++k) {
      running += ends[k].second;
      if (k + 1 < ends.size() && ends[k + 1].first == ends[k].first) continue;
      if (running > swap.channels && !over) fail(v, "step " + std::to_string(ends[k].first) + ": more copies than channels");
      over = running > swap.channels;
    }
  }
  // Split evictions: the buffer becomes pieces between its absences, each at its offset.
  std::vector<int64_t> offs = offsets;
  if (offs.size() != p.buffers.size()) {
    fail(v, "expected one offset per buffer");
    return v;
  }
  std::vector<std::vector<const Eviction*>> moved(p.buffers.size());
  for (const Eviction& e : evictions)
    if (e.buffer < p.buffers.size() && e.back >= 0) moved[e.buffer].push_back(&e);
  std::set<std::string> targets;
  for (const Buffer& b : p.buffers) targets.insert(b.inplace_of);
  Problem split = q;
  split.buffers.clear();
  std::vector<int64_t> split_offs;
  for (size_t i = 0; i < q.buffers.size(); ++i) {
    const Buffer& b = q.buffers[i];
    if (moved[i].empty()) {
      split.buffers.push_back(b);
      split_offs.push_back(offs[i]);
      continue;
    }
    if (!b.inplace_of.empty() || !b.group.empty() || b.offset || b.from_top || targets.count(b.id))
      fail(v, "buffer " + b.id + ": split, but it has in-place links, a group, a fixed offset or side=high");
    std::sort(moved[i].begin(), moved[i].end(), [](const Eviction* x, const Eviction* y) { return x->lo < y->lo; });
    // Cut at every split absence; other absences of the buffer stay gaps of their piece.
    int64_t from = b.start, at = offs[i];
    for (size_t k = 0; k <= moved[i].size(); ++k) {
      Buffer piece = b;
      piece.id = b.id + "#" + std::to_string(k);
      piece.start = from;
      piece.end = k < moved[i].size() ? moved[i][k]->lo : b.end;
      piece.gaps.clear();
      for (const Gap& g : b.gaps)
        if (g.start < piece.end && piece.start < g.end && !(k < moved[i].size() && g.start == piece.end))
          piece.gaps.push_back(g);
      split.buffers.push_back(piece);
      split_offs.push_back(at);
      if (k < moved[i].size()) from = moved[i][k]->hi, at = moved[i][k]->back;
    }
  }
  const Validation w = validate(split, split_offs, capacity);
  for (const std::string& e : w.errors) fail(v, e);
  v.peak = w.peak;
  return v;
}

// validate_spaces_swaps, and without `copies` (nullptr) validate_spaces_absences: no
// transfers, no copies in `to`.
Validation spaces_swaps_checked(const Problem& p, const std::vector<std::string>& space,
                                const std::vector<int64_t>& offsets, const std::vector<Eviction>& evictions,
                                const std::vector<Transfer>* copies, const std::vector<int64_t>& copy_offsets,
                                const std::string& to, const SwapOptions& swap, std::vector<int64_t>* peaks) {
  Validation v;
  if (p.memories.empty() || space.size() != p.buffers.size() || offsets.size() != p.buffers.size() ||
      (copies && copy_offsets.size() != evictions.size())) {
    fail(v, "expected memories, one memory and offset per buffer, one copy offset per eviction");
    return v;
  }
  const std::vector<Transfer> none;
  const std::vector<Transfer>& transfers = copies ? *copies : none;
  // The first memory on its own: the swap rules and its capacity.
  const std::string& fast = p.memories[0].name;
  Problem first;
  std::vector<int64_t> first_offs;
  std::vector<size_t> at(p.buffers.size(), SIZE_MAX);
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (space[i] == fast) {
      at[i] = first.buffers.size();
      first.buffers.push_back(p.buffers[i]);
      first_offs.push_back(offsets[i]);
    }
  std::vector<Eviction> ev;
  std::vector<Transfer> tr;
  for (const Eviction& e : evictions) {
    if (e.buffer >= p.buffers.size() || at[e.buffer] == SIZE_MAX) {
      fail(v, "an evicted buffer is not in memory " + fast);
      return v;
    }
    ev.push_back({at[e.buffer], e.lo, e.hi, e.back});
  }
  for (const Transfer& x : transfers) {
    if (x.buffer >= p.buffers.size() || at[x.buffer] == SIZE_MAX) {
      fail(v, "a transfer's buffer is not in memory " + fast);
      return v;
    }
    tr.push_back({at[x.buffer], x.out, x.start, x.end});
  }
  const int64_t cap = p.memories[0].capacity.value_or(INT64_MAX);
  for (const std::string& e : swaps_checked(first, first_offs, cap, ev, copies ? &tr : nullptr, swap).errors)
    fail(v, "memory " + fast + ": " + e);
  // Every memory, with the absences as gaps and the copies as buffers of `to`.
  Problem all = p;
  std::vector<std::string> sp = space;
  std::vector<int64_t> offs = offsets;
  for (size_t k = 0; k < evictions.size(); ++k) {
    const Eviction& e = evictions[k];
    Buffer& b = all.buffers[e.buffer];
    if (e.back >= 0 && e.back != offsets[e.buffer]) fail(v, "buffer " + b.id + ": split evictions need one memory");
    b.gaps.push_back({e.lo, e.hi, false, 0, 0});
    std::sort(b.gaps.begin(), b.gaps.end(), [](const Gap& x, const Gap& y) { return x.start < y.start; });
    if (!copies) continue;
    Buffer c;
    c.id = p.buffers[e.buffer].id + "@copy" + std::to_string(k);
    c.size = b.size;
    c.start = e.lo;
    c.end = e.hi;
    for (const Transfer& x : transfers)
      if (x.buffer == e.buffer && x.out && x.end == e.lo) c.start = x.start;
      else if (x.buffer == e.buffer && !x.out && x.start == e.hi) c.end = x.end;
    c.spaces = {to};
    all.buffers.push_back(c);
    sp.push_back(to);
    offs.push_back(copy_offsets[k]);
  }
  const Validation w = validate_spaces(all, sp, offs, peaks);
  for (const std::string& e : w.errors) fail(v, e);
  v.peak = w.peak;
  return v;
}

}  // namespace

Validation validate_swaps(const Problem& p, const std::vector<int64_t>& offsets, int64_t capacity,
                          const std::vector<Eviction>& evictions, const std::vector<Transfer>& transfers,
                          const SwapOptions& swap) {
  return swaps_checked(p, offsets, capacity, evictions, &transfers, swap);
}

Validation validate_absences(const Problem& p, const std::vector<int64_t>& offsets, int64_t capacity,
                             const std::vector<Eviction>& evictions) {
  return swaps_checked(p, offsets, capacity, evictions, nullptr, SwapOptions{});
}

Validation validate_spaces_swaps(const Problem& p, const std::vector<std::string>& space,
                                 const std::vector<int64_t>& offsets, const std::vector<Eviction>& evictions,
                                 const std::vector<Transfer>& transfers, const std::vector<int64_t>& copy_offsets,
                                 const std::string& to, const SwapOptions& swap, std::vector<int64_t>* peaks) {
  return spaces_swaps_checked(p, space, offsets, evictions, &transfers, copy_offsets, to, swap, peaks);
}

Validation validate_spaces_absences(const Problem& p, const std::vector<std::string>& space,
                                    const std::vector<int64_t>& offsets, const std::vector<Eviction>& evictions,
                                    std::vector<int64_t>* peaks) {
  return spaces_swaps_checked(p, space, offsets, evictions, nullptr, {}, "", SwapOptions{}, peaks);
}

}  // namespace memplan
