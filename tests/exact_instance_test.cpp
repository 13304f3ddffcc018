// The exact search's prepared instance (instance.cpp): its overlap lists against a
// quadratic enumeration written from their specification.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "solvers/exact/search.h"
#include "exact_testing.h"
#include "testing.h"

namespace memplan {
namespace {

// Every buffer's list holds exactly the other buffers whose lifetimes [start, end) overlap
// its own, by increasing size, ties by increasing id (the search takes the first unplaced
// one as the smallest); fixed_near, the pre-placed ones among them by offset.
TEST(ExactInstance, OverlapListsHoldEveryOverlapBySizeThenId) {
  std::mt19937_64 rng(2026);
  int64_t listed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 60;
    spec.horizon = 4 + trial % 30;
    spec.max_size = 1 + trial % 5;  // few sizes: many ties
    Problem p = testing::random_problem(rng, spec);
    if (trial % 3 == 0)
      for (Buffer& b : p.buffers)
        if (rng() % 4 == 0) b.offset = static_cast<int64_t>(rng() % 16);
    const exact::Instance in = testing::exact_instance(p);
    ASSERT_FALSE(in.implicit);
    const int32_t n = static_cast<int32_t>(p.buffers.size());
    ASSERT_EQ(in.adj_begin.size(), static_cast<size_t>(n) + 1);
    for (int32_t i = 0; i < n; ++i) {
      std::vector<int32_t> want, fixed;
      for (int32_t j = 0; j < n; ++j)
        if (j != i && p.buffers[j].start < p.buffers[i].end && p.buffers[i].start < p.buffers[j].end) want.push_back(j);
      std::sort(want.begin(), want.end(), [&](int32_t a, int32_t b) {
        return p.buffers[a].size != p.buffers[b].size ? p.buffers[a].size < p.buffers[b].size : a < b;
      });
      const std::vector<int32_t> got(in.adj.begin() + in.adj_begin[i], in.adj.begin() + in.adj_begin[i + 1]);
      ASSERT_EQ(got, want) << "trial " << trial << " buffer " << i;
      listed += static_cast<int64_t>(got.size());
      for (int32_t j : want)
        if (p.buffers[j].offset) fixed.push_back(j);
      std::sort(fixed.begin(), fixed.end(),
                [&](int32_t a, int32_t b) { return *p.buffers[a].offset < *p.buffers[b].offset; });
      std::vector<int64_t> want_offsets, got_offsets;
      for (int32_t j : fixed) want_offsets.push_back(*p.buffers[j].offset);
      for (int32_t j : in.fixed_near[i]) got_offsets.push_back(*p.buffers[j].offset);
      ASSERT_EQ(got_offsets, want_offsets) << "trial " << trial << " buffer " << i;
      std::vector<int32_t> got_fixed = in.fixed_near[i];
      std::sort(got_fixed.begin(), got_fixed.end());
      std::sort(fixed.begin(), fixed.end());
      ASSERT_EQ(got_fixed, fixed) << "trial " << trial << " buffer " << i;
    }
  }
  EXPECT_GT(listed, 10000);  // the instances overlap enough to test something
}

}  // namespace
}  // namespace memplan
