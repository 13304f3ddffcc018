#include <gtest/gtest.h>

#include "memplan/bounds.h"
#include "memplan/constraints.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "testing.h"

namespace memplan {
namespace {

Buffer buf(std::string id, int64_t s, int64_t e, int64_t size) {
  return testing::make_buffer(std::move(id), s, e, size);
}

TEST(InPlace, OutputTakesOverItsInputsMemory) {
  // x is read by op 2, which writes y in place; z overlaps both.
  Problem p;
  p.buffers = {buf("x", 0, 3, 100), buf("y", 2, 5, 100), buf("z", 0, 5, 50)};
  p.buffers[1].inplace_of = "x";
  EXPECT_EQ(compute_load(p), 150);             // x and y may share: they count once
  EXPECT_EQ(constrained_lower_bound(p), 150);
  for (const char* algo : {"greedy", "first-fit", "best-fit"}) {
    SolveResult r = solve(p, algo, {});
    ASSERT_TRUE(r.solution) << algo;
    EXPECT_EQ(r.solution->offsets[0], r.solution->offsets[1]) << algo;
    EXPECT_EQ(r.solution->peak, 150) << algo;
    EXPECT_EQ(r.status, Status::kOptimal) << algo;
    EXPECT_TRUE(validate(p, r.solution->offsets).ok) << algo;
  }
}

TEST(InPlace, ValidatorAllowsSharingOnlyAtTheSameOffset) {
  Problem p;
  p.buffers = {buf("x", 0, 3, 100), buf("y", 2, 5, 60)};
  p.buffers[1].inplace_of = "x";
  EXPECT_TRUE(validate(p, {0, 0}).ok);
  EXPECT_FALSE(validate(p, {0, 40}).ok);   // overlapping at t=2 but not the same address
  EXPECT_TRUE(validate(p, {0, 100}).ok);   // not sharing at all is fine too
  // A third buffer must avoid the larger footprint while x lives, the smaller after.
  p.buffers.push_back(buf("w", 3, 5, 40));
  EXPECT_TRUE(validate(p, {0, 0, 60}).ok);
  EXPECT_FALSE(validate(p, {0, 0, 50}).ok);
  p.buffers.push_back(buf("v", 1, 2, 10));
  EXPECT_FALSE(validate(p, {0, 0, 60, 90}).ok);  // x occupies [0,100) at t=1
}

TEST(InPlace, ChainsAndErrors) {
  Problem p;
  p.buffers = {buf("a", 0, 2, 10), buf("b", 1, 3, 30), buf("c", 2, 4, 20)};
  p.buffers[1].inplace_of = "a";
  p.buffers[2].inplace_of = "b";
  SolveResult r = solve(p, "greedy", {});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 30);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);

  Problem twice = p;
  twice.buffers[2].inplace_of = "a";  // a reused by both b and c
  EXPECT_THROW(lower_constraints(twice), std::invalid_argument);
  Problem unknown = p;
  unknown.buffers[2].inplace_of = "nope";
  EXPECT_THROW(lower_constraints(unknown), std::invalid_argument);
  Problem cycle = p;
  cycle.buffers[0].inplace_of = "c";
  EXPECT_THROW(lower_constraints(cycle), std::invalid_argument);
}

TEST(Groups, MembersAreBackToBackInOrder) {
  Problem p;
  p.buffers = {buf("p", 0, 4, 64), buf("q", 1, 3, 32), buf("r", 0, 2, 16), buf("s", 2, 6, 128)};
  for (int k : {0, 1, 2}) {
    p.buffers[k].group = "concat";
    p.buffers[k].group_index = 2 - k;  // laid out r, q, p
  }
  p.buffers[1].alignment = 16;
  for (const char* algo : {"greedy", "first-fit", "best-fit-start"}) {
    SolveResult r = solve(p, algo, {});
    ASSERT_TRUE(r.solution) << algo;
    const auto& o = r.solution->offsets;
    EXPECT_EQ(o[1], o[2] + 16) << algo;
    EXPECT_EQ(o[0], o[1] + 32) << algo;
    EXPECT_TRUE(validate(p, o).ok) << algo;
  }
  EXPECT_FALSE(validate(p, {0, 16, 200, 300}).ok);  // p not right after q
}

TEST(InPlace, AnAbsenceOfAMemberFreesTheChainsPlace) {
  // b reuses a in place and is away over [4, 6) (a gap without a window, as swapping makes):
  // the chain's footprint is 0 there, so c fits in its place at capacity 8. A gap with a
  // window is still refused in a chain (its footprint would not be a prefix).
  Problem p;
  p.buffers = {buf("a", 0, 3, 8), buf("b", 2, 8, 8), buf("c", 4, 6, 8)};
  p.buffers[1].inplace_of = "a";
  p.buffers[1].gaps = {Gap{4, 6, false, 0, 0}};
  const Lowering l = lower_constraints(p);
  ASSERT_EQ(l.problem.buffers.size(), 2u);
  EXPECT_EQ(format_gaps(l.problem.buffers[0].gaps), "4-6");
  for (const char* algo : {"greedy", "exact"}) {
    SolveOptions o;
    o.capacity = 8;
    const SolveResult r = solve(p, algo, o);
    ASSERT_TRUE(r.solution) << algo;
    EXPECT_TRUE(validate(p, r.solution->offsets, int64_t{8}).ok) << algo;
    EXPECT_EQ(r.solution->offsets[0], r.solution->offsets[1]) << algo;
  }
  p.buffers[1].gaps = {Gap{4, 6, true, 0, 4}};
  EXPECT_THROW(lower_constraints(p), std::invalid_argument);
}

TEST(Groups, RejectsUnalignableMembersAndHonoursFixedOffsets) {
  Problem p;
  p.buffers = {buf("a", 0, 4, 10), buf("b", 0, 4, 32)};
  p.buffers[0].group = p.buffers[1].group = "g";
  p.buffers[1].group_index = 1;
  p.buffers[1].alignment = 16;  // b would sit 10 bytes into the group
  EXPECT_THROW(lower_constraints(p), std::invalid_argument);
  p.buffers[0].size = 16;
  p.buffers[1].offset = 48;  // so the group starts at 32
  p.buffers.push_back(buf("c", 0, 4, 8));
  SolveResult r = solve(p, "greedy", {});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->offsets[0], 32);
  EXPECT_EQ(r.solution->offsets[1], 48);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
}

TEST(Constraints, RandomInstancesAlwaysGiveValidPlans) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 500; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 3 + trial % 10;
    Problem p = testing::random_problem(rng, spec);
    // Random in-place links (each target once, forward in index order: no cycles) and a group.
    std::vector<bool> taken(p.buffers.size(), false);
    for (size_t i = 1; i < p.buffers.size(); ++i) {
      const size_t a = rng() % i;
      if (rng() % 3 == 0 && !taken[a] && p.buffers[a].inplace_of.empty() == true) {
        taken[a] = true;
        p.buffers[i].inplace_of = p.buffers[a].id;
      }
    }
    std::vector<bool> in_chain(p.buffers.size(), false);
    for (size_t i = 0; i < p.buffers.size(); ++i)
      if (!p.buffers[i].inplace_of.empty() || taken[i]) in_chain[i] = true;
    int grouped = 0;
    for (size_t i = 0; i < p.buffers.size(); ++i)
      if (!in_chain[i] && rng() % 2) p.buffers[i].group = "g", p.buffers[i].group_index = grouped++;
    for (const char* algo : {"greedy", "best-fit"}) {
      SolveResult r = solve(p, algo, {});
      ASSERT_TRUE(r.solution) << algo;
      ASSERT_TRUE(validate(p, r.solution->offsets).ok) << "trial " << trial << " " << algo << ": "
                                                        << validate(p, r.solution->offsets).errors[0];
      ASSERT_GE(r.solution->peak, r.lower_bound);
    }
  }
}

}  // namespace
}  // namespace memplan

#include <sstream>

#include "memplan/io.h"

namespace memplan {
namespace {

TEST(Constraints, CsvColumnsRoundTripAndSolve) {
  const std::string text =
      "id,lower,upper,size,inplace,group\n"
      "x,0,3,100,,\n"
      "y,2,5,100,x,\n"
      "a,0,4,16,,cat:1\n"
      "b,1,4,32,,cat:0\n";
  std::istringstream in(text);
  CsvTable t = read_csv(in, "mem.csv");
  ASSERT_EQ(t.problem.buffers.size(), 4u);
  EXPECT_EQ(t.problem.buffers[1].inplace_of, "x");
  EXPECT_EQ(t.problem.buffers[3].group, "cat");
  EXPECT_EQ(t.problem.buffers[3].group_index, 0);
  std::ostringstream out;
  write_csv(out, t.problem, nullptr, t.columns);
  EXPECT_EQ(out.str(),
            "id,lower,upper,size,inplace,group\nx,0,3,100,,\ny,2,5,100,x,\na,0,4,16,,cat:1\nb,1,4,32,,cat:0\n");
  SolveResult r = solve(t.problem, "greedy", {});
  ASSERT_TRUE(r.solution);
  EXPECT_TRUE(validate(t.problem, r.solution->offsets).ok);
  EXPECT_EQ(r.solution->offsets[2], r.solution->offsets[3] + 32);

  std::istringstream bad("id,lower,upper,size,inplace\nx,0,3,100,\ny,2,5,100,zz\n");
  EXPECT_THROW(read_csv(bad, "bad.csv"), InputError);
}

}  // namespace
}  // namespace memplan
