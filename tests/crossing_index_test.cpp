// The crossing index (src/core/crossing_index.h): every set it hands a query lies inside the
// union of the address ranges of the pieces live during the query (so adding its sets to the
// occupancy index's never changes a fit), checked against a brute force on random pieces;
// and on a nested stack of lifetimes (a training step's activations) the query of any one
// of them gets the whole stack as a single run.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/crossing_index.h"

namespace memplan {
namespace {

struct Placed {
  int32_t a, b;
  int64_t lo, hi;
};

// The union of the address ranges of the pieces live during [a, b), merged.
std::vector<AddressRun> live_union(const std::vector<Placed>& placed, int32_t a, int32_t b) {
  std::vector<AddressRun> runs;
  for (const Placed& p : placed)
    if (p.a < b && a < p.b) runs.push_back({p.lo, p.hi});
  std::sort(runs.begin(), runs.end(), [](const AddressRun& x, const AddressRun& y) { return x.lo < y.lo; });
  std::vector<AddressRun> merged;
  for (const AddressRun& r : runs)
    if (!merged.empty() && r.lo <= merged.back().hi) merged.back().hi = std::max(merged.back().hi, r.hi);
    else merged.push_back(r);
  return merged;
}

bool covered(const std::vector<AddressRun>& merged, const AddressRun& r) {
  return std::any_of(merged.begin(), merged.end(), [&](const AddressRun& m) { return m.lo <= r.lo && r.hi <= m.hi; });
}

TEST(CrossingIndex, InsertRunMerges) {
  std::vector<AddressRun> set;
  insert_run(set, 10, 20);
  insert_run(set, 30, 40);
  insert_run(set, 0, 5);
  ASSERT_EQ(set.size(), 3u);
  insert_run(set, 20, 30);  // touches both neighbours: one run
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set[1].lo, 10);
  EXPECT_EQ(set[1].hi, 40);
  insert_run(set, 3, 12);
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(set[0].lo, 0);
  EXPECT_EQ(set[0].hi, 40);
}

// insert_run against a brute-force merge of every range inserted so far, with inserts both
// anywhere and at or near the top of the set (insert_run's fast path reads the last two runs
// only), on small coordinates so that runs often touch (touching runs must merge).
// Mutation check: the fast path's `set[n - 2].hi < lo` made `<=` fails it.
TEST(CrossingIndex, InsertRunMatchesABruteForceMerge) {
  std::mt19937_64 rng(6);
  int64_t near_top = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<AddressRun> set;
    std::vector<Placed> all;
    const int64_t span = 20 + int64_t(rng() % 400);
    for (int k = 0; k < 80; ++k) {
      int64_t lo = int64_t(rng() % uint64_t(span));
      if (!set.empty() && rng() % 2 == 0) {  // at, just below or just above the top run
        lo = std::max<int64_t>(0, set.back().hi - 3 + int64_t(rng() % 7));
        ++near_top;
      }
      const int64_t hi = lo + 1 + int64_t(rng() % 6);
      insert_run(set, lo, hi);
      all.push_back({0, 1, lo, hi});
      const std::vector<AddressRun> want = live_union(all, 0, 1);
      ASSERT_EQ(set.size(), want.size()) << "trial " << trial << " insert " << k << " [" << lo << ", " << hi << ")";
      for (size_t j = 0; j < want.size(); ++j) {
        ASSERT_EQ(set[j].lo, want[j].lo) << "trial " << trial << " insert " << k << " run " << j;
        ASSERT_EQ(set[j].hi, want[j].hi) << "trial " << trial << " insert " << k << " run " << j;
      }
    }
  }
  EXPECT_GT(near_top, 5000);
}

TEST(CrossingIndex, SetsLieInsideTheLiveUnion) {
  std::mt19937_64 rng(21);
  int64_t runs_checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int32_t slots = 1 + int32_t(rng() % 200), block = 1 + int32_t(rng() % 5);
    CrossingIndex index;
    index.init(slots, block);
    std::vector<Placed> placed;
    const int pieces = 1 + int(rng() % 60);
    for (int k = 0; k < pieces; ++k) {
      const int32_t a = int32_t(rng() % slots), b = a + 1 + int32_t(rng() % (slots - a));
      const int64_t lo = int64_t(rng() % 1000), hi = lo + 1 + int64_t(rng() % 50);
      placed.push_back({a, b, lo, hi});
      index.add(a, b, lo, hi);
      for (int q = 0; q < 4; ++q) {
        const int32_t qa = int32_t(rng() % slots), qb = qa + 1 + int32_t(rng() % (slots - qa));
        const std::vector<AddressRun> live = live_union(placed, qa, qb);
        index.sets(qa, qb, [&](const std::vector<AddressRun>& set) {
          for (const AddressRun& r : set) {
            EXPECT_TRUE(covered(live, r)) << "trial " << trial << " query [" << qa << ", " << qb << ") run ["
                                          << r.lo << ", " << r.hi << ")";
            ++runs_checked;
          }
        });
        if (::testing::Test::HasFailure()) return;
      }
    }
    if (trial % 2) index.clear();  // a cleared index hands out nothing
    if (trial % 2) index.sets(0, slots, [&](const std::vector<AddressRun>&) { ADD_FAILURE() << "after clear"; });
  }
  EXPECT_GT(runs_checked, 50000);
}

// L nested lifetimes [k, 2L - k), stacked in a shuffled order (as size order stacks a
// training step's activations): each one's query gets one set holding all of them as the
// single run [0, 10 L). (L = 512 puts the root's boundary at the turn for every block size
// here; otherwise the innermost lifetimes, which do not cross it, sit in a child's set.)
TEST(CrossingIndex, NestedStackIsOneRun) {
  const int32_t L = 512;
  for (int32_t block : {1, 4, 32}) {
    std::vector<int32_t> order(L);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(block));
    CrossingIndex index;
    index.init(2 * L, block);
    for (int32_t j = 0; j < L; ++j) index.add(order[j], 2 * L - order[j], 10 * j, 10 * j + 10);
    for (int32_t k = 0; k < L; k += 7) {
      bool whole = false;
      index.sets(k, 2 * L - k, [&](const std::vector<AddressRun>& set) {
        whole |= set.size() == 1 && set[0].lo == 0 && set[0].hi == 10 * L;
      });
      EXPECT_TRUE(whole) << "block " << block << " activation " << k;
    }
  }
}

}  // namespace
}  // namespace memplan
