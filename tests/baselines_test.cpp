// Production-allocator baselines: golden vectors from the original projects' unit tests
// (as recorded in ../shared/research/heuristics.md, source semantics = inclusive
// intervals converted with baselines::inclusive), quirk checks, and validity of every
// baseline's plans on random instances and on the small benchmark files.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "memplan/io.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/baselines/baselines.h"
#include "testing.h"

namespace memplan {
namespace {

using baselines::inclusive;
using baselines::Objects;
using baselines::Plan;
using baselines::Rec;

// (size, first, last) triples with inclusive lifetimes, as the sources' tests write them.
std::vector<Rec> recs_inclusive(const std::vector<std::array<int64_t, 3>>& v) {
  std::vector<Rec> out;
  for (const auto& [size, first, last] : v) out.push_back(inclusive(size, first, last));
  return out;
}

const std::vector<std::array<int64_t, 3>> kChain = {
    {16, 0, 1}, {8, 1, 2}, {64, 2, 3}, {32, 3, 4}, {8, 4, 5}};
const std::vector<std::array<int64_t, 3>> kComplex = {{32, 0, 1}, {32, 1, 4}, {8, 2, 5},
                                                      {16, 3, 5}, {8, 4, 5}, {64, 5, 7},
                                                      {8, 6, 8},  {8, 7, 8}, {16, 8, 9}};

void expect_objects(const Objects& o, const std::vector<int32_t>& ids,
                    const std::vector<int64_t>& sizes) {
  EXPECT_TRUE(o.complete);
  EXPECT_EQ(o.ids, ids);
  EXPECT_EQ(o.sizes, sizes);
}

const Deadline kNoDeadline;

TEST(BaselinesGolden, SourceSemanticsInclusiveMapsToHalfOpen) {
  const Rec r = inclusive(8, 3, 5);
  EXPECT_EQ(r.start, 3);
  EXPECT_EQ(r.end, 6);
  EXPECT_EQ(r.last(), 5);
  // Inclusive [1,2] and [2,3] share task 2 and so conflict; [1,2] and [3,4] do not.
  EXPECT_TRUE(baselines::overlap(inclusive(1, 1, 2), inclusive(1, 2, 3)));
  EXPECT_FALSE(baselines::overlap(inclusive(1, 1, 2), inclusive(1, 3, 4)));
}

TEST(BaselinesGolden, TfliteGpuChain) {
  const auto recs = recs_inclusive(kChain);
  const Plan off = baselines::tflite_gpu_greedy_by_size(recs);
  EXPECT_EQ(off.offsets, (std::vector<int64_t>{0, 64, 0, 64, 0}));
  EXPECT_EQ(off.total, 96);
  const std::vector<int32_t> ids = {0, 1, 0, 1, 0};
  const std::vector<int64_t> sizes = {64, 32};
  expect_objects(baselines::tflite_gpu_min_cost_flow(recs, kNoDeadline), ids, sizes);
  expect_objects(baselines::tflite_gpu_greedy_in_order(recs), ids, sizes);
  expect_objects(baselines::tflite_gpu_greedy_by_breadth(recs, kNoDeadline), ids, sizes);
  expect_objects(baselines::tflite_gpu_greedy_by_size_objects(recs, kNoDeadline), ids, sizes);
  expect_objects(baselines::tflite_gpu_equality(recs), {0, 1, 2, 3, 1}, {16, 8, 64, 32});
}

TEST(BaselinesGolden, TfliteGpuComplex) {
  const auto recs = recs_inclusive(kComplex);
  const Plan off = baselines::tflite_gpu_greedy_by_size(recs);
  EXPECT_EQ(off.offsets, (std::vector<int64_t>{0, 32, 80, 64, 88, 0, 64, 72, 0}));
  EXPECT_EQ(off.total, 96);
  EXPECT_EQ(baselines::tflite_gpu_positional_maximums(recs), (std::vector<int64_t>{64, 32, 8, 8}));
  expect_objects(baselines::tflite_gpu_greedy_by_size_objects(recs, kNoDeadline),
                 {1, 0, 2, 1, 3, 0, 1, 2, 0}, {64, 32, 8, 8});
  expect_objects(baselines::tflite_gpu_greedy_by_breadth(recs, kNoDeadline),
                 {0, 4, 2, 1, 3, 0, 2, 3, 1}, {64, 16, 8, 8, 32});
  expect_objects(baselines::tflite_gpu_greedy_in_order(recs), {0, 1, 0, 2, 3, 1, 3, 2, 0},
                 {32, 64, 16, 8});
  expect_objects(baselines::tflite_gpu_min_cost_flow(recs, kNoDeadline),
                 {0, 1, 2, 0, 3, 1, 3, 2, 0}, {32, 64, 8, 8});
  expect_objects(baselines::tflite_gpu_equality(recs), {0, 1, 2, 3, 4, 5, 4, 2, 3},
                 {32, 32, 8, 16, 8, 64});
  // GREEDY_BEST: by-size objects total 112 < breadth 128, so by-size is kept.
  const Objects best = baselines::tflite_gpu_greedy_best(recs, kNoDeadline);
  EXPECT_EQ(best.total(), 112);
  EXPECT_EQ(best.sizes, (std::vector<int64_t>{64, 32, 8, 8}));
}

TEST(BaselinesGolden, TfliteGpuObjectsToOffsetsIsBackToBack) {
  const auto recs = recs_inclusive(kComplex);
  const Plan p = baselines::objects_to_offsets(
      recs, baselines::tflite_gpu_greedy_by_size_objects(recs, kNoDeadline));
  // Objects [64, 32, 8, 8] start at 0, 64, 96, 104.
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{64, 0, 96, 64, 104, 0, 64, 96, 0}));
  EXPECT_EQ(p.total, 112);
}

TEST(BaselinesGolden, TfliteMicro) {
  Plan p = baselines::tflite_micro_greedy(
      recs_inclusive({{10, 0, 1}, {20, 1, 2}, {30, 2, 3}, {40, 3, 4}, {50, 0, 1}}));
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{50, 70, 40, 0, 0}));
  EXPECT_EQ(p.total, 90);
  p = baselines::tflite_micro_greedy(recs_inclusive({{100, 0, 1}, {50, 2, 3}, {20, 1, 2}}));
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 0, 100}));
  EXPECT_EQ(p.total, 120);
  p = baselines::tflite_micro_greedy(recs_inclusive({{10, 0, 1}, {20, 2, 3}}));
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(p.total, 20);
}

TEST(BaselinesGolden, TfliteMicroOfflineOffsetsAreHonoured) {
  auto recs = recs_inclusive({{10, 0, 1}, {20, 0, 1}, {5, 0, 1}});
  recs[0].fixed = 15;  // offline-planned: [15, 25)
  const Plan p = baselines::tflite_micro_greedy(recs);
  EXPECT_EQ(p.offsets[0], 15);
  EXPECT_EQ(p.offsets[1], 25);  // 20 bytes do not fit below 15
  EXPECT_EQ(p.offsets[2], 0);   // first fit: the lowest gap
}

TEST(BaselinesGolden, XlaDecreasingSize) {
  const auto recs = recs_inclusive({{10, 0, 4}, {30, 1, 5}, {20, 2, 6}, {40, 3, 7}});
  const Plan p = baselines::xla_best_fit(recs, baselines::XlaOrder::kSpatial);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{90, 40, 70, 0}));
  EXPECT_EQ(p.total, 100);
}

TEST(BaselinesGolden, XlaDecreasingSizeWithAlignment) {
  const auto recs = recs_inclusive({{10, 0, 3}, {20, 1, 5}, {50, 2, 6}, {40, 4, 7}});
  const Plan p = baselines::xla_best_fit(recs, baselines::XlaOrder::kSpatial,
                                         baselines::XlaFit::kBestFit, 20);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{60, 100, 0, 60}));
  EXPECT_EQ(p.total, 120);
}

TEST(BaselinesGolden, XlaBestFit) {
  const auto recs =
      recs_inclusive({{10, 0, 3}, {20, 1, 6}, {40, 2, 7}, {30, 4, 8}, {50, 5, 9}});
  const Plan p = baselines::xla_best_fit(recs, baselines::XlaOrder::kSpatial);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{90, 120, 50, 90, 0}));
  EXPECT_EQ(p.total, 140);
  // Lowest offset instead takes the first gap that fits ([0, 50) for a).
  const Plan q = baselines::xla_best_fit(recs, baselines::XlaOrder::kSpatial,
                                         baselines::XlaFit::kLowestOffset);
  EXPECT_EQ(q.offsets[0], 0);
}

// Real production output: the IREE benchmark files carry the offsets IREE itself chose
// (inclusive lifetimes). LayoutSlices in IR order must reproduce every one of them.
TEST(BaselinesGolden, IreeLayoutSlicesReproducesIreeOffsets) {
  for (const char* f : {"benchmarks/idealloc/iree/iree_mobilebert.csv",
                        "benchmarks/idealloc/iree/iree_mobilenet.csv"}) {
    Problem p = read_csv_file(testing::source_path(f), Lifetimes::kInclusive).problem;
    std::vector<int64_t> iree;
    for (Buffer& b : p.buffers) {
      iree.push_back(*b.offset);
      b.offset.reset();
    }
    const Plan plan = baselines::arena_best_fit(baselines::records_of(p), 1, false);
    EXPECT_EQ(plan.offsets, iree) << f;
    // The sorted TFLite-core order differs from IR order on mobilebert.
    if (p.buffers.size() > 100)
      EXPECT_NE(baselines::tflite_cpu_arena(baselines::records_of(p), 1).offsets, iree);
  }
}

TEST(BaselinesQuirks, TvmGreedyNeverFillsGapsBelow) {
  // a (big) and c overlap b only; c is stacked on b's top although the hole under b
  // (left by a) would fit it.
  const std::vector<Rec> recs = {inclusive(100, 0, 1), inclusive(50, 1, 3), inclusive(10, 2, 3)};
  const Plan p = baselines::tvm_greedy_by_size(recs);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 100, 150}));
  // Best fit (XLA) reuses the hole.
  EXPECT_EQ(baselines::xla_best_fit(recs, baselines::XlaOrder::kSpatial).offsets[2], 0);
}

TEST(BaselinesQuirks, TvmOrderBreaksTiesByNameDescending) {
  std::vector<Rec> recs = {inclusive(8, 0, 1), inclusive(8, 0, 1)};
  recs[0].name = "a";
  recs[1].name = "b";
  const Plan p = baselines::tvm_greedy_by_size(recs);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{8, 0}));  // "b" > "a" goes first
}

TEST(BaselinesQuirks, TvmHillClimbIsDeterministicAndStopsAtPressure) {
  std::mt19937_64 rng(5);
  testing::RandomSpec spec;
  spec.buffers = 30;
  spec.horizon = 20;
  spec.max_size = 50;
  const Problem prob = testing::random_problem(rng, spec);
  const auto recs = baselines::records_of(prob);
  const Plan a = baselines::tvm_hill_climb(recs, 0, kNoDeadline);
  const Plan b = baselines::tvm_hill_climb(recs, 0, kNoDeadline);
  EXPECT_EQ(a.offsets, b.offsets);
  // A chain of disjoint buffers reaches memory_pressure at once: one attempt.
  const Plan c = baselines::tvm_hill_climb(recs_inclusive(kChain), 0, kNoDeadline);
  EXPECT_EQ(c.detail, "attempts=1");
}

// TVM's hill climb draws swap2 as element k of its sorted second-level list; the list is
// kept as counts (PositionCounts, common.h) so that it is never sorted between two polls.
// Every k must give what the sorted list gives, repeats and empty positions included.
TEST(BaselinesQuirks, PositionCountsKthIsTheSortedListsElement) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 50; ++round) {
    const int32_t m = 1 + static_cast<int32_t>(rng() % 40);
    std::vector<int32_t> list(rng() % 200);
    baselines::PositionCounts counts;
    counts.reset(m);
    for (int32_t& p : list) {
      p = static_cast<int32_t>(rng() % (rng() % 2 ? m : std::min(m, 3)));  // repeats
      counts.add(p);
    }
    counts.seal();
    std::sort(list.begin(), list.end());
    ASSERT_EQ(counts.size(), static_cast<int64_t>(list.size()));
    for (size_t k = 0; k < list.size(); ++k) ASSERT_EQ(counts.kth(static_cast<int64_t>(k)), list[k]) << k;
  }
}

TEST(BaselinesQuirks, SomasPrefersSharedObjectsUnlessSavingExceedsThreshold) {
  // Size order c, a, b. ManyObjects: c anchors slab [0,6); a (time-disjoint from c) joins it
  // at 0; b overlaps a and the 2 bytes left above it are too few, so b anchors a new slab at
  // 6: total 10. SingleObject puts b at 4, straddling the slab boundary: total 8. FindBest
  // takes the single-object plan only if it saves more than the threshold (2 bytes here).
  const auto recs = recs_inclusive({{4, 0, 1}, {4, 0, 1}, {6, 2, 3}});
  const Plan pure = baselines::somas(recs, 0, kNoDeadline);
  EXPECT_EQ(pure.total, 8);
  EXPECT_NE(pure.detail.find("single-object"), std::string::npos) << pure.detail;
  const Plan just_below = baselines::somas(recs, 1, kNoDeadline);
  EXPECT_EQ(just_below.total, 8);
  const Plan at = baselines::somas(recs, 2, kNoDeadline);
  EXPECT_EQ(at.total, 10);
  EXPECT_NE(at.detail.find("many-objects"), std::string::npos) << at.detail;
  EXPECT_EQ(at.offsets, (std::vector<int64_t>{0, 6, 0}));
  // The registered solvers: somas keeps shared objects (100 MiB margin), somas-min does not.
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 2, 4), testing::make_buffer("b", 0, 2, 4),
               testing::make_buffer("c", 2, 4, 6)};
  EXPECT_EQ(solve(p, "somas", {}).solution->peak, 10);
  EXPECT_EQ(solve(p, "somas-min", {}).solution->peak, 8);
}

TEST(BaselinesQuirks, ExecutorchStacksInsideABucket) {
  // 64 opens bucket 0; 16 is time-disjoint from 64 and reuses bucket 0 at offset 0; 8
  // overlaps both, and stacking it at 64 would exceed the bucket, so it opens bucket 1.
  const auto recs = recs_inclusive({{64, 0, 2}, {16, 3, 4}, {8, 2, 3}});
  std::vector<int64_t> in_bucket;
  const Objects o = baselines::executorch_greedy_buckets(recs, &in_bucket, kNoDeadline);
  EXPECT_EQ(o.ids, (std::vector<int32_t>{0, 0, 1}));
  EXPECT_EQ(o.sizes, (std::vector<int64_t>{64, 8}));
  // 8 overlapping a 16-tenant inside a 64 bucket stacks at 16.
  const auto recs2 = recs_inclusive({{64, 0, 1}, {16, 2, 4}, {8, 3, 4}});
  const Objects o2 = baselines::executorch_greedy_buckets(recs2, &in_bucket, kNoDeadline);
  EXPECT_EQ(o2.ids, (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(in_bucket, (std::vector<int64_t>{0, 0, 16}));
}

TEST(BaselinesQuirks, OnnxRuntimeReusesGapUnderHistoricalPeak) {
  // a [0,2) 100 bytes, then b [2,4) 30: a is freed, so the live list is empty and b goes
  // to 0 (the gap under the historical peak 100 is [0,100)).
  const auto recs = recs_inclusive({{100, 0, 1}, {30, 2, 3}, {50, 2, 3}});
  const Plan p = baselines::onnxruntime_mem_pattern(recs);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 0, 30}));
  EXPECT_EQ(p.total, 100);
}

// ---- validity of every baseline ----

std::vector<std::string> baseline_names() {
  std::vector<std::string> names;
  const char* prefixes[] = {"tflite-", "tvm-",         "xla-",      "somas",
                            "triton-", "onnxruntime-", "executorch-", "iree-"};
  for (const SolverInfo& s : all_solvers())
    for (const char* pre : prefixes)
      if (s.name.rfind(pre, 0) == 0) names.push_back(s.name);
  return names;
}

TEST(BaselinesValid, AllRegistered) {
  const std::vector<std::string> expected = {
      "tflite-gpu-greedy-by-size", "tflite-gpu-greedy-by-size-objects",
      "tflite-gpu-greedy-by-breadth", "tflite-gpu-greedy-in-order", "tflite-gpu-equality",
      "tflite-gpu-naive", "tflite-gpu-min-cost-flow", "tflite-gpu-greedy-best",
      "tflite-gpu-as-deployed", "tflite-cpu-arena", "tflite-cpu-arena-64",
      "tflite-micro-greedy", "tvm-greedy-by-size", "tvm-greedy-by-conflicts",
      "tvm-hill-climb", "xla-spatial", "xla-temporal", "xla-spatial-temporal",
      "xla-choose-best", "xla-packing-search", "somas", "somas-min", "triton-shared-memory",
      "onnxruntime-mem-pattern", "executorch-greedy", "iree-layout-slices"};
  for (const std::string& n : expected) EXPECT_NE(find_solver(n), nullptr) << n;
  EXPECT_EQ(baseline_names().size(), expected.size());
}

// A random problem where some buffers are pre-placed at offsets of a valid plan.
Problem with_random_fixed(std::mt19937_64& rng, Problem p, int percent) {
  std::vector<int32_t> order(p.buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  const GreedyResult g = place_in_order(p, order, Fit::kFirst);
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (static_cast<int>(rng() % 100) < percent) p.buffers[i].offset = g.solution.offsets[i];
  return p;
}

TEST(BaselinesValid, RandomInstancesWithAlignmentGapsAndFixedOffsets) {
  std::mt19937_64 rng(2026);
  const std::vector<std::string> names = baseline_names();
  SolveOptions opt;
  opt.time_limit_seconds = 0;
  for (int trial = 0; trial < 240; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 14;
    spec.horizon = 4 + trial % 11;
    spec.max_size = 1 + trial % 40;
    spec.alignment = trial % 3 != 0;
    spec.gaps = trial % 4 == 0;
    Problem p = testing::random_problem(rng, spec);
    if (trial % 2 == 1) p = with_random_fixed(rng, p, 30);
    for (const std::string& name : names) {
      const SolveResult r = solve(p, name, opt);
      ASSERT_TRUE(r.solution.has_value()) << name << " trial " << trial << " " << r.detail;
      const Validation v = validate(p, r.solution->offsets);
      ASSERT_TRUE(v.ok) << name << " trial " << trial << ": " << v.errors.front();
      ASSERT_TRUE(testing::brute_force_valid(p, r.solution->offsets)) << name << " " << trial;
      ASSERT_EQ(v.peak, r.solution->peak) << name;
    }
  }
}

TEST(BaselinesValid, DenseRandomInstances) {
  std::mt19937_64 rng(99);
  const std::vector<std::string> names = baseline_names();
  SolveOptions opt;
  opt.time_limit_seconds = 0;
  for (int trial = 0; trial < 6; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 60 + 20 * trial;
    spec.horizon = 30;
    spec.max_size = 1000;
    spec.alignment = trial % 2 == 0;
    Problem p = testing::random_problem(rng, spec);
    if (trial >= 3) p = with_random_fixed(rng, p, 10);
    for (const std::string& name : names) {
      const SolveResult r = solve(p, name, opt);
      ASSERT_TRUE(r.solution.has_value()) << name << " trial " << trial << " " << r.detail;
      const Validation v = validate(p, r.solution->offsets);
      ASSERT_TRUE(v.ok) << name << " trial " << trial << ": " << v.errors.front();
    }
  }
}

TEST(BaselinesValid, SameSeedSamePlan) {
  std::mt19937_64 rng(17);
  testing::RandomSpec spec;
  spec.buffers = 40;
  spec.horizon = 25;
  spec.max_size = 300;
  spec.alignment = true;
  const Problem p = with_random_fixed(rng, testing::random_problem(rng, spec), 10);
  SolveOptions opt;
  opt.time_limit_seconds = 0;
  for (const std::string& name : baseline_names()) {
    const SolveResult a = solve(p, name, opt), b = solve(p, name, opt);
    ASSERT_TRUE(a.solution && b.solution) << name;
    EXPECT_EQ(a.solution->offsets, b.solution->offsets) << name;
  }
}

TEST(BaselinesValid, ExpiredDeadlineGivesValidPlanOrReason) {
  // A cancelled run must not return an invalid plan: either a complete plan (the
  // algorithm finished before its first check) or no plan with a reason.
  std::mt19937_64 rng(23);
  testing::RandomSpec spec;
  spec.buffers = 600;
  spec.horizon = 200;
  spec.max_size = 1000;
  const Problem p = testing::random_problem(rng, spec);
  std::atomic<bool> cancel{true};
  SolveOptions opt;
  opt.cancel = &cancel;
  int gave_up = 0;
  for (const std::string& name : baseline_names()) {
    const SolveResult r = solve(p, name, opt);
    if (r.solution) {
      EXPECT_TRUE(validate(p, r.solution->offsets).ok) << name;
    } else {
      ++gave_up;
      EXPECT_NE(r.detail.find("time limit"), std::string::npos) << name << ": " << r.detail;
    }
  }
  EXPECT_GT(gave_up, 5);  // the one-pass greedy algorithms check every 256 buffers
}

// Benchmark files small enough for a unit test (the large ones run in
// bench/baselines_bench). IREE files are inclusive; their offset column is IREE's own plan
// and is dropped so the baselines plan from scratch.
TEST(BaselinesValid, SmallBenchmarkFiles) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, Lifetimes>> files;
  for (const auto& e : fs::directory_iterator(testing::source_path("benchmarks/minimalloc")))
    if (e.path().extension() == ".csv") files.push_back({e.path().string(), Lifetimes::kHalfOpen});
  for (const auto& e : fs::directory_iterator(testing::source_path("benchmarks/idealloc/iree")))
    if (e.path().extension() == ".csv") files.push_back({e.path().string(), Lifetimes::kInclusive});
  files.push_back({testing::source_path("benchmarks/idealloc/iopddl/G_1.csv"), Lifetimes::kHalfOpen});
  std::sort(files.begin(), files.end());
  const std::vector<std::string> names = baseline_names();
  SolveOptions opt;
  opt.time_limit_seconds = 60;
  for (const auto& [path, lifetimes] : files) {
    Problem p = read_csv_file(path, lifetimes).problem;
    for (Buffer& b : p.buffers) b.offset.reset();
    // Under a sanitizer every file still runs, on its first 400 buffers.
    p.buffers.resize(std::min<size_t>(p.buffers.size(), testing::sanitizer_scaled(1 << 30, 400)));
    for (const std::string& name : names) {
      const SolveResult r = solve(p, name, opt);
      ASSERT_TRUE(r.solution.has_value()) << name << " on " << path << ": " << r.detail;
      const Validation v = validate(p, r.solution->offsets);
      ASSERT_TRUE(v.ok) << name << " on " << path << ": " << v.errors.front();
    }
  }
}

}  // namespace
}  // namespace memplan
