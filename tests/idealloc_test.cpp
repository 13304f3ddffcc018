// Tests of the idealloc solver's boxing steps (src/solvers/idealloc) and of its plans.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/validate.h"
#include "solvers/idealloc/idealloc.h"
#include "testing.h"

namespace memplan {
namespace {

using namespace idealloc;

// Max over integer t of the summed heights of `jobs` live at t (open lifetimes).
int64_t open_load(const Arena& a, std::span<const int32_t> jobs) {
  std::vector<std::pair<int64_t, int64_t>> ev;  // (time, +h at birth+1 / -h at death)
  for (int32_t j : jobs) {
    ev.push_back({a.jobs[j].birth + 1, a.jobs[j].height});
    ev.push_back({a.jobs[j].death, -a.jobs[j].height});
  }
  std::sort(ev.begin(), ev.end(), [](auto x, auto y) {
    return x.first != y.first ? x.first < y.first : x.second < y.second;
  });
  int64_t cur = 0, best = 0;
  for (auto [t, h] : ev) best = std::max(best, cur += h);
  return best;
}

Arena random_arena(std::mt19937_64& rng, int n, int64_t horizon, int64_t hmin, int64_t hmax) {
  Arena a;
  std::uniform_int_distribution<int64_t> t(0, horizon), h(hmin, hmax);
  for (int i = 0; i < n; ++i) {
    int64_t s = t(rng), e = t(rng);
    if (s > e) std::swap(s, e);
    Job j;
    j.birth = 2 * s;
    j.death = 2 * (e + 1);
    j.height = h(rng);
    j.buffer = i;
    a.jobs.push_back(j);
  }
  return a;
}

// The interval colouring against its specification, on both of its paths (a direct pass up
// to 32 jobs, event orders above): jobs in order of (birth, death descending, position),
// each on the lowest row that no earlier job still occupies at its birth.
TEST(Idealloc, IntervalColouringMatchesItsSpecification) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + int(rng() % 70);
    Arena a = random_arena(rng, n, 5 + int64_t(rng() % 60), 1, 9);
    std::vector<int32_t> jobs(static_cast<size_t>(n));
    std::iota(jobs.begin(), jobs.end(), 0);
    std::shuffle(jobs.begin(), jobs.end(), rng);  // positions differ from job indices
    std::vector<int32_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) {
      const Job &p = a.jobs[size_t(jobs[size_t(x)])], &q = a.jobs[size_t(jobs[size_t(y)])];
      return p.birth != q.birth ? p.birth < q.birth : p.death > q.death;
    });
    std::vector<int32_t> want(static_cast<size_t>(n), -1);
    int32_t want_rows = 0;
    for (size_t e = 0; e < order.size(); ++e) {
      const Job& j = a.jobs[size_t(jobs[size_t(order[e])])];
      std::vector<char> used(size_t(n) + 1, 0);
      for (size_t f = 0; f < e; ++f)
        if (a.jobs[size_t(jobs[size_t(order[f])])].death > j.birth) used[size_t(want[size_t(order[f])])] = 1;
      int32_t r = 0;
      while (used[size_t(r)]) ++r;
      want[size_t(order[e])] = r;
      want_rows = std::max(want_rows, r + 1);
    }
    int32_t rows = 0;
    const std::vector<int32_t> got = interval_colouring(a, jobs, rows);
    ASSERT_EQ(got, want) << "n=" << n << " trial=" << trial;
    ASSERT_EQ(rows, want_rows);
    // Greedy in birth order is optimal on interval graphs: as many rows as the most jobs
    // live at one instant.
    std::vector<int32_t> unit(jobs);
    Arena ones = a;
    for (Job& j : ones.jobs) j.height = 1;
    ASSERT_EQ(rows, open_load(ones, unit));
  }
}

// Counts, per original buffer, how often it occurs below `top` in the box tree.
std::vector<int> occurrences(const Arena& a, std::span<const int32_t> top, int n) {
  std::vector<int> seen(size_t(n), 0);
  std::vector<int32_t> stack(top.begin(), top.end());
  while (!stack.empty()) {
    const int32_t j = stack.back();
    stack.pop_back();
    if (a.is_box(j)) {
      for (int32_t c : a.kids(j)) stack.push_back(c);
    } else if (a.jobs[j].buffer >= 0) {
      ++seen[size_t(a.jobs[j].buffer)];
    }
  }
  return seen;
}

TEST(Idealloc, DummyRuleThresholdIsAbout2216) {
  EXPECT_TRUE(dummy_job_rule(1, 1));
  EXPECT_TRUE(dummy_job_rule(1, 2000));
  EXPECT_FALSE(dummy_job_rule(1, 2500));
  EXPECT_LT(small_end(5000), big_end(5000));
}

TEST(Idealloc, Lemma1BoxesHoldAtMostKJobsSharingAPoint) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    Arena a;
    const int n = 30 + trial * 7;
    std::uniform_int_distribution<int64_t> left(0, 99), right(101, 200), h(5, 9);
    std::vector<int32_t> group;
    for (int i = 0; i < n; ++i) {
      a.jobs.push_back({2 * left(rng), 2 * right(rng), h(rng), 0, 0, i});
      group.push_back(i);
    }
    const int64_t k = 1 + trial % 3, hi = 9, H = k * hi;
    const Lemma1Result r = lemma1(a, group, k, H, 0.6);
    std::vector<int> seen(size_t(n), 0);
    for (int32_t u : r.unresolved) ++seen[size_t(u)];
    for (int32_t b : r.boxes) {
      ASSERT_TRUE(a.is_box(b));
      EXPECT_EQ(a.jobs[b].height, H);
      EXPECT_LE(int64_t(a.kids(b).size()), k);
      int64_t lo = INT64_MIN, up = INT64_MAX;
      for (int32_t c : a.kids(b)) {
        EXPECT_LE(a.jobs[c].height, hi);
        lo = std::max(lo, a.jobs[c].birth);
        up = std::min(up, a.jobs[c].death);
        ++seen[size_t(c)];
      }
      EXPECT_LT(lo + 1, up) << "box children share no live point";
      EXPECT_LE(open_load(a, a.kids(b)), a.jobs[b].height);
    }
    for (int s : seen) EXPECT_EQ(s, 1);
    // Outer strips: 2 * k * ceil(1/mu^2) = 6k jobs stay unresolved when n is larger.
    if (n > 6 * k) EXPECT_EQ(int64_t(r.unresolved.size()), 6 * k);
    if (n > 6 * k) EXPECT_FALSE(r.boxes.empty());
  }
}

TEST(Idealloc, Corollary15BoxesShareOneHeightAndFitTheirContents) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 20 + trial * 10;
    Arena a = random_arena(rng, n, 60, 1, 300);
    std::vector<int32_t> jobs(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) jobs[size_t(i)] = i;
    const double mu = 0.3 + 0.01 * trial, H = 400.5 + trial;
    const std::vector<int32_t> boxes = corollary15(a, jobs, H, mu, rng);
    for (int32_t b : boxes) {
      EXPECT_EQ(a.jobs[b].height, int64_t(H));
      // All children in one size class, and their load fits in the box.
      const int cls = size_class(a.jobs[a.kids(b)[0]].height, mu);
      for (int32_t c : a.kids(b)) EXPECT_EQ(size_class(a.jobs[c].height, mu), cls);
      EXPECT_LE(open_load(a, a.kids(b)), a.jobs[b].height);
      for (int32_t c : a.kids(b)) {
        EXPECT_LE(a.jobs[b].birth, a.jobs[c].birth);
        EXPECT_GE(a.jobs[b].death, a.jobs[c].death);
      }
    }
    for (int s : occurrences(a, boxes, n)) EXPECT_EQ(s, 1);
  }
}

TEST(Idealloc, SizeClassBoundsHeights) {
  for (double mu : {0.05, 0.3, 0.61})
    for (int64_t h : std::vector<int64_t>{1, 2, 3, 7, 1000, 1024, 123457, int64_t(1) << 40}) {
      const int i = size_class(h, mu);
      EXPECT_LE(double(h), std::pow(1 + mu, i));
      if (i > 0) EXPECT_GT(double(h), std::pow(1 + mu, i - 1));
      EXPECT_GE(std::floor(std::pow(1 + mu, i)), double(h));
    }
}

TEST(Idealloc, RogueMatchesItsHeightProfileAndKeepsEveryBuffer) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 10; ++trial) {
    const int n = 300;
    Arena a = random_arena(rng, n, 80, 1, 1 << (10 + trial));
    std::vector<int32_t> jobs(static_cast<size_t>(n));
    std::vector<int64_t> heights;
    for (int i = 0; i < n; ++i) {
      jobs[size_t(i)] = i;
      heights.push_back(a.jobs[size_t(i)].height);
    }
    const EpsilonChoice e = epsilon_search(heights);
    const std::vector<int32_t> pre = rogue(a, jobs, e.eps, rng);
    int64_t lo = INT64_MAX, hi = 0;
    for (int32_t j : pre) {
      lo = std::min(lo, a.jobs[j].height);
      hi = std::max(hi, a.jobs[j].height);
    }
    const RogueProfile prof = rogue_profile(heights, e.eps);
    EXPECT_EQ(prof.h_min, lo);
    EXPECT_EQ(prof.h_max, hi);
    EXPECT_LT(e.mu_final, kPhiHat);
    for (int s : occurrences(a, pre, n)) EXPECT_EQ(s, 1);
  }
}

TEST(Idealloc, UnboxingReachesEveryBufferExactlyOnce) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 20; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 10 + trial * 15;
    spec.horizon = 40;
    spec.max_size = 1000;
    const Problem p = testing::random_problem(rng, spec);
    const Prepared prep = prepare(p);
    std::vector<int64_t> heights;
    for (const Job& j : prep.base.jobs) heights.push_back(j.height);
    const EpsilonChoice e = epsilon_search(heights);
    Arena arena = prep.base;
    std::vector<int32_t> all(arena.jobs.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = int32_t(i);
    const std::vector<int32_t> pre = rogue(arena, all, e.eps, rng);
    const std::vector<int32_t> top = corollary15(arena, pre, e.final_height, e.mu_final, rng);
    for (int32_t b : top) EXPECT_EQ(arena.jobs[b].height, arena.jobs[top[0]].height);
    for (int s : occurrences(arena, top, prep.originals)) EXPECT_EQ(s, 1);
    const std::vector<int64_t> loose = unbox(arena, top, prep.originals, rng);
    for (int64_t o : loose) {
      EXPECT_GE(o, 0);
      EXPECT_LT(o, INT64_MAX);
    }
    std::vector<int32_t> order = order_by_offset(loose);
    std::sort(order.begin(), order.end());
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], int32_t(i));
  }
}

TEST(Idealloc, TimeNormalizationKeepsHalfOpenOverlaps) {
  Problem p;
  p.buffers = {testing::make_buffer("a", 0, 1, 5), testing::make_buffer("b", 1, 2, 5),
               testing::make_buffer("c", 0, 2, 3)};
  const Prepared prep = prepare(p);
  auto overlap = [&](int x, int y) {
    const Job &a = prep.base.jobs[size_t(x)], &b = prep.base.jobs[size_t(y)];
    return a.birth < b.death && b.birth < a.death;
  };
  EXPECT_FALSE(overlap(0, 1));
  EXPECT_TRUE(overlap(0, 2));
  EXPECT_TRUE(overlap(1, 2));
  for (int i = 0; i < 3; ++i) EXPECT_GE(prep.base.jobs[size_t(i)].death - prep.base.jobs[size_t(i)].birth, 2);
}

TEST(Idealloc, PlansAreValidOnRandomInstances) {
  std::mt19937_64 rng(17);
  SolveOptions o;
  o.iterations = 15;
  for (int trial = 0; trial < 300; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 1 + trial % 14;
    spec.max_size = trial % 3 == 0 ? 4000 : 8;
    spec.alignment = trial % 4 == 0;
    spec.gaps = trial % 5 == 0;
    const Problem p = testing::random_problem(rng, spec);
    o.seed = uint64_t(trial);
    const SolveResult r = solve(p, "idealloc", o);
    ASSERT_TRUE(r.solution.has_value()) << "trial " << trial;
    EXPECT_TRUE(testing::brute_force_valid(p, r.solution->offsets)) << "trial " << trial;
    EXPECT_GE(r.solution->peak, compute_load(p));
  }
}

TEST(Idealloc, PlansAreValidOnMiniMallocFiles) {
  SolveOptions o;
  o.iterations = 3;
  for (const char* name : {"A", "F", "K"}) {
    const Problem p =
        read_csv_file(testing::source_path(std::string("benchmarks/minimalloc/") + name +
                                           ".1048576.csv"))
            .problem;
    const SolveResult r = solve(p, "idealloc", o);
    ASSERT_TRUE(r.solution.has_value());
    const Validation v = validate(p, r.solution->offsets);
    EXPECT_TRUE(v.ok) << name;
    EXPECT_EQ(v.peak, r.solution->peak);
    EXPECT_NE(r.detail.find("epsilon="), std::string::npos);
    EXPECT_EQ(r.iterations, 3);
  }
}

TEST(Idealloc, SameSeedSamePlanAcrossThreadCounts) {
  // The abort bar moves only between rounds of iterations, so timing cannot decide which
  // iterations complete. Before that, `idealloc` (which re-squeezes completed plans) could
  // differ between two-thread runs of F at 300 iterations.
  for (const char* name : {"B", "F", "J"}) {
    const Problem p = read_csv_file(testing::source_path(std::string("benchmarks/minimalloc/") +
                                                         name + ".1048576.csv")).problem;
    for (const char* algo : {"idealloc", "idealloc-ff"})
      for (uint64_t seed : {1, 7}) {
        SolveOptions o;
        o.iterations = 300;
        o.seed = seed;
        o.time_limit_seconds = 0;
        o.threads = 1;
        const SolveResult a = solve(p, algo, o);
        o.threads = 2;
        const SolveResult b = solve(p, algo, o);
        const SolveResult c = solve(p, algo, o);
        ASSERT_TRUE(a.solution && b.solution && c.solution);
        EXPECT_EQ(a.solution->offsets, b.solution->offsets) << name << " " << algo << " " << seed;
        EXPECT_EQ(a.solution->offsets, c.solution->offsets) << name << " " << algo << " " << seed;
        EXPECT_EQ(a.detail, b.detail) << name << " " << algo << " " << seed;
      }
  }
}

TEST(Idealloc, EqualSizesAndNoOverlapReachLoad) {
  std::mt19937_64 rng(21);
  SolveOptions o;
  o.iterations = 1;
  for (int trial = 0; trial < 100; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 2 + trial % 30;
    spec.horizon = 20;
    Problem p = testing::random_problem(rng, spec);
    for (Buffer& b : p.buffers) b.size = 7;
    SolveResult r = solve(p, "idealloc", o);
    ASSERT_TRUE(r.solution);
    EXPECT_EQ(r.solution->peak, compute_load(p)) << "equal sizes, trial " << trial;
    EXPECT_TRUE(testing::brute_force_valid(p, r.solution->offsets));
    // Disjoint lifetimes, random sizes: everything at offset 0.
    Problem q;
    int64_t t = 0;
    std::uniform_int_distribution<int64_t> len(1, 4), size(1, 100);
    for (int i = 0; i < spec.buffers; ++i) {
      const int64_t l = len(rng);
      q.buffers.push_back(testing::make_buffer(std::to_string(i), t, t + l, size(rng)));
      t += l;
    }
    std::shuffle(q.buffers.begin(), q.buffers.end(), rng);
    r = solve(q, "idealloc", o);
    ASSERT_TRUE(r.solution);
    EXPECT_EQ(r.solution->peak, compute_load(q));
    for (int64_t off : r.solution->offsets) EXPECT_EQ(off, 0);
  }
}

TEST(Idealloc, BestFitAndRecompactionNeverLoseToFirstFitOnly) {
  // Same seed, same orders: `idealloc` keeps the lower of first-fit and best-fit per order
  // and re-squeezes, so it can never end above `idealloc-ff` (the squeeze as published).
  std::mt19937_64 rng(29);
  SolveOptions o;
  o.iterations = 30;
  for (int trial = 0; trial < 60; ++trial) {
    testing::RandomSpec spec;
    spec.buffers = 6 + trial % 25;
    spec.horizon = 30;
    spec.max_size = 5000;
    const Problem p = testing::random_problem(rng, spec);
    o.seed = uint64_t(trial);
    const SolveResult a = solve(p, "idealloc", o), b = solve(p, "idealloc-ff", o);
    ASSERT_TRUE(a.solution && b.solution);
    EXPECT_LE(a.solution->peak, b.solution->peak) << "trial " << trial;
    EXPECT_TRUE(validate(p, b.solution->offsets).ok);
  }
}

TEST(Idealloc, TimeLimitReturnsTheBestPlanSoFar) {
  const Problem p =
      read_csv_file(testing::source_path("benchmarks/minimalloc/K.1048576.csv")).problem;
  SolveOptions o;
  o.iterations = 1000000;
  o.time_limit_seconds = 0.2;
  const SolveResult r = solve(p, "idealloc", o);
  ASSERT_TRUE(r.solution);
  EXPECT_TRUE(validate(p, r.solution->offsets).ok);
  EXPECT_LT(r.iterations, o.iterations);
}

TEST(Idealloc, DeepStaircaseDoesNotOverflowTheStack) {
  // Each buffer overlaps only its neighbours: Theorem 2 recurses through many levels.
  Problem p;
  const int n = 20000;
  for (int i = 0; i < n; ++i)
    p.buffers.push_back(testing::make_buffer(std::to_string(i), i, i + 2, 1 + (i * 7919) % 5000));
  // Call the boxing directly: the solver itself may stop at the bootstrap when it reaches LOAD.
  const Prepared prep = prepare(p);
  std::vector<int64_t> heights;
  for (const Job& j : prep.base.jobs) heights.push_back(j.height);
  std::mt19937_64 rng = iteration_rng(1, 0);
  const IterationOrder io = iteration_order(prep, epsilon_search(heights), rng);
  EXPECT_GT(io.boxes, 0);
  std::vector<int32_t> sorted = io.order;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[size_t(i)], i);
}

}  // namespace
}  // namespace memplan
