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
// cells stabbing that slot, and the tightest is a successor search by length.
//
// The cells are kept in an interval tree over slots (de Berg et al. section 10.1, on the
// implicit perfect binary tree of a segment tree): a cell lives at one node only, the lowest
// common ancestor of its first and last slot's leaves, so it holds both slots around that
// node's split. The cells of one node thus all stab one slot: they are disjoint in address,
// and lo identifies a cell within a node. A slot's cells are among those of its leaf-to-root
// path; at a node, a cell stabs slot a when t0 <= a < t1 (one of the two holds by where it
// lives). Each node keeps its cells by (length, lo), in chunks that know their cells' least
// t0 and greatest t1 (a scan passes over a chunk with no cell over the query's window), and
// by lo (point location: the one candidate at a node is the last cell with lo <= y). A
// cell is one entry in each, where a segment tree (the first version) kept it at O(log T)
// canonical nodes: 7.2 entries a cell at 250k training buffers in area order, and every cut
// updated each of them.
//
// For a query living over [a, b), a cell stabbing a that lasts to b (t1 >= b) is a hole of
// the query as it stands; the holes of the query inside the other cells stabbing a (those
// ending at a slot inside (a, b), listed by end slot) are the ranges inside them free until
// b, followed through the cells that start where each one ends (common_free). So a short
// query needs nothing but the cells (the engine then keeps some buffers out of its occupancy
// index altogether: PlacementEngine::set_lookahead).
//
// Pieces are only added (in free space); a piece that is not inside one cell at each of its
// slots makes add() return false, and the caller drops the cells.
#pragma once

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <utility>
#include <vector>

namespace memplan {

// What a ChunkedSet keeps of each chunk besides its entries: nothing, or (TimeSpan) the least
// t0 and the greatest t1 of its entries, so that a scan can pass over a chunk none of whose
// entries lives over a given time window.
struct NoSummary {
  template <class T>
  void add(const T&) {}
  template <class T>
  bool held_by(const T&) const { return false; }  // whether dropping the entry may change it
};
struct TimeSpan {
  int32_t min_t0 = INT32_MAX, max_t1 = INT32_MIN;
  template <class T>
  void add(const T& e) {
    min_t0 = std::min(min_t0, e.t0);
    max_t1 = std::max(max_t1, e.t1);
  }
  template <class T>
  bool held_by(const T& e) const { return e.t0 == min_t0 || e.t1 == max_t1; }
};

// A sorted set: one sorted vector while small, sorted chunks of at most 2 kMax entries (a
// two-level B-tree; a full chunk splits in two) once it outgrows that, so that an insert or
// erase moves at most 2 kMax entries where one vector moved up to the whole set (measured: best-fit-area at 400k
// training buffers spent 22 % of its time in memmove with plain vectors, the top nodes of the
// cells' tree holding thousands of long cells each, and 1.5x the time of chunks). Small sets
// stay one vector: an extra indirection per node cost size order 27 % more. Each chunk (and
// the small set) keeps a summary S of its entries.
template <class T, class S = NoSummary>
class ChunkedSet {
  struct Chunk {
    std::vector<T> v;
    [[no_unique_address]] S s;
    void resum() {
      s = S{};
      for (const T& e : v) s.add(e);
    }
    void put(const T& k) {
      v.insert(std::lower_bound(v.begin(), v.end(), k), k);
      s.add(k);
    }
  };

 public:
  static constexpr size_t kMax = 128;
  void insert(const T& k) {
    if (chunks_.empty()) {
      flat_.put(k);
      if (flat_.v.size() > 2 * kMax) {  // split into chunks of kMax
        for (size_t at = 0; at < flat_.v.size(); at += kMax) {
          chunks_.push_back({std::vector<T>(flat_.v.begin() + static_cast<std::ptrdiff_t>(at),
                                            flat_.v.begin() + static_cast<std::ptrdiff_t>(std::min(at + kMax, flat_.v.size()))),
                             S{}});
          chunks_.back().resum();
        }
        flat_ = {};
      }
      return;
    }
    size_t c = chunk_of(k);
    if (c == chunks_.size()) --c;
    Chunk& ch = chunks_[c];
    ch.put(k);
    if (ch.v.size() > 2 * kMax) {
      Chunk upper{std::vector<T>(ch.v.begin() + kMax, ch.v.end()), S{}};
      ch.v.resize(kMax);
      ch.resum();
      upper.resum();
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c) + 1, std::move(upper));
    }
  }
  void erase(const T& k) {  // k must be present
    const size_t c = chunks_.empty() ? 0 : chunk_of(k);
    Chunk& ch = chunks_.empty() ? flat_ : chunks_[c];
    const auto it = std::lower_bound(ch.v.begin(), ch.v.end(), k);
    const bool resum = ch.s.held_by(*it);
    ch.v.erase(it);
    if (!chunks_.empty() && ch.v.empty()) chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
    else if (resum) ch.resum();
  }
  // Calls f(T&) on the entry equal to k (which must be present) to change what the order does
  // not look at.
  template <class F>
  void update(const T& k, F&& f) {
    Chunk& ch = chunks_.empty() ? flat_ : chunks_[chunk_of(k)];
    T& e = *std::lower_bound(ch.v.begin(), ch.v.end(), k);
    const bool resum = ch.s.held_by(e);
    f(e);
    if (resum) ch.resum();
    else ch.s.add(e);
  }
  // The last entry below or equal to k, or nullptr.
  const T* last_not_above(const T& k) const {
    const std::vector<T>* v = &flat_.v;
    if (!chunks_.empty()) {
      const size_t c = static_cast<size_t>(
          std::partition_point(chunks_.begin(), chunks_.end(), [&](const Chunk& u) { return !(k < u.v.front()); }) -
          chunks_.begin());
      if (c == 0) return nullptr;
      v = &chunks_[c - 1].v;
    }
    const auto it = std::upper_bound(v->begin(), v->end(), k);
    return it == v->begin() ? nullptr : &*(it - 1);
  }
  template <class F>
  void for_each(F&& f) const {
    for (const T& e : flat_.v) f(e);
    for (const Chunk& ch : chunks_)
      for (const T& e : ch.v) f(e);
  }
  // Calls f(const T&) from the first entry not below k upwards until f returns false, over
  // the chunks for which chunk(first entry, summary) is 1: a chunk where it is 0 is passed
  // over, and the scan stops at one where it is -1.
  template <class C, class F>
  void scan_from(const T& k, C&& chunk, F&& f) const {
    const size_t first = chunks_.empty() ? 0 : chunk_of(k);
    for (size_t c = first; c < std::max<size_t>(chunks_.size(), 1); ++c) {
      const Chunk& ch = chunks_.empty() ? flat_ : chunks_[c];
      if (ch.v.empty()) return;
      const int go = chunk(ch.v.front(), ch.s);
      if (go < 0) return;
      if (go == 0) continue;
      for (auto it = c == first ? std::lower_bound(ch.v.begin(), ch.v.end(), k) : ch.v.begin(); it != ch.v.end(); ++it)
        if (!f(*it)) return;
    }
  }

 private:
  // The first chunk whose last entry is not below k (chunks_.size() if none).
  size_t chunk_of(const T& k) const {
    return static_cast<size_t>(
        std::partition_point(chunks_.begin(), chunks_.end(), [&](const Chunk& ch) { return ch.v.back() < k; }) -
        chunks_.begin());
  }
  Chunk flat_;                 // the set while chunks_ is empty
  std::vector<Chunk> chunks_;  // each sorted and non-empty; in order
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
  // Calls f(lo, hi) in increasing lo for the maximal address ranges inside [lo, hi) free at
  // every slot of [u, b) (u < b), given that [lo, hi) lies within a cell that ends at u (so
  // that every cell stabbing u and meeting [lo, hi) starts at u: one that started before
  // would be the same maximal free range at u - 1, a cell joined with it). hi = kTop: the
  // space above everything. Each cell of those starting at u that meets [lo, hi) gives its
  // part of it; a part whose cell ends before b is followed into the cells starting there.
  // The holes of a query over [a, b) inside a cell stabbing a that ends at u in (a, b).
  template <class F>
  void common_free(int32_t u, int32_t b, int64_t lo, int64_t hi, F&& f) const {
    auto visit = [&](const Entry& e) {
      const int64_t l = std::max(lo, e.lo), h = std::min(hi, e.hi);
      if (e.t1 >= b) f(l, h);
      else common_free(e.t1, b, l, h, f);
    };
    if (const Entry* e = starts_[u].last_not_above({lo, 0, 0, 0}); e && e->hi > lo) visit(*e);
    starts_[u].scan_from(
        Entry{lo + 1, 0, 0, 0}, [](const Entry&, const NoSummary&) { return 1; },
        [&](const Entry& e) {
          if (e.lo >= hi) return false;
          visit(e);
          return true;
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
  // A cell in its node's by-length set; hi = lo + len (kTop: the top cell).
  struct ByLen {
    int64_t len, lo;
    int32_t t0, t1;
    bool operator<(const ByLen& o) const { return len != o.len ? len < o.len : lo < o.lo; }
  };
  // A cell in its node's by-lo set and in its end and start slots' sets.
  struct Entry {
    int64_t lo, hi;
    int32_t t0, t1;
    bool operator<(const Entry& o) const { return lo < o.lo; }
  };
  // The cells of a node are disjoint in address, and so are those ending (starting) at one
  // slot, so lo (and (length, lo)) identify a cell within a node's sets and within an end or
  // start slot's set: a cell needs no id, and a cell cut or joined in time keeps its entries
  // where its node stays (only t0, t1 change in place).
  struct Node {
    ChunkedSet<ByLen, TimeSpan> by_len;
    ChunkedSet<Entry> by_lo;
  };
  // The node of slots [t0, t1) (t0 < t1): the lowest common ancestor of their leaves.
  int32_t node_of(int32_t t0, int32_t t1) const {
    const uint32_t x = static_cast<uint32_t>(leaves_ + t0), y = static_cast<uint32_t>(leaves_ + t1 - 1);
    return static_cast<int32_t>(x >> std::bit_width(x ^ y));
  }
  // Replaces cell `old` (or nothing, if old.t0 >= old.t1) by up to two cells of the same
  // address range (none, if their t0 >= t1): the entries kept and retimed when a part lives
  // at the old cell's node, erased otherwise.
  void replace(const Cell& old, const Cell& a, const Cell& b);
  void insert(const Cell& c) { replace(Cell{0, 0, c.lo, c.hi}, c, Cell{0, 0, c.lo, c.hi}); }
  void erase(const Cell& c) { replace(c, Cell{0, 0, c.lo, c.hi}, Cell{0, 0, c.lo, c.hi}); }
  // The cell in slot set `sets` (ends_ or starts_) at slot t that holds address y, or an
  // empty cell (t0 >= t1) when there is none.
  Cell slot_cell(const std::vector<ChunkedSet<Entry>>& sets, int32_t t, int64_t y) const;
  // Creates [t0, t1) x [lo, hi), first joining the cells of the same address range that end
  // at t0 or start at t1.
  void create_joined(int32_t t0, int32_t t1, int64_t lo, int64_t hi);

  int32_t slots_ = 0, leaves_ = 1;
  int64_t cuts_ = 0, count_ = 0, pieces_ = 0;
  std::vector<Node> nodes_;                // 1-based heap numbering; leaves_ + t is slot t
  std::vector<ChunkedSet<Entry>> ends_;    // by slot: the cells with t1 == slot
  std::vector<ChunkedSet<Entry>> starts_;  // by slot: the cells with t0 == slot
};

}  // namespace memplan
