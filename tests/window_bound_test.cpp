// The window lower bound (bounds.h window_problem, solvers/exact/window_bound.h): a time
// window's buffers, clipped to it, never need more memory than the whole, so a refuted
// window capacity is a sound lower bound. Checked against brute force on tiny instances,
// including cases where it beats LOAD.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>

#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "solvers/exact/window_bound.h"
#include "files.h"
#include "testing.h"

namespace memplan {
namespace {

// Decides a window by the exact solver, through the public API: refuted only on a proof.
exact::WindowDecision by_exact(const Problem& w, int64_t capacity, const Deadline&) {
  SolveOptions o;
  o.capacity = capacity;
  o.time_limit_seconds = 5;
  o.explain = false;
  const SolveResult r = solve(w, "exact", o);
  return {r.status == Status::kInfeasible, r.iterations};
}

TEST(WindowProblem, ClipsLifetimesAndKeepsTheRest) {
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 10, 4), testing::make_buffer("b", 3, 5, 2),
               testing::make_buffer("c", 6, 9, 1), testing::make_buffer("d", 0, 4, 8)};
  p.buffers[0].alignment = 4;
  p.buffers[1].offset = 8;
  p.capacity = 100;
  const Problem w = window_problem(p, 4, 7);
  ASSERT_EQ(w.buffers.size(), 3u);  // d ends at 4: dead in [4, 7)
  EXPECT_EQ(w.buffers[0].id, "a");
  EXPECT_EQ(w.buffers[0].start, 4);
  EXPECT_EQ(w.buffers[0].end, 7);
  EXPECT_EQ(w.buffers[0].alignment, 4);
  EXPECT_EQ(w.buffers[0].size, 4);
  EXPECT_EQ(w.buffers[1].size, 2);
  EXPECT_EQ(w.buffers[1].id, "b");
  EXPECT_EQ(w.buffers[1].start, 4);
  EXPECT_EQ(w.buffers[1].end, 5);
  EXPECT_EQ(w.buffers[1].offset, std::optional<int64_t>(8));
  EXPECT_EQ(w.buffers[2].id, "c");
  EXPECT_EQ(w.buffers[2].start, 6);
  EXPECT_EQ(w.buffers[2].end, 7);
  EXPECT_FALSE(w.capacity.has_value());
}

TEST(WindowProblem, RefusesWhatItDoesNotModel) {
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 10, 4), testing::make_buffer("b", 12, 14, 2)};
  EXPECT_THROW(window_problem(p, 5, 5), std::invalid_argument);
  p.buffers[1].gaps.push_back(Gap{12, 13});
  EXPECT_NO_THROW(window_problem(p, 0, 10));  // the buffer with gaps is outside
  EXPECT_THROW(window_problem(p, 0, 13), std::invalid_argument);
  p.buffers[1].gaps.clear();
  p.buffers[1].inplace_of = "a";
  EXPECT_THROW(window_problem(p, 0, 13), std::invalid_argument);
}

// Soundness: the bound never exceeds the brute-force optimum, every refutation it logs is
// reproducible (the window alone is proven infeasible there and brute force agrees), and on
// some instances it is above LOAD (otherwise it would be useless).
TEST(WindowBound, SoundAgainstBruteForceAndSometimesAboveLoad) {
  std::mt19937_64 rng(2026);
  int above_load = 0, refutations = 0;
  for (int trial = 0; trial < 300; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 3 + int(rng() % 5);
    spec.horizon = 4 + int64_t(rng() % 10);
    spec.max_size = 5;
    spec.alignment = trial % 3 == 0;
    Problem p = testing::random_problem(rng, spec);
    const int64_t opt = testing::brute_force_optimum(p);
    const int64_t load = compute_load(p);
    const exact::WindowBound wb = exact::window_bound(p, load, 1, by_exact, Deadline());
    ASSERT_LE(wb.bound, opt) << "trial " << trial;
    ASSERT_GE(wb.bound, load) << "trial " << trial;
    above_load += wb.bound > load;
    for (const exact::Refutation& r : wb.refutations) {
      ++refutations;
      const Problem w = window_problem(p, r.from, r.to);
      EXPECT_LT(w.buffers.size(), p.buffers.size() + 1);
      EXPECT_GT(testing::brute_force_optimum(w), r.capacity) << "trial " << trial;
      EXPECT_TRUE(by_exact(w, r.capacity, Deadline()).refuted) << "trial " << trial;
    }
  }
  EXPECT_GT(above_load, 0);
  EXPECT_GE(refutations, above_load);
}

// A fragmentation gadget (aligned buffers) in times [0, 8) whose optimum is above its LOAD
// (the first such one a seeded random search finds, by the exact solver's proofs, which
// other tests check against brute force), and a tail of small buffers after it, so that the
// window around the peak is not the whole. Sets `opt` to the gadget's optimum.
Problem gadget_with_tail(int64_t& opt) {
  std::mt19937_64 rng(7);
  Problem p;
  int64_t load = 0;
  opt = 0;
  for (int trial = 0; trial < 5000 && opt == load; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 8;
    spec.horizon = 8;
    spec.max_size = 8;
    spec.alignment = true;
    p = testing::random_problem(rng, spec);
    SolveOptions o;
    o.time_limit_seconds = 5;
    const SolveResult r = solve(p, "exact", o);
    EXPECT_EQ(r.status, Status::kOptimal);
    opt = r.solution ? r.solution->peak : 0;
    load = compute_load(p);
  }
  EXPECT_GT(opt, load);
  for (int k = 0; k < 6; ++k) p.buffers.push_back(testing::make_buffer("t" + std::to_string(k), 8 + k, 10 + k, 1));
  EXPECT_EQ(compute_load(p), load);
  return p;
}

// On it the bound reaches the optimum, from a proper window.
TEST(WindowBound, BeatsLoadOnAGadgetWithATail) {
  int64_t gadget_opt = 0;
  const Problem p = gadget_with_tail(gadget_opt);
  SolveOptions o;
  o.time_limit_seconds = 5;
  const SolveResult whole = solve(p, "exact", o);
  ASSERT_EQ(whole.status, Status::kOptimal);
  const int64_t opt = whole.solution->peak;
  ASSERT_EQ(opt, gadget_opt);
  const exact::WindowBound wb = exact::window_bound(p, compute_load(p), 1, by_exact, Deadline());
  EXPECT_EQ(wb.bound, opt);
  ASSERT_FALSE(wb.refutations.empty());
  EXPECT_LE(wb.refutations.back().to, 10);  // a proper window, not the whole horizon
}

// `memplan bound` reproduces a refutation (exit 0, the bound printed), says when the window
// fits (exit 3), writes the window with -o, and rejects a malformed window (exit 2, naming
// the option, no file written).
TEST(WindowBound, CliReproducesARefutation) {
  int64_t opt = 0;
  const Problem p = gadget_with_tail(opt);
  const exact::WindowBound wb = exact::window_bound(p, compute_load(p), 1, by_exact, Deadline());
  ASSERT_FALSE(wb.refutations.empty());
  const exact::Refutation& r = wb.refutations.back();
  testing::TempDir dir;
  std::ostringstream csv;
  write_csv(csv, p, nullptr);
  testing::write_text(dir.file("p.csv"), csv.str());
  const std::string window = " --window " + std::to_string(r.from) + ":" + std::to_string(r.to);
  const testing::CliRun refuted = testing::run_cli(
      "bound '" + dir.file("p.csv") + "'" + window + " --capacity " + std::to_string(r.capacity) + " -o '" +
          dir.file("w.csv") + "'",
      dir);
  EXPECT_EQ(refuted.code, 0) << refuted.out << refuted.err;
  EXPECT_NE(refuted.out.find("status=refuted"), std::string::npos) << refuted.out;
  EXPECT_NE(refuted.out.find("lower_bound=" + std::to_string(r.capacity + 1)), std::string::npos) << refuted.out;
  const Problem w = window_problem(p, r.from, r.to);
  const std::string written = testing::read_text(dir.file("w.csv"));
  EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), static_cast<long>(w.buffers.size()) + 1);
  const testing::CliRun fits =
      testing::run_cli("bound '" + dir.file("p.csv") + "'" + window + " --capacity " + std::to_string(opt), dir);
  EXPECT_EQ(fits.code, 3) << fits.out << fits.err;
  EXPECT_NE(fits.out.find("status=fits"), std::string::npos) << fits.out;
  const testing::CliRun bad = testing::run_cli(
      "bound '" + dir.file("p.csv") + "' --window 5:x --capacity 3 -o '" + dir.file("bad.csv") + "'", dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--window"), std::string::npos) << bad.err;
  EXPECT_FALSE(testing::exists(dir.file("bad.csv")));
}

// With a granularity, each refutation raises the bound to the next multiple of it.
TEST(WindowBound, RoundsToTheGranularity) {
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 2, 4), testing::make_buffer("b", 1, 3, 4),
               testing::make_buffer("c", 2, 4, 4), testing::make_buffer("t", 6, 9, 4)};
  const exact::DecideWindow below_12 = [](const Problem&, int64_t capacity, const Deadline&) {
    return exact::WindowDecision{capacity < 12, 7};
  };
  const exact::WindowBound wb = exact::window_bound(p, 8, 4, below_12, Deadline());
  EXPECT_EQ(wb.bound, 12);
  ASSERT_EQ(wb.refutations.size(), 1u);
  EXPECT_EQ(wb.refutations[0].capacity, 8);
  EXPECT_EQ(wb.refutations[0].nodes, 7);
}

// Solver `peak-window-ladder`: the peak window at the bound, then a bisection of targets
// above it. Never worse than `peak-window` (its first attempt is the same, and so is its
// fallback), always validated by solve(), and strictly better where no window fits LOAD
// (instances whose optimum is above LOAD: the window there is the whole, solved exactly).
TEST(PeakWindowLadder, NeverWorseThanPeakWindowAndSometimesBetter) {
  std::mt19937_64 rng(11);
  int better = 0;
  for (int trial = 0; trial < 60; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 6 + int(rng() % 10);
    spec.horizon = 8 + int64_t(rng() % 12);
    spec.max_size = 16;
    spec.alignment = true;
    const Problem p = testing::random_problem(rng, spec);
    SolveOptions o;
    o.time_limit_seconds = 5;
    const SolveResult plain = solve(p, "peak-window", o);
    const SolveResult ladder = solve(p, "peak-window-ladder", o);
    ASSERT_TRUE(plain.solution && ladder.solution) << "trial " << trial;
    ASSERT_TRUE(ladder.status == Status::kFeasible || ladder.status == Status::kOptimal) << ladder.detail;
    EXPECT_TRUE(testing::brute_force_valid(p, ladder.solution->offsets)) << "trial " << trial;
    EXPECT_LE(ladder.solution->peak, plain.solution->peak) << "trial " << trial;
    better += ladder.solution->peak < plain.solution->peak;
  }
  EXPECT_GT(better, 0);
}

}  // namespace
}  // namespace memplan
