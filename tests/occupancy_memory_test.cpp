// The occupancy index's memory accounting (OccupancyIndex::memory, behind
// PlacementEngine::index_memory and bench/training_bench --memory): on a hand-worked tree,
// the sets, runs, buckets and headers it counts per kind, and that a cleared index counts no
// sets or runs but keeps its reserved bytes (clear() keeps the vectors' capacity).
// Mutation check: count_set without its `if (s.empty()) return;` (empty sets counted as
// sets) fails ClearedIndexKeepsCapacityOnly; two-run sets put in the first bucket
// (`n == 1 ? 0` made `n <= 2 ? 0` in count_set) fails CountsAHandWorkedTree.
#include <gtest/gtest.h>

#include "core/occupancy_index.h"
#include "memplan/placement.h"  // IndexMemory

namespace memplan {
namespace {

// 64 slots in blocks of 4: 16 leaf blocks, nodes 1..31 (leaves 16..31).
// Piece 1, slots [4, 12) at [0, 10): blocks 1 and 2 whole, canonical nodes 17 and 18: here()
// of those two, below() of 17, 8, 4, 2, 1 and 18, 9 (seven sets, one run each).
// Pieces 2 and 3, slots [5, 6) (inside block 1, raw there) at [0, 4) and [20, 30): below()
// of 17, 8, 4, 2, 1 again; [0, 4) merges into [0, 10), [20, 30) is a second run in each.
void fill(OccupancyIndex& index) {
  index.init(64, 4);
  index.add(4, 12, 0, 10);
  index.add(5, 6, 0, 4);
  index.add(5, 6, 20, 30);
}

TEST(OccupancyMemory, CountsAHandWorkedTree) {
  OccupancyIndex index;
  fill(index);
  IndexMemory m;
  index.memory(m);
  EXPECT_EQ(m.headers[IndexMemory::kHere], 32);
  EXPECT_EQ(m.headers[IndexMemory::kRaw], 16);
  EXPECT_EQ(m.sets[IndexMemory::kHere], 2);
  EXPECT_EQ(m.entries[IndexMemory::kHere], 2);
  EXPECT_EQ(m.sets[IndexMemory::kBelow], 7);
  EXPECT_EQ(m.entries[IndexMemory::kBelow], 12);
  EXPECT_EQ(m.used_bytes[IndexMemory::kBelow], 12 * 16);
  EXPECT_EQ(m.by_size[IndexMemory::kBelow][0], 2);  // 18 and 9: one run
  EXPECT_EQ(m.by_size[IndexMemory::kBelow][1], 5);  // 17, 8, 4, 2, 1: two runs
  EXPECT_EQ(m.sets[IndexMemory::kRaw], 1);
  EXPECT_EQ(m.entries[IndexMemory::kRaw], 2);
  EXPECT_EQ(m.by_size[IndexMemory::kRaw][1], 1);
  EXPECT_EQ(m.sets[IndexMemory::kCrossAll], 0);  // the crossing sets start off
  EXPECT_GE(m.reserved_bytes[IndexMemory::kBelow], m.used_bytes[IndexMemory::kBelow]);
  EXPECT_GT(m.heap_bytes[IndexMemory::kBelow], m.reserved_bytes[IndexMemory::kBelow]);
}

TEST(OccupancyMemory, ClearedIndexKeepsCapacityOnly) {
  OccupancyIndex index;
  fill(index);
  index.clear();
  IndexMemory m;
  index.memory(m);
  for (int k = 0; k < IndexMemory::kKinds; ++k) {
    EXPECT_EQ(m.sets[k], 0) << k;
    EXPECT_EQ(m.entries[k], 0) << k;
  }
  EXPECT_GE(m.reserved_bytes[IndexMemory::kBelow], 12 * 16);
}

}  // namespace
}  // namespace memplan
