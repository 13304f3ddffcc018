// subproblem / subproblems (problem.h): the one cut-out of a subset of buffers that the
// conflict components, the memories and `explain` share.
#include <gtest/gtest.h>

#include <stdexcept>

#include "memplan/problem.h"

namespace memplan {
namespace {

Buffer buf(const std::string& id, int64_t start, int64_t end, int64_t size, const std::string& inplace = "") {
  Buffer b;
  b.id = id, b.start = start, b.end = end, b.size = size, b.inplace_of = inplace;
  return b;
}

// Four buffers on a partial order (clocks of dimension 2) with explicit conflicts.
Problem four() {
  Problem p;
  p.capacity = 100;
  p.buffers = {buf("a", 0, 2, 10), buf("b", 1, 3, 20, "a"), buf("c", 2, 4, 30, "b"), buf("d", 3, 5, 40)};
  p.conflicts = {{0, 3}, {1, 2}, {2, 2}, {3, 1}};
  p.clock_dim = 2;
  p.clock_lower = {0, 0, 1, 1, 2, 2, 3, 3};
  p.clock_upper = {1, 2, 2, 3, 3, 4, 4, 5};
  p.memories = {{"sram", 64, 1}};
  return p;
}

TEST(Subproblem, KeepsTheSubsetsBuffersConflictsAndClocksRenumbered) {
  const Problem s = subproblem(four(), {3, 1});
  ASSERT_EQ(s.buffers.size(), 2u);
  EXPECT_EQ(s.buffers[0].id, "d");
  EXPECT_EQ(s.buffers[1].id, "b");
  EXPECT_EQ(s.capacity, std::optional<int64_t>(100));
  EXPECT_TRUE(s.memories.empty());
  // (3, 1) is the only pair with both ends inside: d is 0, b is 1.
  ASSERT_EQ(s.conflicts.size(), 1u);
  EXPECT_EQ(s.conflicts[0], std::make_pair(0, 1));
  EXPECT_EQ(s.clock_dim, 2);
  EXPECT_EQ(s.clock_lower, (std::vector<int64_t>{3, 3, 1, 1}));
  EXPECT_EQ(s.clock_upper, (std::vector<int64_t>{4, 5, 2, 3}));
  // b's in-place link names a, which is outside: dropped.
  EXPECT_TRUE(s.buffers[1].inplace_of.empty());
}

TEST(Subproblem, KeepsLinksInsideAndDropsSelfPairs) {
  const Problem s = subproblem(four(), {1, 2});
  ASSERT_EQ(s.buffers.size(), 2u);
  EXPECT_EQ(s.buffers[1].inplace_of, "b");  // c -> b: both inside
  EXPECT_TRUE(s.buffers[0].inplace_of.empty());  // b -> a: a outside
  ASSERT_EQ(s.conflicts.size(), 1u);  // (1, 2); (2, 2) constrains nothing
  EXPECT_EQ(s.conflicts[0], std::make_pair(0, 1));
}

TEST(Subproblem, PartsAtOnceEqualOneAtATime) {
  const Problem p = four();
  const std::vector<std::vector<int32_t>> parts = {{0, 3}, {2}, {1}};
  const std::vector<Problem> all = subproblems(p, parts);
  ASSERT_EQ(all.size(), parts.size());
  for (size_t c = 0; c < parts.size(); ++c) {
    const Problem one = subproblem(p, parts[c]);
    ASSERT_EQ(all[c].buffers.size(), one.buffers.size());
    for (size_t k = 0; k < one.buffers.size(); ++k) EXPECT_EQ(all[c].buffers[k].id, one.buffers[k].id);
    EXPECT_EQ(all[c].conflicts, one.conflicts);
    EXPECT_EQ(all[c].clock_lower, one.clock_lower);
  }
  EXPECT_EQ(all[0].conflicts, (std::vector<std::pair<int32_t, int32_t>>{{0, 1}}));
  EXPECT_TRUE(all[1].conflicts.empty());
}

TEST(Subproblem, NoClocksWhenTheirSizesDoNotMatch) {
  Problem p = four();
  p.clock_upper.pop_back();
  const Problem s = subproblem(p, {0});
  EXPECT_EQ(s.clock_dim, 0);
  EXPECT_TRUE(s.clock_lower.empty());
}

TEST(Subproblem, RejectsBadIndices) {
  EXPECT_THROW(subproblem(four(), {4}), std::invalid_argument);
  EXPECT_THROW(subproblem(four(), {-1}), std::invalid_argument);
  EXPECT_THROW(subproblem(four(), {1, 1}), std::invalid_argument);
  EXPECT_THROW(subproblems(four(), {{0}, {0}}), std::invalid_argument);
}

}  // namespace
}  // namespace memplan
