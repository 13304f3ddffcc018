// OccupancyIndex::advance (a query's cursor over one merged set): checked against a linear
// scan on random merged sets with rising targets, short and long jumps mixed, so that both
// its look at the next three runs and its binary search over the rest are taken.
// Mutation checks: the binary search's predicate `r.hi <= y` turned into `r.hi < y` fails
// it; so does looking at two runs, then searching from two runs past the last one looked
// at (a run skipped).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/occupancy_index.h"

namespace memplan {
namespace {

TEST(OccupancyAdvance, FindsTheFirstRunEndingAboveTheTarget) {
  std::mt19937_64 rng(21);
  int64_t searched = 0, near = 0;
  for (int trial = 0; trial < 600; ++trial) {
    // A merged set: sorted, disjoint, non-touching runs.
    std::vector<AddressRun> set;
    int64_t at = static_cast<int64_t>(rng() % 4);
    const int runs = static_cast<int>(rng() % 200);
    for (int k = 0; k < runs; ++k) {
      const int64_t lo = at + 1 + static_cast<int64_t>(rng() % 5), hi = lo + 1 + static_cast<int64_t>(rng() % 6);
      set.push_back({lo, hi});
      at = hi;
    }
    OccupancyIndex::Source s{set.data(), set.data() + set.size(), 0, 1};
    s.at = s.begin;
    size_t want = 0;  // the linear scan's cursor
    for (int64_t y = -1; y <= at + 2;) {
      const size_t before = static_cast<size_t>(s.at - s.begin);
      while (want < set.size() && set[want].hi <= y) ++want;
      const OccupancyIndex::Run* got = OccupancyIndex::advance(s, y);
      ASSERT_EQ(static_cast<size_t>(got - s.begin), want) << "trial " << trial << " y " << y;
      ASSERT_EQ(s.at, got);
      const size_t moved = want - before;
      searched += moved > 3;
      near += moved > 0 && moved <= 3;
      y += rng() % 3 == 0 ? static_cast<int64_t>(rng() % 400) : static_cast<int64_t>(rng() % 8);
    }
  }
  EXPECT_GT(searched, 1000);  // both paths taken, many times
  EXPECT_GT(near, 1000);
}

}  // namespace
}  // namespace memplan
