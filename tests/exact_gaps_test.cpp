// The exact search on problems with gaps. It places a buffer with gaps as its full rectangle,
// so its own refutations prove nothing there; its claims come from LOAD and from the
// relaxation that cuts such buffers into independent pieces (solvers/exact/gap_relaxation.h).
// Checked against the brute-force optimum, which places the pieces exactly.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "brute_force.h"
#include "exact_testing.h"
#include "memplan/bounds.h"
#include "memplan/solver.h"
#include "solvers/exact/gap_relaxation.h"
#include "testing.h"

namespace memplan {
namespace {

std::string reason_of(const SolveResult& r) {
  const size_t at = r.detail.find("reason=");
  return at == std::string::npos ? "" : r.detail.substr(at + 7, r.detail.find(' ', at) - at - 7);
}

// 4-6 buffers over [0, 10), sizes 1-6, half of the long ones with a gap (some with a window).
Problem random_gapped(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Problem p;
  const int n = pick(4, 6);
  for (int i = 0; i < n; ++i) {
    Buffer b;
    b.id = "b" + std::to_string(i);
    b.start = pick(0, 4);
    b.end = b.start + pick(1, 6);
    b.size = pick(1, 6);
    if (b.end - b.start >= 3 && pick(0, 1)) {
      Gap g;
      g.start = pick(static_cast<int>(b.start) + 1, static_cast<int>(b.end) - 2);
      g.end = pick(static_cast<int>(g.start) + 1, static_cast<int>(b.end) - 1);
      if (b.size >= 2 && pick(0, 3) == 0) {
        g.has_window = true;
        g.window_lo = pick(0, static_cast<int>(b.size) - 2);
        g.window_hi = pick(static_cast<int>(g.window_lo) + 1, static_cast<int>(b.size) - 1);
      }
      b.gaps.push_back(g);
    }
    p.buffers.push_back(b);
  }
  return p;
}

bool has_gaps(const Problem& p) {
  for (const Buffer& b : p.buffers)
    if (!b.gaps.empty()) return true;
  return false;
}

// Every claim of `exact` with gaps (the optimum, the lower bound, infeasibility of a
// capacity) agrees with the brute force, and every run ends by exhausting its search, never
// by the time limit: the search on full rectangles once spun until the limit after it was
// exhausted (a 3-buffer problem with a gap took the whole default 10 s), and a capacity
// below LOAD was not refuted.
TEST(ExactGaps, ClaimsAgreeWithTheBruteForceAndTheSearchStopsWhenExhausted) {
  std::mt19937 rng(7);
  int instances = 0, refuted = 0;
  while (instances < 60) {
    Problem p = random_gapped(rng);
    if (!has_gaps(p)) continue;
    ++instances;
    const std::optional<int64_t> opt = brute::optimum(p, 26);
    ASSERT_TRUE(opt);
    SolveOptions o;
    o.time_limit_seconds = 5;
    const SolveResult r = solve(p, "exact", o);
    ASSERT_TRUE(r.solution) << r.detail;
    EXPECT_GE(r.solution->peak, *opt);
    EXPECT_LE(r.lower_bound, *opt) << r.detail;
    if (r.status == Status::kOptimal) EXPECT_EQ(r.solution->peak, *opt) << r.detail;
    EXPECT_TRUE(reason_of(r) == "proven_optimal" || reason_of(r) == "exhausted_without_proof") << r.detail;
    // A capacity one below the optimum: refuted or left open, never a plan.
    o.capacity = *opt - 1;
    const SolveResult c = solve(p, "exact", o);
    EXPECT_FALSE(c.solution);
    EXPECT_TRUE(reason_of(c) == "proven_infeasible" || reason_of(c) == "exhausted_without_proof") << c.detail;
    if (c.status == Status::kInfeasible) {
      EXPECT_GT(c.lower_bound, *opt - 1);
      ++refuted;
    }
    // At the optimum a plan exists; the search need not find it, but never says infeasible.
    o.capacity = *opt;
    EXPECT_NE(solve(p, "exact", o).status, Status::kInfeasible);
  }
  EXPECT_GT(refuted, 0);
}

using testing::nine_that_need_ten;  // exact_testing.h: LOAD 9, optimum 10

// An optimum above LOAD that only the relaxation proves: nine_that_need_ten (LOAD 9, optimum
// 10), then x with a hole that y fills (9 bytes either way; as full rectangles 18).
TEST(ExactGaps, TheRelaxationProvesAnOptimumAboveLoad) {
  Problem p;
  p.buffers = nine_that_need_ten();
  Buffer x = testing::make_buffer("x", 6, 12, 9);
  x.gaps.push_back({8, 10, false, 0, 0});
  p.buffers.push_back(x);
  p.buffers.push_back(testing::make_buffer("y", 8, 10, 9));
  ASSERT_EQ(compute_load(p), 9);
  ASSERT_EQ(brute::optimum(p, 12), 10);
  SolveOptions o;
  o.time_limit_seconds = 10;
  const SolveResult r = solve(p, "exact", o);
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.status, Status::kOptimal) << r.detail;
  EXPECT_EQ(r.solution->peak, 10);
  EXPECT_NE(r.detail.find("relaxed_bound=10"), std::string::npos) << r.detail;
  o.capacity = 9;
  const SolveResult c = solve(p, "exact", o);
  EXPECT_EQ(c.status, Status::kInfeasible) << c.detail;
  EXPECT_EQ(c.lower_bound, 10);
}

// The relaxation's pieces: a piece of a window keeps the alignment lo allows, a fixed offset
// moves with it, and a plan of the pieces joins back only when they agree.
TEST(ExactGaps, TheRelaxationCutsAtTheGapsAndJoinsAgreeingPieces) {
  Problem p;
  Buffer a = testing::make_buffer("a", 0, 10, 16);
  a.alignment = 8;
  a.gaps.push_back({3, 5, true, 4, 12});  // [3, 5): bytes [4, 12) only
  a.gaps.push_back({6, 8, false, 0, 0});  // [6, 8): absent
  p.buffers = {a, testing::make_buffer("b", 2, 9, 4)};
  const auto g = exact::relax_gaps(p);
  ASSERT_TRUE(g);
  ASSERT_EQ(g->relaxed.buffers.size(), 5u);  // a: [0,3) [3,5) [5,6) [8,10); b
  const Buffer& window = g->relaxed.buffers[1];
  EXPECT_EQ(window.start, 3);
  EXPECT_EQ(window.end, 5);
  EXPECT_EQ(window.size, 8);
  EXPECT_EQ(window.alignment, 4);  // offset + 4 with offset % 8 == 0
  EXPECT_EQ(g->relaxed.buffers[3].start, 8);
  EXPECT_EQ(g->relaxed.buffers[4].id, "b");
  EXPECT_EQ(exact::join_pieces(*g, {16, 20, 16, 16, 0}), (std::vector<int64_t>{16, 0}));
  EXPECT_FALSE(exact::join_pieces(*g, {16, 16, 16, 16, 0}));  // the window's piece moved
  a.offset = 32;
  p.buffers[0] = a;
  EXPECT_EQ(exact::relax_gaps(p)->relaxed.buffers[1].offset, 36);
  // Cutting a buffer in in-place reuse would forbid its overlap: no relaxation.
  p.buffers[1].inplace_of = "a";
  EXPECT_FALSE(exact::relax_gaps(p));
}

}  // namespace
}  // namespace memplan
