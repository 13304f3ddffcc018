// Issue 20, point 4 (continued): the set-up steps that time_limits_test.cpp does not cover
// poll their deadline or stop callback too: idealloc's preparation and LOAD sweep, the
// shared lower bound (the driver's and auto's sweep), the driver's check of pre-placed
// buffers and its constraint lowering, the baselines' first sorts, and the timeline
// module's order and pair count. Deterministic: deadlines that have already passed (a set
// cancel flag), stop callbacks that count their calls; never wall time.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
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
#include "solvers/exact/search.h"
#include "solvers/idealloc/idealloc.h"
#include "exact_testing.h"
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
  // The first set-up step each reaches: its first sort, or what comes before it (the index
  // of placed records, TVM's conflict counts and memory pressure, TFLite GPU's event times).
  const auto in_set_up = [](const std::string& d) {
    for (const char* step : {" sort)", " index)", " conflict counts)", " memory pressure)", " event times)"})
      if (d.size() >= std::string(step).size() && d.ends_with(step)) return true;
    return false;
  };
  for (const auto& [name, run] : runs) {
    EXPECT_FALSE(run.first) << name;
    EXPECT_TRUE(in_set_up(run.second)) << name << ": " << run.second;
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

// Issue 20 point 4, the last set-up steps: the baselines' index of placed records, TVM's
// conflict counts and memory pressure, TFLite GPU's event times each poll the deadline.
TEST(PolledSetUp, BaselineIndexCountsAndEventTimesStopAtAPassedDeadline) {
  using namespace baselines;
  const std::vector<Rec> recs = records_of(dnn(30'000));
  const Passed passed;
  EXPECT_FALSE(OverlapIndex(recs, &passed.deadline).complete());
  EXPECT_TRUE(conflict_counts(recs, &passed.deadline).empty());
  EXPECT_EQ(live_peak(recs, &passed.deadline), -1);
  // The solvers name the step they stopped in.
  EXPECT_EQ(xla_best_fit(recs, XlaOrder::kSpatial, XlaFit::kBestFit, 1, passed.deadline).detail,
            "time limit (xla index)");
  EXPECT_EQ(tvm_greedy_by_size(recs, passed.deadline).detail, "time limit (tvm conflict counts)");
  EXPECT_EQ(tflite_gpu_greedy_by_breadth(recs, passed.deadline).detail,
            "time limit (greedy-by-breadth event times)");
  // Unlimited: the same answers as before (a brute force on a prefix for the counts; the
  // index finds exactly the overlapping records).
  const Deadline unlimited;
  const std::vector<Rec> few(recs.begin(), recs.begin() + 2'000);
  const std::vector<int64_t> counts = conflict_counts(few, &unlimited);
  ASSERT_EQ(counts.size(), few.size());
  OverlapIndex index(few, &unlimited);
  ASSERT_TRUE(index.complete());
  index.insert_all();
  for (size_t i = 0; i < few.size(); i += 97) {
    int64_t want = 0;
    std::vector<int32_t> overlapping;
    for (size_t j = 0; j < few.size(); ++j)
      if (overlap(few[i], few[j])) {
        want += j != i;
        overlapping.push_back(static_cast<int32_t>(j));
      }
    EXPECT_EQ(counts[i], want) << i;
    std::vector<int32_t> got = index.query(few[i].start, few[i].end);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, overlapping) << i;
  }
  EXPECT_EQ(live_peak(recs, &unlimited), live_peak(recs));
  EXPECT_EQ(live_peak(recs), compute_load(dnn(30'000)));
}

// Two polls the test above does not reach: TVM hill climb's memory pressure (its first
// step), and TFLite GPU greedy-by-breadth's sweep over the tensors. 4,096 records give 8,192
// event times, a sort too small to poll (polled.h: blocks of 2^13), so with a deadline
// already passed the sweep is the first step that polls (once per 4,096 tensors).
TEST(PolledSetUp, TvmMemoryPressureAndBreadthSweepStopAtAPassedDeadline) {
  using namespace baselines;
  const std::vector<Rec> recs = records_of(dnn(30'000));
  const Passed passed;
  EXPECT_EQ(tvm_hill_climb(recs, 0, passed.deadline).detail, "time limit (tvm memory pressure)");
  const std::vector<Rec> few(recs.begin(), recs.begin() + 4'096);
  const Objects o = tflite_gpu_greedy_by_breadth(few, passed.deadline);
  EXPECT_FALSE(o.complete);
  EXPECT_EQ(o.detail, "time limit (greedy-by-breadth sweep)");
  EXPECT_TRUE(tflite_gpu_greedy_by_breadth(few, Deadline()).complete);
}

// The placement engine switches its crossing index on once first-fit walks grow long,
// adding every placed piece to it (O(placed log n)); that loop polls the deadline the
// engine was built with, and a switch it stopped leaves the index off (answers alike).
TEST(PolledSetUp, CrossingIndexSwitchStopsAtAPassedDeadline) {
  const Problem p = dnn(10'000);
  for (bool cancel : {false, true}) {
    std::atomic<bool> flag{false};
    const Deadline dl(0, &flag);
    PlacementEngine engine(p, &dl), plain(p);
    ASSERT_TRUE(engine.built());
    ASSERT_TRUE(engine.use_occupancy_index() && plain.use_occupancy_index());
    const int32_t n = static_cast<int32_t>(p.buffers.size());
    for (int32_t i = 0; i < n; ++i) {
      if (i == 6'000) {  // 6,000 placed: the switch polls (every 4,096 buffers)
        flag = cancel;
        EXPECT_TRUE(engine.use_crossing_index());
        EXPECT_EQ(engine.crossing_index_in_use(), !cancel) << cancel;
      }
      // Placements go on either way, with the same first-fit answers as without the switch.
      const int64_t at = engine.find_offset(i);
      ASSERT_EQ(at, plain.find_offset(i)) << i;
      engine.place(i, at), plain.place(i, at);
    }
  }
}

// idealloc's equal-size special case colours every buffer (1M all live: O(n^2 / 64) word
// reads in the lowest-free-row scan); the colouring polls its deadline.
TEST(PolledSetUp, IdeallocEqualSizeColouringStopsAtAPassedDeadline) {
  Problem p = dnn(30'000);
  for (Buffer& b : p.buffers) b.size = 64;
  const idealloc::Prepared prep = idealloc::prepare(p);
  ASSERT_TRUE(prep.complete);
  std::vector<int32_t> all(p.buffers.size());
  std::iota(all.begin(), all.end(), 0);
  const Passed passed;
  int32_t rows = 0;
  EXPECT_TRUE(idealloc::interval_colouring(prep.base, all, rows, &passed.deadline).empty());
  EXPECT_EQ(rows, -1);
  const Deadline unlimited;
  int32_t rows_unpolled = 0;
  const std::vector<int32_t> want = idealloc::interval_colouring(prep.base, all, rows_unpolled);
  EXPECT_EQ(idealloc::interval_colouring(prep.base, all, rows, &unlimited), want);
  EXPECT_EQ(rows, rows_unpolled);
  EXPECT_GT(rows, 1);
}

// The dive's re-ranking sorts parts of up to n buffers by the preorder keys; that sort polls.
TEST(PolledSetUp, ExactKeySortStopsAtAPassedDeadline) {
  const Problem p = dnn(30'000);
  const exact::Instance in = testing::exact_instance(p);
  std::vector<int64_t> pressure(in.n);
  for (int32_t i = 0; i < in.n; ++i) pressure[i] = (i * 7919) % 1000;
  for (const std::string keys : {"TWZ", "TWZLU"}) {  // the packed rows, and the comparison
    std::vector<int32_t> ids(in.n);
    std::iota(ids.begin(), ids.end(), 0);
    std::vector<int32_t> want = ids, polled = ids;
    const Passed passed;
    EXPECT_FALSE(exact::sort_by_keys(in, keys, pressure, ids, &passed.deadline)) << keys;
    EXPECT_TRUE(exact::sort_by_keys(in, keys, pressure, want)) << keys;
    const Deadline unlimited;
    EXPECT_TRUE(exact::sort_by_keys(in, keys, pressure, polled, &unlimited)) << keys;
    EXPECT_EQ(polled, want) << keys;
    EXPECT_FALSE(std::is_sorted(want.begin(), want.end())) << keys;  // it did reorder
  }
}

// The dive's and the searches' twin map (an ordered map of n keys) polls too.
TEST(PolledSetUp, ExactTwinsStopAtAPassedDeadline) {
  Problem p = dnn(30'000);
  for (size_t i = 1; i < p.buffers.size(); i += 3) {  // identical to the one before: twins
    p.buffers[i].start = p.buffers[i - 1].start, p.buffers[i].end = p.buffers[i - 1].end;
    p.buffers[i].size = p.buffers[i - 1].size, p.buffers[i].alignment = p.buffers[i - 1].alignment;
  }
  const exact::Instance in = testing::exact_instance(p);
  std::vector<int32_t> order(in.n);
  std::iota(order.begin(), order.end(), 0);
  const Passed passed;
  EXPECT_TRUE(exact::twins(in, order, &passed.deadline).empty());
  const Deadline unlimited;
  const std::vector<int32_t> want = exact::twins(in, order);
  EXPECT_EQ(exact::twins(in, order, &unlimited), want);
  EXPECT_GE(std::count_if(want.begin(), want.end(), [](int32_t t) { return t >= 0; }), 10'000);
}

// place_in_order places its pre-placed and preset buffers before the order (a peak window's
// bands: ~250k presets at 1M buffers, 0.2 s); that loop polls the deadline too. With every
// buffer preset and an empty order, nothing else could stop it.
TEST(PolledSetUp, PresetPlacementStopsAtAPassedDeadline) {
  const Problem p = dnn(10'000);
  const GreedyResult base = place_in_order(p, {}, Fit::kFirst);  // every buffer, index order
  ASSERT_TRUE(base.complete);
  PlacementEngine engine(p);
  const Passed passed;
  EXPECT_FALSE(place_in_order(engine, {}, Fit::kFirst, INT64_MAX, &passed.deadline, base.solution.offsets).complete);
  const Deadline unlimited;
  const GreedyResult again = place_in_order(engine, {}, Fit::kFirst, INT64_MAX, &unlimited, base.solution.offsets);
  ASSERT_TRUE(again.complete);
  EXPECT_EQ(again.solution.offsets, base.solution.offsets);
}

// The plan of last resort (solver.h): the online plan, which a cancel does not stop (a
// cancelled solver still returns it); none inside a portfolio, which holds its own.
TEST(PolledSetUp, LastResortPlanIgnoresACancelAndIsLeftToAPortfolio) {
  const Problem p = dnn(10'000);
  const Passed cancelled;  // a set cancel flag, no time limit
  SolveOptions opt;
  const std::optional<Solution> plan = last_resort_plan(p, opt, cancelled.deadline);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->offsets, online_plan(p).offsets);
  const std::atomic<int64_t> shared{INT64_MAX};
  opt.shared_upper_bound = &shared;
  EXPECT_FALSE(last_resort_plan(p, opt, Deadline()).has_value());
}

}  // namespace
}  // namespace memplan
