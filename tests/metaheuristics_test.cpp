#include <gtest/gtest.h>

#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "testing.h"

namespace memplan {
namespace {

const char* const kSearches[] = {"random-restarts", "hill-climb", "simulated-annealing", "tabu-search"};

TEST(Metaheuristics, ValidDeterministicAndNeverWorseThanGreedyStart) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 40; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 5 + trial % 25;
    spec.alignment = trial % 2;
    spec.gaps = trial % 3 == 0;
    const Problem p = testing::random_problem(rng, spec);
    SolveOptions o;
    o.seed = 7;
    o.iterations = 50;
    const int64_t start = solve(p, "first-fit", o).solution->peak;
    for (const char* name : kSearches) {
      SolveResult a = solve(p, name, o), b = solve(p, name, o);
      ASSERT_TRUE(a.solution) << name;
      ASSERT_TRUE(testing::brute_force_valid(p, a.solution->offsets)) << name << " trial " << trial;
      EXPECT_EQ(a.solution->offsets, b.solution->offsets) << name;  // same seed, same plan
      EXPECT_LE(a.solution->peak, start) << name;
    }
  }
}

TEST(Metaheuristics, ImproveOnAMiniMallocBenchmark) {
  const Problem p = read_csv_file(testing::source_path("benchmarks/minimalloc/A.1048576.csv")).problem;
  SolveOptions o;
  o.time_limit_seconds = 20;
  const int64_t greedy = solve(p, "greedy", o).solution->peak;
  o.iterations = 300;
  SolveResult r = solve(p, "simulated-annealing", o);
  ASSERT_TRUE(r.solution);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
  EXPECT_LT(r.solution->peak, greedy);
}

}  // namespace
}  // namespace memplan
