// memplan: the placement engine shared by all greedy-style solvers.
//
// Buffers are placed one at a time; each goes to the lowest (first-fit) or tightest
// (best-fit) aligned offset at which it overlaps, in memory, no already placed buffer
// whose lifetime intersects its own. Conflicts are found through a time-indexed
// structure (a segment tree over buffer pieces sorted by start, holding the largest end
// among placed pieces), never through an O(n^2) interference graph: a query costs
// O((k + 1) log n) for k live-overlapping placed pieces, and memory is O(n).
// Small gap-free instances (<= kListMax buffers) use an array of the placed buffers kept in
// increasing offset order instead: a query scans it from the bottom (its forbidden ranges
// come out already sorted) and, for first-fit, stops at the first gap that fits. The scan
// tests liveness 16 placed buffers at a time into a bit mask and visits only the live ones.
// When many placed buffers are live at once (queries keep meeting hundreds), the engine
// switches to an occupancy index (src/core/occupancy_index.h: merged address ranges per node
// of a segment tree over time), where first-fit jumps over whole occupied runs: the same
// offsets, without visiting every live buffer. Moving a placed buffer drops the index until
// clear().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "memplan/problem.h"
#include "memplan/solver.h"

namespace memplan {

enum class Fit {
  kFirst,  // lowest feasible aligned offset
  kBest,   // smallest free hole that fits (ties: lowest); above everything if no hole fits
};

// Counters of best-fit's walk over the occupancy index, for benchmarks (training_bench
// --holes): why best-fit costs what it does. A hole is a bounded range of feasible offsets
// [x, next) (slack next - x); its length is slack + size - 1 bytes, its class
// floor(log2(length)).
struct BestFitStats {
  int64_t queries = 0;    // best-fit queries answered on the index with at least one hole
  int64_t holes = 0;      // holes visited (every one that fits, up to the top or an exact fit)
  int64_t near_best = 0;  // of those, holes in the best hole's class or the next one up
  int64_t classes = 0;    // sum over queries of (best hole's class - class of the size + 1)
  int64_t exact = 0;      // queries ended early by an exact fit (slack 1)
};

// What the occupancy index's queries and upkeep do (PlacementEngine::collect_walk_stats), to
// tell how a pass grows with n apart from its CPU time (bench/training_bench --walk).
struct WalkStats {
  int64_t queries = 0;      // first-fit and best-fit queries answered on the index
  int64_t sources = 0;      // merged sets those queries read (summed over queries)
  int64_t steps = 0;        // runs their walks passed (moves of the candidate offset)
  int64_t floor_steps = 0;  // runs the floors' own walks passed (OccupancyIndex::floor)
  int64_t inserts = 0;      // pieces added to the index
  int64_t set_inserts = 0;  // merged sets those pieces went into (crossing sets included)
};

// Where the occupancy index's bytes lie (PlacementEngine::index_memory, bench/training_bench
// --memory), by kind of set: its segment tree's here() and below() runs, the raw pieces of
// partly covered blocks, and the crossing index's here() and all() runs.
struct IndexMemory {
  enum Kind { kHere, kBelow, kRaw, kCrossHere, kCrossAll, kKinds };
  static constexpr int kBuckets = 8;  // entries per set: 1, 2-3, 4-15, 16-63, ..., 4096 and up
  int64_t headers[kKinds] = {};       // set objects (std::vector headers), empty or not
  int64_t sets[kKinds] = {};          // non-empty sets
  int64_t entries[kKinds] = {};       // runs (raw: pieces) held
  int64_t used_bytes[kKinds] = {};    // entries * entry size
  int64_t reserved_bytes[kKinds] = {};  // capacity * entry size
  int64_t heap_bytes[kKinds] = {};    // the allocations' size with glibc's chunk overhead
  int64_t by_size[kKinds][kBuckets] = {};  // non-empty sets by entries held
  int64_t other_bytes = 0;            // per-node arrays besides the sets (stamps, counters, floors)
};

class PlacementEngine {
 public:
  // Indexes the problem's buffers; nothing is placed yet. O(n log n). With a deadline, the
  // construction polls it and stops once it has passed, leaving an engine that is not
  // built(): only built() and problem() may be called on it (place_in_order returns an
  // incomplete result).
  explicit PlacementEngine(const Problem& problem, const Deadline* deadline = nullptr);
  bool built() const { return built_; }

  // Lowest (or best-fitting) aligned offset >= 0 at which buffer i fits among the buffers
  // placed so far. Does not place it. A pre-placed buffer still gets a computed offset here.
  int64_t find_offset(int32_t i, Fit fit = Fit::kFirst) const;

  // True iff buffer i at `offset` overlaps no placed buffer.
  bool fits_at(int32_t i, int64_t offset) const;

  // Records buffer i at `offset` (no check; use fits_at when unsure).
  void place(int32_t i, int64_t offset);

  // Removes every placement (O(placed log n)), keeping the index.
  void clear();

  // Switches the occupancy index on now, with time blocks of `block_slots` slots (it
  // normally switches itself on once queries keep meeting hundreds of placed pieces); for
  // tests. False if the instance cannot use it (list mode; a piece of zero size or length).
  bool use_occupancy_index(int32_t block_slots = 32);
  bool occupancy_index_in_use() const { return index_usable(); }
  // Switches the occupancy index's crossing sets and floors on now (the engine normally does
  // it once first-fit walks grow long; clear() switches them off again); for tests. False if
  // the occupancy index is not in use.
  bool use_crossing_index();
  // Switches on the free cells (core/free_cells.h: best-fit's short queries answered without
  // walking every hole that fits; the same answers), on top of the occupancy index. False if
  // the index is not in use. The engine switches them on itself once best-fit walks grow long.
  bool use_free_cells();  // (kept on then, whatever their upkeep costs)
  bool free_cells_in_use() const;
  bool crossing_index_in_use() const;

  // Tells the engine the order in which the buffers not yet placed will be placed, each
  // with `fit` (place_in_order does; clear() forgets it). With best-fit and the free cells
  // on, a buffer that no later query walking the occupancy index overlaps in time then
  // goes into the cells only, and into the index when (if ever) something else reads it:
  // the index's upkeep for buffers only the cells will be asked about (on training traces
  // in area order, three quarters of them) is saved. The same answers either way: a
  // placement out of that order drops the lookahead (the waiting buffers go in then).
  void set_lookahead(std::span<const int32_t> order, Fit fit);

  // Counts best-fit's holes into *stats from now on (nullptr: off, the default).
  void collect_best_fit_stats(BestFitStats* stats) { best_fit_stats_ = stats; }
  // Counts the index's queries, walks and inserts into *stats from now on (nullptr: off).
  void collect_walk_stats(WalkStats* stats) { walk_stats_ = stats; }
  // The occupancy index's memory now (all zero while it is off).
  IndexMemory index_memory() const;

  bool is_placed(int32_t i) const { return offsets_[i] >= 0; }
  int64_t offset(int32_t i) const { return offsets_[i]; }
  const std::vector<int64_t>& offsets() const { return offsets_; }  // -1 = unplaced
  int64_t peak() const { return peak_; }
  int32_t placed_count() const { return placed_count_; }
  const Problem& problem() const { return *problem_; }

 private:
  struct Forbidden {
    int64_t lo, hi;  // candidate offsets x in [lo, hi) collide with something
  };
  void collect_forbidden(int32_t i, std::vector<Forbidden>& out) const;
  // Calls f(Forbidden) for the ranges of buffer i in increasing lo order until f returns false.
  template <class F>
  void scan_forbidden(int32_t i, F&& f) const;
  template <class F>
  void scan_list(int32_t i, F&& f) const;
  int64_t first_fit_list(int32_t i) const;
  int64_t best_fit_list(int32_t i) const;
  void list_insert(int32_t i);
  void list_remove(int32_t i);
  void set_leaf(int32_t piece, int64_t value);
  static void sort_by_lo(std::vector<Forbidden>& v, std::vector<Forbidden>& tmp);

  const Problem* problem_;
  const Deadline* deadline_;  // the constructor's (outlives the engine): polled by index_tune
  bool built_ = false;
  std::vector<Piece> pieces_;             // all pieces, sorted by start
  std::vector<int32_t> piece_owner_;      // piece -> buffer
  std::vector<int32_t> first_piece_;      // buffer -> its pieces (CSR over piece_index_)
  std::vector<int32_t> piece_index_;      // CSR payload: indices into pieces_
  std::vector<int64_t> piece_starts_;     // pieces_[k].start, for binary search
  std::vector<int64_t> tree_;             // max end of placed pieces per node (INT64_MIN: none)
  struct Span {
    int64_t lo, hi;
  };
  std::vector<Span> placed_;              // per piece: absolute address range once placed
  int32_t leaves_ = 1;
  std::vector<int64_t> offsets_;
  int64_t peak_ = 0;
  int32_t placed_count_ = 0;
  mutable std::vector<Forbidden> scratch_, radix_scratch_;
  // List mode: the placed buffers in increasing offset order (ties: insertion order),
  // stored in place so that a scan reads memory sequentially. Their lifetimes (as endpoint
  // ranks, < 2 kListMax) sit in two parallel arrays whose unused entries are never live, so
  // that the liveness test runs on whole blocks of kPad (SIMD where available).
  struct Node {
    int64_t off, top;  // address range [off, top)
  };
  static constexpr size_t kPad = 16;
  bool list_mode_ = false;
  size_t list_count_ = 0;                       // placed buffers in the list
  std::vector<Node> by_offset_;                 // n entries, the first list_count_ in use
  std::vector<int16_t> list_start_, list_end_;  // n + kPad entries, never live past count
  template <class F>
  void for_each_live(int32_t i, F&& f) const;
  std::vector<std::pair<int32_t, int32_t>> ranks_;  // by buffer: lifetime as endpoint ranks

  // The occupancy index and its query scratch (a deep-copied owner: the engine stays
  // copyable).
  struct IndexState;
  struct IndexBox {
    std::unique_ptr<IndexState> p;
    IndexBox();
    ~IndexBox();
    IndexBox(const IndexBox& o);
    IndexBox& operator=(const IndexBox& o);
  };
  bool index_usable() const { return index_on_ && index_valid_; }
  void index_start(int32_t block_slots);  // 0: sized by the pieces per slot
  void index_add(int32_t i);
  void index_tune();  // switches the crossing index on when walks grow long
  // Into the state's scratch; first adds the deferred buffers (set_lookahead) to the index,
  // unless the query is one they cannot meet (`all` false: a query walking the index in
  // the lookahead's pass).
  void index_sources(int32_t i, bool all = true) const;
  void index_put(int32_t i) const;  // buffer i's pieces into the index
  void index_flush() const;         // the deferred buffers into the index
  int64_t index_settle(int64_t x, int64_t align) const;
  int64_t index_find(int32_t i, Fit fit) const;
  bool cells_query(int32_t i) const;    // a query the free cells answer
  int64_t cells_find(int32_t i) const;  // for a cells_query only
  void cells_start();
  void cells_reset();
  void cells_stop();
  static constexpr int32_t kCellSpan = 8;  // the longest query (in slots) the free cells answer
  IndexBox index_;
  std::vector<std::pair<int32_t, int32_t>> piece_slots_;  // by piece: lifetime as slots
  BestFitStats* best_fit_stats_ = nullptr;
  WalkStats* walk_stats_ = nullptr;
  bool index_eligible_ = false;  // every piece has positive size and duration
  bool index_on_ = false;        // maintained since the last clear() (or since switched on)
  bool index_valid_ = true;      // no placed buffer moved since
  mutable int32_t dense_queries_ = 0;
  // lookahead_sweep's verdict per buffer: 1 if a later query walking the index overlaps it
  // in time (it must go into the index when placed), 0 if only the free cells will be asked
  // about it; empty: not worked out (no lookahead, or the cells not on yet), every placed
  // buffer goes into the index.
  std::vector<uint8_t> index_needed_;
  std::vector<int32_t> lookahead_pass_;  // the pass set_lookahead was told (empty: none)
  size_t lookahead_next_ = 0;            // its next buffer to be placed
  void lookahead_sweep();                // index_needed_ from the pass
  void lookahead_drop();                 // forgets it, the waiting buffers into the index

 public:
  static constexpr size_t kListMax = 2048;  // ranks < 2 kListMax fit in int16_t
};

// Places buffers in `order` (pre-placed buffers first, at their offsets, whatever the order)
// and returns the plan. Stops early and returns std::nullopt-like empty offsets when the
// running peak exceeds `abort_above` (use INT64_MAX for never).
struct GreedyResult {
  bool complete = false;
  Solution solution;
};
// With a deadline, an expired one also abandons the pass (checked every 256 placements), and
// so does an engine that is not built().
GreedyResult place_in_order(const Problem& problem, std::span<const int32_t> order, Fit fit,
                            int64_t abort_above = INT64_MAX, const Deadline* deadline = nullptr);

// Same, reusing an engine (cleared first). Lets iterated solvers avoid re-indexing.
// `preset` (empty, or one entry per buffer): buffers with an entry >= 0 are placed first at
// that offset, as pre-placed ones are (for a caller that fixes some offsets without
// copying the problem: exact's peak windows).
GreedyResult place_in_order(PlacementEngine& engine, std::span<const int32_t> order, Fit fit,
                            int64_t abort_above = INT64_MAX, const Deadline* deadline = nullptr,
                            std::span<const int64_t> preset = {});

// The online allocator's plan, in O(n log n): buffers allocated in time order, each into
// the smallest free block that holds it (best fit with coalescing, as a runtime heap would),
// above every pre-placed buffer. Valid but rarely good; the plan of last resort that keeps
// time limits honored on huge inputs.
Solution online_plan(const Problem& problem);
// The same, giving up (nullopt) once `deadline` has passed (checked every 4096 events and in
// the sort): on 1,000,000 buffers it takes ~0.4 s of CPU, more than a short limit leaves.
std::optional<Solution> online_plan(const Problem& problem, const Deadline* deadline);
// The same with each buffer's end read from `ends` (one per buffer) instead; with
// ends_covering_conflicts (timeline.h), a plan valid under explicit conflicts.
std::optional<Solution> online_plan(const Problem& problem, const Deadline* deadline, std::span<const int64_t> ends);

}  // namespace memplan
