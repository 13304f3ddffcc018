// The free cells (src/core/free_cells.h) against a brute force written here from their
// definition: after every added piece, the cells stabbing each slot are exactly that slot's
// maximal free address ranges (the topmost unbounded), no two cells of one address range meet
// in time (they would be one), and the queries (best_lasting, ending_within, at) give what a
// scan of those ranges gives. Pieces are random rectangles dropped into free space: short
// and long lifetimes, stacked and scattered, so that cells are cut and joined in every way.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

#include "core/free_cells.h"

namespace memplan {
namespace {

struct Rect {
  int32_t a, b;
  int64_t lo, hi;
};

using Range = std::pair<int64_t, int64_t>;
constexpr int64_t kTop = FreeCells::kTop;

// The maximal free ranges at slot t, increasing.
std::vector<Range> free_ranges(const std::vector<Rect>& placed, int32_t t) {
  std::vector<Range> used;
  for (const Rect& r : placed)
    if (r.a <= t && t < r.b) used.push_back({r.lo, r.hi});
  std::sort(used.begin(), used.end());
  std::vector<Range> out;
  int64_t x = 0;
  for (const Range& u : used) {
    if (x < u.first) out.push_back({x, u.first});
    x = std::max(x, u.second);
  }
  out.push_back({x, kTop});
  return out;
}

bool is_free(const std::vector<Rect>& placed, const Rect& q) {
  return std::none_of(placed.begin(), placed.end(),
                      [&](const Rect& r) { return r.a < q.b && q.a < r.b && r.lo < q.hi && q.lo < r.hi; });
}

// Checks every slot's cells and the queries against the brute force. Returns false at the
// first difference (after reporting it).
bool check(const FreeCells& cells, const std::vector<Rect>& placed, int32_t slots, std::mt19937_64& rng,
           int queries = 40, int64_t max_size = 40) {
  std::vector<FreeCells::Cell> all;
  cells.for_each([&](const FreeCells::Cell& c) { all.push_back(c); });
  EXPECT_EQ(static_cast<int64_t>(all.size()), cells.count());
  std::vector<std::vector<Range>> truth(slots);
  for (int32_t t = 0; t < slots; ++t) {
    truth[t] = free_ranges(placed, t);
    std::vector<Range> got;
    for (const FreeCells::Cell& c : all)
      if (c.t0 <= t && t < c.t1) got.push_back({c.lo, c.hi});
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, truth[t]) << "slot " << t;
    if (got != truth[t]) return false;
    for (const Range& r : truth[t]) {
      const FreeCells::Cell c = cells.at(t, r.first + static_cast<int64_t>(rng() % 3) % (r.second - r.first));
      EXPECT_TRUE(c.lo == r.first && c.hi == r.second && c.t0 <= t && t < c.t1) << "at() slot " << t;
    }
  }
  // Maximal in time: a cell's range is not a free range just before it starts or after it ends.
  for (const FreeCells::Cell& c : all) {
    const Range r{c.lo, c.hi};
    const bool joins_before = c.t0 > 0 && std::count(truth[c.t0 - 1].begin(), truth[c.t0 - 1].end(), r);
    const bool joins_after = c.t1 < slots && std::count(truth[c.t1].begin(), truth[c.t1].end(), r);
    EXPECT_FALSE(joins_before || joins_after) << "cell [" << c.t0 << ", " << c.t1 << ") x [" << c.lo << ", " << c.hi << ")";
    if (joins_before || joins_after) return false;
  }
  // Queries over [a, b): the bounded ranges free at every slot of it, as free ranges at a.
  for (int k = 0; k < queries; ++k) {
    const int32_t a = static_cast<int32_t>(rng() % slots);
    const int32_t b = std::min<int32_t>(slots, a + 1 + static_cast<int32_t>(rng() % 6));
    const int64_t size = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_size));
    FreeCells::Best want;
    std::vector<Range> cut;
    for (const Range& r : truth[a]) {
      bool lasting = true;
      for (int32_t u = a + 1; u < b; ++u)
        lasting = lasting && std::count(truth[u].begin(), truth[u].end(), r) > 0;
      // A range that lasts through b - 1 lasts as one cell only if it is one cell: the cell
      // of r at a must not end before b (maximality makes the two the same).
      if (!lasting) cut.push_back(r);
      else if (r.second != kTop && r.second - r.first >= size &&
               std::make_pair(r.second - r.first, r.first) < std::make_pair(want.len, want.lo))
        want = {r.second - r.first, r.first};
    }
    const FreeCells::Best got = cells.best_lasting(a, b, size);
    EXPECT_EQ(std::make_pair(got.len, got.lo), std::make_pair(want.len, want.lo)) << "a " << a << " b " << b << " size " << size;
    std::vector<Range> got_cut;
    cells.ending_within(a, b, [&](const FreeCells::Cell& c) { got_cut.push_back({c.lo, c.hi}); });
    std::sort(got_cut.begin(), got_cut.end());
    EXPECT_EQ(got_cut, cut) << "a " << a << " b " << b;
    if (got_cut != cut || got.lo != want.lo) return false;
  }
  return true;
}

TEST(FreeCells, MatchTheFreeRangesOfEverySlot) {
  std::mt19937_64 rng(41);
  int64_t added = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const int32_t slots = 1 + static_cast<int32_t>(rng() % 40);
    FreeCells cells;
    cells.init(slots);
    std::vector<Rect> placed;
    ASSERT_TRUE(check(cells, placed, slots, rng));
    for (int k = 0; k < 60; ++k) {
      // Long pieces now and then (a training step's activations), short ones mostly; low
      // addresses, so that pieces pack, touch and leave holes of every length.
      const int32_t a = static_cast<int32_t>(rng() % slots);
      const int32_t len = rng() % 4 == 0 ? 1 + static_cast<int32_t>(rng() % slots) : 1 + static_cast<int32_t>(rng() % 3);
      const Rect r{a, std::min(slots, a + len), static_cast<int64_t>(rng() % 60), 0};
      Rect q = r;
      q.hi = q.lo + 1 + static_cast<int64_t>(rng() % 12);
      if (!is_free(placed, q)) continue;
      ASSERT_TRUE(cells.add(q.a, q.b, q.lo, q.hi));
      placed.push_back(q);
      ++added;
      ASSERT_TRUE(check(cells, placed, slots, rng)) << "trial " << trial << " after piece " << placed.size();
    }
  }
  EXPECT_GT(added, 600);
}

// Hundreds of holes living over the same middle slots: the cells of one tree node outgrow
// one sorted vector and are kept in chunks that each know their cells' time span, which a
// query uses to pass over chunks (and which cuts, splits and erases must keep right).
TEST(FreeCells, ManyCellsAtOneNode) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 3; ++trial) {
    const int32_t slots = 64;
    FreeCells cells;
    cells.init(slots);
    std::vector<Rect> placed;
    for (int k = 0; k < 1500; ++k) {
      // Most pieces cross the middle (their holes live at the root); some are short; the
      // columns' widths vary so that the holes do too.
      const int64_t column = static_cast<int64_t>(rng() % 700);
      const bool crossing = rng() % 4 != 0;
      const int32_t a = crossing ? static_cast<int32_t>(rng() % 32) : static_cast<int32_t>(rng() % slots);
      const int32_t b = crossing ? 32 + 1 + static_cast<int32_t>(rng() % 32)
                                 : std::min(slots, a + 1 + static_cast<int32_t>(rng() % 3));
      const int64_t lo = column * 64 + static_cast<int64_t>(rng() % 32);
      const Rect q{a, b, lo, lo + 1 + static_cast<int64_t>(rng() % 31)};
      if (!is_free(placed, q)) continue;
      ASSERT_TRUE(cells.add(q.a, q.b, q.lo, q.hi));
      placed.push_back(q);
      if (placed.size() % 100 == 0) ASSERT_TRUE(check(cells, placed, slots, rng, 400, 64)) << "trial " << trial << " after piece " << placed.size();
    }
    EXPECT_GT(cells.count(), 2000);
    ASSERT_TRUE(check(cells, placed, slots, rng, 2000, 64)) << "trial " << trial;
  }
}

// A piece over occupied addresses has no cell to go in: add() says so.
TEST(FreeCells, AnOverlappingPieceIsRefused) {
  FreeCells cells;
  cells.init(10);
  ASSERT_TRUE(cells.add(2, 6, 100, 200));
  EXPECT_FALSE(cells.add(5, 8, 150, 160));
  FreeCells fresh;
  fresh.init(10);
  ASSERT_TRUE(fresh.add(2, 6, 100, 200));
  EXPECT_FALSE(fresh.add(0, 3, 50, 101));
}

// Nested lifetimes (a training step's activations, stacked): the cells stay few.
TEST(FreeCells, NestedStackKeepsFewCells) {
  FreeCells cells;
  const int32_t layers = 200;
  cells.init(2 * layers);
  int64_t top = 0;
  for (int32_t k = 0; k < layers; ++k) {
    ASSERT_TRUE(cells.add(k, 2 * layers - k, top, top + 10));
    top += 10;
  }
  // One hole-free stack: above it one cell per distinct top (the stack grows to the turn and
  // shrinks after it): 2 * layers - 1 top cells at most, plus the first slot's.
  EXPECT_LE(cells.count(), 2 * layers + 1);
}

}  // namespace
}  // namespace memplan
