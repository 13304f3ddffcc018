#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>

#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "core/sort_keys.h"
#include "testing.h"

namespace memplan {
namespace {

// The radix sort (from 48 keys on) and its small-input path agree with std::sort, over
// narrow and full 64-bit spans.
TEST(SortKeys, MatchesStdSort) {
  std::mt19937_64 rng(5);
  std::vector<uint64_t> tmp;
  for (int trial = 0; trial < 400; ++trial) {
    const size_t n = rng() % 600;
    const int bits = 1 + int(rng() % 64);
    const uint64_t base = rng();
    std::vector<uint64_t> v(n);
    for (uint64_t& k : v) k = base + (bits == 64 ? rng() : rng() % (uint64_t{1} << bits));
    std::vector<uint64_t> want = v;
    std::sort(want.begin(), want.end());
    sort_keys(v, tmp);
    ASSERT_EQ(v, want) << "n=" << n << " bits=" << bits;
  }
}

// With a payload in the low bits: the keys come out ordered by their high bits alone,
// as a permutation of the input (the radix sort skips the payload's passes).
TEST(SortKeys, PayloadBitsOrderByTheHighBitsOnly) {
  std::mt19937_64 rng(6);
  std::vector<uint64_t> tmp;
  for (int trial = 0; trial < 400; ++trial) {
    const size_t n = rng() % 300;
    const int payload = 1 + int(rng() % 12), bits = 1 + int(rng() % 30);
    const uint64_t base = rng() % (uint64_t{1} << 20);
    std::vector<uint64_t> v(n);
    for (uint64_t& k : v) k = (base + rng() % (uint64_t{1} << bits)) << payload | rng() % (uint64_t{1} << payload);
    std::vector<uint64_t> sorted = v;
    sort_keys(sorted, tmp, payload);
    for (size_t u = 1; u < n; ++u) ASSERT_LE(sorted[u - 1] >> payload, sorted[u] >> payload) << "n=" << n;
    std::vector<uint64_t> a = v, b = sorted;
    std::sort(a.begin(), a.end()), std::sort(b.begin(), b.end());
    ASSERT_EQ(a, b) << "n=" << n;  // a permutation
  }
}

TEST(Load, MatchesBruteForceOnRandomInstances) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 12;
    spec.gaps = trial % 2;
    const Problem p = testing::random_problem(rng, spec);
    ASSERT_EQ(compute_load(p), testing::brute_force_load(p)) << "trial " << trial;
  }
}

TEST(Load, HalfOpenLifetimesTouchingDoNotAdd) {
  Problem p;
  p.buffers = {{"a", 0, 5, 10}, {"b", 5, 9, 7}};
  EXPECT_EQ(compute_load(p), 10);
}

TEST(Validate, AgreesWithBruteForceOnRandomPlans) {
  std::mt19937_64 rng(11);
  int valid_seen = 0, invalid_seen = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 9;
    spec.alignment = trial % 3 == 0;
    spec.gaps = trial % 2 == 0;
    Problem p = testing::random_problem(rng, spec);
    std::vector<int64_t> offsets;
    for (const Buffer& b : p.buffers)
      offsets.push_back(std::uniform_int_distribution<int64_t>(0, 3 * spec.max_size)(rng));
    if (trial % 5 == 0 && !p.buffers.empty()) p.buffers[0].offset = offsets[0];
    std::optional<int64_t> cap;
    if (trial % 7 == 0) cap = 4 * spec.max_size;
    const bool expect = testing::brute_force_valid(p, offsets, cap);
    const Validation v = validate(p, offsets, cap);
    ASSERT_EQ(v.ok, expect) << "trial " << trial << (v.errors.empty() ? "" : ": " + v.errors[0]);
    (expect ? valid_seen : invalid_seen)++;
  }
  EXPECT_GT(valid_seen, 300);
  EXPECT_GT(invalid_seen, 300);
}

TEST(Placement, FirstFitPlansAreValidAndMinimalPerBuffer) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 10;
    spec.alignment = trial % 2;
    spec.gaps = trial % 3 == 0;
    const Problem p = testing::random_problem(rng, spec);
    std::vector<int32_t> order(p.buffers.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
    std::shuffle(order.begin(), order.end(), rng);
    for (Fit fit : {Fit::kFirst, Fit::kBest}) {
      GreedyResult g = place_in_order(p, order, fit);
      ASSERT_TRUE(g.complete);
      ASSERT_TRUE(testing::brute_force_valid(p, g.solution.offsets)) << "trial " << trial;
      ASSERT_EQ(g.solution.peak, peak_of(p, g.solution.offsets));
    }
    // First-fit: no buffer could have gone lower given those placed before it.
    GreedyResult g = place_in_order(p, order, Fit::kFirst);
    for (size_t k = 0; k < order.size(); ++k) {
      const int32_t i = order[k];
      for (int64_t lower = 0; lower < g.solution.offsets[i]; lower += p.buffers[i].alignment) {
        std::vector<int64_t> offs = g.solution.offsets;
        offs[i] = lower;
        Problem prefix;
        std::vector<int64_t> prefix_offs;
        for (size_t m = 0; m <= k; ++m) {
          prefix.buffers.push_back(p.buffers[order[m]]);
          prefix_offs.push_back(offs[order[m]]);
        }
        ASSERT_FALSE(testing::brute_force_valid(prefix, prefix_offs))
            << "trial " << trial << ": buffer " << i << " fits lower at " << lower;
      }
    }
  }
}

TEST(Placement, HonoursPrePlacedBuffers) {
  Problem p;
  p.buffers = {{"a", 0, 10, 8}, {"b", 0, 10, 8}, {"c", 0, 10, 8}};
  p.buffers[1].offset = 0;
  const std::vector<int32_t> order = {0, 1, 2};
  GreedyResult g = place_in_order(p, order, Fit::kFirst);
  ASSERT_TRUE(g.complete);
  EXPECT_EQ(g.solution.offsets[1], 0);
  EXPECT_TRUE(validate(p, g.solution.offsets).ok);
  EXPECT_EQ(g.solution.peak, 24);
}

TEST(Greedy, EveryRegisteredGreedySolverValidatesOnRandomInstances) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 2 + trial % 15;
    spec.alignment = trial % 2;
    const Problem p = testing::random_problem(rng, spec);
    for (const char* name : {"greedy", "first-fit", "best-fit", "best-fit-start", "first-fit-area"}) {
      SolveOptions opt;
      opt.threads = 2;
      SolveResult r = solve(p, name, opt);
      ASSERT_TRUE(r.solution) << name;
      ASSERT_TRUE(testing::brute_force_valid(p, r.solution->offsets)) << name;
      ASSERT_GE(r.solution->peak, compute_load(p));
    }
  }
}

TEST(Online, PlansAreValidWithAlignmentGapsAndPrePlacedBuffers) {
  std::mt19937_64 rng(17);
  int reused = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 12;
    spec.alignment = trial % 2;
    spec.gaps = trial % 3 == 0;
    Problem p = testing::random_problem(rng, spec);
    if (trial % 4 == 1) p.buffers[0].offset = int64_t(rng() % 4) * p.buffers[0].alignment;
    const Solution s = online_plan(p);
    ASSERT_TRUE(testing::brute_force_valid(p, s.offsets)) << "trial " << trial;
    ASSERT_EQ(s.peak, peak_of(p, s.offsets));
    int64_t total = 0;
    for (const Buffer& b : p.buffers) total += b.size;
    reused += s.peak < total;  // freed blocks were handed out again
  }
  EXPECT_GT(reused, 500);
}

TEST(Online, ReusesAFreedBlockAndCoalesces) {
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 2, 4), testing::make_buffer("b", 0, 2, 4),
               testing::make_buffer("c", 2, 4, 8), testing::make_buffer("d", 2, 4, 2)};
  const Solution s = online_plan(p);
  // a and b free [0, 8) at t = 2 as one block, which c fills; d goes on top.
  EXPECT_EQ(s.offsets[2], 0);
  EXPECT_EQ(s.offsets[3], 8);
  EXPECT_EQ(s.peak, 10);
}

// With the time limit already passed, the solvers that used to finish a first greedy pass
// regardless now return the online allocator's plan at once: valid, never none.
TEST(Online, CancelledSolversFallBackToIt) {
  std::mt19937_64 rng(29);
  testing::RandomSpec spec;
  spec.buffers = 3000;
  spec.horizon = 400;
  spec.max_size = 1000;
  const Problem p = testing::random_problem(rng, spec);
  std::atomic<bool> cancel{true};
  SolveOptions opt;
  opt.cancel = &cancel;
  const int64_t online = online_plan(p).peak;
  for (const char* name : {"greedy", "exact", "idealloc"}) {
    const SolveResult r = solve(p, name, opt);
    ASSERT_TRUE(r.solution) << name;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok) << name;
    EXPECT_EQ(r.solution->peak, online) << name;
  }
}

TEST(Greedy, MiniMallocBenchmarksWithinRatio) {
  for (char c = 'A'; c <= 'K'; ++c) {
    const Problem p =
        read_csv_file(testing::source_path(std::string("benchmarks/minimalloc/") + c + ".1048576.csv"))
            .problem;
    SolveOptions opt;
    opt.threads = 2;
    SolveResult r = solve(p, "greedy", opt);
    ASSERT_TRUE(r.solution);
    EXPECT_TRUE(validate(p, r.solution->offsets).ok);
    const double ratio = double(r.solution->peak) / double(compute_load(p));
    EXPECT_LE(ratio, 1.41) << c;
  }
}

}  // namespace
}  // namespace memplan
