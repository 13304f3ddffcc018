// Solver `lns` (src/solvers/lns/): its neighbourhoods and its loop, against brute force on
// small random instances.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <random>

#include "files.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/lns/neighbourhood.h"
#include "testing.h"

namespace memplan {
namespace {

using testing::make_buffer;

// A plan that stacks every buffer on top of the ones before it, aligned (valid, usually far
// from optimal).
std::vector<int64_t> stacked(const Problem& p) {
  std::vector<int64_t> offsets;
  int64_t at = 0;
  for (const Buffer& b : p.buffers) {
    at = (at + b.alignment - 1) / b.alignment * b.alignment;
    offsets.push_back(b.offset ? *b.offset : at);
    at += b.size;
  }
  return offsets;
}

SolveOptions lns_options(const std::vector<int64_t>& start, int64_t steps, uint64_t seed) {
  SolveOptions o;
  o.time_limit_seconds = 0;  // node budgets and steps alone decide
  o.iterations = steps;
  o.seed = seed;
  o.threads = 1;
  o.initial = std::make_shared<const std::vector<int64_t>>(start);
  return o;
}

TEST(LnsNeighbourhood, FreesTheAnchorAndNoPreplacedBuffer) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Problem p = testing::random_problem(rng, {.buffers = 12, .horizon = 10, .max_size = 6});
    p.buffers[0].offset = 0;  // pre-placed: never freed
    const std::vector<int64_t> offsets = stacked(p);
    const int64_t peak = peak_of(p, offsets);
    // The anchor: the buffer at the peak (the last one stacked).
    const int32_t anchor = static_cast<int32_t>(p.buffers.size()) - 1;
    ASSERT_EQ(offsets[anchor] + p.buffers[anchor].size, peak_of(p, offsets));
    lns::Draw draw{anchor, static_cast<int64_t>(rng() % 10), 0.3 * static_cast<double>(rng() % 4), rng() % 6, rng()};
    const std::vector<int32_t> freed = lns::pick(p, offsets, draw);
    ASSERT_TRUE(std::is_sorted(freed.begin(), freed.end()));
    EXPECT_TRUE(std::binary_search(freed.begin(), freed.end(), anchor)) << "trial " << trial;
    EXPECT_FALSE(std::binary_search(freed.begin(), freed.end(), 0)) << "trial " << trial << ": pre-placed freed";
    EXPECT_EQ(freed.size(), std::max<size_t>(1, std::min(draw.size, p.buffers.size() - 1))) << "trial " << trial;
    // With lambda = 1 the others are the highest tops (ties aside: the jitter is below 0.02
    // of the peak), so none left out is more than that higher than one taken.
    if (draw.lambda == 1.0 && draw.size > 1) {
      int64_t lowest_taken = INT64_MAX, highest_left = INT64_MIN;
      for (int32_t i = 1; i < anchor; ++i) {
        const int64_t top = offsets[i] + p.buffers[i].size;
        if (std::binary_search(freed.begin(), freed.end(), i)) lowest_taken = std::min(lowest_taken, top);
        else highest_left = std::max(highest_left, top);
      }
      if (lowest_taken != INT64_MAX && highest_left != INT64_MIN)
        EXPECT_LE(highest_left, lowest_taken + static_cast<int64_t>(0.02 * static_cast<double>(peak)) + 1)
            << "trial " << trial;
    }
  }
}

TEST(LnsNeighbourhood, ContextIsExactlyTheKeptBuffersThatMeetAFreedOne) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const Problem p = testing::random_problem(rng, {.buffers = 14, .horizon = 16, .max_size = 5});
    std::vector<int32_t> freed;
    for (int32_t i = 0; i < 14; ++i)
      if (rng() % 3 == 0) freed.push_back(i);
    const std::vector<int32_t> context = lns::context_of(p, freed);
    for (int32_t i = 0; i < 14; ++i) {
      if (std::binary_search(freed.begin(), freed.end(), i)) continue;
      const bool meets = std::any_of(freed.begin(), freed.end(),
                                     [&](int32_t f) { return lifetimes_overlap(p.buffers[i], p.buffers[f]); });
      EXPECT_EQ(meets, std::binary_search(context.begin(), context.end(), i)) << "trial " << trial << " buffer " << i;
    }
  }
}

// A kept buffer reaching above the target keeps only its part below it; one wholly above
// is left out.
TEST(LnsNeighbourhood, SubProblemClipsKeptBuffersAtTheTarget) {
  Problem p;
  p.buffers = {make_buffer("a", 0, 4, 3), make_buffer("b", 2, 6, 2), make_buffer("c", 1, 5, 4),
               make_buffer("d", 3, 7, 2)};
  const std::vector<int64_t> offsets = {0, 3, 5, 9};  // c tops at 9, d lies at [9, 11)
  const lns::Sub s = lns::sub_of(p, offsets, {1}, 8);
  ASSERT_EQ(s.ids, (std::vector<int32_t>{1, 0, 2}));
  EXPECT_EQ(s.problem.buffers[2].offset, 5);
  EXPECT_EQ(s.problem.buffers[2].size, 3);  // [5, 8) of c's [5, 9)
  EXPECT_EQ(s.problem.buffers[1].size, 3);  // a whole
}

TEST(LnsNeighbourhood, SubProblemPreplacesTheContextWhereThePlanHasIt) {
  Problem p;
  p.buffers = {make_buffer("a", 0, 4, 3), make_buffer("b", 2, 6, 2), make_buffer("c", 5, 9, 4),
               make_buffer("d", 9, 12, 1)};
  const std::vector<int64_t> offsets = {0, 3, 5, 0};
  const lns::Sub s = lns::sub_of(p, offsets, {1}, 8);
  ASSERT_EQ(s.ids, (std::vector<int32_t>{1, 0, 2}));  // b freed; a and c meet it; d does not
  EXPECT_EQ(s.problem.capacity, 8);
  EXPECT_FALSE(s.problem.buffers[0].offset.has_value());
  EXPECT_EQ(s.problem.buffers[1].offset, 0);
  EXPECT_EQ(s.problem.buffers[2].offset, 5);
}

// Valid, never worse than the start, and the same plan for the same seed.
TEST(Lns, ValidNeverWorseAndDeterministicOnRandomInstances) {
  std::mt19937_64 rng(3);
  int improved = 0;
  for (int trial = 0; trial < testing::sanitizer_scaled(16, 6); ++trial) {
    const Problem p = testing::random_problem(rng, {.buffers = 30, .horizon = 20, .max_size = 40,
                                                    .alignment = trial % 2 == 1});
    const std::vector<int64_t> start = stacked(p);
    const int64_t start_peak = peak_of(p, start);
    const SolveResult a = solve(p, "lns", lns_options(start, 12, 5 + trial));
    ASSERT_TRUE(a.solution) << "trial " << trial << ": " << a.detail;
    EXPECT_TRUE(a.status == Status::kFeasible || a.status == Status::kOptimal) << "trial " << trial;
    EXPECT_TRUE(testing::brute_force_valid(p, a.solution->offsets)) << "trial " << trial;
    EXPECT_LE(a.solution->peak, start_peak) << "trial " << trial;
    improved += a.solution->peak < start_peak;
    const SolveResult b = solve(p, "lns", lns_options(start, 12, 5 + trial));
    EXPECT_EQ(a.solution->offsets, b.solution->offsets) << "trial " << trial;
    EXPECT_EQ(a.detail, b.detail) << "trial " << trial;
  }
  EXPECT_GT(improved, 0);  // the stacked starts leave room: a search that never moves fails here
}

// --threads N: each batch of N steps is decided in parallel against one plan and applied in
// draw order, so the plan depends on the seed and N, never on timing: two runs agree step
// for step. And N matters: the batches draw from the plan before their other steps moved
// anything, so some run differs from the one-thread run (ignoring N would pass the rest).
TEST(Lns, ThreadsDecideBatchesAndRepeat) {
  std::mt19937_64 rng(7);
  int differs = 0;
  for (int trial = 0; trial < testing::sanitizer_scaled(10, 4); ++trial) {
    const Problem p = testing::random_problem(rng, {.buffers = 30, .horizon = 20, .max_size = 40,
                                                    .alignment = trial % 2 == 1});
    const std::vector<int64_t> start = stacked(p);
    SolveOptions o = lns_options(start, 12, 11 + trial);
    o.threads = 3;
    const SolveResult a = solve(p, "lns", o);
    const SolveResult b = solve(p, "lns", o);
    ASSERT_TRUE(a.solution && b.solution) << "trial " << trial << ": " << a.detail;
    EXPECT_TRUE(testing::brute_force_valid(p, a.solution->offsets)) << "trial " << trial;
    EXPECT_LE(a.solution->peak, peak_of(p, start)) << "trial " << trial;
    EXPECT_EQ(a.solution->offsets, b.solution->offsets) << "trial " << trial;
    EXPECT_EQ(a.detail, b.detail) << "trial " << trial;
    EXPECT_EQ(a.nodes, b.nodes) << "trial " << trial;
    const SolveResult one = solve(p, "lns", lns_options(start, 12, 11 + trial));
    differs += one.detail != a.detail;
  }
  EXPECT_GT(differs, 0);
}

// The start is suboptimal (brute force says so), and one step, whose neighbourhood frees the
// whole of a small instance, decides the target one granule below the start: it must find
// a plan there, so the peak drops, and never below the optimum.
TEST(Lns, OneStepImprovesASuboptimalStart) {
  std::mt19937_64 rng(19);
  int checked = 0;
  for (int trial = 0; trial < 60 && checked < testing::sanitizer_scaled(15, 5); ++trial) {
    const Problem p = testing::random_problem(rng, {.buffers = 5, .horizon = 6, .max_size = 4});
    const std::vector<int64_t> start = stacked(p);
    const int64_t optimum = testing::brute_force_optimum(p);
    if (peak_of(p, start) <= optimum) continue;
    ++checked;
    const SolveResult r = solve(p, "lns", lns_options(start, 1, 1));
    ASSERT_TRUE(r.solution) << "trial " << trial;
    EXPECT_EQ(r.iterations, 1) << "trial " << trial;
    EXPECT_LT(r.solution->peak, peak_of(p, start)) << "trial " << trial << ": " << r.detail;
    EXPECT_GE(r.solution->peak, optimum) << "trial " << trial;
    EXPECT_TRUE(testing::brute_force_valid(p, r.solution->offsets)) << "trial " << trial;
  }
  EXPECT_GE(checked, 5);
}

TEST(Lns, KeepsPreplacedBuffersAndStopsAtTheLowerBound) {
  Problem p;
  p.buffers = {make_buffer("x", 0, 2, 4), make_buffer("y", 2, 4, 4), make_buffer("z", 0, 4, 2)};
  p.buffers[2].offset = 4;  // pre-placed above x and y's shared space
  const std::vector<int64_t> start = {0, 6, 4};  // peak 10; x and y can share [0, 4): peak 6
  const SolveResult r = solve(p, "lns", lns_options(start, 50, 1));
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->offsets[2], 4);
  EXPECT_EQ(r.solution->peak, 6);
  EXPECT_NE(r.detail.find("reason=at_lower_bound"), std::string::npos) << r.detail;
  EXPECT_LT(r.iterations, 50);
}

TEST(Lns, TheStartPlanReachesTheLoweredProblemAndEachEnd) {
  // The driver lowers in-place chains and groups, and splits a two-ended pool: the start
  // plan (SolveOptions::initial) was passed unchanged, had the wrong length there, and lns
  // silently started from exact instead (start=exact(initial_unusable)).
  Problem p;
  p.buffers = {testing::make_buffer("x", 0, 5, 100), testing::make_buffer("y", 5, 9, 100),
               testing::make_buffer("g0", 3, 6, 16), testing::make_buffer("g1", 3, 7, 24)};
  p.buffers[1].inplace_of = "x";
  p.buffers[2].group = p.buffers[3].group = "G";
  p.buffers[2].group_index = 0, p.buffers[3].group_index = 1;
  const std::vector<int64_t> start = {0, 0, 100, 116};  // x and y share; the group above
  ASSERT_TRUE(validate(p, start).ok);
  SolveResult r = solve(p, "lns", lns_options(start, 3, 1));
  ASSERT_TRUE(r.solution);
  EXPECT_NE(r.detail.find("start=initial start_peak=140"), std::string::npos) << r.detail;
  // Two ends under a capacity: each end starts from its part of the plan.
  Problem q;
  q.buffers = {testing::make_buffer("l", 0, 4, 10), testing::make_buffer("m", 2, 6, 10), testing::make_buffer("h", 0, 6, 8)};
  q.buffers[2].from_top = true;
  q.capacity = 40;
  const std::vector<int64_t> split = {0, 10, 32};
  ASSERT_TRUE(validate(q, split, 40).ok);
  r = solve(q, "lns", lns_options(split, 3, 1));
  ASSERT_TRUE(r.solution) << r.detail;
  EXPECT_TRUE(validate(q, r.solution->offsets, 40).ok);
}

TEST(Lns, CliInitialPlanMustBeValid) {
  testing::TempDir dir;
  const std::string problem = dir.file("p.csv"), good = dir.file("good.csv"), bad = dir.file("bad.csv"),
                    out = dir.file("out.csv");
  testing::write_text(problem, "id,lower,upper,size\nx,0,2,4\ny,2,4,4\nz,0,4,2\n");
  testing::write_text(good, "id,offset\nx,0\ny,6\nz,4\n");
  testing::write_text(bad, "id,offset\nx,0\ny,6\nz,2\n");  // z overlaps x
  const auto ok = testing::run_cli("solve '" + problem + "' -a lns --time-limit 0 --iterations 20 --initial '" + good +
                                       "' -o '" + out + "'", dir);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("peak=6 "), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("start=initial start_peak=10"), std::string::npos) << ok.out;
  const auto refused = testing::run_cli("solve '" + problem + "' -a lns --initial '" + bad + "' -o '" + out + "2'", dir);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("bad.csv"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("not a valid plan"), std::string::npos) << refused.err;
  EXPECT_FALSE(testing::exists(out + "2"));
  EXPECT_EQ(ok.err.find("warning"), std::string::npos) << ok.err;
  // Any other algorithm ignores the start plan: said, not silent.
  const auto other = testing::run_cli("solve '" + problem + "' -a greedy --initial '" + good + "'", dir);
  EXPECT_EQ(other.code, 0) << other.err;
  EXPECT_NE(other.err.find("warning: --initial is read by lns only; -a greedy ignores it"), std::string::npos) << other.err;
}

}  // namespace
}  // namespace memplan
