#include "memplan/placement.h"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/arith.h"
#include "core/free_cells.h"
#include "core/occupancy_index.h"
#include "core/polled.h"

namespace memplan {

struct PlacementEngine::IndexState {
  OccupancyIndex index;
  std::vector<OccupancyIndex::Source> src;
  std::vector<OccupancyIndex::Run> runs;
  // By source, during a query: the lowest offset at which it can block the query (see
  // index_settle), INT64_MIN until first looked at.
  std::vector<int64_t> next;
  int64_t low = INT64_MAX;  // the lowest next[] when index_settle returned
  // The walk's steps (runs passed) and queries since the last crossing-index decision.
  int64_t steps = 0;
  int32_t queries = 0;
  // By length class, the holes a best-fit query has visited (only with BestFitStats on).
  std::array<int64_t, 64> holes_by_class{};
  // The free space's cells (free_cells.h), for best-fit's short queries: kept where they pay
  // (cells_on, index_tune), never again after a failed add() or a build the deadline stopped
  // (cells_dead) until clear().
  FreeCells cells;
  bool cells_on = false, cells_dead = false;
  int64_t cells_need = 0;      // holes per walk needed to switch them on (kCellHoles, raised by cells_stop)
  double cells_holes = 0;      // holes per walk when they were last switched on
  int64_t cells_mark_cuts = 0, cells_mark_pieces = 0;  // cuts and pieces at the last upkeep check
  // Since the last cells decision: holes visited by the best-fit walks of queries the cells
  // would answer (cells_query), and best-fit walks of any query.
  int64_t walk_holes = 0;
  int32_t walks = 0;
  int32_t slots = 1;       // the index's time slots
  // Placed buffers not yet in the index (set_lookahead: in the free cells only), added by
  // index_flush before anything reads the index except the lookahead's own walks.
  std::vector<int32_t> deferred;
};
PlacementEngine::IndexBox::IndexBox() : p(std::make_unique<IndexState>()) {}
PlacementEngine::IndexBox::~IndexBox() = default;
PlacementEngine::IndexBox::IndexBox(const IndexBox& o) : p(std::make_unique<IndexState>(*o.p)) {}
PlacementEngine::IndexBox& PlacementEngine::IndexBox::operator=(const IndexBox& o) {
  if (this != &o) *p = *o.p;
  return *this;
}

PlacementEngine::PlacementEngine(const Problem& problem, const Deadline* deadline)
    : problem_(&problem), deadline_(deadline) {
  Poll poll(deadline);
  const auto& bufs = problem.buffers;
  const int32_t n = static_cast<int32_t>(bufs.size());
  std::vector<Piece> raw;
  std::vector<int32_t> raw_owner;
  raw.reserve(bufs.size());
  raw_owner.reserve(bufs.size());
  for (int32_t i = 0; i < n; ++i) {
    if (poll()) return;
    if (bufs[i].gaps.empty()) {
      raw.push_back({bufs[i].start, bufs[i].end, 0, bufs[i].size});
      raw_owner.push_back(i);
    } else {
      for (const Piece& pc : pieces_of(bufs[i])) {
        raw.push_back(pc);
        raw_owner.push_back(i);
      }
    }
  }
  std::vector<int32_t> perm(raw.size());
  std::iota(perm.begin(), perm.end(), 0);
  if (!sort_until(perm, [&](int32_t a, int32_t b) { return raw[a].start < raw[b].start; }, deadline)) return;
  const size_t m = raw.size();
  pieces_.resize(m);
  piece_owner_.resize(m);
  piece_starts_.resize(m);
  std::vector<int32_t> count(n + 1, 0);
  for (size_t k = 0; k < m; ++k) {
    if (poll()) return;
    pieces_[k] = raw[perm[k]];
    piece_owner_[k] = raw_owner[perm[k]];
    piece_starts_[k] = pieces_[k].start;
    ++count[piece_owner_[k] + 1];
  }
  first_piece_.assign(n + 1, 0);
  for (int32_t i = 0; i < n; ++i) first_piece_[i + 1] = first_piece_[i] + count[i + 1];
  piece_index_.resize(m);
  std::vector<int32_t> fill(first_piece_.begin(), first_piece_.end() - 1);
  for (size_t k = 0; k < m; ++k) {
    if (poll()) return;
    piece_index_[fill[piece_owner_[k]]++] = static_cast<int32_t>(k);
  }
  // The tree and the plan arrays below are fresh memory (1M buffers: ~40 MB, page faults
  // that took 0.1 s past the limit on a loaded machine).
  if (poll.expired()) return;
  leaves_ = 1;
  while (static_cast<size_t>(leaves_) < std::max<size_t>(m, 1)) leaves_ *= 2;
  tree_.assign(2 * static_cast<size_t>(leaves_), INT64_MIN);
  placed_.assign(m, {0, 0});
  offsets_.assign(n, -1);
  list_mode_ = bufs.size() <= kListMax &&
               std::all_of(bufs.begin(), bufs.end(), [](const Buffer& b) { return b.gaps.empty(); });
  if (list_mode_) {
    // Lifetimes as ranks among all endpoints (order-preserving, so overlaps are unchanged).
    std::vector<int64_t> t;
    for (const Buffer& b : bufs) t.push_back(b.start), t.push_back(b.end);
    std::sort(t.begin(), t.end());
    auto rank = [&](int64_t v) { return int32_t(std::lower_bound(t.begin(), t.end(), v) - t.begin()); };
    ranks_.resize(bufs.size());
    for (size_t k = 0; k < bufs.size(); ++k) ranks_[k] = {rank(bufs[k].start), rank(bufs[k].end)};
    by_offset_.resize(bufs.size());
    list_start_.assign(bufs.size() + kPad, INT16_MAX);
    list_end_.assign(bufs.size() + kPad, INT16_MIN);
  } else {
    // Slots for the occupancy index: ranks among the distinct piece endpoints.
    index_eligible_ = true;
    std::vector<int64_t> t;
    t.reserve(2 * m);
    for (const Piece& pc : pieces_) {
      t.push_back(pc.start), t.push_back(pc.end);
      if (pc.start >= pc.end || pc.lo >= pc.hi) index_eligible_ = false;
    }
    if (!sort_until(t, std::less<int64_t>(), deadline)) return;
    t.erase(std::unique(t.begin(), t.end()), t.end());
    auto rank = [&](int64_t v) { return int32_t(std::lower_bound(t.begin(), t.end(), v) - t.begin()); };
    piece_slots_.resize(m);
    for (size_t k = 0; k < m; ++k) {
      if (poll()) return;
      piece_slots_[k] = {rank(pieces_[k].start), rank(pieces_[k].end)};
    }
  }
  built_ = true;
}

// Switches the occupancy index on: every placed piece goes in. Blocks of `block_slots`
// slots, or 0: sized by the pieces per slot (OccupancyIndex::block_for).
void PlacementEngine::index_start(int32_t block_slots) {
  index_on_ = true;
  index_valid_ = true;
  int32_t slots = 1;
  for (const auto& [a, b] : piece_slots_) slots = std::max(slots, b);
  if (block_slots == 0) block_slots = OccupancyIndex::block_for(slots, static_cast<int64_t>(piece_slots_.size()));
  index_.p->index.init(slots, block_slots);
  index_.p->steps = index_.p->queries = 0;
  index_.p->slots = slots;
  index_.p->deferred.clear();  // every placed buffer goes in below (the cells are off)
  cells_reset();
  for (int32_t i = 0; i < static_cast<int32_t>(offsets_.size()); ++i)
    if (offsets_[i] >= 0) index_add(i);
}

// Queries per crossing-index decision, and the mean walk steps per query above which the
// crossing index is switched on (occupancy_index.h). Measured on 100k-buffer training
// traces without it: ~6 steps per query in start, length, conflicts and wat order, ~360 in
// size order, ~900 in area and pressure order.
constexpr int32_t kCrossingWindow = 256;
constexpr int64_t kCrossingSteps = 32;

// With the crossing sets on, the mean walk steps per query, over windows of kFloorWindow
// queries, above which the floors are switched on too (OccupancyIndex::floor). Measured on
// training traces with the crossing sets: 7-20 steps per query on average in size order at
// 50k-250k buffers, where the floors' upkeep cost 19 % of the pass (first-fit-size at 250k:
// 2.35 s of CPU without, 2.8 s with) and saved nothing; ~350 in area and pressure order at
// 50k, where they cut it to ~6. The window is long so that a burst of long walks (say, the
// largest buffers, placed first in size order) does not switch them on: with windows of
// 256 queries, size order still cost 14 % more than without floors (2.28 s against 2.61 s
// at 250k; not traced further), with 4,096 5 % (1.67 s against 1.75 s, within noise).
constexpr int32_t kFloorWindow = 4096;
constexpr int64_t kFloorSteps = 128;

// The free cells pay where short queries' best-fit walks pass many holes and pieces cut few
// cells. Over windows of kCellWindow best-fit walks, the mean holes per walk (counting only
// the holes of queries the cells would answer, cells_query) is weighed against the cells'
// upkeep, measured as the cells each placed piece cut (FreeCells::cuts) when they were last
// built: they are switched on when holes per walk exceed kCellHoles and kCutCost times cuts
// per piece, and off again when, over windows of kCutWindow placements, cuts per piece times
// kCutCost exceed the holes per walk measured before. Measured on training traces in size,
// area and pressure order: ~440-510 holes per walk at 25k buffers, ~1,340-2,360 at 100k
// (bench/training_bench --holes), nearly all in queries of one or two slots, and ~1.5 cuts per
// piece. IOPDDL's S_1 and Y_1 (28k and 62k buffers) reach ~64-70 holes per walk late in the
// pass with 23 and 15 cuts per piece: switched on there by holes alone, their best-fit passes
// took 1.3-2.4x the CPU. kCutCost = 64 was set when a cell sat at O(log T) nodes of a segment
// tree (a cut then made a few point locations and sorted-set updates at each of them, ~100
// binary searches; a hole costs one pass over the walk's contiguous per-source bounds): at 8,
// Y_1 (25 cuts per piece, ~400 holes per walk late in the pass) kept them on and its
// best-fit-area pass took 3x the CPU. With one node per cell (free_cells.h) a cut costs a
// few point locations and O(1) set updates; forcing the cells on wherever walks pass 64
// holes (kCutCost = 1) was then within noise on Y_1, S_1 and streams 50k (best-fit size and
// area order, two alternating runs), so 64 stays.
constexpr int32_t kCellWindow = 256;
constexpr int64_t kCellHoles = 64;
constexpr int64_t kCutCost = 64;
constexpr int32_t kCutWindow = 1024;

// Whether the free cells' cuts per placed piece (cuts over pieces) cost more than walks of
// `holes` holes each (see kCutCost).
bool cuts_cost_more(int64_t cuts, int64_t pieces, double holes) {
  return pieces > 0 && double(kCutCost) * double(cuts) > holes * double(pieces);
}

// The floors' window is decided as soon as its steps pass kFloorSteps * kFloorWindow: steps
// only add up, so the window would end above the threshold too (the same decision, made
// before the rest of its long walks). Waiting for the window's end cost pressure order a
// burst of ~6,000 walks of ~1,400 runs each at 100k buffers (14M of the pass's 24M steps;
// the walks grow with n, so that burst was quadratic), measured with WalkStats.
void PlacementEngine::index_tune() {
  IndexState& st = *index_.p;
  if (!st.cells_on && !st.cells_dead && st.walks >= kCellWindow) {
    const double holes = double(st.walk_holes) / st.walks;
    // (not while BestFitStats count the walk's holes: they describe the walk)
    if (holes > double(st.cells_need) && !best_fit_stats_) {
      st.cells_holes = holes;
      cells_start();
    }
    st.walks = 0;
    st.walk_holes = 0;
  } else if (st.cells_on && st.cells.pieces() - st.cells_mark_pieces >= kCutWindow) {
    if (cuts_cost_more(st.cells.cuts() - st.cells_mark_cuts, st.cells.pieces() - st.cells_mark_pieces, st.cells_holes))
      cells_stop();
    st.cells_mark_cuts = st.cells.cuts();
    st.cells_mark_pieces = st.cells.pieces();
  }
  if (st.index.floors()) return;
  const bool crossing = st.index.crossing(), decided = crossing && st.steps > kFloorSteps * kFloorWindow;
  if (!decided && st.queries < (crossing ? kFloorWindow : kCrossingWindow)) return;
  if (crossing) {
    if (decided || st.steps > kFloorSteps * st.queries) st.index.set_floors(true);
  } else if (st.steps > kCrossingSteps * st.queries) {
    st.index.set_crossing(true);
    Poll poll(deadline_);  // (1M placed: O(n log n)); stopped, the index stays off (answers alike)
    for (int32_t i = 0; i < static_cast<int32_t>(offsets_.size()); ++i) {
      if (poll()) {
        st.index.set_crossing(false);
        break;
      }
      if (offsets_[i] < 0) continue;
      for (int32_t k = first_piece_[i]; k < first_piece_[i + 1]; ++k) {
        const int32_t pc = piece_index_[k];
        st.index.add_crossing(piece_slots_[pc].first, piece_slots_[pc].second, placed_[pc].lo, placed_[pc].hi);
      }
    }
  }
  st.steps = st.queries = 0;
}

bool PlacementEngine::crossing_index_in_use() const { return index_usable() && index_.p->index.crossing(); }

IndexMemory PlacementEngine::index_memory() const {
  IndexMemory m;
  if (index_usable()) index_.p->index.memory(m);
  return m;
}

bool PlacementEngine::use_crossing_index() {
  if (!index_usable()) return false;
  index_.p->queries = kCrossingWindow;
  index_.p->steps = INT64_MAX / 2;
  index_tune();
  index_.p->index.set_floors(true);
  return true;
}

bool PlacementEngine::use_occupancy_index(int32_t block_slots) {
  if (!index_eligible_) return false;
  index_start(std::max(block_slots, 1));  // (0 would mean sized by density)
  return true;
}

void PlacementEngine::cells_reset() {
  IndexState& st = *index_.p;
  st.cells_on = st.cells_dead = false;
  st.cells = FreeCells();
  st.walk_holes = st.walks = 0;
  st.cells_need = kCellHoles;
}

// Switches the free cells off where their upkeep costs more than the walks they spare: built
// again only once walks pass twice as many holes as cuts per piece would cost (so that
// rebuilds, each O(placed pieces), stay few).
void PlacementEngine::cells_stop() {
  IndexState& st = *index_.p;
  const int64_t cuts = st.cells.cuts() - st.cells_mark_cuts, pieces = std::max<int64_t>(st.cells.pieces() - st.cells_mark_pieces, 1);
  st.cells_need = std::max(2 * st.cells_need, 2 * kCutCost * cuts / pieces);
  st.cells_on = false;
  st.cells = FreeCells();
}

// Switches the free cells on: cut by every placed piece (O(pieces) cells, each add
// O(log T) binary searches per cell it cuts). Stopped by the deadline or a failed add, they stay off.
void PlacementEngine::cells_start() {
  IndexState& st = *index_.p;
  st.cells.init(st.slots);
  st.cells_on = true;
  st.cells_mark_cuts = st.cells_mark_pieces = 0;
  Poll poll(deadline_);
  for (int32_t i = 0; i < static_cast<int32_t>(offsets_.size()) && st.cells_on; ++i) {
    if (poll()) st.cells_on = false;
    if (offsets_[i] < 0) continue;
    for (int32_t k = first_piece_[i]; k < first_piece_[i + 1] && st.cells_on; ++k) {
      const int32_t pc = piece_index_[k];
      if (!st.cells.add(piece_slots_[pc].first, piece_slots_[pc].second, placed_[pc].lo, placed_[pc].hi))
        st.cells_on = false;
      // A sample of the pieces tells what the upkeep will cost: a build that would not pay is
      // stopped there (a whole one cost IOPDDL's Y_1 ~1 s: 25 cuts for each of 9k pieces).
      if (st.cells.pieces() % kCutWindow == 0 && cuts_cost_more(st.cells.cuts(), st.cells.pieces(), st.cells_holes))
        return cells_stop();
    }
  }
  if (st.cells_on && cuts_cost_more(st.cells.cuts(), st.cells.pieces(), st.cells_holes)) return cells_stop();
  if (!st.cells_on) st.cells = FreeCells(), st.cells_dead = true;
}

bool PlacementEngine::use_free_cells() {
  if (!index_usable()) return false;
  index_.p->cells_holes = HUGE_VAL;  // kept on whatever their upkeep
  if (!index_.p->cells_on && !index_.p->cells_dead) cells_start();
  return index_.p->cells_on;
}

bool PlacementEngine::free_cells_in_use() const { return index_usable() && index_.p->cells_on; }

void PlacementEngine::index_add(int32_t i) {
  IndexState& st = *index_.p;
  // Only the cells will be asked about i (set_lookahead) while they stay on: the index
  // waits. (Never while the cells are off: every query walks the index then.)
  if (st.cells_on && !lookahead_pass_.empty() && index_needed_.empty()) lookahead_sweep();
  const bool defer = st.cells_on && !index_needed_.empty() && !index_needed_[i];
  if (defer) st.deferred.push_back(i);
  else index_put(i);
  for (int32_t k = first_piece_[i]; k < first_piece_[i + 1] && st.cells_on; ++k) {
    const int32_t pc = piece_index_[k];
    if (!st.cells.add(piece_slots_[pc].first, piece_slots_[pc].second, placed_[pc].lo, placed_[pc].hi))
      st.cells_on = false, st.cells_dead = true;  // placed pieces overlap: no free space to cut
  }
}

void PlacementEngine::index_put(int32_t i) const {
  IndexState& st = *index_.p;
  const int64_t before = walk_stats_ ? st.index.set_inserts() : 0;
  for (int32_t k = first_piece_[i]; k < first_piece_[i + 1]; ++k) {
    const int32_t pc = piece_index_[k];
    st.index.add(piece_slots_[pc].first, piece_slots_[pc].second, placed_[pc].lo, placed_[pc].hi);
  }
  if (walk_stats_) {
    walk_stats_->inserts += first_piece_[i + 1] - first_piece_[i];
    walk_stats_->set_inserts += st.index.set_inserts() - before;
  }
}

void PlacementEngine::index_flush() const {
  IndexState& st = *index_.p;
  for (int32_t j : st.deferred) index_put(j);
  st.deferred.clear();
}

// Records the pass; what it implies (lookahead_sweep) is worked out only once the free cells
// are on, the only time it is used: best-fit passes where they never switch on (most of
// idealloc's squeezes, start order, small instances) pay an O(n) copy, not the sweep.
void PlacementEngine::set_lookahead(std::span<const int32_t> order, Fit fit) {
  lookahead_drop();
  if (fit != Fit::kBest || list_mode_ || !built_) return;
  const int32_t n = static_cast<int32_t>(offsets_.size());
  std::vector<uint8_t> seen(n, 0);
  for (int32_t i : order)
    if (i >= 0 && i < n && offsets_[i] < 0 && !seen[i]) seen[i] = 1, lookahead_pass_.push_back(i);
  for (int32_t i = 0; i < n; ++i)
    if (offsets_[i] < 0 && !seen[i]) lookahead_pass_.push_back(i);
}

// The buffers of the pass that a query walking the index will read: those overlapping in
// time a later such query (the pieces of its sources all live during its window, so the
// others cannot change its answer). A backward sweep over the pass, keeping the slots
// covered by the windows of the walking queries seen so far (each slot marked once: a skip
// list over unmarked slots) and their count by prefix (a Fenwick tree). Stopped by the
// deadline, the lookahead is dropped (every buffer into the index).
void PlacementEngine::lookahead_sweep() {
  const int32_t n = static_cast<int32_t>(offsets_.size());
  int32_t slots = 1;
  for (const auto& [a, b] : piece_slots_) slots = std::max(slots, b);
  std::vector<int32_t> fenwick(slots + 1, 0), next_free(slots + 1);
  std::iota(next_free.begin(), next_free.end(), 0);
  auto find = [&](int32_t x) {  // the first unmarked slot >= x (slots: none)
    while (next_free[x] != x) x = next_free[x] = next_free[next_free[x]];
    return x;
  };
  auto marked_below = [&](int32_t x) {  // marked slots in [0, x)
    int32_t c = 0;
    for (; x > 0; x -= x & -x) c += fenwick[x];
    return c;
  };
  index_needed_.assign(n, 1);
  Poll poll(deadline_);
  for (auto it = lookahead_pass_.rbegin(); it != lookahead_pass_.rend(); ++it) {
    if (poll()) return lookahead_drop();
    const int32_t i = *it;
    bool meets = false;
    for (int32_t k = first_piece_[i]; k < first_piece_[i + 1] && !meets; ++k) {
      const auto [a, b] = piece_slots_[piece_index_[k]];
      meets = marked_below(b) > marked_below(a);
    }
    index_needed_[i] = meets;
    if (cells_query(i)) continue;  // the free cells answer it: it walks no index
    for (int32_t k = first_piece_[i]; k < first_piece_[i + 1]; ++k) {
      const auto [a, b] = piece_slots_[piece_index_[k]];
      for (int32_t x = find(a); x < b; x = find(x + 1)) {
        next_free[x] = x + 1;
        for (int32_t y = x + 1; y <= slots; y += y & -y) ++fenwick[y];
      }
    }
  }
}

void PlacementEngine::lookahead_drop() {
  if (index_usable() && !index_.p->deferred.empty()) index_flush();
  index_.p->deferred.clear();
  index_needed_.clear();
  lookahead_pass_.clear();
  lookahead_next_ = 0;
}

void PlacementEngine::index_sources(int32_t i, bool all) const {
  IndexState& st = *index_.p;
  if (all && !st.deferred.empty()) index_flush();
  st.src.clear();
  st.runs.clear();
  for (int32_t k = first_piece_[i]; k < first_piece_[i + 1]; ++k) {
    const int32_t pc = piece_index_[k];
    st.index.sources(piece_slots_[pc].first, piece_slots_[pc].second, pieces_[pc].lo, pieces_[pc].hi,
                     st.src, st.runs);
  }
  OccupancyIndex::resolve(st.src, st.runs);
}

namespace {

// The first run of a merged set that ends above `lo` (the only one that can meet a range
// starting at lo, or else the next one above it).
inline const OccupancyIndex::Run* first_above(const OccupancyIndex::Source& s, int64_t lo) {
  return std::partition_point(s.begin, s.end, [&](const OccupancyIndex::Run& r) { return r.hi <= lo; });
}

}  // namespace

// The lowest offset y >= x, aligned or x itself, at which the query collides with no
// source (OccupancyIndex::settle). Reading next[] instead of every source's cursor at every
// move matters: the round-robin over the sources' runs (scattered in memory) that it replaced
// read ~m cursors per move for m = O(log T) sources (best-fit in size order on 100k-buffer
// training traces: a pass per hole, ~1,000 holes per query).
int64_t PlacementEngine::index_settle(int64_t x, int64_t align) const {
  IndexState& st = *index_.p;
  return OccupancyIndex::settle(st.src.data(), st.next.data(), st.src.size(), x, align, st.steps, st.low);
}

namespace {

int length_class(int64_t length) { return std::bit_width(static_cast<uint64_t>(length)) - 1; }

// Adds one best-fit query's holes (by length class, then cleared) to the stats.
void tally(BestFitStats& s, std::array<int64_t, 64>& by_class, int64_t size, int64_t best_slack) {
  if (best_slack == INT64_MAX) return;  // no hole fits: the answer is above everything
  const int best = length_class(best_slack + size - 1);
  ++s.queries;
  s.classes += best - length_class(size) + 1;
  s.exact += best_slack == 1;
  for (int c = 0; c < 64; ++c) {
    s.holes += by_class[c];
    if (c == best || c == best + 1) s.near_best += by_class[c];
  }
  by_class.fill(0);
}

}  // namespace

// Best-fit from the free cells (free_cells.h), for a query of one piece at relative addresses
// [0, size), alignment 1, living at most kCellSpan slots (cells_query; the walk answers any
// other). The same answer as the walk's: the least hole length that fits, the lowest
// among equals, else the lowest offset above everything live during the query.
bool PlacementEngine::cells_query(int32_t i) const {
  if (first_piece_[i + 1] - first_piece_[i] != 1 || problem_->buffers[i].alignment != 1) return false;
  const int32_t pc = piece_index_[first_piece_[i]];
  return pieces_[pc].lo == 0 && piece_slots_[pc].second - piece_slots_[pc].first <= kCellSpan;
}

int64_t PlacementEngine::cells_find(int32_t i) const {
  const int32_t pc = piece_index_[first_piece_[i]];
  const Piece& q = pieces_[pc];
  const int32_t a = piece_slots_[pc].first, b = piece_slots_[pc].second;  // (b is captured below)
  IndexState& st = *index_.p;
  const int64_t size = q.hi;
  // The cells lasting through the query's slots are its holes as they are.
  FreeCells::Best best = st.cells.best_lasting(a, b, size);
  // The others stabbing a are cut before b: the query's holes inside them are the ranges free
  // at every later slot too, followed through the cells that start where each one ends
  // (FreeCells::common_free; address order, as the walk over the index found them).
  int64_t top = -1;  // the space above everything, if a cut cell reaches it
  st.cells.ending_within(a, b, [&](const FreeCells::Cell& c) {
    if (c.hi - c.lo < size) return;
    st.cells.common_free(c.t1, b, c.lo, c.hi, [&](int64_t lo, int64_t hi) {
      if (hi == FreeCells::kTop) top = lo;
      else if (hi - lo >= size && (hi - lo < best.len || (hi - lo == best.len && lo < best.lo))) best = {hi - lo, lo};
    });
  });
  if (best.lo >= 0) return best.lo;
  if (top >= 0) return top;
  return st.cells.at(a, FreeCells::kTop - 1).lo;  // the top cell lasts through [a, b)
}

// First-fit and best-fit on the index, with the semantics of the scans over forbidden
// ranges in find_offset.
int64_t PlacementEngine::index_find(int32_t i, Fit fit) const {
  const int64_t align = problem_->buffers[i].alignment;
  IndexState& st = *index_.p;
  const bool short_query = fit == Fit::kBest && cells_query(i);  // one the free cells answer
  if (short_query && st.cells_on) return cells_find(i);
  // A best-fit query the cells do not answer, of a buffer still to come in the lookahead's
  // pass, meets no deferred buffer (lookahead_sweep): they may wait.
  index_sources(i, !(fit == Fit::kBest && !short_query && !index_needed_.empty() && offsets_[i] < 0));
  st.next.assign(st.src.size(), INT64_MIN);
  ++st.queries;
  // Offsets below the floors collide (OccupancyIndex::floor), so neither fit has a hole there.
  int64_t x = 0;
  const int64_t floor_steps_before = walk_stats_ ? st.index.floor_steps() : 0;
  for (int32_t k = first_piece_[i]; k < first_piece_[i + 1]; ++k) {
    const int32_t pc = piece_index_[k];
    const Piece& q = pieces_[pc];
    x = std::max(x, st.index.floor(piece_slots_[pc].first, piece_slots_[pc].second, q.hi - q.lo) - q.lo);
  }
  const int64_t steps_before = st.steps;
  if (walk_stats_) {
    ++walk_stats_->queries;
    walk_stats_->sources += static_cast<int64_t>(st.src.size());
    walk_stats_->floor_steps += st.index.floor_steps() - floor_steps_before;
  }
  x = index_settle(align_up(x, align), align);
  if (fit == Fit::kFirst) {
    if (walk_stats_) walk_stats_->steps += st.steps - steps_before;
    return x;
  }
  int64_t best = -1, best_slack = INT64_MAX;
  const int64_t size = problem_->buffers[i].size;
  for (;;) {
    // x is feasible, so every source's next[] lies above it: the lowest of them (low, left
    // by index_settle) is the first offset above x that some run blocks.
    const int64_t next = st.low;
    // At the top, or after an exact fit (later holes can only tie, and ties go low): done.
    if (next == INT64_MAX || best_slack == 1) {
      ++st.walks;
      if (best_fit_stats_) tally(*best_fit_stats_, st.holes_by_class, size, best_slack);
      if (walk_stats_) walk_stats_->steps += st.steps - steps_before;
      return best >= 0 ? best : x;
    }
    st.walk_holes += short_query;
    if (best_fit_stats_) ++st.holes_by_class[length_class(next - x + size - 1)];
    if (next - x < best_slack) best_slack = next - x, best = x;
    if (best_slack > 1) x = index_settle(next, align);
  }
}

namespace {

// Bit k (k < 16) set iff node k is live during the ranks [start, end): its end rank is
// above start and its start rank below end. List mode's ranks fit in 16 bits (at most
// 2 kListMax endpoints), so one SSE2 comparison covers 8 nodes.
inline uint32_t live_bits16(const int16_t* starts, const int16_t* ends, int16_t start, int16_t end) {
#if defined(__SSE2__)
  const __m128i s = _mm_set1_epi16(start), e = _mm_set1_epi16(end);
  auto half = [&](int at) {
    const __m128i ns = _mm_loadu_si128(reinterpret_cast<const __m128i*>(starts + at));
    const __m128i ne = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ends + at));
    return _mm_and_si128(_mm_cmpgt_epi16(ne, s), _mm_cmplt_epi16(ns, e));
  };
  return uint32_t(_mm_movemask_epi8(_mm_packs_epi16(half(0), half(8))));
#else
  uint32_t bits = 0;
  for (int k = 0; k < 16; ++k) bits |= uint32_t((ends[k] > start) & (starts[k] < end)) << k;
  return bits;
#endif
}

}  // namespace

// Calls f(node) for the placed buffers live with i, in increasing offset order, until f
// returns false. The liveness test covers 16 nodes at once (a bit mask), and only the
// live ones are visited: on dense instances about a third of the placed buffers are live
// with a query, and none of the others costs a branch.
template <class F>
void PlacementEngine::for_each_live(int32_t i, F&& f) const {
  const int16_t start = int16_t(ranks_[i].first), end = int16_t(ranks_[i].second);
  const int16_t* starts = list_start_.data();
  const int16_t* ends = list_end_.data();
  // Blocks of 64 (four masks of 16): the visiting loop's exit, the one branch it cannot
  // predict, comes once per 64 nodes.
  for (size_t at = 0, count = list_count_; at < count; at += 64) {
    uint64_t bits = live_bits16(starts + at, ends + at, start, end);
    for (size_t g = 16; g < 64 && at + g < count; g += 16)
      bits |= uint64_t(live_bits16(starts + at + g, ends + at + g, start, end)) << g;
    for (; bits != 0; bits &= bits - 1)
      if (!f(by_offset_[at + size_t(std::countr_zero(bits))])) return;
  }
}

// x collides with a placed range [off, top) iff x + size > off and x < top: the forbidden
// range is [off - size + 1, top), so increasing offset is increasing lo.
template <class F>
void PlacementEngine::scan_list(int32_t i, F&& f) const {
  const int64_t size = problem_->buffers[i].size;
  for_each_live(i, [&](const Node& n) { return f(Forbidden{n.off - size + 1, n.top}); });
}

template <class F>
void PlacementEngine::scan_forbidden(int32_t i, F&& f) const {
  if (list_mode_) return scan_list(i, f);
  collect_forbidden(i, scratch_);
  for (const Forbidden& r : scratch_)
    if (!f(r)) return;
}

// The first-fit scan of list mode for alignment 1: the lowest gap between live buffers.
int64_t PlacementEngine::first_fit_list(int32_t i) const {
  const int64_t size = problem_->buffers[i].size;
  int64_t x = 0;
  for_each_live(i, [&](const Node& n) {
    if (x + size <= n.off) return false;  // the gap below n fits
    x = std::max(x, n.top);
    return true;
  });
  return x;
}

// The best-fit scan of list mode for alignment 1: the tightest gap, else above everything.
int64_t PlacementEngine::best_fit_list(int32_t i) const {
  const int64_t size = problem_->buffers[i].size;
  // A hole [x, n.off) below a live buffer holds i iff hole = n.off - x >= size; keep the
  // one with the least d = hole - size (the first among equals).
  int64_t x = 0, best = -1;
  uint64_t best_d = UINT64_MAX;
  for_each_live(i, [&](const Node& n) {
    const int64_t hole = n.off - x;  // offsets and x lie in [0, 2^63): no overflow
    // Holes that fit are few per query (most live buffers start below x), so a branch,
    // rarely taken, costs less than computing the comparison for every buffer.
    if (hole >= size && uint64_t(hole - size) < best_d) {
      best_d = uint64_t(hole - size);
      best = x;
    }
    x = std::max(x, n.top);
    return true;
  });
  return best >= 0 ? best : x;
}

// Insertion from the top: the squeeze orders place buffers roughly by increasing offset, so
// a new node usually lands a few places below the top (on average 9 on MiniMalloc's A, 21
// on F, 27 on J); it is moved down as in insertion sort, which beats three memmove calls
// for up to a few dozen places. A long way down falls back to a binary search and one
// memmove per array.
void PlacementEngine::list_insert(int32_t i) {
  const int64_t off = offsets_[i];
  const Node node{off, off + problem_->buffers[i].size};
  size_t k = list_count_++;
  Node* n = by_offset_.data();
  int16_t* ls = list_start_.data();
  int16_t* le = list_end_.data();
  const size_t stop = k > 32 ? k - 32 : 0;
  for (; k > stop && n[k - 1].off > off; --k) {
    n[k] = n[k - 1];
    ls[k] = ls[k - 1];
    le[k] = le[k - 1];
  }
  if (k > 0 && n[k - 1].off > off) {
    const size_t at = size_t(std::upper_bound(n, n + k, off, [](int64_t o, const Node& m) {
                               return o < m.off;
                             }) - n);
    std::memmove(n + at + 1, n + at, (k - at) * sizeof(Node));
    std::memmove(ls + at + 1, ls + at, (k - at) * sizeof(int16_t));
    std::memmove(le + at + 1, le + at, (k - at) * sizeof(int16_t));
    k = at;
  }
  n[k] = node;
  ls[k] = int16_t(ranks_[i].first);
  le[k] = int16_t(ranks_[i].second);
}

// Removes buffer i's node: one with its offset, top and lifetime. Nodes equal in all four
// are interchangeable for every scan, so removing any of them is removing i's.
void PlacementEngine::list_remove(int32_t i) {
  const int64_t off = offsets_[i], top = off + problem_->buffers[i].size;
  size_t k = 0;
  while (by_offset_[k].off != off || by_offset_[k].top != top ||
         list_start_[k] != ranks_[i].first || list_end_[k] != ranks_[i].second)
    ++k;
  for (--list_count_; k < list_count_; ++k) {
    by_offset_[k] = by_offset_[k + 1];
    list_start_[k] = list_start_[k + 1];
    list_end_[k] = list_end_[k + 1];
  }
  list_start_[k] = INT16_MAX;  // never live again
  list_end_[k] = INT16_MIN;
}

void PlacementEngine::set_leaf(int32_t piece, int64_t value) {
  size_t node = static_cast<size_t>(leaves_) + piece;
  tree_[node] = value;
  for (node /= 2; node >= 1; node /= 2) {
    const int64_t v = std::max(tree_[2 * node], tree_[2 * node + 1]);
    if (tree_[node] == v) break;
    tree_[node] = v;
  }
}

namespace {

// Stable LSD radix sort of forbidden ranges by low end, kBits per pass, over the keys'
// actual span [lo, lo + span] (so small spans need few passes).
template <int kBits, class Range>
void radix_sort_by_lo(std::vector<Range>& v, std::vector<Range>& tmp, int64_t lo, uint64_t span) {
  constexpr size_t kBuckets = size_t{1} << kBits;
  tmp.resize(v.size());
  for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += kBits) {
    size_t count[kBuckets + 1] = {};
    auto digit = [&](const Range& f) {
      return ((static_cast<uint64_t>(f.lo) - static_cast<uint64_t>(lo)) >> shift) & (kBuckets - 1);
    };
    for (const auto& f : v) ++count[digit(f) + 1];
    for (size_t b = 0; b < kBuckets; ++b) count[b + 1] += count[b];
    for (const auto& f : v) tmp[count[digit(f)]++] = f;
    v.swap(tmp);
  }
}

}  // namespace

// Sorts forbidden ranges by their low end. The order among equal low ends never changes a
// fit (the scans only take the max of their high ends), so any sort will do; the fastest
// depends on the size: insertion sort for short lists (no allocation), an 8-bit radix sort
// for mid-sized lists over a small key span (typical of one accelerator's memory; at most
// 3 passes, and no mispredicted comparisons), the comparison sort for other mid-sized ones,
// and an 11-bit radix sort for the thousands a dense instance gives per query.
void PlacementEngine::sort_by_lo(std::vector<Forbidden>& v, std::vector<Forbidden>& tmp) {
  if (v.size() <= 24) {
    for (size_t k = 1; k < v.size(); ++k) {
      const Forbidden f = v[k];
      size_t j = k;
      for (; j > 0 && v[j - 1].lo > f.lo; --j) v[j] = v[j - 1];
      v[j] = f;
    }
    return;
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const Forbidden& f : v) lo = std::min(lo, f.lo), hi = std::max(hi, f.lo);
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (v.size() >= 256) return radix_sort_by_lo<11>(v, tmp, lo, span);
  if (v.size() >= 48 && span < (uint64_t{1} << 24)) return radix_sort_by_lo<8>(v, tmp, lo, span);
  std::sort(v.begin(), v.end(), [](const Forbidden& a, const Forbidden& b) { return a.lo < b.lo; });
}

void PlacementEngine::collect_forbidden(int32_t i, std::vector<Forbidden>& out) const {
  out.clear();
  // Explicit stack: the descent visits only nodes inside the prefix of pieces starting
  // before the query's end whose largest placed end exceeds the query's start.
  struct Frame {
    size_t node;
    int32_t lo, hi;
  };
  Frame stack[64];
  for (int32_t k = first_piece_[i]; k < first_piece_[i + 1]; ++k) {
    const Piece& q = pieces_[piece_index_[k]];
    const int32_t prefix = static_cast<int32_t>(
        std::lower_bound(piece_starts_.begin(), piece_starts_.end(), q.end) -
        piece_starts_.begin());
    if (prefix == 0) continue;
    int top = 0;
    stack[top++] = {1, 0, leaves_};
    while (top > 0) {
      const Frame f = stack[--top];
      if (f.lo >= prefix || tree_[f.node] <= q.start) continue;
      if (f.hi - f.lo <= 32) {  // small subtrees: a linear scan of the leaves is cheaper
        const int32_t stop = std::min(f.hi, prefix);
        for (int32_t leaf = f.lo; leaf < stop; ++leaf)
          if (tree_[static_cast<size_t>(leaves_) + leaf] > q.start)
            // x collides iff x + q.hi > placed lo and x + q.lo < placed hi.
            out.push_back({placed_[leaf].lo - q.hi + 1, placed_[leaf].hi - q.lo});
        continue;
      }
      const int32_t mid = (f.lo + f.hi) / 2;
      stack[top++] = {2 * f.node + 1, mid, f.hi};
      stack[top++] = {2 * f.node, f.lo, mid};
    }
  }
  sort_by_lo(out, radix_scratch_);
}

// Queries that meet this many placed pieces count as dense; after kDenseQueries of them
// the occupancy index is switched on (at the next place()).
constexpr size_t kDenseRanges = 256;
constexpr int32_t kDenseQueries = 32;

int64_t PlacementEngine::find_offset(int32_t i, Fit fit) const {
  const int64_t align = problem_->buffers[i].alignment;
  int64_t x = 0;
  if (list_mode_ && align == 1)
    return fit == Fit::kFirst ? first_fit_list(i) : best_fit_list(i);
  if (index_usable()) return index_find(i, fit);
  if (!list_mode_) {
    collect_forbidden(i, scratch_);
    if (scratch_.size() >= kDenseRanges) ++dense_queries_;
  }
  // The ranges, collected above when not in list mode.
  auto scan = [&](auto&& f) {
    if (list_mode_) return scan_list(i, f);
    for (const Forbidden& r : scratch_)
      if (!f(r)) return;
  };
  if (fit == Fit::kFirst) {
    scan([&](const Forbidden& f) {
      if (x < f.lo) return false;
      if (x < f.hi) x = align_up(f.hi, align);
      return true;
    });
    return x;
  }
  // Best fit: among the bounded free ranges of feasible x, take the one with the fewest
  // feasible positions (the tightest hole); else the first position above everything.
  int64_t best = -1, best_slack = INT64_MAX;
  scan([&](const Forbidden& f) {
    if (x < f.lo) {
      const int64_t slack = f.lo - x;
      if (slack < best_slack) best_slack = slack, best = x;
    }
    if (x < f.hi) x = align_up(f.hi, align);
    return true;
  });
  return best >= 0 ? best : x;
}

bool PlacementEngine::fits_at(int32_t i, int64_t offset) const {
  if (index_usable()) {
    index_sources(i);
    for (const OccupancyIndex::Source& s : index_.p->src) {
      const OccupancyIndex::Run* r = first_above(s, offset + s.ql);
      if (r != s.end && r->lo < offset + s.qh) return false;
    }
    return true;
  }
  bool ok = true;
  scan_forbidden(i, [&](const Forbidden& f) {
    if (f.lo > offset) return false;
    if (offset < f.hi) ok = false;
    return ok;
  });
  return ok;
}

void PlacementEngine::place(int32_t i, int64_t offset) {
  if (!lookahead_pass_.empty()) {  // the lookahead holds while the pass is followed
    while (lookahead_next_ < lookahead_pass_.size() && offsets_[lookahead_pass_[lookahead_next_]] >= 0)
      ++lookahead_next_;
    if (lookahead_next_ < lookahead_pass_.size() && lookahead_pass_[lookahead_next_] == i) ++lookahead_next_;
    else lookahead_drop();
  }
  if (offsets_[i] < 0) ++placed_count_;
  else if (list_mode_) list_remove(i);
  else index_valid_ = false;  // the index cannot remove ranges: unused until clear()
  offsets_[i] = offset;
  peak_ = std::max(peak_, offset + problem_->buffers[i].size);
  if (list_mode_) return list_insert(i);
  for (int32_t k = first_piece_[i]; k < first_piece_[i + 1]; ++k) {
    const int32_t pc = piece_index_[k];
    placed_[pc] = {offset + pieces_[pc].lo, offset + pieces_[pc].hi};
    set_leaf(pc, pieces_[pc].end);
  }
  if (index_usable()) index_add(i), index_tune();
  else if (!index_on_ && index_eligible_ && dense_queries_ >= kDenseQueries)
    index_start(0);  // blocks sized by the pieces per slot
}

void PlacementEngine::clear() {
  const int32_t n = static_cast<int32_t>(offsets_.size());
  if (list_mode_) {
    std::fill_n(list_start_.begin(), list_count_, INT16_MAX);
    std::fill_n(list_end_.begin(), list_count_, INT16_MIN);
    list_count_ = 0;
  } else if (placed_count_ * 8 > n) {
    std::fill(tree_.begin(), tree_.end(), INT64_MIN);
  } else {
    for (int32_t i = 0; i < n; ++i) {
      if (offsets_[i] < 0) continue;
      for (int32_t k = first_piece_[i]; k < first_piece_[i + 1]; ++k)
        set_leaf(piece_index_[k], INT64_MIN);
    }
  }
  std::fill(offsets_.begin(), offsets_.end(), -1);
  peak_ = 0;
  placed_count_ = 0;
  if (index_on_) index_.p->index.clear(), index_.p->steps = index_.p->queries = 0, cells_reset();
  index_.p->deferred.clear();  // (first: they are not to go into the index just cleared)
  lookahead_drop();
  index_valid_ = true;
}

GreedyResult place_in_order(PlacementEngine& engine, std::span<const int32_t> order, Fit fit,
                            int64_t abort_above, const Deadline* deadline, std::span<const int64_t> preset) {
  GreedyResult r;
  if (!engine.built()) return r;  // its construction ran out of time
  engine.clear();
  const auto& bufs = engine.problem().buffers;
  int32_t count = 0;
  const auto stop = [&] { return deadline && (++count & 255) == 0 && deadline->expired(); };
  // Polled too: a window's bands (peak-window, 1M buffers) are ~250k presets, 0.2 s of
  // placing that ran past the limit unpolled.
  for (int32_t i = 0; i < static_cast<int32_t>(bufs.size()); ++i) {
    if (bufs[i].offset) engine.place(i, *bufs[i].offset);
    else if (!preset.empty() && preset[i] >= 0) engine.place(i, preset[i]);
    else continue;
    if (stop()) return r;
  }
  if (engine.peak() > abort_above) return r;
  engine.set_lookahead(order, fit);
  for (int32_t i : order) {
    if (engine.is_placed(i)) continue;
    engine.place(i, engine.find_offset(i, fit));
    if (engine.peak() > abort_above || stop()) return r;
  }
  // Buffers the order left out are placed last, in index order (polled alike: an order
  // that make_order's deadline cut short is empty, and this loop then places them all).
  if (engine.placed_count() < static_cast<int32_t>(bufs.size()))
    for (int32_t i = 0; i < static_cast<int32_t>(bufs.size()); ++i) {
      if (engine.is_placed(i)) continue;
      engine.place(i, engine.find_offset(i, fit));
      if (engine.peak() > abort_above || stop()) return r;
    }
  r.complete = true;
  r.solution.offsets = engine.offsets();
  r.solution.peak = engine.peak();
  return r;
}

GreedyResult place_in_order(const Problem& problem, std::span<const int32_t> order, Fit fit,
                            int64_t abort_above, const Deadline* deadline) {
  PlacementEngine engine(problem, deadline);
  return place_in_order(engine, order, fit, abort_above, deadline);
}

}  // namespace memplan
