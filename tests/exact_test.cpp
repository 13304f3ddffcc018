#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "testing.h"

namespace memplan {
namespace {

Problem tiny(std::mt19937_64& rng, int trial) {
  testing::RandomSpec spec;
  spec.buffers = 2 + trial % 6;
  spec.horizon = 6;
  spec.max_size = 4;
  spec.alignment = trial % 3 == 0;
  Problem p = testing::random_problem(rng, spec);
  if (trial % 4 == 1) {  // one pre-placed buffer
    Buffer& b = p.buffers[rng() % p.buffers.size()];
    b.offset = static_cast<int64_t>(rng() % 4) * b.alignment;
  }
  return p;
}

TEST(Exact, FindsTheTrueOptimumOnTinyInstances) {
  std::mt19937_64 rng(2024);
  const int trials = static_cast<int>(testing::sanitizer_scaled(2000, 400));  // instrumented: fewer
  for (int trial = 0; trial < trials; ++trial) {
    const Problem p = tiny(rng, trial);
    const int64_t opt = testing::brute_force_optimum(p);
    SolveOptions o;
    o.time_limit_seconds = 10;
    SolveResult r = solve(p, "exact", o);
    ASSERT_TRUE(r.solution) << "trial " << trial;
    ASSERT_TRUE(testing::brute_force_valid(p, r.solution->offsets)) << "trial " << trial;
    ASSERT_EQ(r.solution->peak, opt) << "trial " << trial;
    ASSERT_EQ(r.status, Status::kOptimal) << "trial " << trial;
  }
}

TEST(Exact, DecisionNeverClaimsInfeasibleWhenAPlanExists) {
  std::mt19937_64 rng(77);
  int infeasible = 0, feasible = 0;
  const int trials = static_cast<int>(testing::sanitizer_scaled(2000, 400));  // instrumented: fewer
  for (int trial = 0; trial < trials; ++trial) {
    const Problem p = tiny(rng, trial);
    const int64_t opt = testing::brute_force_optimum(p);
    for (int64_t cap : {opt - 1, opt}) {
      SolveOptions o;
      o.capacity = cap;
      o.time_limit_seconds = 10;
      SolveResult r = solve(p, "exact", o);
      if (cap >= opt) {
        ASSERT_TRUE(r.solution) << "trial " << trial << " cap " << cap;
        ASSERT_TRUE(testing::brute_force_valid(p, r.solution->offsets, cap));
        ++feasible;
      } else {
        ASSERT_FALSE(r.solution);
        ASSERT_EQ(r.status, Status::kInfeasible) << "trial " << trial;
        ++infeasible;
      }
    }
  }
  EXPECT_GT(infeasible, trials / 2);
  EXPECT_GT(feasible, trials / 2);
}

TEST(Exact, CancellationReturnsPromptly) {
  const Problem p = read_csv_file(testing::source_path("benchmarks/minimalloc/D.1048576.csv")).problem;
  std::atomic<bool> cancel{false};
  SolveOptions o;
  o.capacity = 1022976;  // D: between LOAD (986112) and the best known plan (1024000): open
  o.time_limit_seconds = 0;     // no limit: only the flag stops it
  o.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  SolveResult r = solve(p, "exact", o);
  stopper.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.solution);
  EXPECT_NE(r.status, Status::kInfeasible);  // stopped, not proven
  EXPECT_LT(secs, 30.0);                     // generous: only catches a search that ignores the flag
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

TEST(Auto, ValidPlansAndProvenOptimaOnTinyInstances) {
  std::mt19937_64 rng(5150);
  int proven = 0;
  const int trials = static_cast<int>(testing::sanitizer_scaled(300, 60));  // instrumented: fewer
  for (int trial = 0; trial < trials; ++trial) {
    const Problem p = tiny(rng, trial);
    const int64_t opt = testing::brute_force_optimum(p);
    SolveOptions o;
    o.threads = 2;
    o.time_limit_seconds = 10;
    SolveResult r = solve(p, "auto", o);
    ASSERT_TRUE(r.solution) << trial;
    ASSERT_TRUE(testing::brute_force_valid(p, r.solution->offsets)) << trial;
    ASSERT_GE(r.solution->peak, opt);
    ASSERT_LE(r.lower_bound, opt) << trial;  // a proven bound never exceeds the optimum
    proven += r.status == Status::kOptimal;
  }
  EXPECT_EQ(proven, trials);  // tiny instances are always settled
}

// Cancelled 0.3 s into an unlimited run on the 62k-buffer Y_1 (every member busy: the
// exact search's setup, the window, first-fit passes), auto must return promptly: within
// 3 s of the flag (members poll it every few hundred placements or nodes; a member that
// ignored it would run on, there is no time limit), with a valid plan.
TEST(Auto, HonoursCancellation) {
  const Problem p = read_csv_file(testing::source_path("benchmarks/idealloc/iopddl/Y_1.csv")).problem;
  std::atomic<bool> cancel{false};
  SolveOptions o;
  o.threads = 2;
  o.time_limit_seconds = 0;
  o.cancel = &cancel;
  std::chrono::steady_clock::time_point cancelled_at;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancelled_at = std::chrono::steady_clock::now();
    cancel = true;
  });
  SolveResult r = solve(p, "auto", o);
  const auto returned_at = std::chrono::steady_clock::now();
  stopper.join();
  const double after = std::chrono::duration<double>(returned_at - cancelled_at).count();
  EXPECT_LT(after, 3.0) << "returned " << after << " s after the cancel flag was set";
  ASSERT_TRUE(r.solution);  // the online allocator's plan at least
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
}

}  // namespace
}  // namespace memplan
