// memplan internal: placed pieces grouped by the first time boundary they cross (a centered
// interval tree, de Berg et al., Computational Geometry, 3rd ed., section 10.1), each group
// kept as one merged set of address runs.
//
// Why: the occupancy index (occupancy_index.h) splits a long piece over the O(log T)
// canonical nodes of a segment tree. On training traces, activations that all live through
// the turn between forward and backward fill one contiguous address range, but the index
// holds them in ~20 sets whose runs interleave, and a first-fit walk steps through every one
// of those runs (measured: ~1,400 steps per long query at 100k buffers, linear in n). Here
// every piece is stored whole at exactly one node: the highest whose split boundary it
// crosses. Pieces sharing a boundary share one set, so a stack of nested lifetimes is one
// run, and the walk jumps over it in one step.
//
// The sets only ever *add* forbidden ranges that meet the query (the sets() contract below);
// the exact answer still comes from the occupancy index's sources, whose union they do not
// change. They are accelerators: first-fit and best-fit answers are the same with or
// without them.
//
// Time is cut into blocks of `block` slots; the tree splits [0, blocks) at block midpoints
// (node v over blocks [l, r) splits at m = (l + r) / 2: the boundary c = m * block between
// slots c - 1 and c). A piece that crosses no boundary stays in its leaf block.
// Per node: here(v), the pieces stored at v; all(v), the pieces stored in v's subtree (all of
// which lie in v's blocks). A query uses here(v) only when c lies in or at the edge of it: the
// pieces of a boundary node outside it would need filtering by their ends, and measured on
// training traces (two segment trees per node over the pieces' first and last blocks), that
// filtering cost more than it saved (first-fit-area at 500k: 51 s of CPU instead of 29 s).
#pragma once

#include <cstdint>
#include <vector>

namespace memplan {

struct IndexMemory;

struct AddressRun {
  int64_t lo, hi;  // addresses [lo, hi)
};

// Adds [lo, hi) to a merged set (sorted, disjoint, non-touching runs): runs it meets or
// touches are absorbed.
void insert_run(std::vector<AddressRun>& set, int64_t lo, int64_t hi);
// Prefetches each set's top run, where insert_run mostly lands (a hint only: no effect on
// results). The sets one piece goes into lie scattered in memory; prefetching them all before
// inserting overlaps their cache misses.
void prefetch_tops(const std::vector<std::vector<AddressRun>*>& sets);

class CrossingIndex {
 public:
  void init(int32_t slots, int32_t block);
  void clear();
  // A placed piece live during slots [a, b) (a < b) at addresses [lo, hi).
  void add(int32_t a, int32_t b, int64_t lo, int64_t hi);
  // Calls f(const std::vector<AddressRun>&) for non-empty sets whose every piece is live
  // during some slot of [a, b) (a < b): all(v) for the nodes whose blocks lie in [a, b),
  // here(v) for nodes whose split boundary c has a <= c <= b. O(log T) sets.
  int64_t set_inserts() const { return set_inserts_; }  // sets add() inserted into since init()
  void memory(IndexMemory& m) const;  // adds this index's bytes
  template <class F>
  void sets(int32_t a, int32_t b, F&& f) const {
    visit(1, 0, blocks_, a, b, f);
  }

 private:
  template <class F>
  void visit(int32_t v, int32_t l, int32_t r, int32_t a, int32_t b, F& f) const {
    const int64_t sl = int64_t(l) * block_, sr = int64_t(r) * block_;  // v's slots [sl, sr)
    if (sr <= a || b <= sl) return;
    if (a <= sl && sr <= b) {
      if (!nodes_[v].all.empty()) f(nodes_[v].all);
      return;
    }
    if (r - l < 2) return;  // a leaf block partly covered: its pieces may miss [a, b)
    const int32_t m = (l + r) / 2;
    // A piece here crosses boundary c = m * block: it is live in slots c - 1 and c, one of
    // which lies in [a, b) iff a <= c <= b.
    const int64_t c = int64_t(m) * block_;
    if (a <= c && c <= b && !nodes_[v].here.empty()) f(nodes_[v].here);
    visit(2 * v, l, m, a, b, f);
    visit(2 * v + 1, m, r, a, b, f);
  }

  int32_t block_ = 1, blocks_ = 1;
  // A node's two sets side by side: add() and sets() read both headers of the nodes they
  // visit, so one cache miss brings both.
  struct Node {
    std::vector<AddressRun> here, all;
  };
  std::vector<Node> nodes_;  // by node (1-based heap numbering)
  std::vector<int32_t> touched_;                     // nodes with a non-empty all()
  std::vector<std::vector<AddressRun>*> targets_;    // add()'s scratch: the sets a piece goes into
  int64_t set_inserts_ = 0;
};

}  // namespace memplan
