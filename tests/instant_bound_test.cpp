// The instant-subset relaxation (bounds.h instants_problem) and its cutting-plane loop
// (instant_bound.h): keeping only the conflicts at a set of instants never needs more
// memory than the whole, so a refuted relaxation is a sound lower bound. Checked against
// brute force on tiny instances, and on a constructed instance where a set of instants
// that is not contiguous refutes LOAD while no window of as many sections does.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>

#include "memplan/bounds.h"
#include "memplan/instant_bound.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"
#include "files.h"
#include "testing.h"

namespace memplan {
namespace {

// Decides a relaxation by the exact solver, through the public API: refuted only on a proof.
InstantDecision by_exact(const Problem& r, int64_t capacity) {
  SolveOptions o;
  o.capacity = capacity;
  o.time_limit_seconds = 5;
  o.explain = false;
  const SolveResult res = solve(r, "exact", o);
  InstantDecision d;
  d.refuted = res.status == Status::kInfeasible;
  if (res.solution) d.offsets = res.solution->offsets;
  d.nodes = res.iterations;
  return d;
}

// Whether buffers a and b share an integer instant of `instants` (both live at it).
bool share_instant(const Buffer& a, const Buffer& b, const std::vector<int64_t>& instants) {
  return std::any_of(instants.begin(), instants.end(),
                     [&](int64_t t) { return a.start <= t && t < a.end && b.start <= t && t < b.end; });
}

// Instances small enough for brute force: 3-7 buffers, horizon 4-13, sizes up to 5.
testing::RandomSpec tiny(std::mt19937_64& rng, bool alignment) {
  testing::RandomSpec spec;
  spec.buffers = 3 + int(rng() % 5);
  spec.horizon = 4 + int64_t(rng() % 10);
  spec.max_size = 5;
  spec.alignment = alignment;
  return spec;
}

TEST(InstantsProblem, KeepsTheBuffersAndConflictsAtTheInstants) {
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 10, 4), testing::make_buffer("b", 3, 5, 2),
               testing::make_buffer("c", 6, 9, 1), testing::make_buffer("d", 0, 2, 8)};
  p.buffers[0].alignment = 4;
  p.buffers[2].offset = 8;
  p.capacity = 100;
  const Problem r = instants_problem(p, {8, 1, 8});  // unsorted, with a repeat: {1, 8}
  ASSERT_EQ(r.buffers.size(), 3u);                   // b is live at neither instant
  EXPECT_EQ(r.buffers[0].id, "a");
  EXPECT_EQ(r.buffers[0].start, 1);
  EXPECT_EQ(r.buffers[0].end, 9);
  EXPECT_EQ(r.buffers[0].alignment, 4);
  EXPECT_EQ(r.buffers[1].id, "c");
  EXPECT_EQ(r.buffers[1].start, 8);
  EXPECT_EQ(r.buffers[1].end, 9);
  EXPECT_EQ(r.buffers[1].offset, std::optional<int64_t>(8));
  EXPECT_EQ(r.buffers[2].id, "d");
  EXPECT_EQ(r.buffers[2].start, 1);
  EXPECT_EQ(r.buffers[2].end, 2);
  EXPECT_FALSE(r.capacity.has_value());
  // c and d never met in p; a meets both. In r: exactly the same pairs at {1, 8}.
  EXPECT_FALSE(r.buffers[1].start < r.buffers[2].end && r.buffers[2].start < r.buffers[1].end);
  EXPECT_THROW(instants_problem(p, {}), std::invalid_argument);
}

TEST(InstantsProblem, RefusesWhatItDoesNotModel) {
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 10, 4), testing::make_buffer("b", 12, 14, 2)};
  p.buffers[1].gaps.push_back(Gap{12, 13});
  EXPECT_NO_THROW(instants_problem(p, {3}));  // the buffer with gaps is left out
  EXPECT_THROW(instants_problem(p, {3, 13}), std::invalid_argument);
  p.buffers[1].gaps.clear();
  p.buffers[1].group = "g";
  EXPECT_THROW(instants_problem(p, {13}), std::invalid_argument);
}

// relaxable() is the relaxations' own condition, which the window and instant bounds check
// before relaxing: for each feature they do not model, relaxable is false, instants_problem
// refuses the problem, and instant_bound returns its start untouched without deciding
// anything; without the feature the bound decides.
TEST(InstantBound, SkipsWhatTheRelaxationsDoNotModel) {
  const std::vector<std::function<void(Problem&)>> features = {
      [](Problem& p) { p.buffers[1].gaps.push_back(Gap{6, 7}); },
      [](Problem& p) { p.buffers[1].inplace_of = "a"; },
      [](Problem& p) { p.buffers[1].group = "g"; },
      [](Problem& p) { p.buffers[1].from_top = true; },
      [](Problem& p) { p.conflicts = {{0, 1}}; },
  };
  int decided = 0;
  const DecideInstants count = [&](const Problem& r, int64_t capacity) {
    ++decided;
    return by_exact(r, capacity);
  };
  for (size_t k = 0; k <= features.size(); ++k) {
    Problem p;
    p.buffers = {testing::make_buffer("a", 0, 10, 4), testing::make_buffer("b", 5, 14, 2)};
    if (k < features.size()) features[k](p);
    const bool modelled = k == features.size();
    EXPECT_EQ(relaxable(p), modelled) << "feature " << k;
    if (modelled) EXPECT_NO_THROW(instants_problem(p, {6}));
    else EXPECT_THROW(instants_problem(p, {6}), std::invalid_argument) << "feature " << k;
    decided = 0;
    const InstantBound ib = instant_bound(p, 6, {}, count, Deadline());
    EXPECT_EQ(ib.bound, 6) << "feature " << k;
    EXPECT_EQ(decided > 0, modelled) << "feature " << k;
  }
}

// On random instances and random sets of instants: two kept buffers overlap in the
// relaxation exactly when they share an instant of the set, a buffer is kept exactly when
// it is live at one, and the relaxation's optimum never exceeds the whole's (all by brute
// force); with every section's start the relaxation has the whole's optimum.
TEST(InstantsProblem, OptimumNeverExceedsTheWhole) {
  std::mt19937_64 rng(2027);
  int below = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const testing::RandomSpec spec = tiny(rng, trial % 3 == 0);
    const Problem p = testing::random_problem(rng, spec);
    std::vector<int64_t> instants;
    for (int64_t t = 0; t < spec.horizon + 2; ++t)
      if (rng() % 3 == 0) instants.push_back(t);
    if (instants.empty()) instants.push_back(int64_t(rng() % spec.horizon));
    const Problem r = instants_problem(p, instants);
    std::vector<int32_t> kept;
    for (int32_t b = 0; b < static_cast<int32_t>(p.buffers.size()); ++b)
      if (share_instant(p.buffers[b], p.buffers[b], instants)) kept.push_back(b);
    ASSERT_EQ(r.buffers.size(), kept.size()) << "trial " << trial;
    for (size_t i = 0; i < kept.size(); ++i)
      for (size_t j = 0; j < kept.size(); ++j) {
        const Buffer &x = r.buffers[i], &y = r.buffers[j];
        ASSERT_EQ(x.start < y.end && y.start < x.end, share_instant(p.buffers[kept[i]], p.buffers[kept[j]], instants))
            << "trial " << trial;
      }
    const int64_t opt = testing::brute_force_optimum(p);
    const int64_t relaxed = r.buffers.empty() ? 0 : testing::brute_force_optimum(r);
    ASSERT_LE(relaxed, opt) << "trial " << trial;
    below += relaxed < opt;
    const Sections s = sections_of(p);
    std::vector<int64_t> all(s.times.begin(), s.times.end() - 1);
    ASSERT_EQ(testing::brute_force_optimum(instants_problem(p, all)), opt) << "trial " << trial;
  }
  EXPECT_GT(below, 0);  // some sets leave room: the relaxation is a relaxation
}

// The loop against brute force: the bound never exceeds the optimum, every refutation it
// logs is reproduced (brute force on its relaxation is above its capacity), a returned plan
// is valid with peak = bound = optimum, and on some instances the bound is above LOAD.
TEST(InstantBound, SoundAgainstBruteForceAndSometimesAboveLoad) {
  std::mt19937_64 rng(2028);
  int above_load = 0, refutations = 0, plans = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Problem p = testing::random_problem(rng, tiny(rng, trial % 2 == 0));
    const int64_t opt = testing::brute_force_optimum(p);
    const int64_t load = compute_load(p);
    const InstantBound ib = instant_bound(p, load, {}, by_exact, Deadline());
    ASSERT_LE(ib.bound, opt) << "trial " << trial;
    ASSERT_GE(ib.bound, load) << "trial " << trial;
    above_load += ib.bound > load;
    ASSERT_FALSE(ib.undecided);
    ASSERT_TRUE(ib.plan.has_value()) << "trial " << trial;  // unlimited: ends on the optimum
    ++plans;
    EXPECT_TRUE(testing::brute_force_valid(p, *ib.plan, ib.bound)) << "trial " << trial;
    EXPECT_EQ(ib.bound, opt) << "trial " << trial;
    for (const InstantRefutation& r : ib.refutations) {
      ++refutations;
      const Problem relaxed = instants_problem(p, r.instants);
      EXPECT_EQ(static_cast<int64_t>(relaxed.buffers.size()), r.buffers);
      EXPECT_GT(testing::brute_force_optimum(relaxed), r.capacity) << "trial " << trial;
    }
  }
  EXPECT_GT(above_load, 0);
  EXPECT_GE(refutations, above_load);
  EXPECT_EQ(plans, 300);
}

// With a granule, each refutation raises the bound to the next multiple of it, and the
// granule is the gcd of sizes, alignments and pre-placed offsets.
TEST(InstantBound, RoundsToTheGranule) {
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 2, 4), testing::make_buffer("b", 1, 3, 8),
               testing::make_buffer("c", 2, 4, 12), testing::make_buffer("t", 6, 9, 4)};
  EXPECT_EQ(peak_granule(p), 4);
  p.buffers[3].offset = 6;
  EXPECT_EQ(peak_granule(p), 2);
  p.buffers[3].offset.reset();
  p.buffers[0].alignment = 2;
  EXPECT_EQ(peak_granule(p), 2);
  p.buffers[0].alignment = 1;
  EXPECT_EQ(peak_granule(p), 4);  // alignment 1 constrains nothing
  const DecideInstants below_24 = [](const Problem&, int64_t capacity) {
    InstantDecision d;
    d.refuted = capacity < 24;
    d.nodes = 7;
    return d;  // neither refuted nor a plan at 24: undecided
  };
  const InstantBound ib = instant_bound(p, 17, {}, below_24, Deadline());
  EXPECT_EQ(ib.bound, 24);  // 17 refuted -> 20, 20 refuted -> 24
  ASSERT_EQ(ib.refutations.size(), 2u);
  EXPECT_EQ(ib.refutations[0].capacity, 17);
  EXPECT_EQ(ib.refutations[1].capacity, 20);
  EXPECT_EQ(ib.refutations[1].nodes, 7);
  EXPECT_TRUE(ib.undecided);
}

// The problem `g` with one extra section: every time from `at` on shifts by 1, and a
// buffer of size 1 lives alone in the new section [at, at + 1) (with the buffers of g that
// span `at`, now stretched over it).
Problem with_filler(const Problem& g, int64_t at) {
  Problem p = g;
  for (Buffer& b : p.buffers) {
    if (b.start >= at) ++b.start;
    if (b.end > at) ++b.end;
  }
  p.buffers.push_back(testing::make_buffer("filler", at, at + 1, 1));
  return p;
}

// Whether the exact search proves that nothing fits `capacity`.
bool refutes(const Problem& r, int64_t capacity) { return by_exact(r, capacity).refuted; }

// An instance where a non-contiguous set of instants refutes LOAD while no contiguous
// window of as many sections does: a small instance whose optimum is above LOAD, with a
// section of low load inserted inside it. The set of its own sections skips the new one and
// its relaxation is the small instance again; each window of as many sections drops one of
// its end sections. Found by a seeded search over random aligned instances; every property
// is checked here (the exact search's proofs, confirmed by brute force).
TEST(InstantBound, NonContiguousInstantsRefuteWhereNoWindowOfTheirSizeDoes) {
  std::mt19937_64 rng(3);
  bool found = false;
  for (int trial = 0; trial < 20000 && !found; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 4 + int(rng() % 4);
    spec.horizon = 5 + int64_t(rng() % 4);
    spec.max_size = 8;
    spec.alignment = true;
    const Problem g = testing::random_problem(rng, spec);
    const int64_t load = compute_load(g);
    if (!refutes(g, load)) continue;
    const Sections gs = sections_of(g);
    for (int32_t k = 1; k < gs.count() && !found; ++k) {
      const Problem p = with_filler(g, gs.times[k]);
      if (compute_load(p) != load) continue;
      const Sections s = sections_of(p);
      std::vector<int64_t> set;  // every section of p but the filler's
      for (int32_t j = 0; j < s.count(); ++j)
        if (s.times[j] != gs.times[k]) set.push_back(s.times[j]);
      if (!refutes(instants_problem(p, set), load)) continue;
      const int32_t m = static_cast<int32_t>(set.size());
      bool window_refutes = false;
      for (int32_t lo = 0; lo + m <= s.count(); ++lo) {
        const std::vector<int64_t> window(s.times.begin() + lo, s.times.begin() + lo + m);
        window_refutes |= refutes(instants_problem(p, window), load);
      }
      if (window_refutes) continue;
      found = true;
      // Confirmed by brute force: the set's relaxation needs more than LOAD, each window of
      // m sections (the same as window_problem over its time range) fits LOAD.
      EXPECT_GT(testing::brute_force_optimum(instants_problem(p, set)), load);
      EXPECT_EQ(s.count(), m + 1);
      for (int32_t lo = 0; lo + m <= s.count(); ++lo) {
        const Problem w = window_problem(p, s.times[lo], s.times[lo + m]);
        EXPECT_LE(testing::brute_force_optimum(w), load) << "window at section " << lo;
      }
      // And the loop, seeded with that set, raises the bound above LOAD at once.
      const InstantBound ib = instant_bound(p, load, set, by_exact, Deadline());
      ASSERT_FALSE(ib.refutations.empty());
      EXPECT_EQ(ib.refutations.front().instants, set);
      EXPECT_GT(ib.bound, load);
      EXPECT_LE(ib.bound, testing::brute_force_optimum(p));
    }
  }
  EXPECT_TRUE(found);
}

// `memplan bound --instants` reproduces a refutation of the loop (exit 0, the bound
// printed) and writes the relaxation with -o; --cutting-planes logs it; a malformed list is
// rejected (exit 2, naming the option, no file written).
TEST(InstantBound, CliReproducesARefutation) {
  std::mt19937_64 rng(2028);
  Problem p;
  InstantBound ib;
  for (int trial = 0; trial < 500 && ib.refutations.empty(); ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 6;
    spec.horizon = 10;
    spec.max_size = 8;
    spec.alignment = true;
    p = testing::random_problem(rng, spec);
    ib = instant_bound(p, compute_load(p), {}, by_exact, Deadline());
  }
  ASSERT_FALSE(ib.refutations.empty());
  const InstantRefutation& r = ib.refutations.back();
  testing::TempDir dir;
  std::ostringstream csv;
  write_csv(csv, p, nullptr);
  testing::write_text(dir.file("p.csv"), csv.str());
  std::string at;
  for (int64_t t : r.instants) at += (at.empty() ? "" : ",") + std::to_string(t);
  const testing::CliRun refuted = testing::run_cli("bound '" + dir.file("p.csv") + "' --instants " + at +
                                                       " --capacity " + std::to_string(r.capacity) + " -o '" +
                                                       dir.file("r.csv") + "'",
                                                   dir);
  EXPECT_EQ(refuted.code, 0) << refuted.out << refuted.err;
  EXPECT_NE(refuted.out.find("status=refuted"), std::string::npos) << refuted.out;
  EXPECT_NE(refuted.out.find("lower_bound=" + std::to_string(r.capacity + 1)), std::string::npos) << refuted.out;
  const std::string written = testing::read_text(dir.file("r.csv"));
  EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), r.buffers + 1);
  const testing::CliRun loop = testing::run_cli("bound '" + dir.file("p.csv") + "' --cutting-planes", dir);
  EXPECT_EQ(loop.code, 0) << loop.out << loop.err;
  EXPECT_NE(loop.out.find("refuted nodes="), std::string::npos) << loop.out;
  EXPECT_NE(loop.out.find("lower_bound=" + std::to_string(ib.bound)), std::string::npos) << loop.out;
  EXPECT_NE(loop.out.find("status=optimal"), std::string::npos) << loop.out;  // from LOAD: proven
  // From a capacity above the optimum nothing is refuted and the plan found proves nothing.
  const testing::CliRun high = testing::run_cli(
      "bound '" + dir.file("p.csv") + "' --cutting-planes --capacity " + std::to_string(ib.bound + 1000), dir);
  EXPECT_EQ(high.code, 3) << high.out << high.err;
  EXPECT_NE(high.out.find("status=fits"), std::string::npos) << high.out;
  // ... nor is the start a bound: the line gives LOAD's (it gave the start).
  EXPECT_NE(high.out.find("lower_bound=" + std::to_string(lower_bound_of(read_csv_file(dir.file("p.csv")).problem)) + " "),
            std::string::npos)
      << high.out;
  const testing::CliRun bad = testing::run_cli(
      "bound '" + dir.file("p.csv") + "' --instants 3,,4 --capacity 3 -o '" + dir.file("bad.csv") + "'", dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--instants"), std::string::npos) << bad.err;
  EXPECT_FALSE(testing::exists(dir.file("bad.csv")));
  const testing::CliRun both = testing::run_cli(
      "bound '" + dir.file("p.csv") + "' --instants 3 --window 0:4 --capacity 3", dir);
  EXPECT_EQ(both.code, 2);
  testing::write_text(dir.file("gaps.json"),
                      R"({"buffers":[{"id":"a","lower":0,"upper":10,"size":4,"gaps":[{"lower":2,"upper":4}]}]})");
  const testing::CliRun gaps = testing::run_cli("bound '" + dir.file("gaps.json") + "' --cutting-planes", dir);
  EXPECT_EQ(gaps.code, 2);
  EXPECT_NE(gaps.err.find("buffer 'a' has gaps"), std::string::npos) << gaps.err;
}

}  // namespace
}  // namespace memplan
