#include <gtest/gtest.h>

#include <cstring>

#include "memplan/arena.h"
#include "memplan/solver.h"
#include "testing.h"

namespace memplan {
namespace {

// Simulates execution: at each time step, buffers that start write their own byte pattern
// into their arena range and buffers that end check theirs is intact. A plan that overlapped
// live buffers would corrupt a pattern.
TEST(Arena, PlannedBuffersNeverClobberEachOtherAtRuntime) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 300; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 2 + trial % 20;
    spec.horizon = 16;
    spec.max_size = 64;
    spec.alignment = true;
    const Problem p = testing::random_problem(rng, spec);
    SolveResult r = solve(p, "greedy", {});
    ASSERT_TRUE(r.solution);
    Arena arena(p, *r.solution);
    for (size_t i = 0; i < p.buffers.size(); ++i)
      ASSERT_EQ(reinterpret_cast<uintptr_t>(arena.data(i)) % p.buffers[i].alignment, 0u);
    for (int64_t t = 0; t <= spec.horizon; ++t) {
      for (size_t i = 0; i < p.buffers.size(); ++i)
        if (p.buffers[i].end == t)
          for (int64_t k = 0; k < p.buffers[i].size; ++k)
            ASSERT_EQ(static_cast<unsigned char>(arena.data(i)[k]), (i * 31 + 7) & 0xff)
                << "trial " << trial << " buffer " << i;
      for (size_t i = 0; i < p.buffers.size(); ++i)
        if (p.buffers[i].start == t)
          std::memset(arena.data(i), static_cast<int>((i * 31 + 7) & 0xff), p.buffers[i].size);
    }
  }
}

TEST(Arena, RejectsInvalidPlans) {
  Problem p;
  p.buffers = {{"a", 0, 4, 8}, {"b", 2, 6, 8}};
  Solution bad{{0, 4}, 12};
  EXPECT_THROW(Arena(p, bad), std::invalid_argument);
  Solution good{{0, 8}, 16};
  Arena a(p, good);
  EXPECT_EQ(a.size_bytes(), 16u);
  EXPECT_EQ(a.data("b"), a.base() + 8);
}

}  // namespace
}  // namespace memplan
