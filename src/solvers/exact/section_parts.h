// The cell search's dynamic decomposition and memo keys, kept up to date by each placement
// instead of recomputed at every node. Before, every node scanned its part's buffers in
// start order (for_each_part in search.h, then again for the part's span and memo key):
// O(n) a node, about a third of the search's CPU on pinwheels of 6,400 buffers (perf).
// Here a node costs O(sections / 64) word reads for the parts and O(log sections) for the
// key, and a placement O(span log sections) more than before. The parts and keys are the
// same as before, so the search visits the same nodes (check_inference compares them).
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/exact/search.h"

namespace memplan::exact {

// The parts of the unplaced buffers over sections: maximal runs of sections joined by
// buffers live on both sides of the boundary between them (the decomposition of
// for_each_part, in section terms). Boundary b lies between sections b - 1 and b; it is a
// cut when no unplaced buffer crosses it (spans [lo, hi) with lo < b < hi). Walking right
// from a cut, the first live section (some unplaced buffer live there) starts a part (the
// boundary before it is a cut too: a crossed boundary has live sections on both sides), and
// the next cut after it ends the part, every section inside live. So a part's sections are
// exactly the span of its buffers (first sec_lo, last sec_hi), as for_each_part's scan
// computed them.
class SectionParts {
 public:
  // Every section empty, every boundary a cut.
  explicit SectionParts(int32_t sections);
  // An unplaced buffer over sections [lo, hi) appears (add) or is placed (remove).
  void add(int32_t lo, int32_t hi) { change(lo, hi, +1); }
  void remove(int32_t lo, int32_t hi) { change(lo, hi, -1); }
  // Calls solve_part(p_lo, p_hi) on each part within [lo, hi) (which must be a union of
  // parts) in increasing order, returning the first status other than kSolved, else kSolved.
  // A part solved (all placed) changes nothing to the right of it.
  template <class SolvePart>
  int for_each(int32_t lo, int32_t hi, SolvePart&& solve_part) const {
    for (int32_t s = next(lives_, lo, hi); s < hi;) {
      const int32_t e = next(cuts_, s + 1, hi);
      if (const int status = solve_part(s, e); status != kSolved) return status;
      s = next(lives_, e, hi);
    }
    return kSolved;
  }

 private:
  void change(int32_t lo, int32_t hi, int32_t d);
  void set_bit(std::vector<uint64_t>& bits, int32_t b, bool on) {
    const uint64_t m = uint64_t{1} << (b & 63);
    bits[b >> 6] = on ? bits[b >> 6] | m : bits[b >> 6] & ~m;
  }
  // The first set bit at or after `from` and before `limit`, else limit.
  static int32_t next(const std::vector<uint64_t>& bits, int32_t from, int32_t limit);

  std::vector<int32_t> live_;    // per section: unplaced buffers live there
  std::vector<int32_t> cross_;   // per boundary: unplaced buffers crossing it
  std::vector<uint64_t> cuts_;   // boundaries crossed by none
  std::vector<uint64_t> lives_;  // live sections
};

// Sums of memo key parts over sections (a Fenwick tree): section s holds its floor's part
// and the parts of the unplaced buffers whose span begins there, so the key of a part
// [p_lo, p_hi) (its unplaced buffers and its floors, state_key in cells.cpp) is sum(p_lo,
// p_hi). Keys add modulo 2^64, so removing is subtracting.
class KeySums {
 public:
  explicit KeySums(int32_t sections) : tree_(static_cast<size_t>(sections) + 1) {}
  void add(int32_t s, const FailureMemo::Key& k) {
    for (size_t x = static_cast<size_t>(s) + 1; x < tree_.size(); x += x & (~x + 1)) tree_[x].add(k);
  }
  void remove(int32_t s, const FailureMemo::Key& k) {
    for (size_t x = static_cast<size_t>(s) + 1; x < tree_.size(); x += x & (~x + 1)) tree_[x].remove(k);
  }
  FailureMemo::Key sum(int32_t lo, int32_t hi) const {
    FailureMemo::Key k = prefix(hi);
    k.remove(prefix(lo));
    return k;
  }

 private:
  FailureMemo::Key prefix(int32_t s) const {
    FailureMemo::Key k;
    for (size_t x = static_cast<size_t>(s); x > 0; x &= x - 1) k.add(tree_[x]);
    return k;
  }
  std::vector<FailureMemo::Key> tree_;
};

}  // namespace memplan::exact
