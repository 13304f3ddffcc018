#include "core/free_cells.h"

#include <algorithm>
#include <climits>

namespace memplan {

namespace {

bool real(const FreeCells::Cell& c) { return c.t0 < c.t1; }

}  // namespace

void FreeCells::init(int32_t slots) {
  slots_ = std::max(slots, 1);
  leaves_ = 1;
  while (leaves_ < slots_) leaves_ *= 2;
  nodes_.assign(2 * static_cast<size_t>(leaves_), Node{});
  ends_.assign(static_cast<size_t>(slots_) + 1, {});
  starts_.assign(static_cast<size_t>(slots_) + 1, {});
  count_ = cuts_ = pieces_ = 0;
  insert(Cell{0, slots_, 0, kTop});
}

// A cut cell's part before or after the cut often keeps its node (the split it holds is not
// where the cut is), so its entries stay where they are and only their slots change.
void FreeCells::replace(const Cell& old, const Cell& a, const Cell& b) {
  const int32_t on = real(old) ? node_of(old.t0, old.t1) : 0;  // node 0 is no node
  const int32_t an = real(a) ? node_of(a.t0, a.t1) : 0, bn = real(b) ? node_of(b.t0, b.t1) : 0;
  const int64_t lo = old.lo, len = old.hi - old.lo;
  const Cell* keep = on == 0 ? nullptr : an == on ? &a : bn == on ? &b : nullptr;
  if (on != 0) {
    Node& v = nodes_[on];
    if (keep) {
      v.by_len.update({len, lo, 0, 0}, [&](ByLen& e) { e.t0 = keep->t0, e.t1 = keep->t1; });
      v.by_lo.update({lo, 0, 0, 0}, [&](Entry& e) { e.t0 = keep->t0, e.t1 = keep->t1; });
    } else {
      v.by_len.erase({len, lo, 0, 0});
      v.by_lo.erase({lo, 0, 0, 0});
    }
  }
  auto put = [&](const Cell& c, int32_t n) {
    if (n == 0 || &c == keep) return;
    nodes_[n].by_len.insert({len, lo, c.t0, c.t1});
    nodes_[n].by_lo.insert({lo, c.hi, c.t0, c.t1});
  };
  put(a, an);
  put(b, bn);
  // End and start slots: a part that ends (starts) where the old cell did takes over its entry.
  auto by_slot = [&](std::vector<ChunkedSet<Entry>>& sets, auto slot) {
    const Cell* same = on == 0 ? nullptr : an != 0 && slot(a) == slot(old) ? &a : bn != 0 && slot(b) == slot(old) ? &b : nullptr;
    if (on != 0) {
      if (same) sets[slot(old)].update({lo, 0, 0, 0}, [&](Entry& e) { e.t0 = same->t0, e.t1 = same->t1; });
      else sets[slot(old)].erase({lo, 0, 0, 0});
    }
    if (an != 0 && same != &a) sets[slot(a)].insert({lo, a.hi, a.t0, a.t1});
    if (bn != 0 && same != &b) sets[slot(b)].insert({lo, b.hi, b.t0, b.t1});
  };
  by_slot(ends_, [](const Cell& c) { return c.t1; });
  by_slot(starts_, [](const Cell& c) { return c.t0; });
  count_ += (an != 0) + (bn != 0) - (on != 0);
}

// The one cell of a node that can hold y is its last by lo not above y (they are disjoint).
FreeCells::Cell FreeCells::at(int32_t t, int64_t y) const {
  if (t >= 0 && t < slots_)
    for (size_t v = static_cast<size_t>(leaves_) + t; v >= 1; v /= 2) {
      const Entry* e = nodes_[v].by_lo.last_not_above({y, 0, 0, 0});
      if (e && y < e->hi && e->t0 <= t && t < e->t1) return {e->t0, e->t1, e->lo, e->hi};
    }
  return {1, 0, 0, 0};
}

// The cell of slot set `sets` (ends_ or starts_) at slot t that holds address y, if any (those
// of one slot all stab one slot, so they are disjoint in address).
FreeCells::Cell FreeCells::slot_cell(const std::vector<ChunkedSet<Entry>>& sets, int32_t t, int64_t y) const {
  const Entry* e = t >= 0 && t <= slots_ ? sets[t].last_not_above({y, 0, 0, 0}) : nullptr;
  if (e && y < e->hi) return {e->t0, e->t1, e->lo, e->hi};
  return {1, 0, 0, 0};
}

void FreeCells::create_joined(int32_t t0, int32_t t1, int64_t lo, int64_t hi) {
  // A cell of the same range just before or after is one maximal range with this one.
  const Cell before = slot_cell(ends_, t0, lo), after = slot_cell(starts_, t1, lo);
  const bool join_before = real(before) && before.lo == lo && before.hi == hi;
  const bool join_after = real(after) && after.lo == lo && after.hi == hi;
  const Cell joined{join_before ? before.t0 : t0, join_after ? after.t1 : t1, lo, hi};
  const Cell none{0, 0, lo, hi};
  if (join_before && join_after) erase(after);
  if (join_before) replace(before, joined, none);
  else if (join_after) replace(after, joined, none);
  else insert(joined);
}

// Walks the cells holding [lo, hi) from slot a to b: each is cut into the part before a, the
// part after b, and over the slots they share, the free ranges below and above the piece.
// Those ranges of consecutive cells are joined while they are equal (the cells were cut
// only by something next to the piece's range, which the piece now hides).
bool FreeCells::add(int32_t a, int32_t b, int64_t lo, int64_t hi) {
  struct Pending {
    int32_t t0 = 0, t1 = -1;
    int64_t lo = 0, hi = 0;
  };
  ++pieces_;
  Pending below, above;
  auto extend = [&](Pending& p, int32_t t0, int32_t t1, int64_t l, int64_t h) {
    if (p.t1 == t0 && p.lo == l && p.hi == h) {
      p.t1 = t1;
      return;
    }
    if (p.t1 >= 0) create_joined(p.t0, p.t1, p.lo, p.hi);
    p = {t0, t1, l, h};
  };
  auto flush = [&](Pending& p) {
    if (p.t1 >= 0) create_joined(p.t0, p.t1, p.lo, p.hi);
    p.t1 = -1;
  };
  // The cell after one that ends at t < b starts at t (it holds lo at t, not at t - 1).
  for (int32_t t = a; t < b; ++cuts_) {
    const Cell c = t == a ? at(t, lo) : slot_cell(starts_, t, lo);
    if (!real(c) || c.hi < hi) return false;
    const int32_t end = std::min(c.t1, b);
    replace(c, Cell{c.t0, t, c.lo, c.hi}, Cell{b, c.t1, c.lo, c.hi});  // what lies before t and after b
    if (c.lo < lo) extend(below, t, end, c.lo, lo);
    else flush(below);
    if (hi < c.hi) extend(above, t, end, hi, c.hi);
    else flush(above);
    t = end;
  }
  flush(below);
  flush(above);
  return true;
}

// At each node of a's path, the first cell by (length, lo) from `size` up that lives over
// [a, b) and is bounded; chunks with no cell over [a, b) are passed over, and a node's scan
// stops at the best found so far.
FreeCells::Best FreeCells::best_lasting(int32_t a, int32_t b, int64_t size) const {
  Best best;
  auto beyond = [&](const ByLen& e) { return e.len > best.len || (e.len == best.len && e.lo >= best.lo); };
  for (size_t v = static_cast<size_t>(leaves_) + a; v >= 1; v /= 2) {
    nodes_[v].by_len.scan_from(
        {size, INT64_MIN, 0, 0},
        [&](const ByLen& front, const TimeSpan& s) { return beyond(front) ? -1 : s.min_t0 <= a && s.max_t1 >= b ? 1 : 0; },
        [&](const ByLen& e) {
          if (beyond(e)) return false;
          // Not over [a, b) (the caller walks a cell cut before b), or unbounded (hi = kTop).
          if (e.t0 > a || e.t1 < b || e.len == kTop - e.lo) return true;
          best = {e.len, e.lo};
          return false;
        });
  }
  return best;
}

}  // namespace memplan
