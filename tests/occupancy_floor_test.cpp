// The occupancy index's floors (OccupancyIndex::floor, "Floors" in occupancy_index.cpp):
// checked against a brute force over the placed pieces on random instances with many pieces
// live at once. A floor must be sound (every window of the query's width starting below it
// meets a piece live during the query, so it never exceeds the lowest free window), and it
// must be of use (on these instances it often reaches that window exactly).
// Mutation checks: a floor one above its walk's answer (`settle(...) + 1` in path_floor)
// fails both tests here; a floor never raised (the staleness test `it->version == version`
// replaced by `true`: the floors stay 0) fails both too.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/occupancy_index.h"

namespace memplan {
namespace {

struct Placed {
  int32_t a, b;
  int64_t lo, hi;
};

// The lowest address y >= 0 such that [y, y + w) meets no piece live during slots [a, b).
int64_t lowest_free_window(const std::vector<Placed>& placed, int32_t a, int32_t b, int64_t w) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (const Placed& p : placed)
    if (p.a < b && a < p.b) runs.push_back({p.lo, p.hi});
  std::sort(runs.begin(), runs.end());
  int64_t y = 0;
  for (const auto& [lo, hi] : runs) {
    if (y + w <= lo) return y;
    y = std::max(y, hi);
  }
  return y;
}

// Random pieces packed low (each at the lowest free window of its own, or a little above),
// long and short lifetimes mixed so that a query's sources interleave; after each one, a
// random query's floor against the brute force.
TEST(OccupancyFloor, FloorsAreSoundAndReachTheFirstFit) {
  std::mt19937_64 rng(2029);
  int64_t queries = 0, positive = 0, exact = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int32_t slots = 8 + int32_t(rng() % 120);
    const int32_t block = 1 + int32_t(rng() % 6);
    OccupancyIndex index;
    index.init(slots, block);
    index.set_floors(true);
    std::vector<Placed> placed;
    auto random_slots = [&](int32_t& a, int32_t& b) {
      const bool long_lived = rng() % 3 == 0;
      a = int32_t(rng() % (long_lived ? slots / 4 + 1 : slots));
      b = long_lived ? slots - int32_t(rng() % (slots / 4 + 1)) : std::min(slots, a + 1 + int32_t(rng() % 6));
      if (b <= a) b = a + 1;
    };
    for (int k = 0; k < 300; ++k) {
      int32_t a, b;
      random_slots(a, b);
      const int64_t size = 1 + int64_t(rng() % 24);
      const int64_t lo = lowest_free_window(placed, a, b, size) + (rng() % 4 == 0 ? int64_t(rng() % 5) : 0);
      placed.push_back({a, b, lo, lo + size});
      index.add(a, b, lo, lo + size);
      int32_t qa, qb;
      random_slots(qa, qb);
      const int64_t w = 1 + int64_t(rng() % 24);
      const int64_t floor = index.floor(qa, qb, w);
      const int64_t first = lowest_free_window(placed, qa, qb, w);
      ++queries;
      EXPECT_LE(floor, first) << "trial " << trial << " piece " << k;
      if (floor > first) return;
      positive += floor > 0;
      exact += floor == first;
    }
  }
  // Of use: most floors are above 0, and many are the first-fit answer itself.
  EXPECT_GT(positive, queries / 2);
  EXPECT_GT(exact, queries / 10);
}

// Off by default, and dropped by clear(): the floors are 0.
TEST(OccupancyFloor, FloorsOnlyWhenSwitchedOn) {
  OccupancyIndex index;
  index.init(16, 2);
  index.add(0, 16, 0, 100);
  EXPECT_EQ(index.floor(3, 5, 10), 0);
  index.set_floors(true);
  EXPECT_EQ(index.floor(3, 5, 10), 100);  // one piece over everything: its top
  index.add(0, 16, 120, 130);             // a hole of 20 below it
  EXPECT_EQ(index.floor(3, 5, 10), 100);  // fits a width-10 window (width class 8)
  EXPECT_EQ(index.floor(3, 5, 40), 130);  // not a width-40 one (class 32 > 20)
  index.clear();
  EXPECT_FALSE(index.floors());
  EXPECT_EQ(index.floor(3, 5, 10), 0);
}

}  // namespace
}  // namespace memplan
