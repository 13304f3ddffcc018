#include <gtest/gtest.h>

#include "memplan/solver.h"
#include "memplan/validate.h"
#include "testing.h"

namespace memplan {
namespace {

Buffer buf(std::string id, int64_t s, int64_t e, int64_t size, bool top = false) {
  Buffer b = testing::make_buffer(std::move(id), s, e, size);
  b.from_top = top;
  return b;
}

TEST(TwoEnded, HighBuffersGrowDownFromTheCapacity) {
  Problem p;
  p.buffers = {buf("w", 0, 10, 100, true), buf("a", 0, 5, 50), buf("b", 5, 10, 70),
               buf("s", 2, 8, 30, true)};
  SolveOptions o;
  o.capacity = 1000;
  SolveResult r = solve(p, "greedy", o);
  ASSERT_TRUE(r.solution);
  ASSERT_TRUE(validate(p, r.solution->offsets, 1000).ok);
  const auto& off = r.solution->offsets;
  EXPECT_EQ(off[0] + 100, 1000);  // the largest high buffer sits at the very top
  EXPECT_EQ(off[3] + 30, 900);
  EXPECT_EQ(off[1], 0);
  EXPECT_EQ(off[2], 0);
  EXPECT_NE(r.detail.find("free_middle=800"), std::string::npos) << r.detail;
}

TEST(TwoEnded, WithoutCapacityTheTopIsTight) {
  Problem p;
  p.buffers = {buf("w", 0, 10, 100, true), buf("a", 0, 5, 50)};
  SolveResult r = solve(p, "first-fit", {});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 150);
  EXPECT_EQ(r.solution->offsets[0], 50);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
}

TEST(TwoEnded, TooSmallCapacityGivesNoPlan) {
  Problem p;
  p.buffers = {buf("w", 0, 10, 100, true), buf("a", 0, 5, 50)};
  SolveOptions o;
  o.capacity = 120;
  SolveResult r = solve(p, "greedy", o);
  EXPECT_FALSE(r.solution);
}

TEST(TwoEnded, NoRoomAboveTheLowEndIsNoPlanNotBadInput) {
  // The low end takes the whole capacity (330) and the high end's top is the capacity
  // rounded down to its alignment (328): the room left was -4, passed to solve() as a
  // capacity, which refused it as bad input (exit 2 from the CLI, for every solver).
  Problem p;
  p.buffers = {buf("l", 0, 1, 330), buf("h", 1, 2, 4, true)};
  p.buffers[1].alignment = 4;
  SolveOptions o;
  o.capacity = 330;
  for (const char* algo : {"auto", "greedy", "exact"}) {
    const SolveResult r = solve(p, algo, o);
    EXPECT_FALSE(r.solution) << algo;
    EXPECT_EQ(r.status, Status::kNoPlan) << algo << " " << r.detail;
  }
}

TEST(TwoEnded, TheLowEndIsPlannedLowNotJustUnderTheCapacity) {
  // peak-window decides at the capacity it is given: given the whole capacity, the low end
  // stacked its buffer at the top (offset 10 of 20) and left the high end no room.
  Problem p;
  p.buffers = {buf("l", 0, 2, 10), buf("h", 0, 2, 10, true)};
  SolveOptions o;
  o.capacity = 20;
  for (const char* algo : {"peak-window", "first-fit", "exact"}) {
    const SolveResult r = solve(p, algo, o);
    ASSERT_TRUE(r.solution) << algo << " " << r.detail;
    EXPECT_EQ(r.solution->offsets, (std::vector<int64_t>{0, 10})) << algo;
  }
}

TEST(TwoEnded, RandomInstancesWithAlignmentGapsAndFixedOffsetsValidate) {
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 400; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 2 + trial % 10;
    spec.alignment = true;
    spec.gaps = trial % 2;
    Problem p = testing::random_problem(rng, spec);
    for (Buffer& b : p.buffers) b.from_top = rng() % 2;
    SolveOptions o;
    if (trial % 3 == 0) {
      o.capacity = 4096;
      p.buffers[0].offset = 4096 - 64;  // pre-placed near the top (aligned for any alignment <= 8)
      p.buffers[0].size = std::min<int64_t>(p.buffers[0].size, 64);
    }
    for (const char* algo : {"greedy", "best-fit"}) {
      SolveResult r = solve(p, algo, o);
      ASSERT_TRUE(r.solution) << trial;
      const Validation v = validate(p, r.solution->offsets, o.capacity);
      ASSERT_TRUE(v.ok) << "trial " << trial << ": " << v.errors[0];
    }
  }
}

}  // namespace
}  // namespace memplan
