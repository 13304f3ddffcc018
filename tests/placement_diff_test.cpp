// Differential test: PlacementEngine vs a direct O(n^2) reference written here from the
// definitions (first-fit = lowest feasible aligned offset; best-fit = the aligned hole start
// whose distance to the next blocking interval is smallest, ties lowest, else the lowest
// offset above everything; a hole is a maximal free range of byte offsets).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <random>

#include "memplan/generate.h"
#include "memplan/orders.h"
#include "memplan/placement.h"
#include "memplan/validate.h"
#include "core/occupancy_index.h"
#include "testing.h"

namespace memplan {
namespace {

struct Interval {
  int64_t lo, hi;  // offsets x in [lo, hi) collide
};

std::vector<Interval> forbidden(const Problem& p, const std::vector<int64_t>& off, int32_t i) {
  std::vector<Interval> out;
  const auto qs = pieces_of(p.buffers[i]);
  for (int32_t j = 0; j < static_cast<int32_t>(p.buffers.size()); ++j) {
    if (j == i || off[j] < 0) continue;
    for (const Piece& o : pieces_of(p.buffers[j]))
      for (const Piece& q : qs)
        if (q.start < o.end && o.start < q.end)
          out.push_back({off[j] + o.lo - q.hi + 1, off[j] + o.hi - q.lo});
  }
  return out;
}

bool feasible(const std::vector<Interval>& f, int64_t x) {
  for (const Interval& v : f)
    if (v.lo <= x && x < v.hi) return false;
  return true;
}

int64_t align_up_ref(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

int64_t ref_offset(const Problem& p, const std::vector<int64_t>& off, int32_t i, Fit fit) {
  const int64_t a = p.buffers[i].alignment;
  const auto f = forbidden(p, off, i);
  // Maximal free integer ranges [s, e) start at 0 or at some interval's hi; each offers its
  // first aligned point, if that is still inside it.
  struct Hole {
    int64_t x, end;  // end = INT64_MAX: unbounded
  };
  std::vector<Hole> holes;
  auto consider = [&](int64_t s) {
    if (s < 0 || !feasible(f, s) || (s > 0 && feasible(f, s - 1))) return;
    int64_t e = INT64_MAX;
    for (const Interval& v : f)
      if (v.lo > s) e = std::min(e, v.lo);
    const int64_t x = align_up_ref(s, a);
    if (x < e && feasible(f, x)) holes.push_back({x, e});
  };
  consider(0);
  for (const Interval& v : f) consider(v.hi);
  std::sort(holes.begin(), holes.end(), [](const Hole& l, const Hole& r) { return l.x < r.x; });
  holes.erase(std::unique(holes.begin(), holes.end(),
                          [](const Hole& l, const Hole& r) { return l.x == r.x; }),
              holes.end());
  EXPECT_FALSE(holes.empty());
  if (fit == Fit::kFirst) return holes.front().x;
  int64_t best = -1, best_slack = INT64_MAX;
  for (const Hole& h : holes)
    if (h.end != INT64_MAX && h.end - h.x < best_slack) best_slack = h.end - h.x, best = h.x;
  return best >= 0 ? best : holes.back().x;
}

// Places every buffer of p in a random order, checking find_offset against the reference
// and fits_at at every x up to the answer (or, when `probe` is 0, at no x), then replays the
// order through place_in_order. Returns the number of placements checked.
// With `index_block` > 0 the engine answers from its occupancy index (blocks of that many
// time slots) wherever the instance allows it.
// With `crossing` too, its crossing sets are switched on from the start (the engine
// otherwise switches them on only once its walks grow long).
int check_instance(const Problem& p, Fit fit, std::mt19937_64& rng, int trial, int64_t probe,
                   int32_t index_block = 0, bool crossing = false) {
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::vector<int32_t> order(n);
  for (int32_t k = 0; k < n; ++k) order[k] = k;
  std::shuffle(order.begin(), order.end(), rng);
  PlacementEngine engine(p);
  if (index_block > 0 && engine.use_occupancy_index(index_block) && crossing)
    EXPECT_TRUE(engine.use_crossing_index() && engine.crossing_index_in_use());
  std::vector<int64_t> off(n, -1);
  int checked = 0;
  // Pre-placed buffers first (the reference treats them like any placed buffer).
  for (int32_t k = 0; k < n; ++k)
    if (p.buffers[k].offset) {
      engine.place(k, *p.buffers[k].offset);
      off[k] = *p.buffers[k].offset;
    }
  for (int32_t k : order) {
    if (off[k] >= 0) continue;
    const int64_t want = ref_offset(p, off, k, fit);
    EXPECT_EQ(engine.find_offset(k, fit), want) << "trial " << trial << " buffer " << k;
    if (engine.find_offset(k, fit) != want) return checked;
    const auto f = forbidden(p, off, k);
    for (int64_t x = std::max<int64_t>(0, want - probe); x < want + 3 && probe > 0; ++x) {
      EXPECT_EQ(engine.fits_at(k, x), feasible(f, x)) << "trial " << trial << " x " << x;
      if (engine.fits_at(k, x) != feasible(f, x)) return checked;
    }
    engine.place(k, want);
    off[k] = want;
    ++checked;
  }
  EXPECT_TRUE(testing::brute_force_valid(p, off)) << "trial " << trial;
  const auto again = place_in_order(engine, order, fit);
  EXPECT_TRUE(again.complete);
  EXPECT_EQ(again.solution.offsets, off) << "trial " << trial;
  return checked;
}

TEST(PlacementDiff, MatchesReferenceOnRandomInstances) {
  std::mt19937_64 rng(2026);
  int checked = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 25;
    spec.horizon = 4 + trial % 20;
    spec.max_size = 1 + trial % 16;
    spec.alignment = trial % 3 != 0;
    spec.gaps = trial % 2 == 0;
    Problem p = testing::random_problem(rng, spec);
    const Fit fit = trial % 4 < 2 ? Fit::kFirst : Fit::kBest;
    checked += check_instance(p, fit, rng, trial, INT64_MAX);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(checked, 20000);
}

// place_in_order's `preset` (offsets fixed without copying the problem, as exact's peak
// windows fix theirs) places exactly as the same offsets made pre-placed in a copy: the
// preset buffers at their offsets, the rest around them, every offset the copy's.
TEST(PlacementDiff, PresetOffsetsPlaceLikePrePlacedBuffers) {
  std::mt19937_64 rng(2031);
  int differs = 0;  // trials where the preset moved the others (so it was not ignored)
  for (int trial = 0; trial < 1500; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 2 + trial % 30;
    spec.horizon = 4 + trial % 20;
    spec.max_size = 1 + trial % 16;
    spec.alignment = trial % 3 != 0;
    spec.gaps = trial % 2 == 0;
    const Problem p = testing::random_problem(rng, spec);
    const Fit fit = trial % 2 ? Fit::kFirst : Fit::kBest;
    std::vector<int32_t> order(p.buffers.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    // Fix a random subset at offsets of another order's plan, raised by a random aligned
    // amount (a valid set of fixed offsets that first fit alone would not choose).
    const GreedyResult base = place_in_order(p, order, Fit::kFirst);
    ASSERT_TRUE(base.complete);
    std::vector<int64_t> preset(p.buffers.size(), -1);
    const int64_t lift = static_cast<int64_t>(rng() % 4) * 64;
    Problem copy = p;
    for (size_t i = 0; i < p.buffers.size(); ++i)
      if (!p.buffers[i].offset && rng() % 3 == 0) preset[i] = base.solution.offsets[i] + lift;
    for (size_t i = 0; i < p.buffers.size(); ++i)
      if (preset[i] >= 0) copy.buffers[i].offset = preset[i];
    std::reverse(order.begin(), order.end());
    PlacementEngine engine(p);
    const GreedyResult with = place_in_order(engine, order, fit, INT64_MAX, nullptr, preset);
    const GreedyResult want = place_in_order(copy, order, fit);
    ASSERT_TRUE(with.complete && want.complete) << "trial " << trial;
    EXPECT_EQ(with.solution.offsets, want.solution.offsets) << "trial " << trial;
    EXPECT_EQ(with.solution.peak, want.solution.peak) << "trial " << trial;
    for (size_t i = 0; i < p.buffers.size(); ++i)
      if (preset[i] >= 0) EXPECT_EQ(with.solution.offsets[i], preset[i]) << "trial " << trial;
    EXPECT_TRUE(testing::brute_force_valid(copy, with.solution.offsets)) << "trial " << trial;
    differs += place_in_order(engine, order, fit).solution.offsets != want.solution.offsets;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(differs, 300);
}

// The same through the occupancy index, with time blocks of 1, 2, 3 and 32 slots (so that
// queries meet both tree nodes and partly covered blocks). Instances with gaps use it
// whatever their size; gap-free ones only past the small-instance mode, below.
TEST(PlacementDiff, OccupancyIndexMatchesReference) {
  std::mt19937_64 rng(2027);
  int checked = 0, indexed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 30;
    spec.horizon = 4 + trial % 40;
    spec.max_size = 1 + trial % 16;
    spec.alignment = trial % 3 != 0;
    spec.gaps = true;
    Problem p = testing::random_problem(rng, spec);
    const Fit fit = trial % 4 < 2 ? Fit::kFirst : Fit::kBest;
    const int32_t blocks[] = {1, 2, 3, 32};
    PlacementEngine probe(p);
    indexed += probe.use_occupancy_index(1);
    checked += check_instance(p, fit, rng, trial, INT64_MAX, blocks[trial % 4], trial % 8 < 4);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(checked, 20000);
  EXPECT_GT(indexed, 2500);  // the random gaps rarely leave a piece of zero size
}

// A first-fit or best-fit sweep over the sorted forbidden ranges (the engine's scan before
// the index, kept as the reference for instances too large for ref_offset).
int64_t sweep_offset(const Problem& p, const std::vector<int64_t>& off, int32_t i, Fit fit) {
  auto f = forbidden(p, off, i);
  std::sort(f.begin(), f.end(), [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
  const int64_t a = p.buffers[i].alignment;
  int64_t x = 0, best = -1, best_slack = INT64_MAX;
  for (const Interval& v : f) {
    if (x < v.lo) {
      if (fit == Fit::kFirst) return x;
      if (v.lo - x < best_slack) best_slack = v.lo - x, best = x;
    }
    if (x < v.hi) x = align_up_ref(v.hi, a);
  }
  return best >= 0 ? best : x;
}

// Places p's buffers in `order` on the engine, checking each offset against the sweep;
// returns the offsets (empty after a mismatch, which is reported).
std::vector<int64_t> place_against_sweep(const Problem& p, PlacementEngine& engine,
                                         const std::vector<int32_t>& order, Fit fit, int trial) {
  std::vector<int64_t> off(p.buffers.size(), -1);
  for (int32_t k : order) {
    const int64_t want = sweep_offset(p, off, k, fit);
    const int64_t got = engine.find_offset(k, fit);
    EXPECT_EQ(got, want) << "trial " << trial << " buffer " << k;
    if (got != want) return {};
    engine.place(k, want);
    off[k] = want;
  }
  return off;
}

// The index's blocks shrink with the pieces per time slot (occupancy_index.h, block_for):
// all buffers live over the same slots get blocks of one slot (whole blocks, merged runs),
// not one block where every query sorts every placed piece.
TEST(PlacementDiff, IndexBlocksShrinkWithPiecesPerSlot) {
  EXPECT_EQ(OccupancyIndex::block_for(2, 1'000'000), 1);      // all live at once
  EXPECT_EQ(OccupancyIndex::block_for(2'000'000, 1'000'000), OccupancyIndex::kDefaultBlock);  // a dnn trace
  EXPECT_EQ(OccupancyIndex::block_for(1000, 4000), OccupancyIndex::kDefaultBlock / 4);
  EXPECT_EQ(OccupancyIndex::block_for(0, 0), OccupancyIndex::kDefaultBlock);
  // Offsets stay first fit's with blocks of one slot: every buffer live over the same two
  // slots, against the engine without the index.
  Problem p;
  for (int i = 0; i < 3000; ++i) {
    Buffer b;
    b.id = "b" + std::to_string(i);
    b.start = 0, b.end = 1 + i % 2, b.size = 1 + (i * 7919) % 64;
    p.buffers.push_back(b);
  }
  std::vector<int32_t> order(p.buffers.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int32_t>(k);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return p.buffers[a].size > p.buffers[b].size; });
  for (const Fit fit : {Fit::kFirst, Fit::kBest}) {
    PlacementEngine engine(p);
    const std::vector<int64_t> off = place_against_sweep(p, engine, order, fit, 0);
    EXPECT_TRUE(engine.occupancy_index_in_use());
    EXPECT_TRUE(validate(p, off).ok);
  }
}

// Training-shaped instances past the small-instance mode (thousands of buffers, hundreds
// live): the engine switches the index on by itself and still gives the sweep's offsets,
// for size-descending and random orders, both fits, with and without alignment.
TEST(PlacementDiff, SwitchesToTheIndexOnManyLiveBuffers) {
  for (int trial = 0; trial < 4; ++trial) {
    GenerateOptions o;
    o.kind = "training";
    o.buffers = 2400 + 300 * trial;
    o.seed = 40 + trial;
    Problem p = generate(o);
    if (trial % 2 == 1)
      for (size_t k = 0; k < p.buffers.size(); ++k) p.buffers[k].alignment = int64_t{1} << (k % 9);
    const int32_t n = static_cast<int32_t>(p.buffers.size());
    std::vector<int32_t> order(n);
    for (int32_t k = 0; k < n; ++k) order[k] = k;
    std::mt19937_64 rng(trial);
    if (trial < 2)
      std::stable_sort(order.begin(), order.end(),
                       [&](int32_t a, int32_t b) { return p.buffers[a].size > p.buffers[b].size; });
    else
      std::shuffle(order.begin(), order.end(), rng);
    const Fit fit = trial % 2 == 0 ? Fit::kFirst : Fit::kBest;
    PlacementEngine engine(p);
    const std::vector<int64_t> off = place_against_sweep(p, engine, order, fit, trial);
    ASSERT_EQ(off.size(), static_cast<size_t>(n));
    EXPECT_TRUE(engine.occupancy_index_in_use()) << "trial " << trial;
    EXPECT_TRUE(validate(p, off).ok) << "trial " << trial;  // the independent checker
    const auto again = place_in_order(engine, order, fit);
    EXPECT_EQ(again.solution.offsets, off) << "trial " << trial;
  }
}

// Many live buffers in a fragmented layout: long and short lifetimes mixed over a short
// horizon (about a third of the buffers live at any instant), small random sizes, placed in
// a random order, so that a query's sources interleave and its walk passes long chains of
// runs (the cursors' galloping, several runs per source, partly covered blocks). Every
// placement is checked against the sweep, through the index with time blocks of 1, 4 and
// 32 slots, both fits, with and without alignment.
TEST(PlacementDiff, IndexWalkMatchesSweepOnFragmentedManyLiveInstances) {
  std::mt19937_64 rng(2028);
  int64_t checked = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const int32_t n = 2400 + 300 * trial;  // past the small-instance mode
    const int64_t horizon = 120;
    Problem p;
    for (int32_t k = 0; k < n; ++k) {
      Buffer b;
      b.id = std::to_string(k);
      const bool long_lived = rng() % 3 == 0;
      b.start = static_cast<int64_t>(rng() % (long_lived ? horizon / 4 : horizon));
      b.end = long_lived ? horizon - static_cast<int64_t>(rng() % (horizon / 4))
                         : std::min(horizon, b.start + 1 + static_cast<int64_t>(rng() % 6));
      b.size = 1 + static_cast<int64_t>(rng() % 48);
      if (trial % 2 == 1) b.alignment = int64_t{1} << (rng() % 4);
      p.buffers.push_back(std::move(b));
    }
    std::vector<int32_t> order(n);
    for (int32_t k = 0; k < n; ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);
    const Fit fit = trial % 3 == 2 ? Fit::kBest : Fit::kFirst;
    const int32_t blocks[] = {1, 4, 32};
    PlacementEngine engine(p);
    ASSERT_TRUE(engine.use_occupancy_index(blocks[trial % 3]));
    if (trial < 3) ASSERT_TRUE(engine.use_crossing_index());  // else as the engine decides
    const std::vector<int64_t> off = place_against_sweep(p, engine, order, fit, trial);
    ASSERT_EQ(off.size(), static_cast<size_t>(n));
    checked += n;
    EXPECT_TRUE(engine.occupancy_index_in_use());
    EXPECT_TRUE(validate(p, off).ok) << "trial " << trial;
  }
  EXPECT_EQ(checked, 6 * 2400 + 300 * 15);
}

// The crossing index is switched on only where walks grow long (occupancy_index.h): on a
// training trace placed by size (nested activations scattered over the stack) the engine
// switches it on by itself, and in start order (walks of a few steps) it stays off; either
// way the offsets are the sweep's, and clear() switches it off again. Switched on midway,
// it is filled with the pieces placed so far (a wrong one would change the answers).
TEST(PlacementDiff, CrossingIndexOnlyWhereWalksGrowLong) {
  GenerateOptions o;
  o.kind = "training";
  o.buffers = 4000;
  o.seed = 3;
  const Problem p = generate(o);
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  std::vector<int32_t> by_start(n), by_size(n);
  for (int32_t k = 0; k < n; ++k) by_start[k] = by_size[k] = k;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](int32_t a, int32_t b) { return p.buffers[a].start < p.buffers[b].start; });
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](int32_t a, int32_t b) { return p.buffers[a].size > p.buffers[b].size; });
  for (const Fit fit : {Fit::kFirst, Fit::kBest}) {
    PlacementEngine engine(p);
    ASSERT_EQ(place_against_sweep(p, engine, by_size, fit, 0).size(), static_cast<size_t>(n));
    EXPECT_TRUE(engine.occupancy_index_in_use());
    EXPECT_TRUE(engine.crossing_index_in_use()) << "size order";
    engine.clear();
    EXPECT_FALSE(engine.crossing_index_in_use());
    ASSERT_EQ(place_against_sweep(p, engine, by_start, fit, 1).size(), static_cast<size_t>(n));
    EXPECT_TRUE(engine.occupancy_index_in_use());
    EXPECT_FALSE(engine.crossing_index_in_use()) << "start order";
    // Switched on with half of the buffers placed: the rest still get the sweep's offsets.
    engine.clear();
    std::vector<int64_t> off(n, -1);
    for (int32_t k = 0; k < n; ++k) {
      if (k == n / 2) ASSERT_TRUE(engine.use_crossing_index());
      const int32_t i = by_size[k];
      const int64_t want = sweep_offset(p, off, i, fit);
      ASSERT_EQ(engine.find_offset(i, fit), want) << "buffer " << i;
      engine.place(i, want);
      off[i] = want;
    }
    EXPECT_TRUE(engine.crossing_index_in_use());
  }
}

// A training trace of `buffers` buffers (seed `seed`), sizes cut by k % `jitter` off the
// generator's multiples of 64 (else no offset ever lies one byte from a run, and
// off-by-ones go unseen), and with `align_kinds` > 1 alignments 1 to 2^(align_kinds - 1):
// placed in size, area and pressure order, first-fit and best-fit, through the index with
// blocks of `block` slots, the crossing sets (and with them the floors) forced on from the
// start for best-fit, and for first-fit too when `crossing_for_first_fit`; every offset
// checked against the sweep. Returns the placements checked.
int64_t check_training_slow_orders(uint64_t seed, int32_t buffers, int32_t jitter, int32_t align_kinds,
                                   int32_t block, bool crossing_for_first_fit) {
  GenerateOptions o;
  o.kind = "training";
  o.buffers = buffers;
  o.seed = seed;
  Problem p = generate(o);
  const int32_t n = static_cast<int32_t>(p.buffers.size());
  for (int32_t k = 0; k < n; ++k) p.buffers[k].size -= k % jitter;
  if (align_kinds > 1)
    for (int32_t k = 0; k < n; ++k) p.buffers[k].alignment = int64_t{1} << (k % align_kinds);
  int64_t checked = 0;
  for (const Order order : {Order::kSizeDesc, Order::kAreaDesc, Order::kPressureDesc}) {
    const std::vector<int32_t> by = make_order(p, order);
    for (const Fit fit : {Fit::kFirst, Fit::kBest}) {
      PlacementEngine engine(p);
      EXPECT_TRUE(engine.use_occupancy_index(block));
      if (fit == Fit::kBest || crossing_for_first_fit) EXPECT_TRUE(engine.use_crossing_index());
      const std::vector<int64_t> off = place_against_sweep(p, engine, by, fit, int(seed));
      EXPECT_EQ(off.size(), static_cast<size_t>(n)) << order_name(order);
      if (off.size() != static_cast<size_t>(n)) return checked;
      EXPECT_TRUE(validate(p, off).ok);
      checked += n;
    }
  }
  return checked;
}

// The index's walk (index_settle: per-source lower bounds on the next blocking offset, only
// sources that can block looked at) against the sweep on training traces (thousands live at
// once) in the orders whose queries pass many runs and holes, with the crossing sets left to
// the engine for first-fit, and (seed 2) alignments 1 to 8 (a move aligns x up; a hole's
// first point must be aligned).
// Mutation check: the next blocking offset one too high (lo - qh + 2) fails it.
TEST(PlacementDiff, IndexWalkMatchesSweepOnTrainingTracesInSlowOrders) {
  int64_t checked = 0;
  for (const uint64_t seed : {1, 2})
    checked += check_training_slow_orders(seed, 2400, 61, seed == 2 ? 4 : 1, int32_t(1 + seed * 7), false);
  EXPECT_EQ(checked, 2 * 3 * 2 * 2400);
}

// The floors (OccupancyIndex::floor: a query's walk starts at the first free range of its
// width class in its block's ancestors' union) on training traces, with the crossing sets
// (and so the floors) on from the start for first-fit too, and (seed 6) alignments 1 to 16.
// Mutation check: a floor one byte high (`- q.lo + 1` in index_find) fails it.
TEST(PlacementDiff, FloorsKeepTheSweepsOffsetsOnTrainingTraces) {
  int64_t checked = 0;
  for (const uint64_t seed : {5, 6})
    checked += check_training_slow_orders(seed, 3000, 37, seed == 6 ? 5 : 1, int32_t(seed - 3), true);
  EXPECT_EQ(checked, 2 * 3 * 2 * 3000);
}

// The holes a best-fit sweep meets before its answer: every bounded free range of feasible
// offsets [x, lo) in address order, up to the top or to the first exact fit (slack 1),
// tallied as BestFitStats defines them (length = slack + size - 1, class = floor(log2)).
void tally_sweep_holes(const Problem& p, const std::vector<int64_t>& off, int32_t i, BestFitStats& s) {
  auto f = forbidden(p, off, i);
  std::sort(f.begin(), f.end(), [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
  const int64_t a = p.buffers[i].alignment, size = p.buffers[i].size;
  auto cls = [](int64_t len) { return 63 - __builtin_clzll(static_cast<unsigned long long>(len)); };
  std::vector<int64_t> slacks;
  int64_t x = 0, best = INT64_MAX;
  for (const Interval& v : f) {
    if (x < v.lo) {
      slacks.push_back(v.lo - x);
      best = std::min(best, v.lo - x);
      if (best == 1) break;
    }
    if (x < v.hi) x = align_up_ref(v.hi, a);
  }
  if (slacks.empty()) return;
  const int best_class = cls(best + size - 1);
  ++s.queries;
  s.holes += static_cast<int64_t>(slacks.size());
  s.classes += best_class - cls(size) + 1;
  s.exact += best == 1;
  for (const int64_t slack : slacks) {
    const int c = cls(slack + size - 1);
    s.near_best += c == best_class || c == best_class + 1;
  }
}

// The best-fit walk's counters (PlacementEngine::collect_best_fit_stats, printed by
// training_bench --holes) against the sweep's holes, on training traces with thousands
// live at once, sizes off the multiples of 64 and (seed 8) alignments 1 to 8: the same
// queries, holes, holes in the best class or the next, classes and exact fits, and the same
// offsets. Mutation check: counting the best class and the one after next (best + 2) fails it.
TEST(PlacementDiff, BestFitStatsCountTheSweepsHoles) {
  for (const uint64_t seed : {7, 8}) {
    GenerateOptions o;
    o.kind = "training";
    o.buffers = 2400;  // above kListMax: the index, not list mode
    o.seed = seed;
    Problem p = generate(o);
    const int32_t n = static_cast<int32_t>(p.buffers.size());
    for (int32_t k = 0; k < n; ++k) {
      p.buffers[k].size -= k % 53;
      if (seed == 8) p.buffers[k].alignment = int64_t{1} << (k % 4);
    }
    for (const Order order : {Order::kSizeDesc, Order::kAreaDesc}) {
      PlacementEngine engine(p);
      ASSERT_TRUE(engine.use_occupancy_index(3));
      ASSERT_TRUE(engine.use_crossing_index());
      BestFitStats got, want;
      engine.collect_best_fit_stats(&got);
      std::vector<int64_t> off(p.buffers.size(), -1);
      for (const int32_t k : make_order(p, order)) {
        tally_sweep_holes(p, off, k, want);
        const int64_t x = engine.find_offset(k, Fit::kBest);
        ASSERT_EQ(x, sweep_offset(p, off, k, Fit::kBest)) << "seed " << seed << " buffer " << k;
        engine.place(k, x);
        off[k] = x;
      }
      EXPECT_EQ(got.queries, want.queries) << order_name(order);
      EXPECT_EQ(got.holes, want.holes) << order_name(order);
      EXPECT_EQ(got.near_best, want.near_best) << order_name(order);
      EXPECT_EQ(got.classes, want.classes) << order_name(order);
      EXPECT_EQ(got.exact, want.exact) << order_name(order);
      EXPECT_GT(want.queries, n / 2) << order_name(order);
      EXPECT_GT(want.holes, 4 * want.queries) << order_name(order);  // many holes per query
      EXPECT_LT(want.near_best, want.holes) << order_name(order);
    }
  }
}

// The index's work counters (PlacementEngine::collect_walk_stats, printed by training_bench
// --walk) against the sweep, query by query, on training traces with thousands live at once
// (the crossing sets switched on by the engine midway; floors off, so every walk starts at
// offset 0), without and with alignments: a query passes at
// least one run iff its first-fit offset is above 0, and at most one per distinct top of its
// forbidden ranges up to the answer (each step moves the offset strictly up to an aligned
// top); it reads at least one set iff something placed overlaps it in time; every placed
// piece is counted as an insert, into at least one set. Mutation checks: not counting the
// steps of the first-fit return, or counting one source fewer per query, fails it (counting
// the sources twice does not: they are only bounded below here).
TEST(PlacementDiff, WalkStatsBoundedByTheSweep) {
  for (const bool aligned : {false, true}) {
    GenerateOptions o;
    o.kind = "training";
    o.buffers = 2400;  // above kListMax: the index, not list mode
    o.seed = aligned ? 9 : 10;
    Problem p = generate(o);
    const int32_t n = static_cast<int32_t>(p.buffers.size());
    for (int32_t k = 0; k < n; ++k) {
      p.buffers[k].size -= k % 29;
      if (aligned) p.buffers[k].alignment = int64_t{1} << (k % 3);
    }
    for (const Order order : {Order::kSizeDesc, Order::kAreaDesc}) {
      PlacementEngine engine(p);
      ASSERT_TRUE(engine.use_occupancy_index(3));
      WalkStats got;
      engine.collect_walk_stats(&got);
      std::vector<int64_t> off(p.buffers.size(), -1);
      int64_t queries = 0, moved = 0, placed = 0;
      for (const int32_t k : make_order(p, order)) {
        const WalkStats before = got;
        auto f = forbidden(p, off, k);
        const int64_t x = engine.find_offset(k, Fit::kFirst);
        ASSERT_EQ(x, sweep_offset(p, off, k, Fit::kFirst)) << "buffer " << k;
        ++queries;
        const int64_t steps = got.steps - before.steps, sources = got.sources - before.sources;
        std::vector<int64_t> tops;
        for (const Interval& v : f)
          if (v.hi <= x) tops.push_back(v.hi);
        std::sort(tops.begin(), tops.end());
        tops.erase(std::unique(tops.begin(), tops.end()), tops.end());
        ASSERT_EQ(steps > 0, x > 0) << "buffer " << k;
        ASSERT_LE(steps, static_cast<int64_t>(tops.size())) << "buffer " << k;
        ASSERT_EQ(sources > 0, !f.empty()) << "buffer " << k;
        moved += steps > 0;
        engine.place(k, x);
        off[k] = x;
        ++placed;
      }
      // The engine switches the crossing sets on by itself when walks grow long (size order
      // here); the floors need 128 x 4,096 steps in one window, far more than these walks make.
      if (order == Order::kSizeDesc) EXPECT_TRUE(engine.crossing_index_in_use());
      EXPECT_EQ(got.queries, queries) << order_name(order);
      EXPECT_EQ(got.inserts, placed) << order_name(order);
      EXPECT_GE(got.set_inserts, got.inserts) << order_name(order);
      EXPECT_GT(moved, n / 2) << order_name(order);  // most queries walk
      EXPECT_EQ(got.floor_steps, 0) << order_name(order);
    }
  }
}

// The floors switch on as soon as their window's steps pass the threshold (index_tune), not
// at the window's end: in pressure and area order on training traces a burst of long walks
// (the long activations' stack, before the floors) otherwise ran for up to two windows of
// 4,096 queries, with walks that grow with n. Counted with WalkStats at 20k buffers (seed
// 1): 178 (pressure) and 77 (area) runs passed per query when decided at the window's end,
// 32 each now. Mutation check: deciding at the window's end again fails it.
TEST(PlacementDiff, FloorsSwitchOnWithinTheWindowThatNeedsThem) {
  GenerateOptions o;
  o.kind = "training";
  o.buffers = 20000;
  o.seed = 1;
  const Problem p = generate(o);
  for (const Order order : {Order::kPressureDesc, Order::kAreaDesc}) {
    PlacementEngine engine(p);
    WalkStats st;
    engine.collect_walk_stats(&st);
    const GreedyResult g = place_in_order(engine, make_order(p, order), Fit::kFirst);
    ASSERT_TRUE(g.complete);
    EXPECT_TRUE(validate(p, g.solution.offsets).ok) << order_name(order);
    EXPECT_GT(st.queries, 19000) << order_name(order);
    EXPECT_GT(st.floor_steps, 0) << order_name(order);  // the floors did switch on
    EXPECT_LT(st.steps, 64 * st.queries) << order_name(order);
  }
}

// Larger gap-free instances, sparse (long horizon) and dense: the engine's small-instance
// mode with many and with few live buffers per query, over several blocks of 64 in its
// masked scan (up to 180 buffers).
TEST(PlacementDiff, MatchesReferenceOnLargerGapFreeInstances) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 60 + trial % 5 * 30;
    spec.horizon = trial % 3 == 0 ? 20 : 400 + 200 * (trial % 4);
    spec.max_size = 1 + trial % 40;
    spec.alignment = trial % 5 == 0;
    Problem p = testing::random_problem(rng, spec);
    if (spec.horizon > 20)  // short lifetimes: few buffers live together
      for (Buffer& b : p.buffers) b.end = std::min(b.end, b.start + 1 + (b.end - b.start) % 25);
    const Fit fit = trial % 2 == 0 ? Fit::kFirst : Fit::kBest;
    check_instance(p, fit, rng, trial, 64);
    if (::testing::Test::HasFailure()) return;
  }
}

// Moving a placed buffer (place() again) must leave the engine consistent: half of each
// instance is placed, some placed buffers are moved far up, and the rest is checked.
TEST(PlacementDiff, MovedBuffersAreSeenAtTheirNewOffsets) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 80 + trial % 4 * 40;
    spec.horizon = trial % 2 == 0 ? 20 : 600;
    spec.max_size = 1 + trial % 30;
    spec.gaps = trial % 2 == 1;  // past the small-instance mode, so the index is used
    Problem p = testing::random_problem(rng, spec);
    for (Buffer& b : p.buffers) {
      b.offset.reset();
      if (spec.horizon > 20) b.end = std::min(b.end, b.start + 1 + (b.end - b.start) % 25);
    }
    const int32_t n = static_cast<int32_t>(p.buffers.size());
    const Fit fit = trial % 4 < 2 ? Fit::kFirst : Fit::kBest;
    std::vector<int32_t> order(n);
    for (int32_t k = 0; k < n; ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);
    PlacementEngine engine(p);
    if (trial % 2 == 1) engine.use_occupancy_index(trial % 3 + 1);  // dropped at the move
    std::vector<int64_t> off(n, -1);
    for (int32_t x = 0; x < n; ++x) {
      const int32_t k = order[x];
      if (x == n / 2)
        for (int32_t m = 0; m < 6; ++m) {  // move six placed buffers far up
          const int32_t v = order[(m * 7 + trial) % x];
          off[v] = 100000 * (m + 1);
          engine.place(v, off[v]);
        }
      const int64_t want = ref_offset(p, off, k, fit);
      ASSERT_EQ(engine.find_offset(k, fit), want) << "trial " << trial << " buffer " << k;
      engine.place(k, want);
      off[k] = want;
    }
    ASSERT_TRUE(testing::brute_force_valid(p, off)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// The free cells (core/free_cells.h: best-fit's queries of up to kCellSpan slots answered
// from the cells stabbing their first slot, the cells cut inside their lifetime walked) on
// training traces with sizes cut off the generator's multiples of 64, in size, area and
// pressure order, switched on from the start (trial 0), midway (trial 1: built from the
// pieces placed so far) or as the engine decides (trial 2: at this size their upkeep does not
// pay, FreeCellsOnlyWhereBestFitWalksGrowLong); and (trial 3) alignments 1 to 4 mixed in,
// whose queries the walk answers while the cells follow their pieces. Every offset is
// checked against the sweep.
// Mutation check: best_lasting taking a cell that ends at b - 1 (`c.t1 <= b`) fails it.
TEST(PlacementDiff, FreeCellsKeepTheSweepsBestFits) {
  int64_t checked = 0;
  for (int trial = 0; trial < 4; ++trial) {
    GenerateOptions o;
    o.kind = "training";
    o.buffers = 2600;
    o.seed = 20 + trial;
    Problem p = generate(o);
    const int32_t n = static_cast<int32_t>(p.buffers.size());
    for (int32_t k = 0; k < n; ++k) p.buffers[k].size -= k % 53;
    if (trial == 3)
      for (int32_t k = 0; k < n; ++k) p.buffers[k].alignment = int64_t{1} << (k % 3);
    for (const Order order : {Order::kSizeDesc, Order::kAreaDesc, Order::kPressureDesc}) {
      const std::vector<int32_t> by = make_order(p, order);
      PlacementEngine engine(p);
      ASSERT_TRUE(engine.use_occupancy_index(1 + trial));
      if (trial == 0 || trial == 3) ASSERT_TRUE(engine.use_free_cells());
      std::vector<int64_t> off(n, -1);
      for (int32_t k = 0; k < n; ++k) {
        if (trial == 1 && k == n / 2) ASSERT_TRUE(engine.use_free_cells());
        const int32_t i = by[k];
        const int64_t want = sweep_offset(p, off, i, Fit::kBest);
        ASSERT_EQ(engine.find_offset(i, Fit::kBest), want) << "trial " << trial << " " << order_name(order) << " buffer " << i;
        engine.place(i, want);
        off[i] = want;
        ++checked;
      }
      if (trial != 2) EXPECT_TRUE(engine.free_cells_in_use()) << "trial " << trial << " " << order_name(order);
      EXPECT_TRUE(validate(p, off).ok);
    }
  }
  EXPECT_EQ(checked, 4 * 3 * 2600);
}

// n buffers over `horizon` slots: lifetimes of 1 to 9 slots among long ones (1 in
// `long_every`, 10 to 9 + long_span slots), sizes 1 to 40; alignments of 2, 4 or 8 on 1 in
// `align_every` buffers and a gap (two pieces) on 1 in `gap_every` of those living 3 slots or
// more (0: none).
Problem short_among_long(std::mt19937_64& rng, int32_t n, int64_t horizon, int long_every, int64_t long_span,
                         int align_every, int gap_every) {
  Problem p;
  for (int32_t k = 0; k < n; ++k) {
    Buffer b;
    b.id = std::to_string(k);
    const bool long_lived = rng() % long_every == 0;
    b.start = static_cast<int64_t>(rng() % horizon);
    b.end = long_lived ? std::min(horizon, b.start + 10 + static_cast<int64_t>(rng() % long_span))
                       : std::min(horizon, b.start + 1 + static_cast<int64_t>(rng() % 9));
    b.size = 1 + static_cast<int64_t>(rng() % 40);
    if (align_every && rng() % align_every == 0) b.alignment = int64_t{1} << (1 + rng() % 3);
    if (gap_every && b.end - b.start >= 3 && rng() % gap_every == 0) b.gaps.push_back({b.start + 1, b.end - 1});
    p.buffers.push_back(std::move(b));
  }
  return p;
}

// Random instances with lifetimes of 1 to 9 slots (queries on both sides of kCellSpan) among
// long ones, small sizes (holes of every length, many exact fits and ties), some buffers with
// gaps (several pieces: the walk answers them) and alignments; cells forced on. Then the
// same instances with two pre-placed buffers that overlap: the cells cannot hold them and
// are dropped, and the walk still gives the sweep's offsets.
// Mutation checks: a cut cell's part taken only when longer than the query (`hi - lo > size`
// in cells_find), or best_lasting taking a cell that ends at b - 1, fails it.
TEST(PlacementDiff, FreeCellsKeepTheSweepsBestFitsOnRandomInstances) {
  std::mt19937_64 rng(2029);
  int64_t checked = 0;
  for (int trial = 0; trial < 8; ++trial) {
    const int32_t n = 2300 + 100 * trial;
    Problem p = short_among_long(rng, n, 150, 5, 100, trial % 4 == 1 ? 4 : 0, trial % 4 == 2 ? 5 : 0);
    if (trial >= 6) {
      p.buffers[0].offset = 0, p.buffers[1].offset = 0;
      p.buffers[0].start = p.buffers[1].start = 3, p.buffers[0].end = p.buffers[1].end = 5;
    }
    std::vector<int32_t> order(n);
    for (int32_t k = 0; k < n; ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);
    PlacementEngine engine(p);
    ASSERT_TRUE(engine.use_occupancy_index(1 + trial % 3));
    ASSERT_TRUE(engine.use_free_cells());
    std::vector<int64_t> off(n, -1);
    for (int32_t k = 0; k < n; ++k)
      if (p.buffers[k].offset) engine.place(k, *p.buffers[k].offset), off[k] = *p.buffers[k].offset;
    EXPECT_EQ(engine.free_cells_in_use(), trial < 6) << "trial " << trial;
    for (int32_t k : order) {
      if (off[k] >= 0) continue;
      const int64_t want = sweep_offset(p, off, k, Fit::kBest);
      ASSERT_EQ(engine.find_offset(k, Fit::kBest), want) << "trial " << trial << " buffer " << k;
      engine.place(k, want);
      off[k] = want;
      ++checked;
    }
    EXPECT_EQ(engine.free_cells_in_use(), trial < 6) << "trial " << trial;
  }
  EXPECT_GT(checked, 8 * 2300 - 4);
}

// set_lookahead (place_in_order calls it): with best-fit and the free cells on, a buffer that
// no later query walking the index overlaps in time stays out of the index until something
// else reads it. Random instances as above (short lifetimes among long ones, gaps and
// alignments: queries the cells do not answer), in a random order and in order of area
// (long ones first); the cells on from the start or from midway. Every offset against the
// sweep; fits_at probes mid-pass (they read the index, so the deferred buffers go in first)
// against the forbidden ranges; and fewer pieces must reach the index than were placed.
// Mutation checks: set_lookahead marking every buffer as not needed (the walks then miss
// pieces), index_sources never adding the deferred ones (fits_at answers wrong), index_add
// never deferring (the insert count), or place() keeping the lookahead when the pass is left
// (trials 2 and 5) each fail it.
TEST(PlacementDiff, LookaheadDefersOnlyWhatNoWalkReads) {
  std::mt19937_64 rng(3031);
  int64_t checked = 0, probes = 0, placed_pieces = 0, inserted = 0, left = 0;
  for (int trial = 0; trial < 8; ++trial) {
    const int32_t n = 2300 + 100 * trial;  // above kListMax: the engine indexes
    const Problem p = short_among_long(rng, n, 120, 6, 80, trial % 2 == 1 ? 8 : 0, trial % 4 >= 2 ? 8 : 0);
    std::vector<int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    if (trial % 4 < 2) {
      std::shuffle(order.begin(), order.end(), rng);
    } else {
      auto area = [&](int32_t k) { return p.buffers[k].size * (p.buffers[k].end - p.buffers[k].start); };
      std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return area(x) > area(y); });
    }
    PlacementEngine engine(p);
    WalkStats stats;
    engine.collect_walk_stats(&stats);
    ASSERT_TRUE(engine.use_occupancy_index(1 + trial % 3));
    const bool midway = trial % 2 == 0;
    if (!midway) ASSERT_TRUE(engine.use_free_cells());
    engine.set_lookahead(order, Fit::kBest);
    // Trials 2 and 5 then leave the pass they announced: once buffers are waiting, the next
    // two are placed the other way round, and the engine must drop the lookahead, the waiting
    // buffers going into the index at once.
    std::vector<int32_t> placed_order = order;
    std::vector<int64_t> off(n, -1);
    int64_t trial_pieces = 0;
    bool leaving = false, gone = false;
    for (int32_t k = 0; k < n; ++k) {
      if (midway && k == n / 2) ASSERT_TRUE(engine.use_free_cells());
      if (trial % 3 == 2 && !gone && k + 1 < n && stats.inserts < trial_pieces) {
        std::swap(placed_order[k], placed_order[k + 1]);
        leaving = gone = true;
      }
      const int32_t i = placed_order[k];
      const int64_t want = sweep_offset(p, off, i, Fit::kBest);
      ASSERT_EQ(engine.find_offset(i, Fit::kBest), want) << "trial " << trial << " buffer " << i;
      engine.place(i, want);
      off[i] = want;
      const int64_t pieces = static_cast<int64_t>(p.buffers[i].gaps.size()) + 1;
      placed_pieces += pieces;
      trial_pieces += pieces;
      ++checked;
      if (leaving) {  // the first placement out of the pass
        EXPECT_EQ(stats.inserts, trial_pieces) << "trial " << trial << ": the lookahead outlived its pass";
        ++left;
        leaving = false;
      }
      if (k % 97 == 96 && k + 1 < n) {
        // A buffer still to come probed at the offsets of buffers placed since the last probe
        // (the likeliest to be deferred) and nearby.
        const int32_t j = placed_order[k + 1 + rng() % (n - k - 1)];
        const std::vector<Interval> f = forbidden(p, off, j);
        for (int r = 0; r < 16; ++r) {
          const int64_t x = std::max<int64_t>(0, off[placed_order[k - rng() % 97]] - 2 + static_cast<int64_t>(rng() % 5));
          ASSERT_EQ(engine.fits_at(j, x), feasible(f, x)) << "trial " << trial << " probe " << j << " at " << x;
          ++probes;
        }
      }
    }
    inserted += stats.inserts;
  }
  EXPECT_EQ(checked, 8 * 2300 + 100 * 28);
  EXPECT_GT(probes, 2000);
  EXPECT_LT(inserted, placed_pieces);  // some buffers never reached the index
  EXPECT_EQ(left, 2);  // both trials left their pass while buffers were waiting
}

// The engine switches the free cells on by itself only where best-fit walks grow long: on a
// training trace in size order (hundreds of holes per query), not in start order (a few)
// nor for first-fit; clear() switches them off.
TEST(PlacementDiff, FreeCellsOnlyWhereBestFitWalksGrowLong) {
  GenerateOptions o;
  o.kind = "training";
  o.buffers = 20000;
  o.seed = 4;
  const Problem p = generate(o);
  PlacementEngine engine(p);
  ASSERT_TRUE(place_in_order(engine, make_order(p, Order::kSizeDesc), Fit::kBest).complete);
  EXPECT_TRUE(engine.free_cells_in_use());
  engine.clear();
  EXPECT_FALSE(engine.free_cells_in_use());
  ASSERT_TRUE(place_in_order(engine, make_order(p, Order::kSizeDesc), Fit::kFirst).complete);
  EXPECT_FALSE(engine.free_cells_in_use());
  ASSERT_TRUE(place_in_order(engine, make_order(p, Order::kStartAsc), Fit::kBest).complete);
  EXPECT_FALSE(engine.free_cells_in_use());
}

}  // namespace
}  // namespace memplan
