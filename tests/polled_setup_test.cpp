// Issue 20, point 4 (continued): the set-up steps that time_limits_test.cpp does not cover
// poll their deadline or stop callback too: idealloc's preparation and LOAD sweep, the
// shared lower bound (the driver's and auto's sweep), the driver's check of pre-placed
// buffers and its constraint lowering, the baselines' first sorts, and the timeline
// module's order and pair count. Deterministic: deadlines that have already passed (a set
// cancel flag), stop callbacks that count their calls; never wall time.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "memplan/bounds.h"
#include "memplan/constraints.h"
#include "memplan/driver.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"
#include "solvers/baselines/baselines.h"
#include "solvers/idealloc/idealloc.h"
#include "testing.h"

namespace memplan {
namespace {

using Passed = testing::PassedDeadline;

// Large enough that every polled sort really polls (more than 2^13 items).
Problem dnn(int64_t n) { return testing::generated_dnn(n, 11); }

TEST(TimeLimitTolerance, IsTenPercentOrATenthOfASecond) {
  EXPECT_DOUBLE_EQ(time_limit_tolerance(0.3), 0.1);
  EXPECT_DOUBLE_EQ(time_limit_tolerance(1.0), 0.1);
  EXPECT_DOUBLE_EQ(time_limit_tolerance(2.0), 0.2);
  EXPECT_DOUBLE_EQ(time_limit_tolerance(30.0), 3.0);
}

TEST(PolledSetUp, LowerBoundStopsAtAPassedDeadlineAndAgreesOtherwise) {
  Problem p = dnn(30'000);
  p.buffers[5].offset = int64_t{1} << 40;  // a pre-placed top above LOAD
  const Passed passed;
  const Deadline unlimited;
  EXPECT_EQ(lower_bound_of(p, &passed.deadline), -1);
  EXPECT_EQ(lower_bound_of(p, &unlimited), lower_bound_of(p));
  EXPECT_EQ(lower_bound_of(p), (int64_t{1} << 40) + p.buffers[5].size);
  p.buffers[5].offset.reset();
  EXPECT_EQ(lower_bound_of(p), compute_load(p));
}

TEST(PolledSetUp, IdeallocPreparationStopsAtAPassedDeadline) {
  const Problem p = dnn(30'000);
  const Passed passed;
  EXPECT_FALSE(idealloc::prepare(p, &passed.deadline).complete);
  const idealloc::Prepared prep = idealloc::prepare(p);
  ASSERT_TRUE(prep.complete);
  // The distinct heights, increasing: what epsilon_search was given (with repeats) before.
  std::vector<int64_t> heights;
  for (const idealloc::Job& j : prep.base.jobs) heights.push_back(j.height);
  std::sort(heights.begin(), heights.end());
  heights.erase(std::unique(heights.begin(), heights.end()), heights.end());
  EXPECT_EQ(prep.heights, heights);
  EXPECT_EQ(idealloc::epsilon_search(prep.heights).eps, idealloc::epsilon_search(heights).eps);
}

// auto's own bound sweep polls its (clock) deadline: a limit that passes at once stops it
// there, before the plan of last resort. Unpolled, the sweep would finish and auto would go
// on (the online plan then stops, but the detail would name a winner).
TEST(PolledSetUp, AutoStopsInItsBoundSweep) {
  const Problem p = dnn(30'000);
  SolveOptions o;
  o.time_limit_seconds = 1e-9;
  const SolveResult r = find_solver("auto")->run(p, o);
  EXPECT_FALSE(r.solution);
  EXPECT_EQ(r.detail, "reason=time_limit_in_bound");
}

TEST(PolledSetUp, PrePlacedCheckStopsAtAPassedDeadline) {
  Problem p = dnn(30'000);
  const std::optional<Solution> plan = online_plan(p);
  ASSERT_TRUE(plan);
  for (size_t i = 0; i < p.buffers.size(); ++i) p.buffers[i].offset = plan->offsets[i];
  const Passed passed;
  EXPECT_EQ(fixed_collision(p, std::nullopt, &passed.deadline), std::nullopt);
  EXPECT_EQ(fixed_collision(p, std::nullopt), std::optional<std::string>(""));
  // A real collision is still found: buffer 1 moved onto buffer 0, in space and time.
  p.buffers[1].offset = p.buffers[0].offset;
  p.buffers[1].start = p.buffers[0].start;
  p.buffers[1].end = p.buffers[0].end;
  const std::optional<std::string> clash = fixed_collision(p, std::nullopt);
  ASSERT_TRUE(clash);
  EXPECT_NE(*clash, "");
}

TEST(PolledSetUp, ConstraintLoweringStopsAtAPassedDeadline) {
  Problem p = dnn(30'000);
  for (size_t i = 1; i < p.buffers.size(); i += 2) p.buffers[i].inplace_of = p.buffers[i - 1].id;
  const Passed passed;
  EXPECT_FALSE(lower_constraints(p, &passed.deadline).complete);
  const Lowering whole = lower_constraints(p);
  EXPECT_TRUE(whole.complete);
  EXPECT_EQ(whole.problem.buffers.size(), p.buffers.size() / 2);
  // The shared bound counts each in-place pair once, as the lowering merges it.
  EXPECT_EQ(lower_bound_of(p), constrained_lower_bound(p));
}

// Each baseline's first sort polls: with a passed deadline it gives up in the sort (its
// detail says so) rather than sort a million records and give up at the first placement.
TEST(PolledSetUp, BaselinesGiveUpInTheirFirstSort) {
  using namespace baselines;
  const std::vector<Rec> recs = records_of(dnn(30'000));
  const Passed passed;
  const Deadline& dl = passed.deadline;
  std::vector<int64_t> in_bucket;
  const std::vector<std::pair<std::string, std::pair<bool, std::string>>> runs = {
      {"tflite-micro", {tflite_micro_greedy(recs, dl).complete, tflite_micro_greedy(recs, dl).detail}},
      {"tflite-gpu-size", {tflite_gpu_greedy_by_size(recs, 1, dl).complete, tflite_gpu_greedy_by_size(recs, 1, dl).detail}},
      {"tflite-cpu", {arena_best_fit(recs, 1, true, dl).complete, arena_best_fit(recs, 1, true, dl).detail}},
      {"xla", {xla_best_fit(recs, XlaOrder::kSpatial, XlaFit::kBestFit, 1, dl).complete,
               xla_best_fit(recs, XlaOrder::kSpatial, XlaFit::kBestFit, 1, dl).detail}},
      {"tvm-size", {tvm_greedy_by_size(recs, dl).complete, tvm_greedy_by_size(recs, dl).detail}},
      {"tvm-conflicts", {tvm_greedy_by_conflicts(recs, dl).complete, tvm_greedy_by_conflicts(recs, dl).detail}},
      {"tvm-hill-climb", {tvm_hill_climb(recs, 1, dl).complete, tvm_hill_climb(recs, 1, dl).detail}},
      {"somas", {somas(recs, 0, dl).complete, somas(recs, 0, dl).detail}},
      {"triton", {triton_shared_memory(recs, dl).complete, triton_shared_memory(recs, dl).detail}},
      {"onnxruntime", {onnxruntime_mem_pattern(recs, dl).complete, onnxruntime_mem_pattern(recs, dl).detail}},
      {"executorch", {executorch_greedy_buckets(recs, &in_bucket, dl).complete,
                      executorch_greedy_buckets(recs, &in_bucket, dl).detail}},
      {"tflite-gpu-breadth", {tflite_gpu_greedy_by_breadth(recs, dl).complete,
                              tflite_gpu_greedy_by_breadth(recs, dl).detail}},
      {"tflite-gpu-in-order", {tflite_gpu_greedy_in_order(recs, dl).complete, tflite_gpu_greedy_in_order(recs, dl).detail}},
      {"tflite-gpu-equality", {tflite_gpu_equality(recs, dl).complete, tflite_gpu_equality(recs, dl).detail}},
      {"tflite-gpu-min-cost-flow", {tflite_gpu_min_cost_flow(recs, dl).complete, tflite_gpu_min_cost_flow(recs, dl).detail}},
  };
  for (const auto& [name, run] : runs) {
    EXPECT_FALSE(run.first) << name;
    EXPECT_NE(run.second.find(" sort)"), std::string::npos) << name << ": " << run.second;
  }
  // Unlimited, the same calls finish.
  EXPECT_TRUE(tflite_micro_greedy(recs).complete);
  EXPECT_TRUE(tvm_greedy_by_size(recs).complete);
  EXPECT_TRUE(tflite_gpu_greedy_in_order(recs).complete);
}

TEST(PolledSetUp, TimelineSweepsPollTheirStop) {
  std::mt19937_64 rng(5);
  const size_t n = 100'000;
  std::vector<int64_t> start(n), end(n);
  for (size_t i = 0; i < n; ++i) {
    start[i] = static_cast<int64_t>(rng() % 50'000);
    end[i] = start[i] + 1 + static_cast<int64_t>(rng() % 20);
  }
  int64_t calls = 0;
  const auto counting = [&] { return ++calls, false; };
  EXPECT_EQ(order_by_start(start, counting), order_by_start(start));
  EXPECT_GE(calls, 10);  // 13 blocks of 2^13 alone
  calls = 0;
  EXPECT_EQ(overlapping_pairs(start, end, counting), overlapping_pairs(start, end));
  EXPECT_GE(calls, 20);
  calls = 0;
  EXPECT_EQ(overlap_degrees(start, end, counting), overlap_degrees(start, end));
  EXPECT_GE(calls, 20);
  std::vector<int64_t> size(n, 8);
  calls = 0;
  EXPECT_EQ(sections_of(start, end, size, counting).total, sections_of(start, end, size).total);
  EXPECT_GE(calls, 10);
  const auto third = [&] { return ++calls >= 3; };
  calls = 0;
  EXPECT_TRUE(order_by_start(start, third).empty());
  calls = 0;
  EXPECT_EQ(overlapping_pairs(start, end, third), -1);
  calls = 0;
  EXPECT_TRUE(overlap_degrees(start, end, third).empty());
  calls = 0;
  EXPECT_TRUE(sections_of(start, end, size, third).lo.empty());
  // The conflict graph stops in them too.
  Problem p;
  for (size_t i = 0; i < n; ++i) p.buffers.push_back(testing::make_buffer("b" + std::to_string(i), start[i], end[i], 8));
  ConflictGraph g;
  calls = 0;
  EXPECT_FALSE(conflict_graph(p, g, INT64_MAX, third));
  EXPECT_LE(calls, 3);  // stopped in the pair count, the first step
  EXPECT_TRUE(conflict_graph(p, g, INT64_MAX));
}

}  // namespace
}  // namespace memplan
