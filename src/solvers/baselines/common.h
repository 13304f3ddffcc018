// Shared helpers for the production-allocator baselines (see docs/baselines.md and
// ../shared/research/heuristics.md, which every algorithm here is reimplemented from).
//
// All baselines work on `Rec`s: half-open lifetimes [start, end) with the usual conflict
// test start < other.end && other.start < end. Sources that use inclusive [first, last]
// intervals map onto this exactly with `inclusive()` (last + 1); this is the "source
// semantics" conversion the golden tests use. Gaps are ignored: every buffer is treated as
// a full rectangle, which is conservative and therefore valid.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "core/polled.h"
#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan::baselines {

struct Rec {
  int64_t size = 0;
  int64_t start = 0;  // first live instant
  int64_t end = 0;    // first dead instant (exclusive)
  int64_t align = 1;  // offsets must be multiples of this (need not be a power of two)
  int64_t fixed = -1; // pre-placed offset, or -1
  std::string name;   // buffer id (TVM breaks ties by name)

  int64_t last() const { return end - 1; }  // inclusive last instant (source semantics)
};

// Source semantics: a record given with an inclusive interval [first, last] (TFLite,
// TFLM, TVM, XLA event times, ExecuTorch) becomes the half-open [first, last + 1).
inline Rec inclusive(int64_t size, int64_t first, int64_t last, int64_t align = 1) {
  Rec r;
  r.size = size;
  r.start = first;
  r.end = last + 1;
  r.align = align;
  return r;
}

inline bool overlap(const Rec& a, const Rec& b) { return a.start < b.end && b.start < a.end; }

// Rounds x >= 0 up to a multiple of a >= 1 (any a, not only powers of two: XLA's golden
// test uses alignment 20). Saturates instead of overflowing.
int64_t round_up(int64_t x, int64_t a);

// Empty once the deadline (if any) has passed: check it.
std::vector<Rec> records_of(const Problem& p, const Deadline* deadline = nullptr);

// A plan in the sources' own terms; complete == false means the algorithm gave up (time
// limit or size guard) and `detail` says why.
struct Plan {
  std::vector<int64_t> offsets;
  int64_t total = 0;  // max(offset + size)
  bool complete = true;
  std::string detail;
};

// Shared-objects output (TFLite GPU, ExecuTorch buckets): tensor -> object, object sizes.
struct Objects {
  std::vector<int32_t> ids;
  std::vector<int64_t> sizes;
  bool complete = true;
  std::string detail;
  int64_t total() const;  // sum of object sizes (the source's TotalSize)
};

// TFLite's ObjectsToOffsets: objects back-to-back in id order from `base`, each object's
// start rounded up to the largest alignment among its tenants (the source has no padding;
// with alignment 1 this is exactly its layout).
Plan objects_to_offsets(const std::vector<Rec>& recs, const Objects& obj, int64_t base = 0);

// For algorithms that cannot honour pre-placed buffers: runs `algo` on the free records
// only and shifts the result above the highest fixed buffer (base rounded up to the largest
// alignment of the free records). Fixed buffers keep their offsets. Always valid.
Plan with_fixed_below(const std::vector<Rec>& recs,
                      const std::function<Plan(const std::vector<Rec>&)>& algo);

// Per record: how many other records' lifetimes overlap it. O(n log n); its sweep polls the
// deadline (if any): empty once it has passed (for non-empty `recs`).
std::vector<int64_t> conflict_counts(const std::vector<Rec>& recs, const Deadline* deadline = nullptr);

// Max over time of the summed live sizes (TVM's memory_pressure, LOAD). O(n log n); -1 once
// the deadline (if any) has passed.
int64_t live_peak(const std::vector<Rec>& recs, const Deadline* deadline = nullptr);

// Time-indexed set of "placed" records: enumerates placed records whose lifetime overlaps
// a query interval in O((k + 1) log n) (segment tree over records sorted by start holding
// the max end of placed ones). Replaces the sources' linear scans over all placed buffers,
// which skip the non-overlapping ones anyway, so the visited set is the same.
class OverlapIndex {
 public:
  // Its sort by start polls the deadline (if any; 1M records: ~0.1-0.2 s of CPU). Once it
  // has passed the index is left incomplete: check complete() before any use.
  explicit OverlapIndex(const std::vector<Rec>& recs, const Deadline* deadline = nullptr);
  bool complete() const { return complete_; }
  void insert(int32_t i);
  void insert_all();  // every record, in O(n)
  void erase(int32_t i);
  void clear();
  // Calls f(j) for every placed j with start_j < end && end_j > start (any order).
  template <class F>
  void for_each(int64_t start, int64_t end, F&& f) const;
  std::vector<int32_t> query(int64_t start, int64_t end) const;

 private:
  struct Frame {
    int32_t node, lo, width;  // node covers positions [lo, lo + width)
  };
  void set(int32_t pos, int64_t value);
  int32_t limit_of(int64_t end) const;
  mutable std::vector<Frame> frames_;
  const std::vector<Rec>* recs_;
  std::vector<int32_t> by_start_;   // position -> record
  std::vector<int32_t> pos_of_;     // record -> position
  std::vector<int64_t> starts_;     // sorted starts
  std::vector<int64_t> tree_;
  int32_t leaves_ = 1;
  bool complete_ = true;
};

template <class F>
void OverlapIndex::for_each(int64_t start, int64_t end, F&& f) const {
  // Positions [0, limit) have start < end; among them report those with end_j > start.
  const int32_t limit = limit_of(end);
  if (limit == 0) return;
  frames_.clear();
  frames_.push_back({1, 0, leaves_});
  while (!frames_.empty()) {
    const Frame fr = frames_.back();
    frames_.pop_back();
    if (fr.lo >= limit || tree_[fr.node] <= start) continue;
    if (fr.width == 1) {
      f(by_start_[fr.lo]);
      continue;
    }
    const int32_t half = fr.width / 2;
    frames_.push_back({2 * fr.node + 1, fr.lo + half, half});
    frames_.push_back({2 * fr.node, fr.lo, half});
  }
}

// A placed record overlapping a query, with the key the sources' offset-ordered lists
// use: offset, then insertion sequence (entries go after equal offsets).
struct Hit {
  int64_t offset;
  int64_t seq;
  int32_t idx;
};
// Fills `out` with the placed records overlapping [start, end) sorted by (offset, seq).
void hits_by_offset(const OverlapIndex& index, int64_t start, int64_t end,
                    const std::vector<int64_t>& offsets, const std::vector<int64_t>& seq,
                    std::vector<Hit>& out);

// The TFLite planners' list of placed tensors: placements in insertion order (the sequence
// breaks offset ties in their offset-ordered lists) over an OverlapIndex.
// Its index is built under the deadline: when that passed, `plan` is marked given up
// ("time limit (<who> index)"): check plan.complete before using the list.
struct InsertionList {
  InsertionList(const std::vector<Rec>& recs, Plan& plan, const Deadline& dl, const char* who);
  void commit(int32_t i, int64_t offset);
  // Commits every pre-placed record first (they are occupied from the start) and returns
  // the others in index order.
  std::vector<int32_t> commit_fixed();
  void hits(int64_t start, int64_t end, std::vector<Hit>& out) const {
    hits_by_offset(placed, start, end, plan.offsets, seq, out);
  }

  const std::vector<Rec>& recs;
  Plan& plan;
  OverlapIndex placed;
  std::vector<int64_t> seq;
  int64_t next_seq = 0;
};

// A multiset of positions in [0, m) kept as counts: add() in O(1); after seal() (prefix
// sums, O(m)), kth(k) is element k of the sorted multiset in O(log m). TVM's hill climb
// draws from its second-level list (up to deg^2 positions: ~2M on bert_large) by index into
// the sorted list; sorting it took ~80 ms between two polls, past a 0.5 s limit.
class PositionCounts {
 public:
  void reset(size_t m) { cum_.assign(m, 0), size_ = 0; }
  void add(int32_t pos) { ++cum_[pos], ++size_; }
  void seal() { std::partial_sum(cum_.begin(), cum_.end(), cum_.begin()); }
  int64_t size() const { return size_; }
  int32_t kth(int64_t k) const {
    return static_cast<int32_t>(std::upper_bound(cum_.begin(), cum_.end(), k) - cum_.begin());
  }

 private:
  std::vector<int64_t> cum_;  // counts, then (sealed) counts of positions <= p
  int64_t size_ = 0;
};

// Checks the deadline every 256 calls; on expiry marks `plan` given up and returns true.
inline bool out_of_time(const Deadline& dl, int64_t& counter, Plan& plan, const char* who) {
  if ((++counter & 255) != 0 || !dl.expired()) return false;
  plan.complete = false;
  plan.detail = std::string("time limit (") + who + ")";
  return true;
}

// An OverlapIndex built under `dl`: false, with `out` (a Plan or Objects) marked given up,
// when the deadline passed before it was done.
template <class Out>
bool index_or_give_up(const OverlapIndex& index, Out& out, const char* who) {
  if (index.complete()) return true;
  out.complete = false;
  out.detail = std::string("time limit (") + who + " index)";
  return false;
}

// A baseline's first sort of its records: stable, as the sources' sorts are, and polling the
// deadline (1M records: ~0.1-0.2 s of CPU, the whole tolerance of a short limit). On expiry
// marks `out` (a Plan or Objects) given up and returns false.
template <class Out, class Less>
bool sort_or_give_up(std::vector<int32_t>& order, const Deadline& dl, Out& out, const char* who, Less less) {
  if (sort_until(order, less, &dl)) return true;
  out.complete = false;
  out.detail = std::string("time limit (") + who + " sort)";
  return false;
}

// Wraps a Plan into a SolveResult (validating nothing; callers' tests validate).
SolveResult to_result(const Problem& p, const SolveOptions& opt, const Plan& plan);

// Registers `name` running `algo` on records_of(problem) with a Deadline from `opt`.
void add_solver(std::vector<SolverInfo>& out, const std::string& name,
                const std::string& description,
                std::function<Plan(const std::vector<Rec>&, const SolveOptions&,
                                   const Deadline&)> algo);

}  // namespace memplan::baselines
