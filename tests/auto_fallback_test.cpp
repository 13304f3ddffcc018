// `auto`'s plan of last resort (the online allocator's, computed before any member runs):
// its peak tops the members' searches from the start (SolveOptions::shared_upper_bound),
// except on a perfect packing at LOAD; a member's worse plan never raises that bound; and a
// member's bound that proves it optimal ends the run. Members are replaced through the
// portfolio's lookup table (run_portfolio), as in trust_solvers_test.cpp.
#include <gtest/gtest.h>

#include <atomic>

#include "memplan/bounds.h"
#include "memplan/generate.h"
#include "memplan/io.h"
#include "memplan/placement.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "portfolio/portfolio.h"
#include "testing.h"

namespace memplan {
namespace {

// A member named `exact` that records the shared bound it was started with.
SolverInfo spy(std::atomic<int64_t>& seen) {
  return {"exact", "test spy", [&seen](const Problem&, const SolveOptions& o) {
            seen = o.shared_upper_bound ? o.shared_upper_bound->load() : -2;
            return SolveResult{};
          }};
}

// A member named `greedy` that returns a valid plan with every buffer stacked (far above
// any other plan).
SolverInfo stacked_greedy() {
  return {"greedy", "test: every buffer stacked", [](const Problem& q, const SolveOptions&) {
            std::vector<int64_t> offsets(q.buffers.size());
            int64_t top = 0;
            for (size_t i = 0; i < q.buffers.size(); ++i) offsets[i] = top, top += q.buffers[i].size;
            SolveResult r;
            r.solution = Solution{offsets, top};
            return r;
          }};
}

Problem generated(const char* kind, int64_t buffers, uint64_t seed) {
  GenerateOptions g;
  g.kind = kind;
  g.buffers = buffers;
  g.seed = seed;
  return generate(g);
}

TEST(AutoFallback, ItsPeakIsSharedFromTheStart) {
  // Not a perfect packing (random lifetimes): the exact search, started on its own thread
  // before any heuristic has run, already sees the online plan's peak.
  const Problem p = generated("uniform", 200, 3);
  const int64_t online = online_plan(p).peak;
  ASSERT_GT(online, lower_bound_of(p));
  std::atomic<int64_t> seen{-1};
  const SolverInfo exact = spy(seen);
  auto find = [&](const std::string& name) -> const SolverInfo* { return name == "exact" ? &exact : nullptr; };
  for (int threads : {1, 2}) {
    seen = -1;
    SolveOptions o;
    o.threads = threads;
    o.time_limit_seconds = 5;
    const SolveResult r = run_portfolio(p, o, find);
    ASSERT_TRUE(r.solution);
    EXPECT_EQ(r.solution->peak, online);
    EXPECT_EQ(seen.load(), online) << threads << " threads";
  }
}

TEST(AutoFallback, NotSharedOnAPerfectPacking) {
  // A tiling: every instant of the horizon at LOAD, the plans at the bound or nowhere. The
  // exact search starts with nothing shared (it probes the bound with its first strategy
  // alone until a member's plan arrives).
  const Problem p = generated("tiling", 60, 5);
  ASSERT_GT(online_plan(p).peak, lower_bound_of(p));
  std::atomic<int64_t> seen{-1};
  const SolverInfo exact = spy(seen);
  auto find = [&](const std::string& name) -> const SolverInfo* { return name == "exact" ? &exact : nullptr; };
  SolveOptions o;
  o.threads = 2;
  o.time_limit_seconds = 5;
  run_portfolio(p, o, find);
  EXPECT_EQ(seen.load(), INT64_MAX);
}

TEST(AutoFallback, AWorsePlanNeverRaisesTheSharedBound) {
  // `greedy` returns a valid plan above the online one (every buffer stacked); the exact
  // search, run after it on one thread, must still see the online plan's peak.
  const Problem p = generated("uniform", 200, 3);
  const int64_t online = online_plan(p).peak;
  const SolverInfo stacked = stacked_greedy();
  std::atomic<int64_t> seen{-1};
  const SolverInfo exact = spy(seen);
  auto find = [&](const std::string& name) -> const SolverInfo* {
    return name == "exact" ? &exact : name == "greedy" ? &stacked : nullptr;
  };
  SolveOptions o;
  o.threads = 1;  // heuristics first, then `exact`
  o.time_limit_seconds = 5;
  const SolveResult r = run_portfolio(p, o, find);
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, online);
  EXPECT_EQ(seen.load(), online);
}

TEST(AutoFallback, AMembersBoundThatProvesItOptimalEndsTheRun) {
  // `exact` returns no plan but a bound equal to the online plan's peak (as it does when its
  // ladder refutes everything below the shared bound): the run stops at once, the online
  // plan optimal, and the member after it never runs.
  const Problem p = generated("uniform", 200, 3);
  const int64_t online = online_plan(p).peak;
  const SolverInfo prover{"exact", "test: proves the shared bound optimal", [](const Problem&, const SolveOptions& o) {
                            SolveResult r;
                            r.lower_bound = o.shared_upper_bound->load();
                            return r;
                          }};
  std::atomic<bool> later{false};
  const SolverInfo after{"idealloc", "test: must not run", [&](const Problem&, const SolveOptions&) {
                           later = true;
                           return SolveResult{};
                         }};
  auto find = [&](const std::string& name) -> const SolverInfo* {
    return name == "exact" ? &prover : name == "idealloc" ? &after : nullptr;
  };
  SolveOptions o;
  o.threads = 1;  // exact, then the heuristic search
  o.time_limit_seconds = 5;
  const SolveResult r = run_portfolio(p, o, find);
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, online);
  EXPECT_EQ(r.lower_bound, online);
  EXPECT_NE(r.detail.find("stop=lower_bound"), std::string::npos) << r.detail;
  EXPECT_FALSE(later.load());
}

TEST(AutoFallback, APlanAboveTheCapacityIsNoPlanNotAWrongOne) {
  // With a capacity at the optimum the online plan is above it: that plan is dropped, the
  // members still run, and one finds a plan that fits. (The plan was checked against the
  // capacity, taken for a bug and every member skipped: no plan at all.) A member that
  // ignores the capacity (a greedy order) and returns a plan above it is not called invalid.
  const Problem p = read_csv_file(testing::source_path("benchmarks/minimalloc/A.1048576.csv")).problem;
  ASSERT_GT(online_plan(p).peak, 1048576);
  for (int threads : {1, 2}) {
    SolveOptions o;
    o.threads = threads;
    o.time_limit_seconds = 10;
    o.capacity = 1048576;
    const SolveResult r = solve(p, "auto", o);
    ASSERT_TRUE(r.solution) << threads << " threads: " << r.detail;
    EXPECT_LE(r.solution->peak, 1048576);
    EXPECT_TRUE(validate(p, r.solution->offsets, int64_t{1048576}).ok);
    EXPECT_EQ(r.detail.find("rejected_invalid"), std::string::npos) << r.detail;
  }
  const SolverInfo stacked = stacked_greedy();
  auto find = [&](const std::string& name) -> const SolverInfo* { return name == "greedy" ? &stacked : nullptr; };
  SolveOptions o;
  o.threads = 1;
  o.time_limit_seconds = 5;
  o.capacity = 1048576;
  const SolveResult r = run_portfolio(p, o, find);
  EXPECT_FALSE(r.solution);
  EXPECT_EQ(r.detail.find("rejected_invalid"), std::string::npos) << r.detail;
}

TEST(AutoFallback, UnderConflictsTheOnlinePlanStartsBeforeTheGraphIsBuilt) {
  // Under explicit conflicts the plan of last resort is the online allocator's on stretched
  // lifetimes, run as a member. On 2 threads it starts while the conflict graph is built
  // (a limit that the graph's construction uses up still returns its plan): it sees no
  // graph, the members after it do. On one thread it runs before the graph is built.
  const Problem p = generated("streams", 300, 2);
  ASSERT_FALSE(p.conflicts.empty());
  std::atomic<int> online_saw{-1}, greedy_saw{-1};
  auto graph_seen = [](const SolveOptions& o) { return o.conflict_graph ? 1 : 0; };
  const SolverInfo online{"online-best-fit", "test spy", [&](const Problem& q, const SolveOptions& o) {
                            online_saw = graph_seen(o);
                            return find_solver("online-best-fit")->run(q, o);
                          },
                          Supports{.explicit_conflicts = true}};
  const SolverInfo greedy{"conflict-greedy", "test spy: no plan", [&](const Problem&, const SolveOptions& o) {
                            greedy_saw = graph_seen(o);
                            return SolveResult{};
                          },
                          Supports{.explicit_conflicts = true}};
  auto find = [&](const std::string& name) -> const SolverInfo* {
    return name == "online-best-fit" ? &online : name == "conflict-greedy" ? &greedy : nullptr;
  };
  for (int threads : {1, 2}) {
    online_saw = greedy_saw = -1;
    SolveOptions o;
    o.threads = threads;
    o.time_limit_seconds = 5;
    const SolveResult r = run_portfolio(p, o, find);
    ASSERT_TRUE(r.solution) << threads << " threads " << r.detail << " " << online_saw.load();
    EXPECT_NE(r.detail.find("winner=online-best-fit"), std::string::npos) << r.detail;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok);
    EXPECT_EQ(online_saw.load(), 0) << threads << " threads";
    EXPECT_EQ(greedy_saw.load(), 1) << threads << " threads";
  }
}

TEST(AutoFallback, UnderConflictsALimitThatLeavesNoMemberTimeStillGivesTheStackedPlan) {
  // Under explicit conflicts the plan of last resort is a member's: a limit that the
  // conflicts' derivation (in the reader) had nearly used up left auto no plan at all, while
  // `exact` and `greedy` gave their stacked plans (20,000 buffers on 8 streams at
  // --time-limit 0.5: the bound's sweep ran out of time). A limit already passed when auto
  // starts stands for it here; members that give nothing stand for members out of time.
  const Problem p = generated("streams", 5000, 2);  // enough for the bound's sweep to poll the clock
  ASSERT_FALSE(p.conflicts.empty());
  const SolverInfo nothing{"x", "test: no plan", [](const Problem&, const SolveOptions&) { return SolveResult{}; },
                           Supports{.explicit_conflicts = true}};
  for (double limit : {1e-9, 5.0}) {
    SolveOptions o;
    o.time_limit_seconds = limit;
    const SolveResult r = run_portfolio(p, o, [&](const std::string&) { return &nothing; });
    ASSERT_TRUE(r.solution) << limit << " s: " << r.detail;
    EXPECT_NE(r.detail.find("winner=stacked"), std::string::npos) << r.detail;
    if (limit < 1) EXPECT_NE(r.detail.find("reason=time_limit_in_bound"), std::string::npos) << r.detail;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok);
    o.capacity = r.solution->peak - 1;  // a stacked plan above the capacity is no plan
    EXPECT_FALSE(run_portfolio(p, o, [&](const std::string&) { return &nothing; }).solution) << limit;
  }
}

}  // namespace
}  // namespace memplan
