// memplan internal: the free space of a placement cut into cells, so that best-fit finds the
// tightest hole of a short-lived query without visiting every hole that fits.
//
// A cell is a time range [t0, t1) of slots and an address range [lo, hi) that is a maximal
// free range at every slot of [t0, t1): a hole, or with hi = kTop the space above everything
// live. The cells stabbing a slot are exactly its maximal free ranges. A cell is cut in time
// only where a piece inside or next to it starts or ends (the vertical decomposition of the
// free space, de Berg et al., Computational Geometry, 3rd ed., chapter 6, with the pieces as
// the obstacles), and cells of one address range that meet in time are joined, so there are
// O(pieces) of them however long the pieces live.
//
// Why: best-fit wants the tightest hole a query fits in. The occupancy index's walk
// (occupancy_index.h) visits every hole that fits, and on training traces in size, area and
// pressure order those are ~1,400-2,400 per query at 100k buffers, growing linearly with n
// (bench/training_bench --holes). Nearly all of those walks belong to queries that live one
// or two slots (backward temporaries: 1,428 and 1,159 holes per query at 100k in size order;
// the long-lived activations see about one). For a query living one slot, its holes are the
// cells stabbing that slot, and the tightest is a successor search by length: each cell is
// kept, by (length, lo), at the O(log T) canonical nodes of a segment tree over slots, so a
// slot's cells are the union of the sets on its leaf-to-root path. For a query living over
// [a, b), a cell stabbing a that lasts to b (t1 >= b) is a hole of the query as it stands; the
// holes of the query inside the other cells stabbing a (those ending at a slot inside (a, b),
// listed by end slot) are found by the caller's walk, cell by cell.
//
// Pieces are only added (in free space); a piece that is not inside one cell at each of its
// slots makes add() return false, and the caller drops the cells.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace memplan {

// A sorted set: one sorted vector while small, sorted chunks of at most 2 kMax entries (a
// two-level B-tree; a full chunk splits in two) once it outgrows that, so that an insert or
// erase moves at most 2 kMax entries where one vector moved up to the whole set (measured: best-fit-area at 400k
// training buffers spent 22 % of its time in memmove with plain vectors, the top nodes of the
// cells' tree holding thousands of long cells each, and 1.5x the time of chunks). Small sets
// stay one vector: an extra indirection per node cost size order 27 % more.
template <class T>
class ChunkedSet {
 public:
  static constexpr size_t kMax = 128;
  void insert(const T& k) {
    if (chunks_.empty()) {
      flat_.insert(std::lower_bound(flat_.begin(), flat_.end(), k), k);
      if (flat_.size() > 2 * kMax) {  // split into chunks of kMax
        for (size_t at = 0; at < flat_.size(); at += kMax)
          chunks_.emplace_back(flat_.begin() + static_cast<std::ptrdiff_t>(at),
                               flat_.begin() + static_cast<std::ptrdiff_t>(std::min(at + kMax, flat_.size())));
        flat_ = {};
      }
      return;
    }
    size_t c = chunk_of(k);
    if (c == chunks_.size()) --c;
    std::vector<T>& v = chunks_[c];
    v.insert(std::lower_bound(v.begin(), v.end(), k), k);
    if (v.size() > 2 * kMax) {
      std::vector<T> upper(v.begin() + kMax, v.end());
      v.resize(kMax);
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c) + 1, std::move(upper));
    }
  }
  void erase(const T& k) {  // k must be present
    if (chunks_.empty()) {
      flat_.erase(std::lower_bound(flat_.begin(), flat_.end(), k));
      return;
    }
    const size_t c = chunk_of(k);
    std::vector<T>& v = chunks_[c];
    v.erase(std::lower_bound(v.begin(), v.end(), k));
    if (v.empty()) chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
  }
  // The last entry below or equal to k, or nullptr.
  const T* last_not_above(const T& k) const {
    const std::vector<T>* v = &flat_;
    if (!chunks_.empty()) {
      const size_t c = static_cast<size_t>(
          std::partition_point(chunks_.begin(), chunks_.end(), [&](const std::vector<T>& u) { return !(k < u.front()); }) -
          chunks_.begin());
      if (c == 0) return nullptr;
      v = &chunks_[c - 1];
    }
    const auto it = std::upper_bound(v->begin(), v->end(), k);
    return it == v->begin() ? nullptr : &*(it - 1);
  }
  // The entry equal to k (for changing what the order does not look at), or nullptr.
  T* find(const T& k) {
    std::vector<T>* v = &flat_;
    if (!chunks_.empty()) {
      const size_t c = chunk_of(k);
      if (c == chunks_.size()) return nullptr;
      v = &chunks_[c];
    }
    const auto it = std::lower_bound(v->begin(), v->end(), k);
    return it == v->end() || k < *it ? nullptr : &*it;
  }
  bool empty() const { return flat_.empty() && chunks_.empty(); }
  template <class F>
  void for_each(F&& f) const {
    for (const T& e : flat_) f(e);
    for (const std::vector<T>& v : chunks_)
      for (const T& e : v) f(e);
  }
  // Calls f(const T&) from the first entry not below k upwards until f returns false.
  template <class F>
  void scan_from(const T& k, F&& f) const {
    if (chunks_.empty()) {
      for (auto it = std::lower_bound(flat_.begin(), flat_.end(), k); it != flat_.end(); ++it)
        if (!f(*it)) return;
      return;
    }
    for (size_t c = chunk_of(k); c < chunks_.size(); ++c)
      for (auto it = std::lower_bound(chunks_[c].begin(), chunks_[c].end(), k); it != chunks_[c].end(); ++it)
        if (!f(*it)) return;
  }

 private:
  // The first chunk whose last entry is not below k (chunks_.size() if none).
  size_t chunk_of(const T& k) const {
    return static_cast<size_t>(
        std::partition_point(chunks_.begin(), chunks_.end(), [&](const std::vector<T>& v) { return v.back() < k; }) -
        chunks_.begin());
  }
  std::vector<T> flat_;                 // the set while chunks_ is empty
  std::vector<std::vector<T>> chunks_;  // each sorted and non-empty; in order
};

class FreeCells {
 public:
  static constexpr int64_t kTop = INT64_MAX;  // hi of the cell above everything live
  struct Cell {
    int32_t t0, t1;  // slots [t0, t1)
    int64_t lo, hi;  // addresses [lo, hi)
  };

  // One cell: every slot of [0, slots), addresses [0, kTop).
  void init(int32_t slots);
  // A piece placed during slots [a, b) (a < b) at addresses [lo, hi) (0 <= lo < hi). False if
  // it does not lie in free space (overlapping placed pieces): the cells are then unusable.
  bool add(int32_t a, int32_t b, int64_t lo, int64_t hi);

  // The least (hi - lo, lo) over the bounded cells stabbing slot a that last through b - 1
  // (t1 >= b) and are at least `size` long: {kTop, -1} if none.
  struct Best {
    int64_t len = kTop, lo = -1;
  };
  Best best_lasting(int32_t a, int32_t b, int64_t size) const;
  // Calls f(const Cell&) for the cells stabbing slot a that end at a slot in (a, b).
  template <class F>
  void ending_within(int32_t a, int32_t b, F&& f) const {
    for (int32_t u = a + 1; u < b; ++u)
      ends_[u].for_each([&](const Entry& e) {
        if (e.t0 <= a) f(Cell{e.t0, u, e.lo, e.hi});
      });
  }
  // The cell stabbing slot t that holds address y (y free at t); t0 > t1 if none.
  Cell at(int32_t t, int64_t y) const;
  int64_t count() const { return count_; }
  int64_t cuts() const { return cuts_; }      // cells add() has cut since init(): its work
  int64_t pieces() const { return pieces_; }  // add() calls since init()
  // Calls f(const Cell&) for every cell (for tests).
  template <class F>
  void for_each(F&& f) const {
    for (int32_t t = 0; t <= slots_; ++t) ends_[t].for_each([&](const Entry& e) { f(Cell{e.t0, t, e.lo, e.hi}); });
  }

 private:
  // A cell in a node's by-length set; hi = lo + len (kTop: the top cell).
  struct ByLen {
    int64_t len, lo;
    int32_t t1;
    bool operator<(const ByLen& o) const { return len != o.len ? len < o.len : lo < o.lo; }
  };
  // A cell in a node's by-lo set and in its end slot's set (t1 there is the slot's).
  struct Entry {
    int64_t lo, hi;
    int32_t t0, t1;
    bool operator<(const Entry& o) const { return lo < o.lo; }
  };
  // The cells stabbing a slot are disjoint, so lo (and (length, lo)) identify a cell within a
  // node's sets and within an end slot's set: a cell needs no id, and a cell cut or joined
  // in time keeps its entries where its canonical nodes stay (only t0, t1 change in place).
  struct Node {
    ChunkedSet<ByLen> by_len;
    ChunkedSet<Entry> by_lo;
  };
  // The canonical nodes of slots [t0, t1) (at most 2 log2(leaves) + 2).
  int nodes_of(int32_t t0, int32_t t1, int32_t* out) const {
    int n = 0;
    for (int32_t l = t0 + leaves_, r = t1 + leaves_; l < r; l >>= 1, r >>= 1) {
      if (l & 1) out[n++] = l++;
      if (r & 1) out[n++] = --r;
    }
    return n;
  }
  // Replaces cell `old` (or nothing, if old.t0 >= old.t1) by up to two cells of the same
  // address range (none, if their t0 >= t1): entries kept and retimed where a canonical node
  // is shared, erased or inserted elsewhere.
  void replace(const Cell& old, const Cell& a, const Cell& b);
  void insert(const Cell& c) { replace(Cell{0, 0, c.lo, c.hi}, c, Cell{0, 0, c.lo, c.hi}); }
  void erase(const Cell& c) { replace(c, Cell{0, 0, c.lo, c.hi}, Cell{0, 0, c.lo, c.hi}); }
  // Creates [t0, t1) x [lo, hi), first joining the cells of the same address range that end
  // at t0 or start at t1.
  void create_joined(int32_t t0, int32_t t1, int64_t lo, int64_t hi);

  int32_t slots_ = 0, leaves_ = 1;
  int64_t cuts_ = 0, count_ = 0, pieces_ = 0;
  std::vector<Node> nodes_;                // 1-based heap numbering; leaves_ + t is slot t
  std::vector<ChunkedSet<Entry>> ends_;    // by slot: the cells with t1 == slot
};

}  // namespace memplan
