// One conflict graph for every member of `auto` (SolveOptions::conflict_graph): the members
// that plan on the graph read the one they are handed instead of building their own, and
// the driver never hands a graph to a problem it made (two-ended split, lowering).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "memplan/generate.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"
#include "memplan/validate.h"
#include "conflict_brute.h"

namespace memplan {
namespace {

// Four buffers with disjoint lifetimes, pairwise conflicting through explicit edges: on
// their own graph they need 4 x 4 bytes stacked.
Problem explicit_clique() {
  Problem p;
  for (int i = 0; i < 4; ++i) p.buffers.push_back(buf("b" + std::to_string(i), i, i + 1, 4));
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) p.conflicts.emplace_back(a, b);
  return p;
}

// A graph with the right number of vertices and no edges: a member that reads it (and not
// a graph of its own) places every buffer at 0.
std::shared_ptr<const ConflictGraph> edgeless(int32_t n) {
  auto g = std::make_shared<ConflictGraph>();
  g->begin.assign(n + 1, 0);
  return g;
}

TEST(SharedConflictGraph, MembersPlanOnTheGraphTheyAreHanded) {
  const Problem p = explicit_clique();
  for (const char* name : {"conflict-greedy", "greedy", "first-fit", "dive", "exact", "somas"}) {
    const SolverInfo* s = find_solver(name);
    ASSERT_NE(s, nullptr) << name;
    SolveOptions own;  // no graph handed: the member builds the true one
    const SolveResult r0 = s->run(p, own);
    ASSERT_TRUE(r0.solution) << name;
    EXPECT_TRUE(validate(p, r0.solution->offsets).ok) << name;
    EXPECT_EQ(r0.solution->peak, 16) << name;
    SolveOptions handed;
    handed.conflict_graph = edgeless(4);
    const SolveResult r1 = s->run(p, handed);
    ASSERT_TRUE(r1.solution) << name;
    for (int64_t off : r1.solution->offsets) EXPECT_EQ(off, 0) << name;  // read the handed graph
  }
}

// The driver's two-ended split plans each end as a new problem: the caller's graph (of the
// whole problem) must not reach them. Handed an edgeless graph, the plan stays valid.
TEST(SharedConflictGraph, DriverDropsTheGraphForProblemsItMakes) {
  Problem p = explicit_clique();
  p.buffers[1].from_top = true;
  p.buffers[3].from_top = true;
  SolveOptions opt;
  opt.conflict_graph = edgeless(4);
  for (const char* name : {"conflict-greedy", "auto"}) {
    const SolveResult r = solve(p, name, opt);
    ASSERT_TRUE(r.solution) << name;
    EXPECT_NE(r.status, Status::kInvalid) << name;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok) << name;
    EXPECT_EQ(r.solution->peak, 16) << name;
  }
}

// auto hands its members the graph it builds once; the plan is the one they find on their
// own graphs (the generated 60-buffer stream programs, where auto meets the antichain bound).
TEST(SharedConflictGraph, AutoPlansAsWithOwnGraphs) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    GenerateOptions o;
    o.kind = "streams";
    o.streams = 4;
    o.buffers = 60;
    o.seed = seed;
    const Problem p = generate(o);
    ConflictGraph g;
    ASSERT_TRUE(conflict_graph(p, g, 1'000'000));
    SolveOptions own;
    SolveOptions handed;
    handed.conflict_graph = std::make_shared<const ConflictGraph>(g);
    const SolveResult a = solve(p, "auto", own), b = solve(p, "auto", handed);
    ASSERT_TRUE(a.solution && b.solution);
    EXPECT_EQ(a.solution->peak, b.solution->peak) << seed;
    EXPECT_EQ(a.lower_bound, b.lower_bound) << seed;
    EXPECT_TRUE(validate(p, b.solution->offsets).ok) << seed;
  }
}

}  // namespace
}  // namespace memplan
