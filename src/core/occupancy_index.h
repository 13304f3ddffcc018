// memplan internal: occupied address ranges of placed pieces, indexed by time, so that a
// placement query reads O(log T) merged sets instead of O(live placed pieces) ranges, and
// walks each set forward once (a cursor per set: O(log set size) per step, advance()).
// The walk still passes every run of those sets below the answer: on training traces in
// size order a long-lived query's forbidden offsets form one interval, yet its runs are
// split over ~18 sets whose runs interleave (measured: ~1,400 steps per long query at 100k
// buffers, growing linearly with n). The crossing index's sets (below) cut that to ~28
// (first-fit at 100k: 36M steps in all before, 2.8M after). Short-lived queries in area or
// pressure order alternated between the runs of the here() sets of their block's ancestors,
// whose union is one long interval (~350 steps per query at 50k, growing linearly with n);
// the floors (floor(), "Floors" in occupancy_index.cpp) start them above it: ~6 steps.
//
// Time is cut into slots (ranks of the distinct endpoints) and slots into blocks (32 slots).
// A segment tree over blocks keeps, per node v, two sets of address ranges, each stored
// merged (sorted, disjoint, non-touching runs):
//   here(v): pieces covering all of v's blocks but not all of its parent's (the canonical
//            nodes of the piece's fully covered blocks);
//   below(v): every piece touching some block under v.
// A piece covering only part of a block is listed raw (slots and addresses) at that block.
// Pieces live during slots [a, b) are exactly those in below(c) for the canonical nodes c of
// the blocks [a, b) covers fully, in here(u) for the ancestors u of those nodes and of the
// (at most two) partly covered blocks, and the raw entries of the partly covered blocks
// whose slots meet [a, b). Merging is exact for collision tests of positive-size ranges: a
// range meets a union of ranges iff it meets one of them.
// The sources also include the sets of a crossing index (crossing_index.h) over the same
// pieces: subsets of the exact union that keep nested lifetimes in one run, so that first-fit
// jumps over a stack of them in one step instead of one per run of the sets above.
// The crossing index is kept only once it pays: on orders that place pieces roughly in time
// order (start, length, conflicts, wat on training traces) a first-fit walk makes ~6 steps per
// query without it, and keeping its sets cost 11-40 % of the pass (measured on 100k-buffer
// training traces: first-fit-length 0.47 s of CPU with it, 0.34 s without). So it starts
// off; the engine counts its walk's steps and switches it on (set_crossing(true), then
// add_crossing for every placed piece) once queries average more than a threshold
// (placement.cpp). Sets are accelerators only, so answers are the same either way.
// Ranges are only added; removing one is not supported (the engine drops the index then).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/crossing_index.h"

namespace memplan {

class OccupancyIndex {
 public:
  using Run = AddressRun;
  // A merged set of runs to test a query piece against (addresses relative to it: the piece
  // occupies [x + ql, x + qh) at offset x).
  struct Source {
    const Run* begin;  // nullptr until resolve(): then [from, to) of the scratch runs
    const Run* end;
    int64_t ql, qh;
    size_t from = 0, to = 0;
    const Run* at = nullptr;  // a query's cursor: no run before it ends above the query
  };

  void init(int32_t slots, int32_t block = kDefaultBlock);
  void clear();
  // A placed piece live during slots [a, b) (a < b) at addresses [lo, hi) (lo < hi).
  void add(int32_t a, int32_t b, int64_t lo, int64_t hi);
  // Switches the crossing index's sets on (empty: add_crossing the pieces already placed)
  // or off (dropped). Off after init() and clear().
  void set_crossing(bool on);
  bool crossing() const { return crossing_on_; }
  void add_crossing(int32_t a, int32_t b, int64_t lo, int64_t hi) { crossing_.add(a, b, lo, hi); }
  // Appends to `out` the sources for a query piece live during slots [a, b) at relative
  // addresses [ql, qh). The raw entries of partly covered blocks are merged into `scratch`
  // (call resolve() once every piece's sources are in: then `out` points into it).
  void sources(int32_t a, int32_t b, int64_t ql, int64_t qh, std::vector<Source>& out,
               std::vector<Run>& scratch) const;
  static void resolve(std::vector<Source>& out, const std::vector<Run>& scratch) {
    for (Source& s : out) {
      if (!s.begin) s.begin = scratch.data() + s.from, s.end = scratch.data() + s.to;
      s.at = s.begin;
    }
  }
  // The first run of s that ends above y, for y never below an earlier call's since
  // resolve(): the cursor only moves forward, so one query walks each source once, however
  // many times it tests it. It looks at the next three runs, then binary-searches the rest:
  // O(log set size) probes instead of galloping's 2 log(distance), since the far probes are
  // the cache misses and first-fit's moves are mostly far (first-fit-size, 1M training
  // buffers: a pass 12 % less CPU, first-fit-area 13-18 %, best-fit at 50k within noise).
  static const Run* advance(Source& s, int64_t y) {
    const Run* lo = s.at;
    if (lo == s.end || lo->hi > y) return lo;
    for (int k = 0; k < 3; ++k)
      if (++lo == s.end || lo->hi > y) return s.at = lo;
    return s.at = std::partition_point(lo + 1, s.end, [y](const Run& r) { return r.hi <= y; });
  }

  // The lowest offset y >= x, aligned (or x itself), at which a query collides with none of
  // the m sources (cursors from resolve(); next[k] = INT64_MIN before the first call, kept
  // between calls whose x never decreases). Every move is forced (a run that blocks x blocks
  // every offset up to its top), so the result does not depend on the order in which sources
  // are looked at. Each source keeps next[k]: the low end of its first run ending above the
  // query's bottom, turned into the lowest offset that run can block (lo - qh + 1). Its later
  // runs start higher, so offsets below next[k] are clear of source k, and a pass over the
  // sources reads only next[] (contiguous) for all but the few sources that can block x.
  // `steps` counts the runs passed; `low` is set to the lowest next[] on return (the first
  // offset above the answer that some run blocks, INT64_MAX if none).
  static int64_t settle(Source* src, int64_t* next, size_t m, int64_t x, int64_t align, int64_t& steps,
                        int64_t& low);

  // A lower bound on the offset of a query piece live during slots [a, b) at relative
  // addresses [ql, qh): every offset x with x + ql below floor(a, b, qh - ql) collides with
  // some piece (0 while the floors are off). See "Floors" in occupancy_index.cpp.
  int64_t floor(int32_t a, int32_t b, int64_t width) const;
  // Switches the floors on (computed lazily from the sets: nothing to fill in) or off
  // (dropped). Off after init() and clear(): they only pay where walks stay long with the
  // crossing sets on (placement.cpp, index_tune).
  void set_floors(bool on);
  bool floors() const { return floors_on_; }
  // The merged sets add() has inserted into since init() (crossing sets included): the
  // index's upkeep, counted.
  int64_t set_inserts() const { return set_inserts_ + crossing_.set_inserts(); }
  int64_t floor_steps() const { return floor_steps_; }  // runs the floors' walks passed since init()
  void memory(IndexMemory& m) const;  // adds this index's bytes (crossing sets included)

  static constexpr int32_t kDefaultBlock = 32;  // slots per block
  // The block size for `pieces` pieces over `slots` time slots. A piece that covers no whole
  // block is kept raw in its end blocks, and every query there scans and sorts those raw
  // pieces, so a block must not hold many piece ends: with d pieces per slot, blocks of
  // kDefaultBlock / d slots (at least 1) hold about kDefaultBlock ends each. With a fixed
  // block, 1M buffers all live over the same slots went raw into one block and first fit
  // took O(n^2 log n), unpolled inside a query (exact's incumbent at --time-limit 0.5: minutes).
  static int32_t block_for(int32_t slots, int64_t pieces) {
    const int64_t block = int64_t{kDefaultBlock} * std::max(slots, 1) / std::max<int64_t>(pieces, 1);
    return static_cast<int32_t>(std::clamp<int64_t>(block, 1, kDefaultBlock));
  }

 private:
  struct Raw {
    int32_t a, b;
    int64_t lo, hi;
  };
  void touch(int32_t node);
  template <class F>
  void canonical(int32_t fa, int32_t fb, F&& f) const;

  int32_t block_ = kDefaultBlock;
  int32_t leaves_ = 1;
  CrossingIndex crossing_;  // the same pieces, whole: sources that speed the walk up
  bool crossing_on_ = false;
  bool floors_on_ = false;
  // A tree node's data, packed in one cache line: add() and sources() visit a path of nodes
  // and read here(), below() and the counters of each, scattered over the tree (with them in
  // five parallel arrays, a visit could miss the cache five times instead of once).
  struct alignas(64) Node {
    std::vector<Run> here, below;
    uint64_t inserts = 0;          // runs inserted into here() (the floors' version)
    mutable uint32_t stamp = 0;    // query deduplication
    bool touched = false;          // listed in touched_
  };
  static_assert(sizeof(Node) == 64);
  std::vector<Node> nodes_;                     // by node (1-based heap numbering)
  std::vector<std::vector<Raw>> raw_;           // by block
  std::vector<uint8_t> raw_touched_;            // by block
  std::vector<int32_t> touched_;                // nodes (and blocks, as 2 * leaves_ + block) in use
  std::vector<std::vector<Run>*> targets_;      // add()'s scratch: the sets a piece goes into
  int64_t set_inserts_ = 0;
  mutable uint32_t now_ = 0;

  // Floors: per node v and width class k, the start of the first free range of length at
  // least 2^k in the union of here() over v and its ancestors, as of `version`.
  struct Floor {
    int32_t k;
    uint64_t version;  // the runs inserted into here() on v's path when computed
    int64_t at;
  };
  int64_t path_floor(int32_t node, int32_t k, uint64_t& version) const;
  mutable std::vector<std::vector<Floor>> floors_;  // by node
  mutable std::vector<int32_t> floored_;            // nodes with floors
  mutable std::vector<Source> floor_src_;           // path_floor's scratch
  mutable std::vector<int64_t> floor_next_;
  mutable int64_t floor_steps_ = 0;
};

}  // namespace memplan
