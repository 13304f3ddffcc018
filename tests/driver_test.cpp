// The driver layer (driver.h): capability refusals and lowering, the bound and status rules
// it applies to every solver, `auto` composing members by handle; and every solver that
// declares explicit conflicts (Supports::explicit_conflicts) on the worked examples of
// ../shared/research/parallel-streams.md §7 and against brute force.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

#include "conflict_brute.h"
#include "memplan/bounds.h"
#include "memplan/driver.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

Problem with_pairs(std::vector<Buffer> buffers, const std::vector<std::pair<int, int>>& pairs) {
  Problem p;
  p.buffers = std::move(buffers);
  for (auto [a, b] : pairs) p.conflicts.emplace_back(a, b);
  return p;
}

// §7.1 and §7.2: stream 0 runs A1 -> A2 -> J, stream 1 runs B1 -> B2, J waits for B2; x, y,
// u, v on the sequential order A1, A2, B1, B2, J (LOAD 8).
std::vector<Buffer> two_stream_buffers() {
  return {buf("x", 0, 2, 4), buf("y", 1, 5, 2), buf("u", 2, 4, 4), buf("v", 3, 5, 2)};
}
// §7.1: no sync: all six pairs conflict; safe optimum 12 (the sequential order alone: 8).
Problem two_streams_no_sync() {
  return with_pairs(two_stream_buffers(), {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}});
}
// §7.2: one event B1-after-A2: conflicts x-y, y-u, y-v, u-v; optimum 8 (clique {y, u, v}).
Problem one_event() { return with_pairs(two_stream_buffers(), {{0, 1}, {1, 2}, {1, 3}, {2, 3}}); }
// §7.3: a 5-cycle of unit buffers (disjoint intervals): clique bound 2, optimum 3.
Problem five_cycle() {
  Problem p;
  for (int i = 0; i < 5; ++i) p.buffers.push_back(buf("c" + std::to_string(i), 2 * i, 2 * i + 1, 1));
  for (int i = 0; i < 5; ++i) p.conflicts.emplace_back(i, (i + 1) % 5);
  return p;
}
// §7.4: two chains a<b (3, 1) and c<d (1, 3), no sync, in the sequential extension a,b,c,d
// (LOAD 3): conflicts a-c, a-d, b-c, b-d; optimum 6.
Problem two_plus_two() {
  return with_pairs({buf("a", 0, 1, 3), buf("b", 1, 2, 1), buf("c", 2, 3, 1), buf("d", 3, 4, 3)},
                    {{0, 2}, {0, 3}, {1, 2}, {1, 3}});
}
// §7.5: three streams; a, b, c pairwise concurrent (the cut bound is 2): optimum 3.
Problem three_streams() {
  return with_pairs({buf("a", 0, 1, 1), buf("c", 1, 2, 1), buf("b", 2, 3, 1)}, {{0, 1}, {0, 2}, {1, 2}});
}

// Two overlapping buffers of size 3, no explicit conflicts: LOAD 6.
Problem two_intervals() {
  Problem p;
  p.buffers = {buf("a", 0, 2, 3), buf("b", 1, 3, 3)};
  return p;
}

std::vector<const SolverInfo*> conflict_solvers() {
  std::vector<const SolverInfo*> out;
  for (const SolverInfo& s : all_solvers())
    if (s.supports.explicit_conflicts) out.push_back(&s);
  return out;
}

SolveOptions quick() {
  SolveOptions o;
  o.time_limit_seconds = 2;
  return o;
}

TEST(ConflictSolvers, WorkedExamplesThroughEveryCapableSolver) {
  struct Case {
    const char* name;
    Problem p;
    int64_t optimum;
  };
  const std::vector<Case> cases = {{"7.1", two_streams_no_sync(), 12}, {"7.2", one_event(), 8},
                                   {"7.3", five_cycle(), 3},           {"7.4", two_plus_two(), 6},
                                   {"7.5", three_streams(), 3}};
  const auto solvers = conflict_solvers();
  // The greedy family (every order and fit), conflict-greedy, exact and auto at least.
  ASSERT_GE(solvers.size(), 20u);
  for (const Case& c : cases) {
    ASSERT_EQ(brute_opt(c.p), c.optimum) << c.name;
    for (const SolverInfo* s : solvers) {
      const SolveResult r = solve(c.p, *s, quick());
      ASSERT_TRUE(r.solution) << c.name << " " << s->name;
      EXPECT_TRUE(validate(c.p, r.solution->offsets).ok) << c.name << " " << s->name;
      EXPECT_GE(r.solution->peak, c.optimum) << c.name << " " << s->name;
      EXPECT_LE(r.lower_bound, c.optimum) << c.name << " " << s->name;
      if (r.status == Status::kOptimal) EXPECT_EQ(r.solution->peak, c.optimum) << c.name << " " << s->name;
    }
    // The exact search and the portfolio reach the optimum and prove it.
    for (const char* algo : {"exact", "auto"}) {
      const SolveResult r = solve(c.p, algo, quick());
      ASSERT_TRUE(r.solution) << c.name << " " << algo;
      EXPECT_EQ(r.solution->peak, c.optimum) << c.name << " " << algo;
      EXPECT_EQ(r.status, Status::kOptimal) << c.name << " " << algo << " " << r.detail;
    }
  }
  // §7.1: 12, never the unsafe 8; §7.3 with capacity 2: infeasible, proven by exact.
  SolveOptions two = quick();
  two.capacity = 2;
  const SolveResult r = solve(five_cycle(), "exact", two);
  EXPECT_EQ(r.status, Status::kInfeasible) << r.detail;
  EXPECT_FALSE(r.solution);
  two.capacity = 3;
  const SolveResult fits = solve(five_cycle(), "exact", two);
  ASSERT_TRUE(fits.solution);
  EXPECT_EQ(fits.solution->peak, 3);
}

// Random small problems: interval lifetimes plus random explicit edges. exact's optimum
// equals the brute-force optimum (lowest-gap first fit over every order), a capacity one
// below it is proven infeasible, and every capable solver's plan validates at or above it.
TEST(ConflictSolvers, ExactEqualsBruteForceOnRandomConflictGraphs) {
  std::mt19937 rng(18);
  const auto solvers = conflict_solvers();
  int proven = 0;
  for (int round = 0; round < 120; ++round) {
    Problem p = random_intervals(rng, 2 + static_cast<int>(rng() % 6), 10, 6);
    const int n = static_cast<int>(p.buffers.size());
    for (int k = static_cast<int>(rng() % (2 * n)); k > 0; --k) {
      const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
      if (a != b) p.conflicts.emplace_back(a, b);
    }
    const int64_t opt = brute_opt(p);
    const SolveResult r = solve(p, "exact", quick());
    ASSERT_TRUE(r.solution) << "round " << round;
    EXPECT_EQ(r.solution->peak, opt) << "round " << round;
    EXPECT_EQ(r.status, Status::kOptimal) << "round " << round << " " << r.detail;
    SolveOptions below = quick();
    below.capacity = opt - 1;
    const SolveResult b = solve(p, "exact", below);
    EXPECT_EQ(b.status, Status::kInfeasible) << "round " << round << " " << b.detail;
    proven += b.status == Status::kInfeasible;
    if (round % 10 != 0) continue;  // every solver on a tenth of the rounds (time)
    for (const SolverInfo* s : solvers) {
      const SolveResult q = solve(p, *s, quick());
      ASSERT_TRUE(q.solution) << s->name;
      EXPECT_TRUE(validate(p, q.solution->offsets).ok) << s->name;
      EXPECT_GE(q.solution->peak, opt) << s->name;
    }
  }
  EXPECT_GT(proven, 100);
}

// Pre-placed buffers under explicit conflicts: exact's optimum still equals brute force over
// the movable ones (first fit around the fixed, every order).
TEST(ConflictSolvers, ExactWithPrePlacedBuffers) {
  // A 5-cycle with c0 pinned at offset 1: c1 and c4 must avoid [1, 2); optimum 3 still.
  Problem p = five_cycle();
  p.buffers[0].offset = 1;
  const SolveResult r = solve(p, "exact", quick());
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->offsets[0], 1);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
  EXPECT_EQ(r.solution->peak, 3);
  // c0 at 2: the others fit in [0, 2) and [0, 3): optimum 3, proven.
  p.buffers[0].offset = 2;
  const SolveResult s = solve(p, "exact", quick());
  ASSERT_TRUE(s.solution);
  EXPECT_EQ(s.solution->peak, 3);
  EXPECT_EQ(s.status, Status::kOptimal) << s.detail;
}

TEST(Driver, RefusesUnsupportedFeaturesNamingSolverAndFeature) {
  int refused = 0;
  for (const SolverInfo& s : all_solvers()) {
    // Interval problems: every solver serves.
    EXPECT_EQ(unsupported_feature(two_intervals(), s), "") << s.name;
    const std::string why = unsupported_feature(five_cycle(), s);
    EXPECT_EQ(why.empty(), s.supports.explicit_conflicts) << s.name;
    if (why.empty()) continue;
    EXPECT_NE(why.find("'" + s.name + "'"), std::string::npos) << why;
    EXPECT_NE(why.find("explicit conflicts"), std::string::npos) << why;
    EXPECT_THROW(solve(five_cycle(), s, quick()), std::invalid_argument) << s.name;
    ++refused;
  }
  // Interval-only: the peak window's time trees, boxing, the baselines (the dive runs on
  // the conflict graph there: graph_dive_test.cpp; the online allocator on lifetimes
  // stretched to cover the conflicts: graph_fit_test.cpp).
  EXPECT_GE(refused, 10);
  for (const char* name : {"peak-window", "idealloc"}) EXPECT_FALSE(find_solver(name)->supports.explicit_conflicts) << name;
  for (const char* name : {"dive", "online-best-fit"}) EXPECT_TRUE(find_solver(name)->supports.explicit_conflicts) << name;
  // A solver that declares no pre-placed buffers is refused on them, naming the buffer.
  SolverInfo no_fixed{"no-fixed", "test", [](const Problem& p, const SolveOptions& o) {
                        return result_from_plan(p, o, Solution{std::vector<int64_t>(p.buffers.size(), 0), 0});
                      },
                      Supports{.fixed_offsets = false}};
  Problem fixed = two_intervals();
  fixed.buffers[1].id = "pinned";
  fixed.buffers[1].offset = 0;
  try {
    solve(fixed, no_fixed, quick());
    ADD_FAILURE() << "pre-placed buffer accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'no-fixed'"), std::string::npos) << what;
    EXPECT_NE(what.find("'pinned'"), std::string::npos) << what;
  }
  // In-place reuse with explicit conflicts is refused, not lowered wrongly.
  Problem inplace = five_cycle();
  inplace.buffers[1].inplace_of = "c0";
  EXPECT_THROW(solve(inplace, "exact", quick()), std::invalid_argument);
}

// A solver's bound and infeasibility claims count only when its Supports declares proofs.
TEST(Driver, ProofsOnlyFromSolversThatDeclareThem) {
  const Problem p = two_intervals();  // LOAD 6
  SolverInfo liar{"liar", "test",
                  [](const Problem&, const SolveOptions&) {
                    SolveResult r;
                    r.status = Status::kInfeasible;
                    r.lower_bound = 100;
                    return r;
                  },
                  Supports{}};
  SolveOptions cap = quick();
  cap.capacity = 50;
  const SolveResult r = solve(p, liar, cap);
  EXPECT_EQ(r.status, Status::kNoPlan);  // not a proof: declared no proofs
  EXPECT_EQ(r.lower_bound, 6);           // LOAD, not the claimed 100
  liar.supports.proves_infeasible = liar.supports.proves_optimal = true;
  const SolveResult t = solve(p, liar, cap);
  EXPECT_EQ(t.status, Status::kInfeasible);
  EXPECT_EQ(t.lower_bound, 100);
  // The driver's own bound under conflicts: the greedy clique, above LOAD.
  EXPECT_EQ(driver_lower_bound(two_streams_no_sync()), 12);
  EXPECT_EQ(lower_bound_of(two_streams_no_sync()), 8);
}

// solve() reuses a solver's verdict on its plan (SolveResult::check) only from a solver that
// declares Supports::checks_plans (auto alone), for the very offsets and capacity judged;
// otherwise it checks the plan itself. Here an overlapping plan (both at 0, peak 3) comes
// with a verdict "ok" that does not match it in one respect each time: each must be caught.
TEST(Driver, ReusesAPlanCheckOnlyForTheOffsetsAndCapacityItJudged) {
  const Problem p = two_intervals();  // a and b overlap in time: offsets {0, 0} are invalid
  struct Forged {
    std::vector<int64_t> judged;
    std::optional<int64_t> cap;
  };
  auto forger = [](Forged f, bool declares) {
    return SolverInfo{"forger", "test",
                      [f](const Problem& q, const SolveOptions& o) {
                        SolveResult r = result_from_plan(q, o, Solution{{0, 0}, 3});
                        Validation ok;
                        ok.peak = 3;
                        r.check = std::make_shared<const PlanCheck>(PlanCheck{f.judged, f.cap, ok});
                        return r;
                      },
                      Supports{.checks_plans = declares}};
  };
  SolveOptions o = quick();
  o.capacity = 100;
  // Other offsets judged, another capacity, or a solver that does not declare it: re-checked.
  EXPECT_EQ(solve(p, forger({{0, 3}, 100}, true), o).status, Status::kInvalid);
  EXPECT_EQ(solve(p, forger({{0, 0}, std::nullopt}, true), o).status, Status::kInvalid);
  EXPECT_EQ(solve(p, forger({{0, 0}, 100}, false), o).status, Status::kInvalid);
  // The matching verdict is taken as it is: the trust rests on the declaration, which only
  // auto makes (and auto's verdict is validate()'s own, below).
  // A verdict its deadline cut drops the plan (never returned unchecked, not checked again).
  SolverInfo cut = forger({{0, 0}, 100}, true);
  cut.run = [](const Problem& q, const SolveOptions& so) {
    SolveResult r = result_from_plan(q, so, Solution{{0, 3}, 6});
    Validation stopped;
    stopped.ok = stopped.complete = false;
    r.check = std::make_shared<const PlanCheck>(PlanCheck{{0, 3}, 100, stopped});
    return r;
  };
  const SolveResult dropped = solve(p, cut, o);
  EXPECT_FALSE(dropped.solution);
  EXPECT_NE(dropped.detail.find("reason=time_limit_in_check"), std::string::npos) << dropped.detail;
  const SolveResult trusted = solve(p, forger({{0, 0}, 100}, true), o);
  EXPECT_TRUE(trusted.solution);
  EXPECT_NE(trusted.status, Status::kInvalid);
  int declaring = 0;
  for (const SolverInfo& s : all_solvers())
    if (s.supports.checks_plans) {
      ++declaring;
      EXPECT_EQ(s.name, "auto");
    }
  EXPECT_EQ(declaring, 1);
  // auto's verdict is validate()'s on the offsets it returns, fallback or member.
  for (int threads : {1, 2}) {
    Problem big;
    for (int i = 0; i < 60; ++i) big.buffers.push_back(buf("t" + std::to_string(i), i % 7, i % 7 + 1 + i % 5, 1 + i % 9));
    SolveOptions a = quick();
    a.threads = threads;
    const SolverInfo* aut = find_solver("auto");
    ASSERT_TRUE(aut);
    const SolveResult r = aut->run(big, a);
    ASSERT_TRUE(r.solution);
    ASSERT_TRUE(r.check) << threads;
    EXPECT_EQ(r.check->offsets, r.solution->offsets);
    const Validation v = validate(big, r.solution->offsets);
    EXPECT_TRUE(v.ok && r.check->verdict.ok);
    EXPECT_EQ(r.check->verdict.peak, v.peak);
  }
}

// `auto` skips the members that cannot serve (named in its detail) and still proves.
TEST(Driver, AutoSkipsMembersThatCannotServe) {
  SolveOptions two = quick();
  two.threads = 2;
  for (const SolveOptions& o : {quick(), two}) {
    const SolveResult r = solve(two_streams_no_sync(), "auto", o);
    ASSERT_TRUE(r.solution);
    EXPECT_EQ(r.solution->peak, 12);
    EXPECT_EQ(r.status, Status::kOptimal);
    EXPECT_NE(r.detail.find("skipped="), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("peak-window"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("idealloc"), std::string::npos) << r.detail;
  }
  const SolveResult plain = solve(two_intervals(), "auto", quick());
  EXPECT_EQ(plain.detail.find("skipped="), std::string::npos) << plain.detail;
}

// Two-ended pools under explicit conflicts: each end keeps its own pairs.
TEST(Driver, TwoEndedPoolKeepsConflictsInEachEnd) {
  Problem p = two_streams_no_sync();
  p.buffers[2].from_top = p.buffers[3].from_top = true;  // u and v in the high end
  for (const char* algo : {"exact", "greedy", "conflict-greedy"}) {
    const SolveResult r = solve(p, algo, quick());
    ASSERT_TRUE(r.solution) << algo;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok) << algo;
    EXPECT_EQ(r.solution->peak, 12) << algo;  // x, y below; u, v above; all disjoint
  }
}

}  // namespace
}  // namespace memplan
