// Internal: the exact decision search ("is there a plan with peak <= C?") over canonical
// solutions, after Moffitt's MiniMalloc (ASPLOS'23, §4-5) as our research notes describe it.
#pragma once

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/arith.h"
#include "core/sort_keys.h"
#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan::exact {

// The problem prepared once for every probe: overlap lists, sections, fixed buffers.
struct Instance {
  int32_t n = 0;
  std::vector<int64_t> size, align, start, end;
  std::vector<bool> fixed;                  // pre-placed
  std::vector<int64_t> fixed_offset;
  std::vector<int32_t> adj_begin, adj;      // CSR: buffers whose lifetimes overlap, by size
  bool implicit = false;                    // too many pairs: no lists (adj empty)
  std::vector<int32_t> degree;              // number of overlapping buffers
  std::vector<int32_t> sec_lo, sec_hi;      // sections spanned: [sec_lo, sec_hi)
  int32_t sections = 0;
  std::vector<int64_t> section_total;       // total size live in each section
  std::vector<std::vector<int32_t>> fixed_near;  // per buffer: overlapping fixed buffers
  int64_t granularity = 1;                  // every canonical peak is a multiple of it
  bool aligned = false;                     // some movable buffer has alignment > 1
  std::vector<int32_t> by_start;            // buffers sorted by start (then end)
};

// Builds the instance, or returns nullopt when the deadline passes during setup. Beyond
// `max_pairs` overlapping pairs the overlap lists are not built (`implicit`): the search
// then scans its current part for a buffer's overlaps (memory O(n), not O(pairs)).
std::optional<Instance> prepare(const Problem& p, int64_t max_pairs, const Deadline& deadline);

enum class Outcome { kFound, kInfeasible, kBudget };

// Identical movable buffers (same lifetime, size and alignment): for each buffer, the one
// before it in `order`, or -1. Searches place such a buffer only after its predecessor
// (any plan can swap identical buffers into that order).
// With a deadline it polls it (an ordered map of n keys: 1M buffers take ~0.5 s of CPU):
// empty once it has passed.
std::vector<int32_t> twins(const Instance& in, const std::vector<int32_t>& order,
                           const Deadline* deadline = nullptr);

// Failed sub-problem states, remembered so a search that meets the same state again
// (reached through other decisions elsewhere) fails it at once. A state is hashed twice,
// independently, into 64 bits each (a false match needs both to collide, about 2^-128 per
// lookup), and stored in a fixed-size table that overwrites old entries: memory stays flat.
class FailureMemo {
 public:
  struct Key {
    uint64_t h1 = 0, h2 = 0;
    // Adds one element (an id and a value) to the state; the order of adds does not matter.
    // h2 is computed from (id, value) apart from h1, so one 64-bit collision of an
    // element's hash cannot fool both.
    void add(uint64_t id, uint64_t value) {
      h1 += mix(mix(id * 0x9e3779b97f4a7c15ULL ^ mix(value)));
      h2 += mix(mix(id * 0xc2b2ae3d27d4eb4fULL + 0x2545f4914f6cdd1dULL) ^ mix(value ^ 0x165667b19e3779f9ULL));
    }
    // Adds every element of another key (a precomputed part of the state).
    void add(const Key& k) { h1 += k.h1, h2 += k.h2; }
    void remove(const Key& k) { h1 -= k.h1, h2 -= k.h2; }  // undoes add(k)
  };
  // One slot per node of budget, up to 2^20 slots (16 MB).
  explicit FailureMemo(int64_t budget)
      : slots_(slots_for(budget, size_t{1} << 20)), table_(std::min(slots_, kFirstSlots), Key{}) {}
  // A failed state fails under any node budget, so one memo can serve a strategy's
  // successive probes at the same capacity (the doubling round robin): a probe then skips
  // the subtrees its predecessors exhausted. Grows the table towards one slot per node of
  // budget, at most `max_slots`, keeping what it holds.
  void reserve(int64_t budget, size_t max_slots = size_t{1} << 20) {
    slots_ = std::max(slots_, slots_for(budget, max_slots));
  }
  bool failed(const Key& k) const {
    const Key& e = table_[k.h1 & (table_.size() - 1)];
    return e.h1 == k.h1 && e.h2 == k.h2;
  }
  // The table starts small and doubles whenever a new key would overwrite another before it
  // has all its slots_, so it holds exactly the keys a table of slots_ slots would hold (two
  // keys share a slot of the small table whenever they share one of the large: a key is only
  // ever lost to a key that would take its slot there too). A search that fails few states
  // keeps a small table (a tiny search with an unlimited budget spent 92 % of its time
  // filling 16 MB with zeros).
  void remember(const Key& k) {
    for (;;) {
      Key& e = table_[k.h1 & (table_.size() - 1)];
      if ((e.h1 == 0 && e.h2 == 0) || (e.h1 == k.h1 && e.h2 == k.h2) || table_.size() >= slots_) {
        e = k;
        return;
      }
      grow();
    }
  }

 private:
  static size_t slots_for(int64_t budget, size_t max_slots) {
    size_t slots = 1024;
    while (slots < max_slots && static_cast<int64_t>(slots) < budget) slots <<= 1;
    return slots;
  }
  static uint64_t mix(uint64_t x) {  // splitmix64's finalizer
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  static constexpr size_t kFirstSlots = 1024;
  void grow() {  // the stored keys are in distinct slots, so they are at twice the size too
    std::vector<Key> old(2 * table_.size(), Key{});
    old.swap(table_);
    for (const Key& k : old)
      if (k.h1 != 0 || k.h2 != 0) table_[k.h1 & (table_.size() - 1)] = k;
  }
  size_t slots_;  // the size whose contents the table keeps
  std::vector<Key> table_;
};

// The largest of per_section[lo, hi) (0 if empty): four independent running maxima, not one
// chain of dependent ones (on long lifetimes these range maxima are most of a cell-search
// node's time).
inline int64_t range_max(const std::vector<int64_t>& per_section, int32_t lo, int32_t hi) {
  const int64_t* f = per_section.data();
  int32_t s = lo;
  int64_t x0 = 0, x1 = 0, x2 = 0, x3 = 0;
  for (; s + 4 <= hi; s += 4) {
    x0 = std::max(x0, f[s]);
    x1 = std::max(x1, f[s + 1]);
    x2 = std::max(x2, f[s + 2]);
    x3 = std::max(x3, f[s + 3]);
  }
  for (; s < hi; ++s) x0 = std::max(x0, f[s]);
  return std::max(std::max(x0, x1), std::max(x2, x3));
}

// The largest of `per_section` over buffer i's sections (0 if none).
inline int64_t span_max(const Instance& in, int32_t i, const std::vector<int64_t>& per_section) {
  return range_max(per_section, in.sec_lo[i], in.sec_hi[i]);
}

// Buffer i's minimum offset over a floor: the lowest aligned offset >= floor that clears
// the pre-placed buffers around i (fixed_near, sorted by offset). Both the search and the
// dive place every buffer there.
inline int64_t min_offset_above(const Instance& in, int32_t i, int64_t floor) {
  int64_t x = align_up(floor, in.align[i]);
  for (int32_t f : in.fixed_near[i]) {
    const int64_t lo = in.fixed_offset[f], hi = lo + in.size[f];
    if (x + in.size[i] <= lo) break;  // fits below f
    if (x < hi) x = align_up(hi, in.align[i]);
  }
  return x;
}

// Whether buffer i placed at `at` leaves room above it, in each of its sections, for all
// that is still unplaced there (`remaining`, which counts i itself): the first test of the
// child's inference, at a glance, in both searches.
inline bool fits_above(const Instance& in, int32_t i, int64_t at, const std::vector<int64_t>& remaining,
                       int64_t cap) {
  return at + span_max(in, i, remaining) <= cap;
}

// Static preorder keys (MiniMalloc's letters): W = lifetime length, A = area, T = largest
// section total during the lifetime, Z = size, L = start, U = end, O = number of
// overlapping buffers, C = sections spanned. All descending except L. With a deadline the
// sort polls it: empty once it has passed.
std::vector<int32_t> preorder(const Instance& in, const std::string& keys, const Deadline* deadline = nullptr);
// A uniformly random order of the n buffers, a function of `seed` alone (splitmix64 and
// Fisher-Yates, so the same on every platform): the lowest-cell search's tie-break among a
// cell's candidates, for restarts that go wrong in different places (see strategies).
std::vector<int32_t> random_order(int32_t n, uint64_t seed);
// Sorts `ids` by those keys, with T read from `pressure` (indexed by buffer); ties by index.
// With a deadline the sort polls it (the dive re-ranks parts of up to n buffers: 1M take
// ~0.3 s of CPU): false, `ids` permuted, once it has passed.
bool sort_by_keys(const Instance& in, const std::string& keys, const std::vector<int64_t>& pressure,
                  std::vector<int32_t>& ids, const Deadline* deadline = nullptr);

// One depth-first search for a plan with peak <= capacity, visiting at most `node_budget`
// nodes. kInfeasible is a proof (the canonical space was exhausted); kBudget means unknown.
struct SearchResult {
  Outcome outcome = Outcome::kBudget;
  std::vector<int64_t> offsets;
  int64_t nodes = 0;
  // Unless found: the deepest partial placement the search reached (offsets, -1 where
  // unplaced), within n / 256 placements; empty if the search does not keep one. A plan's
  // start when the search fails (deep_fill.h), never a proof of anything.
  std::vector<int64_t> deepest;
};
// Test hook: when set on a thread, the canonical search checks every memo key it derives
// incrementally against one summed afresh, and throws std::logic_error on a difference.
inline thread_local bool check_keys = false;

// Node results shared by both searches.
enum Status { kFail = 0, kSolved = 1, kAbort = 2 };

// Orders a node's unplaced buffers ids[from, end) by release for section stacking
// (stacking.h), in both searches. Buffers of equal release may come in any order: every
// test on the sorted items gives the same answer for any order within equal releases
// (stacks_fit adds a group of equal releases whole; the padded tests round releases
// monotonically and decide each section exactly), so the searches take the same nodes.
// Below a capacity of 2^40 the pairs are packed into integers (the buffer in the low
// bit_width(n) bits), markedly faster to sort than through an indirect comparator. A node's
// releases are few distinct values (aligned packings of 800 buffers: 46 keys, 13 distinct,
// on average), so a radix sort's counts hit the same bucket over and over, each increment
// waiting for the one before: below kRadix keys std::sort is faster there (0.45 us against
// 0.8 us for 24-47 keys, 0.75 against 1.2 for 48-95, on 200,000 key sets of such a
// search); from kRadix on, a radix sort on the release alone (sort_keys' payload: the
// buffer's bits take no pass). A release above 2^41 > capacity fails the stacking
// whatever the order, so it is clamped to fit the key. Holds its scratch keys.
struct ReleaseSorter {
  static constexpr size_t kRadix = 96;
  std::vector<uint64_t> keys, tmp;

  void sort(std::vector<int32_t>& ids, size_t from, const std::vector<int64_t>& release,
            int64_t cap, int32_t n) {
    if (cap >= (int64_t{1} << 40) || n >= (1 << 23)) {
      std::sort(ids.begin() + static_cast<ptrdiff_t>(from), ids.end(), [&](int32_t x, int32_t y) {
        return release[x] != release[y] ? release[x] < release[y] : x < y;
      });
      return;
    }
    const int jb = std::bit_width(static_cast<uint64_t>(n));
    // Releases share their low zero bits (multiples of the granularity): dropping them
    // keeps the order and shortens the keys (the radix sort's passes; not std::sort's).
    uint64_t any = 0;
    if (ids.size() - from >= kRadix)
      for (size_t u = from; u < ids.size(); ++u) any |= static_cast<uint64_t>(std::max<int64_t>(release[ids[u]], 0));
    const int tz = any == 0 ? 0 : std::countr_zero(any);
    keys.clear();
    for (size_t u = from; u < ids.size(); ++u) {
      const int64_t r = std::clamp<int64_t>(release[ids[u]], 0, (int64_t{1} << 41) - 1);
      keys.push_back(static_cast<uint64_t>(r) >> tz << jb | static_cast<uint64_t>(ids[u]));
    }
    if (keys.size() < kRadix) std::sort(keys.begin(), keys.end());
    else sort_keys(keys, tmp, jb);
    for (size_t u = 0; u < keys.size(); ++u)
      ids[from + u] = static_cast<int32_t>(keys[u] & ((uint64_t{1} << jb) - 1));
  }
};

inline SearchResult result_of(int status, int64_t nodes, const std::vector<int64_t>& offsets) {
  SearchResult r;
  r.nodes = nodes;
  r.outcome = status == kSolved ? Outcome::kFound : status == kFail ? Outcome::kInfeasible : Outcome::kBudget;
  if (status == kSolved) r.offsets = offsets;
  return r;
}

// Dynamic decomposition, shared by both searches. The unplaced buffers whose position in
// start order lies in [a, b) form the current sub-problem. Where none of them crosses a
// time point, the two sides no longer interact (the placed buffers are fixed), so each
// part is solved on its own, one after the other, and a failure of one part fails the node
// without trying interleavings. A part is just an index range, so decomposing costs no
// memory. `solve_part(first, last)` returns a Status; the first one not solved is returned.
template <class SolvePart>
int for_each_part(const Instance& in, const std::vector<char>& placed, int32_t a, int32_t b,
                  SolvePart&& solve_part) {
  int32_t first = -1;
  int64_t reach = INT64_MIN;
  for (int32_t k = a; k < b; ++k) {
    const int32_t i = in.by_start[k];
    if (placed[i]) continue;
    if (first >= 0 && in.start[i] >= reach) {
      const int status = solve_part(first, k);
      if (status != kSolved) return status;
      first = k;
    }
    if (first < 0) first = k;
    reach = std::max(reach, in.end[i]);
  }
  return first < 0 ? kSolved : solve_part(first, b);
}

// `memo`, if given, holds failed states from earlier probes of the same search (same
// capacity, order and keys) and receives this probe's; otherwise the probe has its own.
SearchResult search(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                    int64_t node_budget, const Deadline& deadline, const std::string& keys = {},
                    FailureMemo* memo = nullptr);

// The same decision by the lowest-cell search (cells.cpp): branches on what occupies the
// lowest free cell (section x offset) instead of which buffer comes next. Much stronger on
// tight instances; declines (kBudget, no nodes) when there are pre-placed buffers.
// `choice` picks the cell among the sections at the lowest floor (see cells.cpp).
// kWells: the fewest branches over every local minimum of the floors, not only the lowest.
enum class CellChoice { kLeastSlack, kFewestBranches, kWells };
// Dead-end weights (dom/wdeg, Boussemart et al. 2004) for the cell search over all wells
// (kWells): each section counts the dead ends found at its cells (a cell whose every branch
// failed at its own node), and the cell chosen is the one with the fewest branches per
// (dead ends + 1), lowest floor on ties, not the fewest branches alone. Only a choice among
// cells at their floors, each branching complete (cells.cpp, choose_well_cell), so the
// search stays complete. Once on aligned packings only, now on every one (pinwheels of 6,400
// buffers, `exact` at 20 s of CPU: tuning seeds 100-109 6/10 against 2/10, held-out seeds
// 1-20 4/20 against 3/20; README, "Dead-end weights on every perfect packing").
// Test hook: false turns it off on a thread.
inline thread_local bool weigh_dead_ends = true;
// A dead end: a branching node whose subtree holds at most this many nodes besides itself.
inline constexpr int64_t kDeadEndNodes = 8;
// `weights` (kWells): per section, the dead ends found there so far (weigh_dead_ends above),
// read and updated; kept by the caller across restarts (else its own).
// `root_first` > 0 (aligned instances): at the root's cell, the candidate at that position
// (mod their count) of the trial order is tried first (aligned_cells.h, rotate_root_cells).
SearchResult search_cells(const Instance& in, int64_t capacity, const std::vector<int32_t>& order,
                          CellChoice choice, int64_t node_budget, const Deadline& deadline,
                          FailureMemo* memo = nullptr, std::vector<uint32_t>* weights = nullptr,
                          int64_t root_first = 0);

// Bench hook (bench/cell_depth_bench.cpp): when set on a thread, the cell search appends to
// it, at every node, the number of buffers placed there (the node's depth in placements).
inline thread_local std::vector<int32_t>* cell_depth_trace = nullptr;

// Testing aid for soundness: the same search, but a buffer is a candidate only when its
// minimum offset equals `target[i]`, the offsets of a known canonical plan (every buffer at
// its minimum offset given the buffers below it; identical buffers' offsets ascending in
// preorder rank). Every pruning rule stays on, so kFound means none of them cuts the path
// to that plan, and anything else means a rule is unsound.
// With `keys`, the search re-ranks on decomposition as `search` does with them.
SearchResult search_following(const Instance& in, int64_t capacity,
                              const std::vector<int32_t>& order,
                              const std::vector<int64_t>& target, const Deadline& deadline,
                              const std::string& keys = {});

}  // namespace memplan::exact
