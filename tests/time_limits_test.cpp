// Issue 20, point 4: the O(n log n) set-up steps (sorts, orders, the placement index, the
// online plan, the check of the plan) poll the deadline, so a limit shorter than one of them
// is honoured. Deterministic: deadlines that have already passed (a set cancel flag), a
// solver that sleeps past the limit, and CPU time compared with CPU time in the same test
// (never wall time against a constant).
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "core/polled.h"
#include "memplan/orders.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "testing.h"

namespace memplan {
namespace {

using Passed = testing::PassedDeadline;

Problem dnn(int64_t n) { return testing::generated_dnn(n, 7); }

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

TEST(SortUntil, SortsLikeStableSortAndStopsAtAPassedDeadline) {
  std::mt19937_64 rng(3);
  std::vector<std::pair<int, int>> v(200'000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = {static_cast<int>(rng() % 1000), static_cast<int>(i)};
  auto by_first = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::vector<std::pair<int, int>> want = v;
  std::stable_sort(want.begin(), want.end(), by_first);
  const Deadline unlimited;
  std::vector<std::pair<int, int>> got = v;
  ASSERT_TRUE(sort_until(got, by_first, &unlimited));
  EXPECT_EQ(got, want);  // blocks and merges keep equal keys in input order
  const Passed passed;
  got = v;
  EXPECT_FALSE(sort_until(got, by_first, &passed.deadline));
  EXPECT_NE(got, want);  // it stopped before the first block
}

// sort_total_until and sort_until on plain numbers take std::sort in their blocks: under a
// total order (keys ending in the index) and for numbers, the result is the one sorted order,
// the same as std::sort's, across the blocks and merges (n above the 2^13-item block) and
// without a deadline.
TEST(SortUntil, TotalOrdersAndPlainNumbersSortLikeStdSort) {
  std::mt19937_64 rng(5);
  const size_t n = 50'000;
  std::vector<int64_t> key(n), nums(n);
  for (size_t i = 0; i < n; ++i) key[i] = static_cast<int64_t>(rng() % 500), nums[i] = static_cast<int64_t>(rng() % 700);
  auto total = [&](int32_t a, int32_t b) { return std::pair(key[a], a) < std::pair(key[b], b); };
  std::vector<int32_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = static_cast<int32_t>(n - 1 - i);
  std::vector<int32_t> want_ids = ids;
  std::sort(want_ids.begin(), want_ids.end(), total);
  std::vector<int64_t> want_nums = nums;
  std::sort(want_nums.begin(), want_nums.end());
  const Deadline unlimited;
  for (const Deadline* d : {&unlimited, static_cast<const Deadline*>(nullptr)}) {
    std::vector<int32_t> got_ids = ids;
    ASSERT_TRUE(sort_total_until(got_ids, total, d));
    EXPECT_EQ(got_ids, want_ids);
    std::vector<int64_t> got_nums = nums;
    ASSERT_TRUE(sort_until(got_nums, std::less<>(), d));
    EXPECT_EQ(got_nums, want_nums);
  }
  const Passed passed;
  std::vector<int32_t> stopped = ids;
  EXPECT_FALSE(sort_total_until(stopped, total, &passed.deadline));
}

TEST(PolledSteps, StopAtAPassedDeadlineAndAgreeOtherwise) {
  const Problem p = dnn(60'000);
  const Passed passed;
  const Deadline unlimited;
  // The online plan.
  EXPECT_FALSE(online_plan(p, &passed.deadline));
  const std::optional<Solution> online = online_plan(p, &unlimited);
  ASSERT_TRUE(online);
  EXPECT_EQ(online->offsets, online_plan(p).offsets);
  // Every order.
  for (Order o : kAllOrders) {
    EXPECT_TRUE(make_order(p, o, &passed.deadline).empty()) << order_name(o);
    EXPECT_EQ(make_order(p, o, &unlimited), make_order(p, o)) << order_name(o);
  }
  // The placement index.
  const PlacementEngine stopped(p, &passed.deadline);
  EXPECT_FALSE(stopped.built());
  const std::vector<int32_t> order = make_order(p, Order::kSizeDesc);
  EXPECT_FALSE(place_in_order(p, order, Fit::kFirst, INT64_MAX, &passed.deadline).complete);
  EXPECT_TRUE(PlacementEngine(p, &unlimited).built());
  // The check of a plan: stopped, it neither accepts nor blames the plan.
  const Validation v = validate(p, online->offsets, std::nullopt, 10, &passed.deadline);
  EXPECT_FALSE(v.complete);
  EXPECT_FALSE(v.ok);
  const Validation w = validate(p, online->offsets, std::nullopt, 10, &unlimited);
  EXPECT_TRUE(w.complete);
  EXPECT_TRUE(w.ok);
  EXPECT_EQ(w.peak, online->peak);
}

// A solver that returns a valid plan (the online one) only after sleeping past the limit and
// its tolerance: solve() must not spend more time checking it, nor return it unchecked.
TEST(SolveChecksWithinTheLimit, APlanLeftNoTimeToCheckIsNotReturned) {
  const Problem p = dnn(2'000);
  SolverInfo slow{"slow", "sleeps past the limit", [](const Problem& q, const SolveOptions&) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(300));
                    return result_from_plan(q, SolveOptions{}, online_plan(q));
                  }};
  SolveOptions o;
  o.time_limit_seconds = 0.05;  // tolerance 0.1 s: the check may run until 0.1 s
  const SolveResult r = solve(p, slow, o);
  EXPECT_FALSE(r.solution);
  EXPECT_EQ(r.status, Status::kNoPlan);
  EXPECT_NE(r.detail.find("reason=time_limit_in_check"), std::string::npos) << r.detail;
  // With time to check it, the same plan is returned.
  o.time_limit_seconds = 5;
  const SolveResult ok = solve(p, slow, o);
  ASSERT_TRUE(ok.solution);
  EXPECT_EQ(ok.solution->peak, online_plan(p).peak);
}

// Every registered solver, run directly with a limit far shorter than its set-up, stops
// promptly: it uses less than half the CPU of the online plan alone (O(n log n), the
// cheapest plan there is), which each of them either computes first or does not need.
// Without the polls the orders, the index and the fallback ran to completion first (several
// times that CPU); without the poll in the online plan's event list, ~80 % of it (fresh
// pages: most solvers now use 1-7 % of it).
TEST(EverySolver, AnAlmostZeroLimitCostsLessThanTheOnlinePlan) {
  const Problem p = dnn(150'000);
  double online_cpu = 1e9;
  for (int k = 0; k < 2; ++k) {
    const double c0 = cpu_seconds();
    const Solution s = online_plan(p);
    online_cpu = std::min(online_cpu, cpu_seconds() - c0);
    ASSERT_GT(s.peak, 0);
  }
  for (const SolverInfo& s : all_solvers()) {
    SolveOptions o;
    o.time_limit_seconds = 1e-6;
    o.threads = 1;
    const double c0 = cpu_seconds();
    const SolveResult r = s.run(p, o);
    const double used = cpu_seconds() - c0;
    EXPECT_LT(used, 0.5 * online_cpu) << s.name << ": " << used << " s of CPU, the online plan " << online_cpu << " s";
    // What it returns is the online plan or nothing (no pass had time to complete).
    if (r.solution) EXPECT_TRUE(validate(p, r.solution->offsets).ok) << s.name;
  }
}

// The same with a limit that passes during the set-up after the online plan (1.5 times its
// wall time): the orders, the index and the rest must stop too. Within that window a call
// may use the window's CPU plus the tolerance of the time-limit rule, max(10 %, 0.1 s).
// (A stricter bound, the window plus 0.7 of the online plan's CPU, failed on a quiet
// machine, where the window is smallest, for conflict-greedy's unpolled sort of its pairs,
// dive's and idealloc's set-up: 0.01-0.03 s over; that is within the rule, so the test
// asserts the rule.) A busy machine widens the window (the check then proves less, but
// never fails spuriously).
TEST(EverySolver, ALimitPassingDuringTheSetUpStopsIt) {
  const Problem p = dnn(60'000);
  double online_cpu = 1e9, online_wall = 1e9;
  for (int k = 0; k < 2; ++k) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const Solution s = online_plan(p);
    online_wall = std::min(online_wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    online_cpu = std::min(online_cpu, cpu_seconds() - c0);
    ASSERT_GT(s.peak, 0);
  }
  const double window = 1.5 * online_wall;
  for (const SolverInfo& s : all_solvers()) {
    SolveOptions o;
    o.time_limit_seconds = window;
    o.threads = 1;
    const double c0 = cpu_seconds();
    const SolveResult r = s.run(p, o);
    const double used = cpu_seconds() - c0;
    // Instrumented (ASan), the work between two polls is several times longer: dive's
    // set-up went 0.08 s past the tolerance there.
    EXPECT_LT(used, window + memplan::time_limit_tolerance(window) * memplan::testing::sanitizer_scaled(1, 4))
        << s.name << ": " << used << " s of CPU in a window of " << window << " s; the online plan " << online_cpu << " s";
    if (r.solution) EXPECT_TRUE(validate(p, r.solution->offsets).ok) << s.name;
  }
}

}  // namespace
}  // namespace memplan
