// The bridge between the pass and memplan: plans come back checked, and every failure comes
// back as an error string (never as an exception, which MLIR code could not catch).
#include <gtest/gtest.h>

#include "Bridge.h"

namespace memplan_mlir {
namespace {

ArenaRequest three_in_a_row() {
  ArenaRequest r;
  // a [0,2) and c [2,4) may share; b [1,3) overlaps both.
  r.items = {{"a", 256, 16, 0, 2}, {"b", 256, 16, 1, 3}, {"c", 256, 16, 2, 4}};
  return r;
}

TEST(Bridge, PlansAndPacksToLoad) {
  const ArenaRequest req = three_in_a_row();
  const ArenaPlan p = plan_arena(req);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.load, 512);
  EXPECT_EQ(p.peak, 512);
  ASSERT_EQ(p.offsets.size(), 3u);
  // Checked here from the definition: overlapping lifetimes, disjoint bytes, aligned, inside.
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(p.offsets[i] % req.items[i].alignment, 0);
    EXPECT_LE(p.offsets[i] + req.items[i].size, p.peak);
    for (size_t j = i + 1; j < 3; ++j) {
      const auto &x = req.items[i], &y = req.items[j];
      if (x.start < y.end && y.start < x.end)
        EXPECT_TRUE(p.offsets[i] + x.size <= p.offsets[j] || p.offsets[j] + y.size <= p.offsets[i])
            << x.id << " and " << y.id << " overlap";
    }
  }
}

TEST(Bridge, CapacityTooSmallIsAnError) {
  ArenaRequest req = three_in_a_row();
  req.capacity = 511;
  const ArenaPlan p = plan_arena(req);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.error.find("infeasible"), std::string::npos) << p.error;
  EXPECT_EQ(p.load, 512);
  req.capacity = 512;
  EXPECT_TRUE(plan_arena(req).ok);
}

TEST(Bridge, UnknownAlgorithmIsAnError) {
  ArenaRequest req = three_in_a_row();
  req.algo = "no-such-solver";
  const ArenaPlan p = plan_arena(req);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.error.find("unknown algorithm"), std::string::npos) << p.error;
}

TEST(Bridge, MalformedItemsAreAnErrorNotAnException) {
  for (const ArenaItem& bad : {ArenaItem{"zero", 0, 16, 0, 1}, ArenaItem{"empty", 8, 16, 3, 3},
                               ArenaItem{"align", 8, 3, 0, 1}}) {
    ArenaRequest req;
    req.items = {bad, {"ok", 8, 8, 0, 2}};
    ArenaPlan p;
    EXPECT_NO_THROW(p = plan_arena(req));
    EXPECT_FALSE(p.ok) << bad.id;
    EXPECT_FALSE(p.error.empty()) << bad.id;
  }
}

}  // namespace
}  // namespace memplan_mlir
