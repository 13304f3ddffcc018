// Internal: conflict-directed backjumping (CBJ; Prosser 1993) in the cell search
// (cells.cpp). A failed subtree of the cell search carries a reason, a set of sections R
// (a union of a few spans), and the search skips the remaining alternatives of every
// decision that cannot have caused it. Sound and complete: on in every cell search.
//
// The claim a reason stands for. For a state S of the search (floors per section, the set
// U of unplaced buffers; each unplaced buffer's minimum offset mo(j) = align_up of the
// largest floor over its lifetime) and a set of sections R, let P_R(S) be the relaxed
// problem: place the buffers of U live in some section of R, each aligned at or above
// mo(j), below the capacity, disjoint from those it shares a section with; nothing else.
// (The full sub-problem of S is P over all sections: everything below the floors is
// decided, everything above them empty.) "S fails with reason R" means P_R(S) has no
// solution. It is a relaxation: P_R(S) infeasible => S has no completion. P_R(S) is
// determined by the buffers of U live in R and their minimum offsets, nothing else.
//
// Sources, each a proof of P_R(S) infeasible (cells.cpp):
//  - section inference failing on a range: R = a failing part of it (the test stacks the
//    buffers live in each section above their minimum offsets, a relaxation of P over that
//    section; a failing sub-range is a reason): with the plain test, the leftmost failing
//    section, named by the test itself (first_unstackable); with the padded (alignment)
//    test, a part narrowed by bisection;
//  - the memo of failed sub-problems: the reason found when the state first failed (kept
//    beside the memo, ReasonTable: the same state, so the same P_R), else the
//    sub-problem's span [s_lo, s_hi) (its buffers all lie within it);
//  - the well test at cell c: R = the well (its proof uses only the buffers live in the
//    well, their minimum offsets and totals left: a buffer covering the well's bottom row
//    has its lifetime within the well);
//  - a node whose every alternative failed (below).
//
// A node at state S branches on cell (c, h) (floor_c = h; c at the lowest floor or at a
// local minimum of the floors): each candidate i (unplaced, live in c, mo(i) = h; its
// floors all equal h, see cells.cpp) placed at h, then the waste branch (c's floor raised
// to the lowest offset left for its buffers). Let child k fail with reason R_k. If every
// alternative failed, the node fails with R = {c} u (union of R_k) u (the lifetimes of the
// candidates skipped because they leave no room above them: fits_above reads the totals
// left in their sections). Proof: let sigma solve P_R(S). Cell (c, h) is either covered
// in sigma, by a buffer i live in c (c is in R) at offset h, so mo(i) = h and i is a
// candidate (or an identical twin is: swap them), or empty. Covered: every buffer j of
// P_{R_i} shares no section with i, or shares one at floor h and sits above i in sigma,
// so at or above align_up(h + size_i), its minimum offset after the placement; sigma
// minus i solves P_{R_i}(child), a contradiction (and i was not skipped: sigma shows room
// above it in its sections, which are in R). Empty: every buffer live in c sits at or
// above the waste child's raised floor (as in the plain search's completeness argument),
// so sigma solves P_{R_w}(waste child), a contradiction. A wider R is still a reason (P_R
// only gains buffers and constraints), so unions may be over-approximated.
//
// Backjumping. A decision d (place i; or waste c) is irrelevant to a reason R when i is
// not live in R and d raised the minimum offset of no buffer live in R (the raises are on
// the search's trail). Then P_R(parent) = P_R(child): the same buffers with the same
// minimum offsets. So a child failing with a reason its decision is irrelevant to proves
// the parent fails with that same reason, and the parent returns at once, skipping its
// other alternatives. Completeness is kept: an alternative is skipped only when the
// parent is proven infeasible, so an exhausted search is still a proof, and a failed
// state remembered in the memo is really failed.
//
// Decomposition (for_each_part): the parts of a sub-problem lie over disjoint spans of
// sections, and every reason found inside a part lies within its span, so no buffer of the
// parts solved before it is live in the failing part's reason (their placements and raises
// are irrelevant to it), and the memo's reason of a part's state holds wherever that
// state recurs.
#pragma once

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <vector>

#include "solvers/exact/search.h"

namespace memplan::exact {

// A reason: a union of at most kSpans spans of sections, disjoint and in increasing order,
// or `all` (a failure whose reason is not tracked: every decision is relevant to it).
// A union of more spans is over-approximated by joining the two closest (a larger reason
// is still a valid one: P_R only gains buffers and constraints). Why a union and not one
// span: a node's reason joins its children's, and the hull of those covered 65-256 of 409
// sections at most nodes of an aligned packing of 800 buffers (tuning seed 102).
struct Conflict {
  static constexpr int kSpans = 4;
  int32_t count = 0;  // -1: all
  int32_t lo[kSpans] = {}, hi[kSpans] = {};

  Conflict() = default;
  Conflict(int32_t l, int32_t h) : count(1) { lo[0] = l, hi[0] = h; }
  static Conflict all() {
    Conflict c;
    c.count = -1;
    return c;
  }
  bool is_all() const { return count < 0; }
  // Whether sections [l, h) meet the reason.
  bool meets(int32_t l, int32_t h) const {
    if (is_all()) return true;
    for (int32_t k = 0; k < count; ++k)
      if (l < hi[k] && lo[k] < h) return true;
    return false;
  }
  void add(int32_t l, int32_t h) {
    if (is_all()) return;
    // Insert in order, merging the spans it meets or touches.
    int32_t nl[kSpans + 1], nh[kSpans + 1], m = 0;
    bool placed = false;
    for (int32_t k = 0; k < count; ++k) {
      if (hi[k] < l) {
        nl[m] = lo[k], nh[m++] = hi[k];
      } else if (h < lo[k]) {
        if (!placed) nl[m] = l, nh[m++] = h, placed = true;
        nl[m] = lo[k], nh[m++] = hi[k];
      } else {
        l = std::min(l, lo[k]), h = std::max(h, hi[k]);
      }
    }
    if (!placed) nl[m] = l, nh[m++] = h;
    if (m > kSpans) {  // join the two closest neighbours
      int32_t best = 0;
      for (int32_t k = 1; k + 1 < m; ++k)
        if (nl[k + 1] - nh[k] < nl[best + 1] - nh[best]) best = k;
      nh[best] = nh[best + 1];
      for (int32_t k = best + 1; k + 1 < m; ++k) nl[k] = nl[k + 1], nh[k] = nh[k + 1];
      --m;
    }
    count = m;
    for (int32_t k = 0; k < m; ++k) lo[k] = nl[k], hi[k] = nh[k];
  }
  void add(const Conflict& o) {
    if (o.is_all()) {
      *this = all();
      return;
    }
    for (int32_t k = 0; k < o.count; ++k) add(o.lo[k], o.hi[k]);
  }
  // Whether the reason is exactly sections [l, h).
  bool is(int32_t l, int32_t h) const { return count == 1 && lo[0] == l && hi[0] == h; }
};

// The reasons of the failed sub-problems a search remembers in its FailureMemo, by the same
// key: a memo hit then fails with the reason found when the state first failed (valid
// again: the same state, so the same relaxed problem), not with the sub-problem's whole
// span. A fixed-size table overwritten like the memo; a miss gives the whole span.
class ReasonTable {
 public:
  // Empty (a search that does not backjump): put does nothing, get gives `otherwise`.
  ReasonTable() = default;
  // One slot per node of budget, at most `max_slots` (at least 1,024).
  void reserve(int64_t budget, size_t max_slots) {
    size_t slots = 1024;
    while (slots < max_slots && static_cast<int64_t>(slots) < budget) slots <<= 1;
    table_.assign(slots, Entry{});
  }
  void put(const FailureMemo::Key& k, Conflict why) {
    if (!table_.empty()) table_[k.h1 & (table_.size() - 1)] = {k, why};
  }
  Conflict get(const FailureMemo::Key& k, Conflict otherwise) const {
    if (table_.empty()) return otherwise;
    const Entry& e = table_[k.h1 & (table_.size() - 1)];
    return e.key.h1 == k.h1 && e.key.h2 == k.h2 ? e.why : otherwise;
  }

 private:
  struct Entry {
    FailureMemo::Key key;
    Conflict why;
  };
  std::vector<Entry> table_;
};

// Where the cell searches backjump. kPerfect (the default): only in a search whose capacity
// equals every section's total (a perfect packing, exact.cpp's perfect_at), where it finds
// more packings in the same nodes (README, issue 21 item 1); elsewhere it never changed a
// node count on A-K (`-a exact --iterations 20000`) and its reasons' upkeep (then the bisection
// of failing ranges above all, since replaced by first_unstackable) cost ~10 % of CPU there (A-K at capacity 1 MiB, `perf stat`
// over alternating runs), so those searches stay plain. kAlways and kNever are the test and
// benchmark hooks (every search, or none: the plain search). Process-wide, not per thread,
// so that exact_scale_bench can compare the whole `exact` solver (its own threads) with and
// without it. Either way the search is exact (conflicts.h's proof).
enum class Backjump { kNever, kPerfect, kAlways };
inline std::atomic<Backjump> backjump_cells{Backjump::kPerfect};

// Statistics (for exact_scale_bench): the alternatives skipped by backjumps on this thread
// (a candidate or the waste branch not tried), and the backjumps.
struct BackjumpCounts {
  int64_t skipped = 0, jumps = 0;
};
inline thread_local BackjumpCounts backjump_counts;

}  // namespace memplan::exact
