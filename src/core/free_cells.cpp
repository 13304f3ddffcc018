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
  count_ = cuts_ = pieces_ = 0;
  insert(Cell{0, slots_, 0, kTop});
}

// Cutting a long cell around a short piece leaves the parts before and after it with most
// of the cell's canonical nodes (a node inside [t0, a) that is maximal in [t0, t1) is maximal
// in [t0, a) too), so those entries stay where they are and only their slots change; only the
// nodes near the cut are erased or inserted. (Erasing the cell and inserting both parts
// moved every entry: ~3 x 2 log T sorted-set updates per cut.)
void FreeCells::replace(const Cell& old, const Cell& a, const Cell& b) {
  int32_t on[80], an[80], bn[80];
  const int no = real(old) ? nodes_of(old.t0, old.t1, on) : 0;
  const int na = real(a) ? nodes_of(a.t0, a.t1, an) : 0;
  const int nb = real(b) ? nodes_of(b.t0, b.t1, bn) : 0;
  const int64_t lo = old.lo, len = old.hi - old.lo;
  auto has = [](const int32_t* v, int n, int32_t x) { return std::find(v, v + n, x) != v + n; };
  for (int k = 0; k < no; ++k) {
    Node& v = nodes_[on[k]];
    const Cell* keep = has(an, na, on[k]) ? &a : has(bn, nb, on[k]) ? &b : nullptr;
    if (keep) {
      v.by_len.find({len, lo, 0})->t1 = keep->t1;
      Entry* e = v.by_lo.find({lo, 0, 0, 0});
      e->t0 = keep->t0;
      e->t1 = keep->t1;
    } else {
      v.by_len.erase({len, lo, 0});
      v.by_lo.erase({lo, 0, 0, 0});
    }
  }
  auto put = [&](const Cell& c, const int32_t* cn, int n) {
    for (int k = 0; k < n; ++k) {
      if (has(on, no, cn[k])) continue;
      nodes_[cn[k]].by_len.insert({len, lo, c.t1});
      nodes_[cn[k]].by_lo.insert({lo, c.hi, c.t0, c.t1});
    }
  };
  put(a, an, na);
  put(b, bn, nb);
  // End slots: a part that ends where the old cell ended takes over its entry.
  const Cell* same = na > 0 && a.t1 == old.t1 ? &a : nb > 0 && b.t1 == old.t1 ? &b : nullptr;
  if (no > 0) {
    if (same) ends_[old.t1].find({lo, 0, 0, 0})->t0 = same->t0;
    else ends_[old.t1].erase({lo, 0, 0, 0});
  }
  if (na > 0 && !(no > 0 && same == &a)) ends_[a.t1].insert({lo, a.hi, a.t0, a.t1});
  if (nb > 0 && !(no > 0 && same == &b)) ends_[b.t1].insert({lo, b.hi, b.t0, b.t1});
  count_ += (na > 0) + (nb > 0) - (no > 0);
}

FreeCells::Cell FreeCells::at(int32_t t, int64_t y) const {
  if (t >= 0 && t < slots_)
    for (size_t v = static_cast<size_t>(leaves_) + t; v >= 1; v /= 2) {
      const Entry* e = nodes_[v].by_lo.last_not_above({y, 0, 0, 0});
      if (e && y < e->hi) return {e->t0, e->t1, e->lo, e->hi};
    }
  return {1, 0, 0, 0};
}

void FreeCells::create_joined(int32_t t0, int32_t t1, int64_t lo, int64_t hi) {
  // A cell of the same range just before or after is one maximal range with this one.
  const Cell before = at(t0 - 1, lo), after = at(t1, lo);
  const bool join_before = real(before) && before.t1 == t0 && before.lo == lo && before.hi == hi;
  const bool join_after = real(after) && after.t0 == t1 && after.lo == lo && after.hi == hi;
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
  for (int32_t t = a; t < b; ++cuts_) {
    const Cell c = at(t, lo);
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

FreeCells::Best FreeCells::best_lasting(int32_t a, int32_t b, int64_t size) const {
  Best best;
  for (size_t v = static_cast<size_t>(leaves_) + a; v >= 1; v /= 2) {
    nodes_[v].by_len.scan_from({size, INT64_MIN, 0}, [&](const ByLen& e) {
      if (e.len > best.len || (e.len == best.len && e.lo >= best.lo)) return false;
      // Unbounded (hi = kTop), or cut before b (the caller walks it).
      if (e.len == kTop - e.lo || e.t1 < b) return true;
      best = {e.len, e.lo};
      return false;
    });
  }
  return best;
}

}  // namespace memplan
