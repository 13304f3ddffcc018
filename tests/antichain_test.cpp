// The max-weight antichain bound (bounds.h: antichain_bound) on the worked examples of
// ../shared/research/parallel-streams.md §7 and against brute force on random partial
// orders (stream programs and raw vector clocks), and problem_from_clocks (streams.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "memplan/bounds.h"
#include "memplan/solver.h"
#include "memplan/streams.h"
#include "memplan/timeline.h"
#include "memplan/validate.h"
#include "stream_brute.h"

namespace memplan {
namespace {

// Test-side order on clocks: a before b iff upper(a) <= lower(b) componentwise.
bool clock_before(const Problem& p, int a, int b) {
  const int S = p.clock_dim;
  for (int t = 0; t < S; ++t)
    if (p.clock_upper[a * S + t] > p.clock_lower[b * S + t]) return false;
  return true;
}
bool clock_conflict(const Problem& p, int a, int b) { return a != b && !clock_before(p, a, b) && !clock_before(p, b, a); }

// Every subset, the heaviest one that is pairwise conflicting (n <= 14).
int64_t brute_antichain(const Problem& p) {
  const int n = static_cast<int>(p.buffers.size());
  int64_t best = 0;
  for (uint32_t mask = 1; mask < (1u << n); ++mask) {
    int64_t w = 0;
    bool ok = true;
    for (int a = 0; a < n && ok; ++a)
      if (mask >> a & 1) {
        w += p.buffers[a].size;
        for (int b = a + 1; b < n && ok; ++b) ok = !(mask >> b & 1) || clock_conflict(p, a, b);
      }
    if (ok) best = std::max(best, w);
  }
  return best;
}

// The optimum under the clock relation alone (stream_brute.h). n <= 7.
int64_t brute_clock_opt(const Problem& p) {
  const int n = static_cast<int>(p.buffers.size());
  std::vector<std::vector<char>> conflict(n, std::vector<char>(n, 0));
  std::vector<int64_t> size(n);
  for (int a = 0; a < n; ++a) {
    size[a] = p.buffers[a].size;
    for (int b = 0; b < n; ++b) conflict[a][b] = clock_conflict(p, a, b);
  }
  return brute_min_peak(size, conflict);
}

void expect_is_antichain(const Problem& p, const Antichain& a) {
  int64_t w = 0;
  for (size_t x = 0; x < a.members.size(); ++x) {
    w += p.buffers[a.members[x]].size;
    for (size_t y = x + 1; y < a.members.size(); ++y) EXPECT_TRUE(clock_conflict(p, a.members[x], a.members[y]));
  }
  EXPECT_EQ(w, a.weight);
}

Problem clocks(int dim, std::vector<std::vector<int64_t>> lo, std::vector<std::vector<int64_t>> up,
               std::vector<int64_t> sizes) {
  std::vector<int64_t> l, u;
  std::vector<std::string> ids;
  for (size_t i = 0; i < sizes.size(); ++i) {
    l.insert(l.end(), lo[i].begin(), lo[i].end());
    u.insert(u.end(), up[i].begin(), up[i].end());
    ids.push_back("b" + std::to_string(i));
  }
  return problem_from_clocks(dim, l, u, sizes, ids);
}

// §7.1: x, y, u, v with the note's clocks; no pair is ordered: bound 12 = optimum, and the
// sequential plan {x:0, y:4, u:0, v:6} (x and u sharing) is rejected by the clock rule alone.
TEST(Antichain, TwoStreamsNoSyncIs12) {
  const Problem p = clocks(2, {{0, 0}, {1, 0}, {0, 0}, {0, 1}}, {{2, 0}, {3, 2}, {0, 2}, {3, 2}}, {4, 2, 4, 2});
  const auto a = antichain_bound(p);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->weight, 12);
  EXPECT_EQ(a->members, (std::vector<int32_t>{0, 1, 2, 3}));
  Problem clocks_only = p;  // no explicit conflicts and disjoint lifetimes: only rule 7 can object
  clocks_only.conflicts.clear();
  for (int i = 0; i < 4; ++i) clocks_only.buffers[i].start = 2 * i, clocks_only.buffers[i].end = 2 * i + 1;
  EXPECT_FALSE(validate(clocks_only, {0, 4, 0, 6}).ok);
  EXPECT_TRUE(validate(clocks_only, {0, 4, 6, 10}).ok);
  const SolveResult r = solve(p, "conflict-greedy", SolveOptions{});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 12);
  EXPECT_EQ(r.lower_bound, 12);
  EXPECT_EQ(r.status, Status::kOptimal);
}

// §7.2: B1 after A2: max clique {y, u, v} = 8.
TEST(Antichain, OneEventBoundIs8) {
  const Problem p = clocks(2, {{0, 0}, {1, 0}, {2, 0}, {2, 1}}, {{2, 0}, {3, 2}, {2, 2}, {3, 2}}, {4, 2, 4, 2});
  const auto a = antichain_bound(p);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->weight, 8);
  EXPECT_EQ(a->members, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(brute_clock_opt(p), 8);
}

// §7.4: 2+2 with sizes 3, 1, 1, 3: the bound (6) is above the LOAD of the sequential
// extension (3).
TEST(Antichain, TwoPlusTwoBoundIs6) {
  const Problem p = clocks(2, {{0, 0}, {1, 0}, {0, 0}, {0, 1}}, {{1, 0}, {2, 0}, {0, 1}, {0, 2}}, {3, 1, 1, 3});
  EXPECT_EQ(antichain_bound(p)->weight, 6);
  EXPECT_EQ(brute_clock_opt(p), 6);
}

// §7.5: a, c, b pairwise concurrent though no cut holds all three (cut bound 2): the
// antichain bound is 3, and the validator rejects every plan of peak 2.
TEST(Antichain, ThreeStreamsBoundAboveCutBound) {
  const Problem p = clocks(3, {{0, 0, 0}, {1, 1, 0}, {1, 0, 1}}, {{1, 1, 1}, {1, 3, 0}, {1, 0, 3}}, {1, 1, 1});
  EXPECT_EQ(antichain_bound(p)->weight, 3);
  for (int64_t x = 0; x < 2; ++x)
    for (int64_t y = 0; y < 2; ++y)
      for (int64_t z = 0; z < 2; ++z) EXPECT_FALSE(validate(p, {x, y, z}).ok);
  EXPECT_TRUE(validate(p, {0, 1, 2}).ok);
}

// §7.3: a 5-cycle given only as conflicts is not a partial order: no antichain bound (the
// greedy clique, 2, is the sound fallback; the optimum is 3).
TEST(Antichain, ArbitraryConflictGraphFallsBackToClique) {
  Problem p;
  for (int i = 0; i < 5; ++i) {
    Buffer b;
    b.id = "c" + std::to_string(i), b.start = i, b.end = i + 1, b.size = 1;
    p.buffers.push_back(b);
  }
  for (int i = 0; i < 5; ++i) p.conflicts.emplace_back(i, (i + 1) % 5);
  EXPECT_FALSE(antichain_bound(p));
  ConflictGraph g;
  ASSERT_TRUE(conflict_graph(p, g, 1000));
  EXPECT_EQ(greedy_clique_bound(g, {1, 1, 1, 1, 1}), 2);
  const SolveResult r = solve(p, "conflict-greedy", SolveOptions{});
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->peak, 3);
  EXPECT_LE(r.lower_bound, 3);
}

// For one chain of clocks (S = 1, scalar intervals) the antichain is the classic LOAD.
TEST(Antichain, OneComponentIsLoad) {
  std::mt19937 rng(3);
  for (int round = 0; round < 50; ++round) {
    const int n = 1 + static_cast<int>(rng() % 30);
    std::vector<int64_t> lo, up, sizes;
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) {
      lo.push_back(rng() % 20);
      up.push_back(lo.back() + 1 + rng() % 8);
      sizes.push_back(1 + rng() % 9);
      ids.push_back("b" + std::to_string(i));
    }
    const Problem p = problem_from_clocks(1, lo, up, sizes, ids);
    EXPECT_TRUE(p.conflicts.empty());
    EXPECT_EQ(antichain_bound(p)->weight, compute_load(p)) << round;
  }
}

// Random stream programs (2-4 streams): the bound equals the brute-force max-weight
// antichain under the brute-force happens-before (explicit transitive closure), is an
// antichain, and is at most the brute-force optimum.
TEST(Antichain, RandomStreamProgramsMatchBruteForce) {
  std::mt19937 rng(11);
  int checked = 0;
  for (int round = 0; round < 400; ++round) {
    const int S = 2 + static_cast<int>(rng() % 3), n = 2 + static_cast<int>(rng() % 10);
    const std::vector<StreamBuffer> prog = random_program(rng, S, n);
    std::vector<int64_t> sizes(n);
    for (auto& s : sizes) s = 1 + static_cast<int64_t>(rng() % 6);
    const BruteOrder brute = brute_order(prog, S);
    if (brute.cyclic) {
      EXPECT_THROW(problem_from_streams(prog, sizes, S), std::invalid_argument) << round;
      continue;
    }
    const Problem p = problem_from_streams(prog, sizes, S);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) ASSERT_EQ(clock_conflict(p, a, b), brute.conflict[a][b] != 0) << round;
    const auto bound = antichain_bound(p);
    ASSERT_TRUE(bound);
    EXPECT_TRUE(bound->exact);
    expect_is_antichain(p, *bound);
    EXPECT_EQ(bound->weight, brute_antichain(p)) << round;
    if (n <= 7) EXPECT_LE(bound->weight, brute_clock_opt(p)) << round;
    ++checked;
  }
  EXPECT_GT(checked, 120);  // the rest are cyclic (checked to throw)
}

// Random raw clocks (not from a program, so the chains of lower clocks are arbitrary).
TEST(Antichain, RandomClocksMatchBruteForce) {
  std::mt19937 rng(17);
  for (int round = 0; round < 300; ++round) {
    const int S = 1 + static_cast<int>(rng() % 4), n = 1 + static_cast<int>(rng() % 12);
    std::vector<int64_t> lo, up, sizes;
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) {
      for (int t = 0; t < S; ++t) lo.push_back(rng() % 4);
      for (int t = 0; t < S; ++t) up.push_back(lo[i * S + t] + (t == 0 ? 1 : 0) + rng() % 3);
      sizes.push_back(1 + rng() % 6);
      ids.push_back("b" + std::to_string(i));
    }
    const Problem p = problem_from_clocks(S, lo, up, sizes, ids);
    const auto bound = antichain_bound(p);
    ASSERT_TRUE(bound);
    expect_is_antichain(p, *bound);
    EXPECT_EQ(bound->weight, brute_antichain(p)) << round;
    // The lowered relation (overlap + explicit conflicts) is exactly the clock relation.
    ConflictGraph g;
    ASSERT_TRUE(conflict_graph(p, g, 1000));
    for (int a = 0; a < n; ++a) {
      std::vector<int32_t> want;
      for (int b = 0; b < n; ++b)
        if (clock_conflict(p, a, b)) want.push_back(b);
      EXPECT_EQ(std::vector<int32_t>(g.adj.begin() + g.begin[a], g.adj.begin() + g.begin[a + 1]), want) << round;
    }
    if (n <= 7) EXPECT_LE(bound->weight, brute_clock_opt(p)) << round;
  }
}

// Stopped before any augmentation, the result is still a true antichain (sound), only
// maybe lighter.
TEST(Antichain, StoppedEarlyIsStillAnAntichain) {
  std::mt19937 rng(23);
  for (int round = 0; round < 100; ++round) {
    const int S = 3, n = 10;
    const std::vector<StreamBuffer> prog = random_program(rng, S, n);
    std::vector<int64_t> sizes(n, 1);
    if (brute_order(prog, S).cyclic) continue;
    const Problem p = problem_from_streams(prog, sizes, S);
    const auto stopped = antichain_bound(p, [] { return true; });
    ASSERT_TRUE(stopped);
    EXPECT_FALSE(stopped->exact);
    expect_is_antichain(p, *stopped);
    EXPECT_LE(stopped->weight, antichain_bound(p)->weight);
  }
}

// Stopped after 1, 2, 3 or 5 phases of the flow (each phase's search stops at the sink's
// level), the set read from the residual graph is still an antichain, never heavier than the
// heaviest: the reach returned on a stop is the whole of it, not the truncated phase search.
TEST(Antichain, StoppedAfterSomePhasesIsStillAnAntichain) {
  std::mt19937 rng(31);
  int stopped_runs = 0;
  for (int round = 0; round < 40; ++round) {
    // Streams of 30 buffers each with overlapping lifetimes and a few synchronizations
    // (as GeneratedProgramBoundIsAntichain, smaller): flows of several phases.
    const int S = 3, per = 30, n = S * per;
    std::vector<StreamBuffer> prog;
    for (int st = 0; st < S; ++st)
      for (int k = 0; k < per; ++k) {
        StreamBuffer b;
        b.stream = st, b.lower = k, b.upper = k + 1 + static_cast<int64_t>(rng() % 5);
        if (st > 0 && rng() % 6 == 0) b.after.push_back(static_cast<int32_t>((st - 1) * per + rng() % per));
        prog.push_back(b);
      }
    if (brute_order(prog, S).cyclic) continue;
    std::vector<int64_t> sizes(n);
    for (auto& x : sizes) x = 1 + static_cast<int64_t>(rng() % 50);
    const Problem p = problem_from_streams(prog, sizes, S);
    const auto full = antichain_bound(p);
    ASSERT_TRUE(full);
    for (int after : {1, 2, 3, 5}) {
      int calls = 0;
      const auto a = antichain_bound(p, [&] { return ++calls > after; });
      ASSERT_TRUE(a);
      stopped_runs += !a->exact;
      expect_is_antichain(p, *a);
      EXPECT_LE(a->weight, full->weight);
      if (a->exact) EXPECT_EQ(a->weight, full->weight);
    }
  }
  EXPECT_GT(stopped_runs, 20);  // the stops happened (not every flow ends within 5 phases)
}

// The generated family at scale: the bound is an antichain, at least the linear LOAD.
TEST(Antichain, GeneratedProgramBoundIsAntichain) {
  std::mt19937 rng(29);
  std::vector<StreamBuffer> prog;
  const int S = 4, per = 500;
  for (int s = 0; s < S; ++s)
    for (int k = 0; k < per; ++k) {
      StreamBuffer b;
      b.stream = s, b.lower = k, b.upper = k + 1 + static_cast<int64_t>(rng() % 4);
      if (k % 16 == 15 && s > 0) b.after.push_back(static_cast<int32_t>((s - 1) * per + k - 10));
      prog.push_back(b);
    }
  std::vector<int64_t> sizes(prog.size());
  for (auto& x : sizes) x = 1 + static_cast<int64_t>(rng() % 100);
  const Problem p = problem_from_streams(prog, sizes, S);
  const auto a = antichain_bound(p);
  ASSERT_TRUE(a);
  EXPECT_GE(a->weight, compute_load(p));
  // Spot-check the antichain against the clocks (all pairs: at most a few hundred members).
  expect_is_antichain(p, *a);
}

TEST(Antichain, BadClocksAreRejected) {
  const std::vector<std::string> ids = {"a", "b"};
  EXPECT_THROW(problem_from_clocks(2, {0, 0, 1, 0}, {1, 0, 1, 0}, {1, 1}, ids), std::invalid_argument);  // b empty
  EXPECT_THROW(problem_from_clocks(2, {0, 0, 1, 1}, {1, 0, 2, 0}, {1, 1}, ids), std::invalid_argument);  // lo > up
  EXPECT_THROW(problem_from_clocks(2, {0, 0, 1}, {1, 0, 2, 0}, {1, 1}, ids), std::invalid_argument);     // length
}

}  // namespace
}  // namespace memplan
