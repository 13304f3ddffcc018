#include "core/free_cells.h"

#include <algorithm>
#include <climits>

namespace memplan {

void FreeCells::init(int32_t slots) {
  slots_ = std::max(slots, 1);
  leaves_ = 1;
  while (leaves_ < slots_) leaves_ *= 2;
  nodes_.assign(2 * static_cast<size_t>(leaves_), Node{});
  cells_.clear();
  free_.clear();
  cuts_ = 0;
  ends_.assign(static_cast<size_t>(slots_) + 1, {});
  create(0, slots_, 0, kTop);
}

int32_t FreeCells::create(int32_t t0, int32_t t1, int64_t lo, int64_t hi) {
  int32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<int32_t>(cells_.size());
    cells_.emplace_back();
  }
  std::vector<int32_t>& ends = ends_[t1];
  cells_[id] = {t0, t1, lo, hi, static_cast<int32_t>(ends.size())};
  ends.push_back(id);
  canonical(t0, t1, [&](Node& v) {
    v.by_len.insert({hi - lo, lo, id});
    v.by_lo.insert({lo, id});
  });
  return id;
}

void FreeCells::remove(int32_t id) {
  const Cell c = cells_[id];
  std::vector<int32_t>& ends = ends_[c.t1];
  cells_[ends.back()].end_at = c.end_at;
  ends[c.end_at] = ends.back();
  ends.pop_back();
  canonical(c.t0, c.t1, [&](Node& v) {
    v.by_len.erase({c.hi - c.lo, c.lo, id});
    v.by_lo.erase({c.lo, id});
  });
  free_.push_back(id);
}

int32_t FreeCells::locate(int32_t t, int64_t y) const {
  if (t < 0 || t >= slots_) return -1;
  for (size_t v = static_cast<size_t>(leaves_) + t; v >= 1; v /= 2) {
    const std::pair<int64_t, int32_t>* e = nodes_[v].by_lo.last_not_above({y, INT32_MAX});
    if (e && y < cells_[e->second].hi) return e->second;
  }
  return -1;
}

const FreeCells::Cell* FreeCells::at(int32_t t, int64_t y) const {
  const int32_t id = locate(t, y);
  return id < 0 ? nullptr : &cells_[id];
}

void FreeCells::create_joined(int32_t t0, int32_t t1, int64_t lo, int64_t hi) {
  // A cell of the same range just before or after is one maximal range with this one.
  const int32_t before = locate(t0 - 1, lo);
  if (before >= 0 && cells_[before].t1 == t0 && cells_[before].lo == lo && cells_[before].hi == hi) {
    t0 = cells_[before].t0;
    remove(before);
  }
  const int32_t after = locate(t1, lo);
  if (after >= 0 && cells_[after].t0 == t1 && cells_[after].lo == lo && cells_[after].hi == hi) {
    t1 = cells_[after].t1;
    remove(after);
  }
  create(t0, t1, lo, hi);
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
    const int32_t id = locate(t, lo);
    if (id < 0 || cells_[id].hi < hi) return false;
    const Cell c = cells_[id];
    remove(id);
    const int32_t end = std::min(c.t1, b);
    if (c.t0 < t) create(c.t0, t, c.lo, c.hi);
    if (c.t1 > b) create(b, c.t1, c.lo, c.hi);
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
    nodes_[v].by_len.scan_from({size, INT64_MIN, INT32_MIN}, [&](const ByLen& e) {
      if (e.len > best.len || (e.len == best.len && e.lo >= best.lo)) return false;
      const Cell& c = cells_[e.id];
      if (c.hi == kTop || c.t1 < b) return true;  // unbounded, or cut before b (the caller walks it)
      best = {e.len, e.lo};
      return false;
    });
  }
  return best;
}

}  // namespace memplan
